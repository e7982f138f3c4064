// SPDX-License-Identifier: GPL-2.0
/*
 * Comparisons between runs: the series x topology matrix against
 * expected verdicts (make prove), a series against its baseline (what it
 * newly broke), bisection over a series' prefixes, and pass rates over
 * repeated runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "results.h"

/* The matrix: one row per topology, one column per series. */
void report_matrix(struct series_report *sr, int ns, int nt,
		   const struct expect *e, int *met, int *unmet)
{
	char why[160], cell[64];
	int s, t, w = 18;

	/* The first column as wide as the longest topology name. */
	for (t = 0; t < nt; t++)
		if ((int)strlen(sr[0].res[t].name) > w)
			w = strlen(sr[0].res[t].name);
	printf("\n%-*s", w, "topology");
	for (s = 0; s < ns; s++)
		printf(" | %-26s", sr[s].name);
	printf("\n");
	for (t = 0; t < nt; t++) {
		printf("%-*s", w, sr[0].res[t].name);
		for (s = 0; s < ns; s++) {
			const struct expect_rule *r = e->n ?
				expect_find(e, sr[s].name, sr[s].res[t].name) : NULL;
			bool ok = r && expect_met(r, &sr[s].res[t], why, sizeof(why));

			snprintf(cell, sizeof(cell), "%s%s", sr[s].res[t].verdict,
				 !e->n ? "" : !r ? " (no rule)" : ok ? " (expected)" : " (UNEXPECTED)");
			printf(" | %-26s", cell);
			if (!e->n)
				continue;
			if (ok)
				(*met)++;
			else
				(*unmet)++;
		}
		printf("\n");
	}
}

void report_unmet(struct series_report *sr, int ns, int nt,
		  const struct expect *e)
{
	char why[160];
	int s, t;

	for (s = 0; s < ns; s++)
		for (t = 0; t < nt; t++) {
			const struct expect_rule *r =
				expect_find(e, sr[s].name, sr[s].res[t].name);

			if (!r)
				printf("UNEXPECTED: %s on %s: %s has no rule for it\n",
				       sr[s].res[t].name, sr[s].name, e->path);
			else if (!expect_met(r, &sr[s].res[t], why, sizeof(why)))
				printf("UNEXPECTED: %s on %s: %s\n",
				       sr[s].res[t].name, sr[s].name, why);
		}
}

/* A pre-merge verdict: what the series changed against the baseline. */
int report_baseline(struct series_report *base, struct series_report *ser)
{
	int t, j, fresh = 0, fixed = 0, same = 0;

	printf("\nbaseline %s -> series %s:\n", base->name, ser->name);
	for (t = 0; t < ser->ntopo && t < base->ntopo; t++) {
		struct topo_result *b = &base->res[t], *r = &ser->res[t];

		for (j = 0; j < r->ntests; j++) {
			struct test_result *bt = result_find(b, r->tests[j].name);
			bool was = bt && bt->result == KTAP_FAIL;
			bool is = r->tests[j].result == KTAP_FAIL;

			if (is && !was) {
				printf("  NEW FAILURE      %s / %s\n", r->name,
				       r->tests[j].name);
				fresh++;
			} else if (is) {
				printf("  still failing    %s / %s\n", r->name,
				       r->tests[j].name);
				same++;
			}
		}
		for (j = 0; j < b->ntests; j++) {
			struct test_result *rt = result_find(r, b->tests[j].name);

			if (b->tests[j].result == KTAP_FAIL &&
			    (!rt || rt->result != KTAP_FAIL)) {
				printf("  fixed            %s / %s\n", r->name,
				       b->tests[j].name);
				fixed++;
			}
		}
	}
	printf("baseline: %d new failures, %d fixed, %d unchanged failures\n",
	       fresh, fixed, same);
	return fresh;
}

static bool series_failed(struct series_report *sr)
{
	int i;

	for (i = 0; i < sr->ntopo; i++)
		if (sr->res[i].nfailed)
			return true;
	return false;
}

static void print_first_failure(struct series_report *sr)
{
	int i, j;

	for (i = 0; i < sr->ntopo; i++)
		for (j = 0; j < sr->res[i].ntests; j++)
			if (sr->res[i].tests[j].result == KTAP_FAIL) {
				print_failure(&sr->res[i], &sr->res[i].tests[j]);
				return;
			}
}

/*
 * git-bisect over the series' prefixes: prefix 0 (no patch) must pass and
 * the whole series must fail; then halve until the first failing prefix.
 */
int bisect(struct ctx *c, const char *path)
{
	struct series_report *runs;
	char **names, err[512], *label;
	struct strbuf kd = { 0 };
	int n, good = 0, bad, mid, i;

	if (series_read(path, c->ksrc.series, -1, &names, &n, &kd, err,
			sizeof(err)))
		die("%s", err);
	runs = xcalloc(n + 1, sizeof(*runs));
	bad = n;
	for (i = 0; i < 2; i++) {
		int p = i ? n : 0;

		label = xasprintf("%s@%d", base_name(path), p);
		printf("bisect: prefix %d of %d (%s)\n", p, n,
		       p ? names[p - 1] : "no patches");
		if (!run_series(c, path, p, label, &runs[p]))
			return -1;
		if (series_failed(&runs[p]) != (p == n)) {
			printf("bisect: %s %s: nothing to bisect\n", label,
			       p ? "passes" : "already fails");
			return -1;
		}
	}
	while (bad - good > 1) {
		mid = (good + bad) / 2;
		label = xasprintf("%s@%d", base_name(path), mid);
		printf("bisect: %d patches left, trying prefix %d (%s)\n",
		       bad - good - 1, mid, names[mid - 1]);
		if (!run_series(c, path, mid, label, &runs[mid]))
			return -1;
		if (series_failed(&runs[mid]))
			bad = mid;
		else
			good = mid;
	}
	printf("\nbisect: first failing patch: %s (%d of %d in %s)\n",
	       names[bad - 1], bad, n, path);
	print_first_failure(&runs[bad]);
	return bad;
}

/* --repeat: per topology and test, how often it passed. */
void report_rates(struct series_report *sr, int nrep, int nt)
{
	int t, j, r;

	printf("\npass rates over %d runs:\n", nrep);
	for (t = 0; t < nt; t++) {
		struct topo_result *first = &sr[0].res[t];

		for (j = 0; j < first->ntests; j++) {
			int pass = 0, runs = 0;

			for (r = 0; r < nrep; r++) {
				struct test_result *x;

				if (t >= sr[r].ntopo)
					continue;
				x = result_find(&sr[r].res[t], first->tests[j].name);
				runs += x != NULL;
				pass += x && x->result != KTAP_FAIL;
			}
			printf("  %-18s %-28s %3d/%-3d %s\n", first->name,
			       first->tests[j].name, pass, runs,
			       pass == runs ? "" : pass ? "FLAKY" : "FAILS");
		}
	}
}
