/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_CLI_H
#define HOST_CLI_H

#include <stdbool.h>

/* The runner's command line. */
struct options {
	char *root, *build, *series, *topologies, *accel, *expect;
	char *json, *junit, *kcidb, *fragment, *kargs, *kernel;
	unsigned long long seed;
	int timeout, jobs;
	bool all, list, layers, keep, verbose, require_coverage;
	bool changed_functions, bisect, tap, build_only, debug, merge;
	char *baseline;
	/* --build-only --artifact DIR; --kernel-artifact DIR */
	char *artifact, *kernel_artifact;
	int shard_k, shard_n, repeat;
	/* --explore SEED, --guided, --steps, --time, --replay TRACE, --shrink-runs */
	bool explore, guided;
	unsigned long long explore_seed;
	int explore_steps, explore_time, shrink_runs;
	char *replay;
	/* --mutate [--mutate-max N | --mutate-only ID,...] */
	bool mutate;
	int mutate_max;
	char *mutate_only;
};

/* Parse argv into o (defaults already set); exits on bad usage. */
void parse_args(int argc, char **argv, struct options *o);
/* The topology files chosen (--topology, --all, --shard), in order. */
char **selected_topologies(const struct options *o, int *n);
/* --series A,B: absolute series folders; default patches/base. */
char **series_list(const struct options *o, int *n);
char *abs_path(const char *p);
char *base_name(const char *path);

#endif
