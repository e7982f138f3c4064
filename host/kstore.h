/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_KSTORE_H
#define HOST_KSTORE_H

#include <stdbool.h>

/*
 * The kernel store: finished kernel folders kept by build key outside any
 * one build folder (~/.cache/stacktest/kernels, or STACKTEST_KERNEL_STORE:
 * an absolute path, or empty for none), so a fresh clone on the same machine takes a kernel another
 * built instead of building it again.  Folders are hard-linked both ways
 * (the store must be on the build folder's file system) and never
 * written after their build.
 */

/* The store's folder, or NULL when there is none. */
const char *kstore_dir(void);
/*
 * Key's kernel from the store into dir (created and locked by the
 * caller, not yet built); true when it was there and is now in dir.
 */
bool kstore_fetch(const char *key, const char *dir, const char *log);
/*
 * Dir's finished kernel (just built, or used) into the store, if it was
 * built by what builds now and is not there yet; marked used if it is.
 */
void kstore_put(const char *key, const char *dir, const char *log);
/* Dir/toolchain: what builds now (kstore.c), at a build; 0 or -1. */
int kstore_write_toolchain(const char *dir);
/*
 * Remove what a fetch into dir may have linked (a fetch cut short leaves
 * dir/tree without dir/ok), so nothing is built through the store's links.
 */
void kstore_clear(const char *dir);

#endif
