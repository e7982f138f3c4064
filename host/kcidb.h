/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_KCIDB_H
#define HOST_KCIDB_H

#include "result.h"

/* The KCIDB I/O schema version written (kcidb-io's LATEST). */
#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3

/* The run as a KCIDB submission at path, written atomically; 0 or -1. */
int report_kcidb(const struct run_report *r, const char *path);

#endif
