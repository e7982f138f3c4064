// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler: build the kernel for a series, then run every chosen
 * topology on it, one after another or in forked workers (--jobs), each
 * guest started only while the host's memory holds it.  A topology whose
 * layer kinds the kernel lacks is a SKIP naming the option, never booted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "covrun.h"
#include "explore.h"
#include "kconfig.h"
#include "report.h"
#include "sched.h"

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

/*
 * A topology whose layer kinds this kernel lacks (their fragment's
 * options did not take) is a SKIP with the reason; else its guests run.
 */
static void run_one(const struct topology *t, const struct kernel *k,
		    const struct run_opts *o, struct topo_result *r)
{
	char why[512];
	int i;

	for (i = 0; i < t->nlayers; i++) {
		if (!kconfig_lacks(k->unavailable, t->layers[i].kind, why,
				   sizeof(why)))
			continue;
		memset(r, 0, sizeof(*r));
		r->name = xstrdup(t->name);
		r->dir = xstrdup(o->results);
		r->nodes = t->nodes;
		r->verdict = "SKIP";
		result_add(r, "kernel-config", KTAP_SKIP, 0, why)->directive =
			xasprintf("SKIP this kernel lacks layer kind %s: %s",
				  t->layers[i].kind, why);
		printf("[%s] SKIP: this kernel lacks layer kind %s: %s\n",
		       t->name, t->layers[i].kind, why);
		mkdir_p(o->results);
		return;
	}
	run_topology(t, k, o, r);
}

/*
 * Longest first.  Each finished topology's wall time is kept in
 * BUILD/durations, one "MODE NAME SECONDS" line each (MODE: tests,
 * debug or explore), and --jobs starts the longest known first, unknown
 * ones before all, in the given order among equals: so the last guest of
 * a series, which runs alone, is a short one.  A hint only: two runners
 * writing at once may lose one figure.
 */
static const char *run_mode(const struct ctx *c)
{
	return c->o.explore ? "explore" : c->o.debug ? "debug" : "tests";
}

/* NAME's seconds in MODE from durations text, or -1. */
static double duration_of(const char *text, const char *mode,
			  const char *name)
{
	size_t ml = strlen(mode), nl = strlen(name);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, mode, ml) && p[ml] == ' ' &&
		    !strncmp(p + ml + 1, name, nl) && p[ml + 1 + nl] == ' ')
			return atof(p + ml + 2 + nl);
	return -1;
}

static int *longest_first(const struct ctx *c)
{
	char *path = xasprintf("%s/durations", c->ko.build);
	char *text = read_file(path, NULL);
	double *d = xcalloc(c->n, sizeof(double));
	int *order = xcalloc(c->n, sizeof(int)), i, j;

	for (i = 0; i < c->n; i++) {
		d[i] = text ? duration_of(text, run_mode(c), c->topo[i].name) :
			      -1;
		if (d[i] < 0)
			d[i] = 1e9;
		/* Insertion: stable, descending. */
		for (j = i; j > 0 && d[order[j - 1]] < d[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	free(d);
	free(text);
	free(path);
	return order;
}

static void duration_record(const struct ctx *c, const struct topo_result *r)
{
	char *path = xasprintf("%s/durations", c->ko.build);
	char *text = read_file(path, NULL), *line, *save, *key;
	struct strbuf out = { 0 };

	/* A mutant's run says nothing of the topology's length. */
	if (!r->name || r->wall <= 0 || !strcmp(r->verdict, "SKIP") ||
	    !strcmp(r->verdict, "INTERRUPTED") || c->o.mutate)
		goto out;
	key = xasprintf("%s %s ", run_mode(c), r->name);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, key, strlen(key)))
			sb_printf(&out, "%s\n", line);
	sb_printf(&out, "%s%.1f\n", key, r->wall);
	write_file_atomic(path, out.buf, out.len);
	free(key);
	sb_free(&out);
out:
	free(text);
	free(path);
}

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

/* A topology's results folder in this series: RESULTS/LABEL/NAME. */
static char *results_dir(const struct ctx *c, const char *label,
			 const struct topology *t)
{
	return xasprintf("%s/%s/%s", c->results, label, t->name);
}

/* A worker is done: take its result, remove what a killed one left. */
static void reap_worker(struct ctx *c, const struct kernel *k,
			struct worker *w, int status, struct series_report *sr,
			const char *label)
{
	const struct topology *t = &c->topo[w->topo];
	char *dir = results_dir(c, label, t);
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
	cov_add_hits(sr->cov, r);
	duration_record(c, r);
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
	int next = 0, running = 0, i, st, *order = longest_first(c);

	while ((next < c->n && !stop_requested) || running) {
		const struct topology *t = next < c->n ?
					   &c->topo[order[next]] : NULL;

		if (t && !stop_requested && running < c->o.jobs &&
		    (!running || used + t->memory + c->ro.memory_extra +
		     (256LL << 20) <= avail)) {
			for (i = 0; w[i].pid; i++)
				;
			c->ro.results = results_dir(c, label, t);
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
				run_one(t, k, &c->ro, &r);
				_exit(topo_result_save(&r, p) ? 1 : 0);
			}
			child_track(w[i].pid);
			w[i].topo = order[next++];
			w[i].mem = t->memory + c->ro.memory_extra +
				   (256LL << 20);
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
	/* Stopped: each topology never started is INTERRUPTED, no tests. */
	for (i = 0; i < c->n; i++) {
		struct topo_result *r = &sr->res[i];

		if (r->name)
			continue;
		r->name = xstrdup(c->topo[i].name);
		r->dir = results_dir(c, label, &c->topo[i]);
		r->nodes = c->topo[i].nodes;
		r->verdict = "INTERRUPTED";
	}
	sr->ntopo = c->n;
	free(order);
	free(w);
	return !stop_requested;
}

/*
 * Build the kernel for a series (or its first prefix patches), then run
 * every topology on it.  Returns false when interrupted.
 */
bool run_series(struct ctx *c, const char *path, int prefix,
		       const char *label, struct series_report *sr)
{
	struct kernel k;
	int i;

	c->ko.series = path;
	c->ko.prefix = prefix;
	if (c->art)
		artifact_kernel(c->art, &k);
	else
		kbuild(&c->ko, &k);
	printf("runner: series %s, kernel %s%s (%s%s), seed %llu\n", label,
	       k.key, c->ko.profile ? xasprintf(", profile %s", c->ko.profile) :
	       "", k.cached ? "cached" : "built in ",
	       k.cached ? "" : xasprintf("%.0fs", k.seconds), c->o.seed);
	memset(sr, 0, sizeof(*sr));
	sr->name = xstrdup(label);
	sr->path = xstrdup(path);
	sr->kernel_key = xstrdup(k.key);
	sr->cov = xcalloc(1, sizeof(*sr->cov));
	sr->res = xcalloc(c->n, sizeof(*sr->res));
	cov_series(path, prefix, &k, sr->cov, &c->ro);
	if (!c->ro.accel)
		c->ro.accel = strcmp(c->o.accel, "auto") ? c->o.accel :
			      probe_accel(&k, &c->ro);
	if (c->o.jobs > 1 && c->n > 1) {
		bool ok = run_parallel(c, &k, label, sr);

		/*
		 * Walks: each trace kept (after a stop too, for those that
		 * ran), a failing one shrunk, in turn.
		 */
		for (i = 0; i < c->n && (c->o.explore || c->o.replay); i++) {
			if (!sr->res[i].ntests)
				continue;
			c->ro.results = results_dir(c, label, &c->topo[i]);
			explore_after(c, &k, &c->topo[i], &sr->res[i]);
		}
		return ok && !stop_requested;
	}
	for (i = 0; i < c->n && !stop_requested; i++) {
		c->ro.results = results_dir(c, label, &c->topo[i]);
		run_one(&c->topo[i], &k, &c->ro, &sr->res[i]);
		duration_record(c, &sr->res[i]);
		copy_config(&k, c->ro.results);
		explore_after(c, &k, &c->topo[i], &sr->res[i]);
		cov_add_hits(sr->cov, &sr->res[i]);
		sr->ntopo = i + 1;
	}
	return !stop_requested;
}

