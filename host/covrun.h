/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_COVRUN_H
#define HOST_COVRUN_H

#include "coverage.h"
#include "kbuild.h"
#include "result.h"
#include "run.h"
#include "topo.h"

/*
 * The functions a series (its first prefix patches; -1: all) changed,
 * mapped in kernel k's tree, or its committed coverage.list; their names
 * go to ro->trace for the guests to count.
 */
void cov_series(const char *series, int prefix, const struct kernel *k,
		struct cov *c, struct run_opts *ro);
/* Add what a topology's guests counted. */
void cov_add_hits(struct cov *c, struct topo_result *r);
/* Print the table; returns how many traceable functions never ran. */
int cov_report(const char *series, struct cov *c);
/*
 * Each topology's own trace names (its [tests] trace = lines) with the
 * calls its guests counted; res[i] is topology t[i]'s result.
 */
void paths_report(const char *series, const struct topology *t, int n,
		  const struct topo_result *res);
/* --changed-functions: the functions the patches change. */
int cov_print_changed(const char *src, int n, char **patches);

#endif
