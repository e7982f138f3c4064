/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_RUN_H
#define HOST_RUN_H

#include <stdbool.h>
#include "kbuild.h"
#include "result.h"
#include "topo.h"

struct run_opts {
	const char *build;	/* build folder */
	const char *tmp;	/* disk images and initrds, removed after use */
	const char *initramfs;	/* the cached base archive */
	const char *results;	/* this run's results folder */
	const char *accel;
	const char *kargs;	/* appended to the guest command line */
	unsigned long long seed;
	int timeout;		/* 0: the topology's own */
	int time_scale;		/* the profile's slowdown: topology timeouts x N */
	long long memory_extra;	/* the profile's own: added to each guest's RAM */
	const char *explore_trace;	/* a walk's steps: /etc/explore.trace */
	bool keep;
	bool verbose;
	int ntrace;		/* functions whose calls the guest counts */
	char **trace;
	int nextra;		/* more to count (--mutate: whole files) */
	char **extra;
};

/*
 * A guest's file in the results folder: DIR/NAME.EXT for a single guest,
 * DIR/NAME-nodeN.EXT for node n of two ("console", ".log").
 */
char *node_file(const char *dir, const char *name, const char *ext,
		int nodes, int n);

/* Boot one topology's guest on kernel k and collect its verdict. */
void run_topology(const struct topology *t, const struct kernel *k,
		  const struct run_opts *o, struct topo_result *res);

/* "kvm" only when a probe guest under KVM proves fast, else "tcg". */
const char *probe_accel(const struct kernel *k, const struct run_opts *o);

#endif
