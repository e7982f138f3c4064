/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_SCHED_H
#define HOST_SCHED_H

#include "artifact.h"
#include "cli.h"
#include "kbuild.h"
#include "result.h"
#include "run.h"

/* One runner invocation: its options and the topologies it runs. */
struct ctx {
	struct options o;
	struct ksource ksrc;
	struct artifact *art;	/* --kernel-artifact, else NULL */
	struct kbuild_opts ko;
	struct run_opts ro;
	struct topology *topo;
	int n;
	char *results;
};

/*
 * Build the kernel for a series (or its first prefix patches; -1: all),
 * then run every topology on it into sr, labelled label in the results
 * folder.  Returns false when interrupted.
 */
bool run_series(struct ctx *c, const char *path, int prefix,
		const char *label, struct series_report *sr);

#endif
