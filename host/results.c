// SPDX-License-Identifier: GPL-2.0
/*
 * The run's results on the console and on disk, and its one verdict:
 * run_verdict() alone decides what "N passed, N failed" counts and the
 * exit status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kcidb.h"
#include "report.h"
#include "results.h"

void print_failure(const struct topo_result *r, const struct test_result *t)
{
	char *copy = xstrdup(t->detail), *line, *save;
	int n = 0;

	printf("--- %s / %s: %s\n", r->name, t->name,
	       t->result == KTAP_FAIL ? "FAILED" : "skipped");
	for (line = strtok_r(copy, "\n", &save); line && n < 60;
	     line = strtok_r(NULL, "\n", &save), n++)
		printf("    %s\n", line);
	free(copy);
}

void report_failures(struct topo_result *res, int n)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < res[i].ntests; j++)
			if (res[i].tests[j].result == KTAP_FAIL)
				print_failure(&res[i], &res[i].tests[j]);
}

void report_verdicts(const char *series, struct topo_result *res, int n,
		     int *passed, int *failed)
{
	int i;

	for (i = 0; i < n; i++) {
		printf("%-26s %-18s %-11s %3d passed %3d failed %3d skipped %6.1fs wall, init at %.2fs uptime, first KTAP at %.2fs wall\n",
		       series, res[i].name, res[i].verdict, res[i].npassed,
		       res[i].nfailed, res[i].nskipped, res[i].wall,
		       res[i].uptime, res[i].first_ktap);
		*passed += res[i].npassed;
		*failed += res[i].nfailed;
	}
}

void write_reports(const struct options *o, struct run_report *rr,
		   const char *results)
{
	char *j = xasprintf("%s/report.json", results);
	char *x = xasprintf("%s/junit.xml", results);

	if (mkdir_p(results) || report_json(rr, j) || report_junit(rr, x))
		warnx_("cannot write the reports in %s", results);
	if (o->json && report_json(rr, o->json))
		die("cannot write %s: %s", o->json, strerror(errno));
	if (o->junit && report_junit(rr, o->junit))
		die("cannot write %s: %s", o->junit, strerror(errno));
	if (o->kcidb && report_kcidb(rr, o->kcidb))
		die("cannot write %s: %s", o->kcidb, strerror(errno));
	free(j);
	free(x);
}

long long peak_child_rss(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_CHILDREN, &ru) ? -1 : ru.ru_maxrss;
}

/* --tap: the whole run as one KTAP document, a subtest per topology. */
void report_tap(struct run_report *rr)
{
	int s, t, j, n = 0, total = 0;

	for (s = 0; s < rr->nseries; s++)
		total += rr->series[s].ntopo;
	printf("KTAP version 1\n");
	if (rr->kernel)
		printf("# kernel: %s\n", rr->kernel->version);
	printf("1..%d\n", total);
	for (s = 0; s < rr->nseries; s++)
		for (t = 0; t < rr->series[s].ntopo; t++) {
			struct topo_result *r = &rr->series[s].res[t];

			printf("    KTAP version 1\n    1..%d\n", r->ntests);
			for (j = 0; j < r->ntests; j++)
				printf("    %sok %d %s%s\n",
				       r->tests[j].result == KTAP_FAIL ? "not " : "",
				       j + 1, r->tests[j].name,
				       r->tests[j].result == KTAP_SKIP ? " # SKIP" : "");
			printf("%sok %d %s/%s\n", r->nfailed ? "not " : "", ++n,
			       rr->series[s].name, r->name);
		}
}

int run_verdict(struct run_report *rr, const struct verdict_in *in)
{
	int passed = in->tests_passed, failed = in->tests_failed;

	if (in->bisect) {
		passed = in->first_bad > 0;
		failed = !passed;
	} else if (in->expect && !in->interrupted) {
		passed = in->met;
		failed = in->unmet;
	} else if (in->baseline && !in->interrupted) {
		failed = in->new_failures;
		passed = !failed;
	}
	if (in->require_coverage && in->never_executed) {
		printf("runner: --require-coverage: %d changed functions never executed\n",
		       in->never_executed);
		failed++;
	}
	if (in->interrupted) {
		printf("runner: interrupted: this report is incomplete\n");
		failed++;
	}
	rr->passed = passed;
	rr->failed = failed;
	rr->complete = !in->interrupted;
	return failed ? 1 : 0;
}
