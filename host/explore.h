/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_EXPLORE_H
#define HOST_EXPLORE_H

#include "sched.h"

/* --replay TRACE: its topology and seed into o (before topologies load). */
void explore_options(struct options *o);
/* --explore/--replay: each topology's tests become the walk. */
void explore_prepare(struct ctx *c);
/* After a topology's walk: its trace kept, a failing one shrunk. */
void explore_after(struct ctx *c, const struct kernel *k,
		   const struct topology *topo, const struct topo_result *r);

#endif
