// SPDX-License-Identifier: GPL-2.0
/*
 * runner: build the kernel for a patch series (cached), boot each chosen
 * topology in QEMU, and report every guest test, ending with
 * "N passed, N failed".  Exit 0 only when everything passed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coverage.h"
#include "expect.h"
#include "kbuild.h"
#include "report.h"
#include "qemu.h"
#include "run.h"
#include "topo.h"
#include "util.h"

#define TARBALL "/usr/src/linux-source-6.1.tar.xz"

struct options {
	char *root, *build, *series, *topologies, *accel, *expect;
	char *json, *junit, *fragment, *kargs;
	unsigned long long seed;
	int timeout, jobs;
	bool all, list, keep, verbose, require_coverage, changed_functions;
	bool bisect, tap, build_only;
	char *baseline;
	int shard_k, shard_n, repeat;
};

static void usage(FILE *f)
{
	fputs("usage: runner [--topology NAME[,NAME...] | --all | --list]\n"
	      "              [--series DIR[,DIR...]] [--expect FILE]\n"
	      "              [--seed N] [--timeout SECONDS]\n"
	      "              [--accel auto|tcg|kvm] [--keep] [--verbose]\n"
	      "              [--require-coverage] [--json FILE] [--junit FILE]\n"
	      "              [--baseline [DIR]] [--bisect] [--config-fragment FILE]\n"
	      "              [--shard K/N] [--repeat N] [--tap] [--build-only]\n"
	      "              [--jobs N] [--kernel-args ARGS]\n"
	      "\n"
	      "Builds linux-source-6.1 with the patch series in DIR (default\n"
	      "patches/base), boots each topology in QEMU and runs its tests.\n"
	      "  --topology  names in topologies/ (or .ini paths), comma-separated\n"
	      "  --series    several: run each, print a topology x series matrix\n"
	      "  --expect    expected verdicts per series and topology; the\n"
	      "              result counts the expectations met\n"
	      "  --all       every topology;  --list  list them with descriptions\n"
	      "  --seed      seed of every guest data pattern (default 1)\n"
	      "  --timeout   host-side limit per guest (default: the topology's)\n"
	      "  --accel     auto: KVM only if a probe guest proves it fast\n"
	      "  --keep      keep the disk images of each run\n"
	      "  --require-coverage  fail if a traceable function the series\n"
	      "              changed was never executed\n"
	      "  --verbose   echo the guest's KTAP lines as they arrive\n"
	      "  --baseline  run DIR (default patches/base) too and report only\n"
	      "              what the series changed: new, fixed, unchanged failures\n"
	      "  --config-fragment  instead of guest-tests/kernel.config\n"
	      "  --kernel-args  appended to every guest's kernel command line\n"
	      "  --shard K/N a stable 1/N of the selected topologies (CI workers)\n"
	      "  --repeat N  run each topology N times; per-test pass rates\n"
	      "  --jobs N    guests at once (default: the number of cores), never\n"
	      "              more than the host's available memory holds\n"
	      "  --build-only  build (or find cached) the kernels and stop\n"
	      "  --tap       end with the results as a KTAP document on stdout\n"
	      "  --bisect    find the first patch of --series at which a test fails\n"
	      "  --json, --junit  also write the report there (the results\n"
	      "              folder always gets report.json and junit.xml)\n"
	      "\n"
	      "runner --changed-functions PATCH... prints the functions the\n"
	      "patches change, mapped in the extracted linux-source-6.1 tree.\n", f);
}

static char *abs_path(const char *p)
{
	char buf[PATH_MAX];

	if (!realpath(p, buf))
		die("%s: %s", p, strerror(errno));
	return xstrdup(buf);
}

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option lo[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "all", no_argument, NULL, 'a' },
		{ "list", no_argument, NULL, 'l' },
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
		{ "bisect", no_argument, NULL, 'X' },
		{ "shard", required_argument, NULL, 'H' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "tap", no_argument, NULL, 'P' },
		{ "build-only", no_argument, NULL, 'O' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "junit", required_argument, NULL, 'U' },
		{ "changed-functions", no_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end, junk;
	int c;

	while ((c = getopt_long(argc, argv, "t:als:S:T:A:kvhE:CFJ:U:BXG:K:H:R:POj:", lo, NULL)) != -1) {
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
		case 'P':
			o->tap = true;
			break;
		case 'G':
			o->fragment = optarg;
			break;
		case 'K':
			o->kargs = optarg;
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
	if (o->changed_functions)
		return;
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
	if (!o->all && !o->list && !o->topologies && !o->build_only) {
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

static char **selected(const struct options *o, int *n)
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

static struct topology *load_all(char **paths, int n)
{
	struct topology *t = xcalloc(n, sizeof(*t));
	char err[512];
	int i;

	for (i = 0; i < n; i++)
		if (topo_load(paths[i], &t[i], err, sizeof(err)))
			die("%s", err);
	return t;
}

static char *run_id(void)
{
	char buf[64];
	time_t now = time(NULL);

	strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", localtime(&now));
	return xasprintf("%s-%d", buf, getpid());
}

static void print_failure(const struct topo_result *r,
			  const struct test_result *t)
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

static void report_failures(struct topo_result *res, int n)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < res[i].ntests; j++)
			if (res[i].tests[j].result == KTAP_FAIL)
				print_failure(&res[i], &res[i].tests[j]);
}

static void report_verdicts(const char *series, struct topo_result *res,
			    int n, int *passed, int *failed)
{
	int i;

	for (i = 0; i < n; i++) {
		printf("%-26s %-18s %-11s %3d passed %3d failed %6.1fs wall, init at %.2fs uptime, first KTAP at %.2fs wall\n",
		       series, res[i].name, res[i].verdict, res[i].npassed,
		       res[i].nfailed, res[i].wall, res[i].uptime,
		       res[i].first_ktap);
		*passed += res[i].npassed;
		*failed += res[i].nfailed;
	}
}

static void copy_config(const struct kernel *k, const char *dir)
{
	size_t len;
	char *data = read_file(k->config, &len);
	char *to = xasprintf("%s/kernel.config", dir);

	if (data)
		write_file_atomic(to, data, len);
	free(data);
	free(to);
}

static void list(struct topology *t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		printf("%-20s %s\n", t[i].name, t[i].description);
}

static char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return xstrdup(b ? b + 1 : path);
}

/* --series A,B: each a patches folder; default patches/base. */
static char **series_list(const struct options *o, int *n)
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

/* The matrix: one row per topology, one column per series. */
static void report_matrix(struct series_report *sr, int ns, int nt,
			  const struct expect *e, int *met, int *unmet)
{
	char why[160], cell[64];
	int s, t;

	printf("\n%-18s", "topology");
	for (s = 0; s < ns; s++)
		printf(" | %-26s", sr[s].name);
	printf("\n");
	for (t = 0; t < nt; t++) {
		printf("%-18s", sr[0].res[t].name);
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

static void report_unmet(struct series_report *sr, int ns, int nt,
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

/*
 * The functions the series changed: derived from its patches and the
 * patched tree, or, where the folder has one, its committed coverage.list
 * (patches/base: nothing changed, so the seed series' functions).
 */
static void series_coverage(const char *series, int prefix,
			    const struct kernel *k, struct cov *c,
			    struct run_opts *ro)
{
	char *list = xasprintf("%s/coverage.list", series), err[512], **names;
	char *src = xasprintf("%s/src", k->dir);
	struct strbuf kd = { 0 };
	int n, i;

	memset(c, 0, sizeof(*c));
	if (path_exists(list) && prefix < 0) {
		if (cov_from_list(c, list, err, sizeof(err)))
			die("%s", err);
	} else {
		if (series_read(series, prefix, &names, &n, &kd, err, sizeof(err)))
			die("%s", err);
		for (i = 0; i < n; i++) {
			char *pp = xasprintf("%s/%s", series, names[i]);
			char *text = read_file(pp, NULL);

			if (!text)
				die("%s: cannot read", pp);
			cov_from_patch(c, text, src);
			free(text);
			free(pp);
		}
		sb_free(&kd);
	}
	cov_classify(c, src);
	ro->ntrace = 0;
	ro->trace = xcalloc(c->n, sizeof(char *));
	for (i = 0; i < c->n; i++)
		if (!c->fn[i].removed)
			ro->trace[ro->ntrace++] = c->fn[i].name;
	free(list);
	free(src);
}

static void add_hits(struct cov *c, struct topo_result *r)
{
	int i;

	for (i = 0; i < r->ncov; i++) {
		struct cov_fn *f = cov_find(c, r->cov[i].name);
		size_t len;

		if (!f)
			continue;
		if (r->cov[i].hits < 0) {
			f->untraceable = true;
			continue;
		}
		f->hits += r->cov[i].hits;
		len = strlen(f->where);
		if (r->cov[i].hits > 0 && len + strlen(r->name) + 2 < sizeof(f->where))
			snprintf(f->where + len, sizeof(f->where) - len, "%s%s",
				 len ? " " : "", r->name);
	}
}

/* Returns how many traceable changed functions no test executed. */
static int report_coverage(const char *series, struct cov *c)
{
	int i, run = 0, traceable = 0, never = 0;

	for (i = 0; i < c->n; i++) {
		if (c->fn[i].removed || c->fn[i].untraceable)
			continue;
		traceable++;
		run += c->fn[i].hits > 0;
	}
	printf("\nseries coverage (%s): %d of %d changed functions executed\n",
	       series, run, traceable);
	for (i = 0; i < c->n; i++) {
		struct cov_fn *f = &c->fn[i];

		if (f->absent)
			printf("  %-32s %12s  (no longer in linux-source-6.1)\n",
			       f->name, "absent");
		else if (f->removed)
			printf("  %-32s %12s  (%s)\n", f->name, "removed",
			       "the series deleted it");
		else if (f->untraceable)
			printf("  %-32s %12s  (%s: %s)\n", f->name,
			       "not traceable", f->file, f->why);
		else
			printf("  %-32s %12lld  %s\n", f->name, f->hits,
			       f->hits ? f->where : "NEVER EXECUTED");
		never += !f->removed && !f->untraceable && !f->hits;
	}
	return never;
}

/* Functions the given patches change, in the pristine extracted tree. */
static int print_changed(const struct options *o, int n, char **patches)
{
	char *src = xasprintf("%s/build/src/linux-source-6.1", o->root);
	struct cov c = { 0 };
	int i;

	if (!path_exists(src))
		die("%s: not extracted yet (run ./runner --topology raid10 once)",
		    src);
	for (i = 0; i < n; i++) {
		char *text = read_file(patches[i], NULL);

		if (!text)
			die("%s: %s", patches[i], strerror(errno));
		cov_from_patch(&c, text, src);
		free(text);
	}
	for (i = 0; i < c.n; i++)
		printf("%-32s %-40s %s\n", c.fn[i].name, c.fn[i].file,
		       c.fn[i].removed ? "removed" : "");
	return 0;
}

static void write_reports(const struct options *o, struct run_report *rr,
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
	free(j);
	free(x);
}

static long long peak_child_rss(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_CHILDREN, &ru) ? -1 : ru.ru_maxrss;
}

struct ctx {
	struct options o;
	struct kbuild_opts ko;
	struct run_opts ro;
	struct topology *topo;
	int n;
	char *results;
};

static long long mem_available(void)
{
	char line[128];
	long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "MemAvailable:", 13))
			kb = atoll(line + 13);
	if (f)
		fclose(f);
	return kb << 10;
}

struct worker {
	pid_t pid;
	int topo;
	long long mem;
};

/* A worker is done: take its result, remove what a killed one left. */
static void reap_worker(struct ctx *c, const struct kernel *k,
			struct worker *w, int status, struct series_report *sr,
			const char *label)
{
	const struct topology *t = &c->topo[w->topo];
	char *dir = xasprintf("%s/%s/%s", c->results, label, t->name);
	char *res = xasprintf("%s/result.json", dir);
	char *tmp = xasprintf("%s/%s.%d", c->ro.tmp, t->name, w->pid);
	struct topo_result *r = &sr->res[w->topo];

	rm_rf(tmp);
	if (topo_result_load(res, r)) {
		memset(r, 0, sizeof(*r));
		r->name = xstrdup(t->name);
		r->verdict = stop_requested ? "INTERRUPTED" : "FAIL";
		r->dir = dir;
		r->tests = xcalloc(1, sizeof(*r->tests));
		r->tests[0] = (struct test_result){ .name = "guest",
			.result = KTAP_FAIL,
			.detail = xasprintf("the worker running this topology ended with %s %d before writing its result; its error is above",
					    WIFSIGNALED(status) ? "signal" : "status",
					    WIFSIGNALED(status) ? WTERMSIG(status) :
					    WEXITSTATUS(status)) };
		r->ntests = r->nfailed = 1;
	}
	copy_config(k, dir);
	add_hits(sr->cov, r);
	free(res);
	free(tmp);
}

/*
 * --jobs N: up to N guests at once, each in a forked worker that writes
 * its result to the results folder; a guest starts only while the sum of
 * the running guests' memory stays under what the host has available.
 */
static bool run_parallel(struct ctx *c, const struct kernel *k,
			 const char *label, struct series_report *sr)
{
	struct worker *w = xcalloc(c->o.jobs, sizeof(*w));
	long long avail = mem_available() * 3 / 4, used = 0;
	int next = 0, running = 0, i, st;

	while ((next < c->n && !stop_requested) || running) {
		const struct topology *t = next < c->n ? &c->topo[next] : NULL;

		if (t && !stop_requested && running < c->o.jobs &&
		    (!running || used + t->memory + (256LL << 20) <= avail)) {
			for (i = 0; w[i].pid; i++)
				;
			c->ro.results = xasprintf("%s/%s/%s", c->results,
						  label, t->name);
			fflush(NULL);
			w[i].pid = fork();
			if (w[i].pid < 0)
				die("fork: %s", strerror(errno));
			if (!w[i].pid) {
				struct topo_result r;
				char *p = xasprintf("%s/result.json",
						    c->ro.results);

				/* A group of its own: a stop kills it there. */
				setpgid(0, 0);
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				run_topology(t, k, &c->ro, &r);
				_exit(topo_result_save(&r, p) ? 1 : 0);
			}
			child_track(w[i].pid);
			w[i].topo = next++;
			w[i].mem = t->memory + (256LL << 20);
			used += w[i].mem;
			running++;
			continue;
		}
		pid_t pid = wait(&st);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		for (i = 0; i < c->o.jobs && w[i].pid != pid; i++)
			;
		if (i == c->o.jobs)
			continue;
		child_untrack(pid);
		reap_worker(c, k, &w[i], st, sr, label);
		used -= w[i].mem;
		running--;
		w[i].pid = 0;
		sr->ntopo = c->n;
	}
	sr->ntopo = next;
	free(w);
	return !stop_requested;
}

/*
 * Build the kernel for a series (or its first prefix patches), then run
 * every topology on it.  Returns false when interrupted.
 */
static bool run_series(struct ctx *c, const char *path, int prefix,
		       const char *label, struct series_report *sr)
{
	struct kernel k;
	int i;

	c->ko.series = path;
	c->ko.prefix = prefix;
	kbuild(&c->ko, &k);
	printf("runner: series %s, kernel %s (%s%s), seed %llu\n", label,
	       k.key, k.cached ? "cached" : "built in ",
	       k.cached ? "" : xasprintf("%.0fs", k.seconds), c->o.seed);
	memset(sr, 0, sizeof(*sr));
	sr->name = xstrdup(label);
	sr->path = xstrdup(path);
	sr->kernel_key = xstrdup(k.key);
	sr->cov = xcalloc(1, sizeof(*sr->cov));
	sr->res = xcalloc(c->n, sizeof(*sr->res));
	series_coverage(path, prefix, &k, sr->cov, &c->ro);
	if (!c->ro.accel)
		c->ro.accel = strcmp(c->o.accel, "auto") ? c->o.accel :
			      probe_accel(&k, &c->ro);
	if (c->o.jobs > 1 && c->n > 1)
		return run_parallel(c, &k, label, sr);
	for (i = 0; i < c->n && !stop_requested; i++) {
		c->ro.results = xasprintf("%s/%s/%s", c->results, label,
					  c->topo[i].name);
		run_topology(&c->topo[i], &k, &c->ro, &sr->res[i]);
		copy_config(&k, c->ro.results);
		add_hits(sr->cov, &sr->res[i]);
		sr->ntopo = i + 1;
	}
	return !stop_requested;
}

static struct test_result *find_test(struct topo_result *r, const char *name)
{
	int i;

	for (i = 0; i < r->ntests; i++)
		if (!strcmp(r->tests[i].name, name))
			return &r->tests[i];
	return NULL;
}

/* A pre-merge verdict: what the series changed against the baseline. */
static int report_baseline(struct series_report *base,
			   struct series_report *ser)
{
	int t, j, fresh = 0, fixed = 0, same = 0;

	printf("\nbaseline %s -> series %s:\n", base->name, ser->name);
	for (t = 0; t < ser->ntopo && t < base->ntopo; t++) {
		struct topo_result *b = &base->res[t], *r = &ser->res[t];

		for (j = 0; j < r->ntests; j++) {
			struct test_result *bt = find_test(b, r->tests[j].name);
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
			struct test_result *rt = find_test(r, b->tests[j].name);

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
static int bisect(struct ctx *c, const char *path)
{
	struct series_report *runs;
	char **names, err[512], *label;
	struct strbuf kd = { 0 };
	int n, good = 0, bad, mid, i;

	if (series_read(path, -1, &names, &n, &kd, err, sizeof(err)))
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
static void report_rates(struct series_report *sr, int nrep, int nt)
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
				x = find_test(&sr[r].res[t], first->tests[j].name);
				runs += x != NULL;
				pass += x && x->result != KTAP_FAIL;
			}
			printf("  %-18s %-28s %3d/%-3d %s\n", first->name,
			       first->tests[j].name, pass, runs,
			       pass == runs ? "" : pass ? "FLAKY" : "FAILS");
		}
	}
}

/* --tap: the whole run as one KTAP document, a subtest per topology. */
static void report_tap(struct run_report *rr)
{
	int s, t, j, n = 0, total = 0;

	for (s = 0; s < rr->nseries; s++)
		total += rr->series[s].ntopo;
	printf("KTAP version 1\n1..%d\n", total);
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

static struct ctx *setup(int argc, char **argv)
{
	struct ctx *c = xcalloc(1, sizeof(*c));

	c->o = (struct options){ .accel = "auto", .seed = 1 };
	c->o.root = abs_path(getenv("STACKTEST_ROOT") ? getenv("STACKTEST_ROOT") : ".");
	c->o.jobs = sysconf(_SC_NPROCESSORS_ONLN);
	parse_args(argc, argv, &c->o);
	c->o.build = xasprintf("%s/build", c->o.root);
	c->ko.build = c->o.build;
	c->ko.fragment = xasprintf("%s/guest-tests/kernel.config", c->o.root);
	c->ko.tarball = TARBALL;
	c->ko.jobs = sysconf(_SC_NPROCESSORS_ONLN);
	c->ro.build = c->o.build;
	/* STACKTEST_TMP: where disk images go (the fault tests fill it). */
	c->ro.tmp = getenv("STACKTEST_TMP") ? getenv("STACKTEST_TMP") :
		    xasprintf("%s/tmp", c->o.build);
	if (c->o.fragment)
		c->ko.fragment = abs_path(c->o.fragment);
	c->ro.initramfs = xasprintf("%s/guest/initramfs.cpio.gz", c->o.build);
	c->ro.seed = c->o.seed;
	c->ro.timeout = c->o.timeout;
	c->ro.keep = c->o.keep;
	c->ro.verbose = c->o.verbose;
	c->ro.kargs = c->o.kargs;
	return c;
}

int main(int argc, char **argv)
{
	struct run_report rr = { 0 };
	struct expect e = { 0 };
	char **paths, **series, err[512];
	int ns, s, passed = 0, failed = 0, met = 0, unmet = 0, never = 0;
	struct ctx *c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * Run from make (make check, make prove), we would pass its flags
	 * (-s, a jobserver) on to the kernel build: keep that build our own.
	 */
	unsetenv("MAKEFLAGS");
	unsetenv("MFLAGS");
	unsetenv("MAKELEVEL");
	c = setup(argc, argv);
	if (c->o.changed_functions)
		return print_changed(&c->o, argc - optind, argv + optind);
	if (c->o.build_only) {
		struct kernel k;

		series = series_list(&c->o, &ns);
		install_stop_handlers();
		for (s = 0; s < ns; s++) {
			c->ko.series = series[s];
			c->ko.prefix = -1;
			kbuild(&c->ko, &k);
			printf("runner: %s: kernel %s %s in %.1fs\n",
			       base_name(series[s]), k.key,
			       k.cached ? "cached" : "built", k.seconds);
		}
		return 0;
	}
	paths = selected(&c->o, &c->n);
	c->topo = load_all(paths, c->n);
	if (c->o.list) {
		list(c->topo, c->n);
		return 0;
	}
	if (c->o.expect && expect_load(c->o.expect, &e, err, sizeof(err)))
		die("%s", err);
	series = series_list(&c->o, &ns);
	install_stop_handlers();
	atexit(child_kill_all);
	rr.id = run_id();
	c->results = xasprintf("%s/results/%s", c->o.build, rr.id);
	printf("runner: results in %s\n", c->results);
	if (c->o.bisect) {
		int first = bisect(c, series[0]);

		printf("%d passed, %d failed\n", first > 0, first <= 0);
		return first > 0 ? 0 : 1;
	}
	if (c->o.baseline) {
		series = xrealloc(series, (ns + 1) * sizeof(char *));
		memmove(series + 1, series, ns * sizeof(char *));
		series[0] = c->o.baseline;
		ns++;
	}
	if (c->o.repeat > 1) {
		if (ns > 1 || e.n || c->o.baseline)
			die("--repeat wants one series, without --expect or --baseline");
		series = xrealloc(series, c->o.repeat * sizeof(char *));
		for (s = 1; s < c->o.repeat; s++)
			series[s] = series[0];
		ns = c->o.repeat;
	}
	rr.series = xcalloc(ns, sizeof(*rr.series));
	for (s = 0; s < ns; s++) {
		char *label = c->o.repeat > 1 ?
			xasprintf("%s#%d", base_name(series[s]), s + 1) :
			base_name(series[s]);

		rr.nseries = s + 1;
		if (!run_series(c, series[s], -1, label, &rr.series[s]))
			break;
	}
	printf("\n");
	for (s = 0; s < rr.nseries; s++)
		report_failures(rr.series[s].res, rr.series[s].ntopo);
	for (s = 0; s < rr.nseries; s++)
		report_verdicts(rr.series[s].name, rr.series[s].res,
				rr.series[s].ntopo, &passed, &failed);
	for (s = 0; s < rr.nseries && !stop_requested; s++)
		never += report_coverage(rr.series[s].name, rr.series[s].cov);
	if (c->o.repeat > 1)
		report_rates(rr.series, rr.nseries, c->n);
	else if (!stop_requested && (ns > 1 || e.n))
		report_matrix(rr.series, ns, c->n, &e, &met, &unmet);
	if (e.n && !stop_requested) {
		report_unmet(rr.series, ns, c->n, &e);
		printf("runner: %d of %d expected verdicts held (%s)\n", met,
		       met + unmet, e.path);
		passed = met;
		failed = unmet;
	}
	if (c->o.baseline && !stop_requested) {
		/* The verdict follows new failures only. */
		failed = 0;
		for (s = 1; s < ns; s++)
			failed += report_baseline(&rr.series[0], &rr.series[s]);
		passed = failed ? 0 : 1;
	}
	if (c->o.require_coverage && never) {
		printf("runner: --require-coverage: %d changed functions never executed\n",
		       never);
		failed++;
	}
	if (stop_requested) {
		printf("runner: interrupted: this report is incomplete\n");
		failed++;
	}
	rr.seed = c->o.seed;
	rr.accel = c->ro.accel;
	rr.complete = !stop_requested;
	rr.passed = passed;
	rr.failed = failed;
	rr.peak_rss_kib = peak_child_rss();
	printf("runner: peak memory of one child process: %lld MiB\n",
	       rr.peak_rss_kib >> 10);
	write_reports(&c->o, &rr, c->results);
	if (c->o.tap)
		report_tap(&rr);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
