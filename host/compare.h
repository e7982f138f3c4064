/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_COMPARE_H
#define HOST_COMPARE_H

#include "expect.h"
#include "sched.h"

/* The topology x series matrix; with rules, counts them met and unmet. */
void report_matrix(struct series_report *sr, int ns, int nt,
		   const struct expect *e, int *met, int *unmet);
/* Each expectation not met, and why. */
void report_unmet(struct series_report *sr, int ns, int nt,
		  const struct expect *e);
/* What the series changed against the baseline; returns new failures. */
int report_baseline(struct series_report *base, struct series_report *ser);
/*
 * git-bisect over the series' prefixes: prefix 0 must pass and the whole
 * series fail; returns the first failing prefix, or -1.
 */
int bisect(struct ctx *c, const char *path);
/* --repeat: per topology and test, how often it passed. */
void report_rates(struct series_report *sr, int nrep, int nt);

#endif
