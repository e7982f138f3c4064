/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_REPORT_H
#define HOST_REPORT_H

#include "coverage.h"
#include "kbuild.h"
#include "run.h"

/* Everything one runner invocation found, for the machine-readable reports. */
struct series_report {
	char *name, *path, *kernel_key;
	struct cov *cov;
	int ntopo;
	struct topo_result *res;
};

struct run_report {
	char *id;
	unsigned long long seed;
	const char *accel;
	bool complete;		/* false: interrupted, results partial */
	int passed, failed;
	long long peak_rss_kib;	/* largest child (QEMU, make, cc1) */
	int nseries;
	struct series_report *series;
};

/* JSON (json-c) and JUnit XML (libxml2); both written atomically. */
int report_json(const struct run_report *r, const char *path);
int report_junit(const struct run_report *r, const char *path);
/* One topology's result to a file and back (--jobs workers use it). */
int topo_result_save(const struct topo_result *r, const char *path);
int topo_result_load(const char *path, struct topo_result *r);

#endif
