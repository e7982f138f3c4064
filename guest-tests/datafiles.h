/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seeded data files next to what a test exercises (a swap file): written
 * and fsynced before, read back and compared after.  The DRBD peer reads
 * the same files on its copy of the filesystem.
 */
#ifndef GUEST_DATAFILES_H
#define GUEST_DATAFILES_H

#include <stdint.h>

#define DATAFILES_N 16
#define DATAFILES_SIZE (2LL << 20)
#define DATAFILES_DIR "swapfile-integrity"

/* Write DATAFILES_N files into MNT/DATAFILES_DIR; 0 on success. */
int datafiles_write(const char *mnt, uint64_t seed);
/* How many files are missing or differ (each one named as a KTAP diag). */
int datafiles_verify(const char *mnt, uint64_t seed);

/* The read-only checker for a filesystem type: "e2fsck -fn", ... */
const char *fs_checker(const char *fstype);
/* Run it on dev; 0 when clean, else its output's head as KTAP diags. */
int fs_check(const char *dev, const char *fstype);

#endif
