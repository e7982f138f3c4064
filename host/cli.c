// SPDX-License-Identifier: GPL-2.0
/* The runner's command line: options, the topologies and series chosen. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"

static void usage(FILE *f)
{
	fputs("usage: runner [--topology NAME[,NAME...] | --all | --list]\n"
	      "              [--series DIR[,DIR...]] [--expect FILE]\n"
	      "              [--seed N] [--timeout SECONDS]\n"
	      "              [--accel auto|tcg|kvm] [--keep] [--verbose]\n"
	      "              [--require-coverage] [--json FILE] [--junit FILE]\n"
	      "              [--kcidb FILE]\n"
	      "              [--baseline [DIR]] [--bisect] [--config-fragment FILE]\n"
	      "              [--shard K/N] [--repeat N] [--tap]\n"
	      "              [--build-only [--artifact DIR]] [--kernel-artifact DIR]\n"
	      "              [--jobs N] [--kernel-args ARGS] [--layers]\n"
	      "              [--kernel linux-source-X.Y|PATH] [--debug]\n"
	      "              [--explore SEED [--steps N | --time S]] [--replay TRACE]\n"
	      "              [--mutate [--mutate-max N | --mutate-only ID,...]]\n"
	      "\n"
	      "Builds the kernel (default linux-source-6.1) with the patch series\n"
	      "in DIR (default patches/base), boots each topology in QEMU and runs\n"
	      "its tests.\n"
	      "  --kernel    a Debian linux-source-X.Y package (installed when\n"
	      "              missing) or a kernel tree, git or unpacked; a tree is\n"
	      "              only read: the series goes onto a hard-linked copy\n"
	      "  --topology  names in topologies/ (or .ini paths), comma-separated\n"
	      "  --series    several: run each, print a topology x series matrix\n"
	      "  --expect    expected verdicts per series and topology; the\n"
	      "              result counts the expectations met\n"
	      "  --all       every topology;  --list  list them with descriptions\n"
	      "  --layers    the layer kinds: options, tools, disks, swap pressure\n"
	      "  --seed      seed of every guest data pattern (default 1)\n"
	      "  --timeout   host-side limit per guest (default: the topology's)\n"
	      "  --accel     auto: KVM only if a probe guest proves it fast\n"
	      "  --keep      keep the disk images of each run\n"
	      "  --require-coverage  fail if a traceable function the series\n"
	      "              changed was never executed\n"
	      "  --verbose   echo the guest's KTAP lines as they arrive\n"
	      "  --baseline  run DIR (default patches/base) too and report only\n"
	      "              what the series changed: new, fixed, unchanged failures\n"
	      "  --config-fragment  merged after config/ (every option must take)\n"
	      "  --debug     the debug kernel (config/profiles/debug.config: KASAN,\n"
	      "              KFENCE, lockdep, fault injection), timeouts scaled\n"
	      "  --explore SEED  instead of the tests, a seeded random walk of I/O\n"
	      "              and layer operations checked against an exact model;\n"
	      "              --steps N (default 40) or --time S bound it; a failing\n"
	      "              walk is shrunk (--shrink-runs N guest runs, default 16);\n"
	      "              --guided: draw more of what first ran a traced function\n"
	      "  --replay TRACE  run a walk's trace again (its topology and seed)\n"
	      "  --mutate    would the tests notice the series' code wrong?  Each\n"
	      "              mutant (one changed line the series added) is built and\n"
	      "              run on the topologies that executed its function:\n"
	      "              killed, survived or timeout; --mutate-max N: a seeded N\n"
	      "              of them; --mutate-only ID,...: those mutants; with\n"
	      "              --list: list the mutants, run nothing\n"
	      "  --kernel-args  appended to every guest's kernel command line\n"
	      "  --shard K/N a stable 1/N of the selected topologies (CI workers)\n"
	      "  --repeat N  run each topology N times; per-test pass rates\n"
	      "  --jobs N    guests at once (default: the number of cores), never\n"
	      "              more than the host's available memory holds\n"
	      "  --build-only  build (or find cached) the kernels and stop;\n"
	      "              --artifact DIR: also write the one series' kernel\n"
	      "              there with its initramfs, System.map and changed\n"
	      "              functions, each file's SHA-256 in artifact.json\n"
	      "  --kernel-artifact DIR  run on that kernel (its series and profile)\n"
	      "              without building one or reading the kernel source\n"
	      "  --tap       end with the results as a KTAP document on stdout\n"
	      "  --bisect    find the first patch of --series at which a test fails\n"
	      "  --json, --junit  also write the report there (the results\n"
	      "              folder always gets report.json and junit.xml)\n"
	      "  --kcidb FILE  also write the run as a KCIDB submission (schema\n"
	      "              v5.3: a checkout and build per build key, a test per\n"
	      "              topology and per guest test: stacktest.TOPOLOGY.TEST)\n"
	      "\n"
	      "runner --merge REPORT... [--expect F] [--require-coverage]\n"
	      "[--json F] [--junit F] [--kcidb F] joins the report.json of\n"
	      "shards of one build (or their results folders) into one report\n"
	      "and one verdict.\n"
	      "\n"
	      "runner --changed-functions PATCH... prints the functions the\n"
	      "patches change, mapped in the kernel's source (--kernel).\n", f);
}

char *abs_path(const char *p)
{
	char buf[PATH_MAX];

	if (!realpath(p, buf))
		die("%s: %s", p, strerror(errno));
	return xstrdup(buf);
}

void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option lo[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "all", no_argument, NULL, 'a' },
		{ "list", no_argument, NULL, 'l' },
		{ "layers", no_argument, NULL, 'L' },
		{ "series", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "accel", required_argument, NULL, 'A' },
		{ "keep", no_argument, NULL, 'k' },
		{ "expect", required_argument, NULL, 'E' },
		{ "require-coverage", no_argument, NULL, 'C' },
		{ "json", required_argument, NULL, 'J' },
		{ "baseline", no_argument, NULL, 'B' },
		{ "config-fragment", required_argument, NULL, 'G' },
		{ "kernel-args", required_argument, NULL, 'K' },
		{ "kernel", required_argument, NULL, 'N' },
		{ "bisect", no_argument, NULL, 'X' },
		{ "shard", required_argument, NULL, 'H' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "tap", no_argument, NULL, 'P' },
		{ "build-only", no_argument, NULL, 'O' },
		{ "artifact", required_argument, NULL, 'o' },
		{ "kernel-artifact", required_argument, NULL, 'u' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "junit", required_argument, NULL, 'U' },
		{ "kcidb", required_argument, NULL, 'Z' },
		{ "merge", no_argument, NULL, 'I' },
		{ "changed-functions", no_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "debug", no_argument, NULL, 'D' },
		{ "explore", required_argument, NULL, 'x' },
		{ "steps", required_argument, NULL, 'n' },
		{ "guided", no_argument, NULL, 'g' },
		{ "time", required_argument, NULL, 'm' },
		{ "replay", required_argument, NULL, 'r' },
		{ "shrink-runs", required_argument, NULL, 'W' },
		{ "mutate", no_argument, NULL, 'M' },
		{ "mutate-max", required_argument, NULL, 'Y' },
		{ "mutate-only", required_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end, junk;
	int c;

	while ((c = getopt_long(argc, argv, "t:aLls:S:T:A:kvhE:CFJ:U:BXG:K:N:H:R:POo:u:j:Dx:n:m:r:W:MY:Q:", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			o->topologies = optarg;
			break;
		case 'a':
			o->all = true;
			break;
		case 'l':
			o->list = true;
			break;
		case 'L':
			o->layers = true;
			break;
		case 's':
			o->series = optarg;
			break;
		case 'S':
			o->seed = strtoull(optarg, &end, 0);
			if (*end || !*optarg)
				die("--seed %s: not a number", optarg);
			break;
		case 'T':
			o->timeout = strtol(optarg, &end, 10);
			if (*end || o->timeout <= 0)
				die("--timeout %s: want seconds", optarg);
			break;
		case 'A':
			o->accel = optarg;
			break;
		case 'k':
			o->keep = true;
			break;
		case 'H':
			if (sscanf(optarg, "%d/%d%c", &o->shard_k, &o->shard_n,
				   &junk) != 2 || o->shard_n < 1 ||
			    o->shard_k < 1 || o->shard_k > o->shard_n)
				die("--shard %s: want K/N with 1 <= K <= N", optarg);
			break;
		case 'R':
			o->repeat = strtol(optarg, &end, 10);
			if (*end || o->repeat < 1)
				die("--repeat %s: want a count", optarg);
			break;
		case 'j':
			o->jobs = strtol(optarg, &end, 10);
			if (*end || o->jobs < 1 || o->jobs > 64)
				die("--jobs %s: want 1 to 64", optarg);
			break;
		case 'O':
			o->build_only = true;
			break;
		case 'o':
			o->artifact = optarg;
			break;
		case 'u':
			o->kernel_artifact = optarg;
			break;
		case 'P':
			o->tap = true;
			break;
		case 'G':
			o->fragment = optarg;
			break;
		case 'D':
			o->debug = true;
			break;
		case 'x':
			o->explore = true;
			o->explore_seed = strtoull(optarg, &end, 10);
			if (*end || !*optarg)
				die("--explore %s: the seed is not a number", optarg);
			break;
		case 'g':
			o->guided = true;
			break;
		case 'n':
			o->explore_steps = strtol(optarg, &end, 10);
			if (*end || o->explore_steps < 1)
				die("--steps %s: want a count", optarg);
			break;
		case 'm':
			o->explore_time = strtol(optarg, &end, 10);
			if (*end || o->explore_time < 1)
				die("--time %s: want seconds", optarg);
			break;
		case 'r':
			o->replay = optarg;
			break;
		case 'W':
			o->shrink_runs = strtol(optarg, &end, 10);
			if (*end || o->shrink_runs < 0)
				die("--shrink-runs %s: want a count", optarg);
			break;
		case 'M':
			o->mutate = true;
			break;
		case 'Y':
			o->mutate_max = strtol(optarg, &end, 10);
			if (*end || o->mutate_max < 1)
				die("--mutate-max %s: want a count", optarg);
			break;
		case 'Q':
			o->mutate_only = optarg;
			break;
		case 'K':
			o->kargs = optarg;
			break;
		case 'N':
			o->kernel = optarg;
			break;
		case 'B':
			o->baseline = "";
			break;
		case 'X':
			o->bisect = true;
			break;
		case 'J':
			o->json = optarg;
			break;
		case 'U':
			o->junit = optarg;
			break;
		case 'Z':
			o->kcidb = optarg;
			break;
		case 'I':
			o->merge = true;
			break;
		case 'F':
			o->changed_functions = true;
			break;
		case 'C':
			o->require_coverage = true;
			break;
		case 'E':
			o->expect = optarg;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (o->changed_functions || o->layers)
		return;
	if (o->merge) {
		if (optind == argc)
			die("--merge wants the reports to merge (report.json files or results folders)");
		if (o->all || o->topologies || o->series || o->list ||
		    o->explore || o->replay || o->mutate || o->bisect ||
		    o->baseline || o->build_only || o->repeat > 1)
			die("--merge reads reports and runs nothing: only --expect, --require-coverage, --json, --junit and --kcidb go with it");
		return;
	}
	/* "--baseline DIR": getopt has moved DIR to the end. */
	if (o->baseline && optind == argc - 1)
		o->baseline = abs_path(argv[optind++]);
	else if (o->baseline)
		o->baseline = xasprintf("%s/patches/base", o->root);
	if (optind < argc)
		die("unexpected argument '%s' (see --help)", argv[optind]);
	if (o->bisect && (!o->series || strchr(o->series, ',')))
		die("--bisect wants one --series");
	if (strcmp(o->accel, "auto") && strcmp(o->accel, "tcg") &&
	    strcmp(o->accel, "kvm"))
		die("--accel %s: want auto, tcg or kvm", o->accel);
	if ((o->mutate_max || o->mutate_only) && !o->mutate)
		die("--mutate-max and --mutate-only go with --mutate");
	if (o->mutate_max && o->mutate_only)
		die("--mutate-max draws mutants, --mutate-only names them: not both");
	if (o->mutate && (!o->series || strchr(o->series, ',') ||
			  o->baseline || o->bisect || o->repeat > 1 ||
			  o->explore || o->replay || o->expect))
		die("--mutate wants one --series, without --baseline, --bisect, --repeat, --expect, --explore or --replay");
	if (o->artifact && (!o->build_only || (o->series && strchr(o->series, ','))))
		die("--artifact DIR goes with --build-only and one --series");
	if (o->kernel_artifact && (o->series || o->kernel || o->debug ||
				   o->fragment || o->baseline || o->bisect ||
				   o->mutate || o->build_only))
		die("--kernel-artifact runs the kernel it holds: not with --series, --kernel, --debug, --config-fragment, --baseline, --bisect, --mutate or --build-only");
	if (o->explore && o->replay)
		die("--explore draws a new walk, --replay re-runs one: not both");
	if ((o->explore_steps || o->explore_time) && !o->explore)
		die("--steps and --time bound a walk: they want --explore SEED");
	if (o->guided && !o->explore)
		die("--guided steers a new walk: it wants --explore SEED");
	if (!o->explore_steps)
		o->explore_steps = o->explore_time ? 100000 : 40;
	if (!o->all && !o->list && !o->topologies && !o->build_only &&
	    !o->replay) {
		usage(stderr);
		exit(2);
	}
}

static char *topo_path(const struct options *o, const char *name)
{
	if (strchr(name, '/') || strstr(name, ".ini"))
		return xstrdup(name);
	return xasprintf("%s/topologies/%s.ini", o->root, name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every topologies/NAME.ini, sorted. */
static char **all_topologies(const struct options *o, int *n)
{
	char *dir = xasprintf("%s/topologies", o->root), **names = NULL;
	struct dirent *de;
	DIR *d = opendir(dir);

	*n = 0;
	if (!d)
		die("%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l < 5 || strcmp(de->d_name + l - 4, ".ini"))
			continue;
		names = xrealloc(names, (*n + 1) * sizeof(char *));
		names[(*n)++] = xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(d);
	qsort(names, *n, sizeof(char *), cmp_str);
	free(dir);
	return names;
}

/*
 * --shard K/N: the topologies whose index in name order is K-1 modulo N.
 * Stable, so N workers with K = 1..N together run each exactly once.
 */
static char **shard(const struct options *o, char **names, int *n)
{
	int i, kept = 0;

	if (!o->shard_n)
		return names;
	qsort(names, *n, sizeof(char *), cmp_str);
	for (i = 0; i < *n; i++)
		if (i % o->shard_n == o->shard_k - 1)
			names[kept++] = names[i];
	*n = kept;
	return names;
}

char **selected_topologies(const struct options *o, int *n)
{
	char *copy, *tok, *save, **names = NULL;

	if (o->all || o->list)
		return shard(o, all_topologies(o, n), n);
	*n = 0;
	copy = xstrdup(o->topologies);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		names = xrealloc(names, (*n + 1) * sizeof(char *));
		names[(*n)++] = topo_path(o, tok);
	}
	free(copy);
	return shard(o, names, n);
}

char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return xstrdup(b ? b + 1 : path);
}

/* --series A,B: each a patches folder; default patches/base. */
char **series_list(const struct options *o, int *n)
{
	char *copy, *tok, *save, **v = NULL;

	*n = 0;
	copy = xstrdup(o->series ? o->series : "");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		v = xrealloc(v, (*n + 1) * sizeof(char *));
		v[(*n)++] = abs_path(tok);
	}
	if (!*n) {
		v = xmalloc(sizeof(char *));
		v[(*n)++] = xasprintf("%s/patches/base", o->root);
	}
	free(copy);
	return v;
}
