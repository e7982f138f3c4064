/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run found, as every part of the host sees it: per test (with
 * its steps, the nested KTAP subtests), per topology, per series, per
 * run.  The verdicts that decide them are in verdict.c.
 */
#ifndef HOST_RESULT_H
#define HOST_RESULT_H

#include <stdbool.h>
#include "coverage.h"
#include "ksource.h"
#include "ktap.h"

struct cov_hit {
	char name[64];
	long long hits;		/* -1: the kernel cannot trace it */
};

struct test_result {
	char *name;
	enum ktap_result result;
	double duration;	/* seconds, -1 unknown */
	char *detail;		/* its diagnostics and its steps' lines */
	char *directive;	/* "SKIP why", or NULL */
	int nsub;
	struct test_result *sub;	/* its steps */
};

struct topo_result {
	char *name;
	char *verdict;		/* PASS, FAIL, SKIP, TIMEOUT, CRASH, INTERRUPTED */
	int npassed, nfailed, nskipped;
	int ntests;
	struct test_result *tests;
	double wall, uptime;
	double first_ktap;	/* QEMU start to PID 1's first KTAP line */
	char *dir;
	char *run;		/* the run it came from, when merged (--merge) */
	int nodes;		/* guests: 1, or 2 (DRBD) */
	int ncov;
	struct cov_hit *cov;
};

struct series_report {
	char *name, *path, *kernel_key;
	struct cov *cov;
	int ntopo;
	struct topo_result *res;
};

struct run_report {
	char *id;
	const struct ksource *kernel;	/* what --kernel named */
	const char *profile;	/* "default" or "debug" (--debug) */
	unsigned long long seed;
	const char *accel;
	bool complete;		/* false: interrupted, results partial */
	int shard_k, shard_n;	/* --shard K/N; 0/0: not a shard */
	int passed, failed;
	long long peak_rss_kib;	/* largest child (QEMU, make, cc1) */
	int nseries;
	struct series_report *series;
};

/* Append a test (its steps copied from a KTAP tree, if any) to r. */
struct test_result *result_add(struct topo_result *r, const char *name,
			       enum ktap_result res, double dur,
			       const char *detail);
/* Copy a KTAP subtree into t's steps. */
void result_steps_from_ktap(struct test_result *t,
			    const struct ktap_test *k);
/* The test named name in r, NULL if none. */
struct test_result *result_find(struct topo_result *r, const char *name);

#endif
