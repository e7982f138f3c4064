/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_RESULTS_H
#define HOST_RESULTS_H

#include "cli.h"
#include "result.h"

void print_failure(const struct topo_result *r, const struct test_result *t);
/* Every failed test, with its detail. */
void report_failures(struct topo_result *res, int n);
/* One line per topology; adds up its tests into passed and failed. */
void report_verdicts(const char *series, struct topo_result *res, int n,
		     int *passed, int *failed);
/* report.json and junit.xml in results, and where --json/--junit say. */
void write_reports(const struct options *o, struct run_report *rr,
		   const char *results);
/* --tap: the whole run as one KTAP document, a subtest per topology. */
void report_tap(struct run_report *rr);
long long peak_child_rss(void);

/* What the run's verdict is made of. */
struct verdict_in {
	int tests_passed, tests_failed;	/* over every series */
	bool expect;			/* --expect: count expectations */
	int met, unmet;
	bool baseline;			/* --baseline: new failures only */
	int new_failures;
	bool bisect;			/* --bisect: found a first bad patch */
	int first_bad;
	int never_executed;		/* with require_coverage */
	bool require_coverage;
	bool interrupted;
};

/*
 * The run's one verdict: what "N passed, N failed" counts (tests; or
 * expectations met and unmet with --expect; or, with --baseline, new
 * failures only; or whether --bisect found the first bad patch), plus a
 * failure for changed functions never executed under --require-coverage
 * and one for an interrupted run.  Sets rr->passed and rr->failed,
 * prints why it added a failure, returns the exit status.
 */
int run_verdict(struct run_report *rr, const struct verdict_in *in);

#endif
