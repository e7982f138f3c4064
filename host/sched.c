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
	cov_add_hits(sr->cov, r);
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
		    (!running || used + t->memory + c->ro.memory_extra +
		     (256LL << 20) <= avail)) {
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
				run_one(t, k, &c->ro, &r);
				_exit(topo_result_save(&r, p) ? 1 : 0);
			}
			child_track(w[i].pid);
			w[i].topo = next++;
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
	sr->ntopo = next;
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
	if (c->o.jobs > 1 && c->n > 1)
		return run_parallel(c, &k, label, sr);
	for (i = 0; i < c->n && !stop_requested; i++) {
		c->ro.results = xasprintf("%s/%s/%s", c->results, label,
					  c->topo[i].name);
		run_one(&c->topo[i], &k, &c->ro, &sr->res[i]);
		copy_config(&k, c->ro.results);
		explore_after(c, &k, &c->topo[i], &sr->res[i]);
		cov_add_hits(sr->cov, &sr->res[i]);
		sr->ntopo = i + 1;
	}
	return !stop_requested;
}

