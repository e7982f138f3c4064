// SPDX-License-Identifier: GPL-2.0
/*
 * runner: build the kernel for a patch series (cached), boot each chosen
 * topology in QEMU, and report every guest test, ending with
 * "N passed, N failed".  The modules: cli (command line), sched (the
 * scheduler), kbuild and kconfig (the kernel), run and qemu (the guests),
 * verdict (a topology's verdict), results and report (the run's results
 * and its one verdict), covrun and coverage (series coverage), compare
 * (expectations, baseline, bisect, pass rates), mutate and mutant
 * (--mutate).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "covrun.h"
#include "explore.h"
#include "merge.h"
#include "mutate.h"
#include "results.h"
#include "sched.h"

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

static void list(struct topology *t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		printf("%-20s %s\n", t[i].name, t[i].description);
}

/* --layers: every layer kind as its entry describes it. */
static int list_layers(void)
{
	const struct layer_kind *const *k;
	int i, j, n;

	k = layer_kinds(&n);
	for (i = 0; i < n; i++) {
		printf("%-10s %s\n", k[i]->name, k[i]->what);
		printf("%-10s options:", "");
		for (j = 0; j < LAYER_MAX_OPTS && k[i]->keys[j].key; j++)
			printf(" %s=%s", k[i]->keys[j].key,
			       k[i]->keys[j].type == 's' ? "SIZE" :
			       k[i]->keys[j].type == 'n' ? "N" :
			       k[i]->keys[j].choices);
		printf("%s\n%-10s tools:", j ? "" : " none", "");
		for (j = 0; j < LAYER_MAX_TOOLS && k[i]->tools[j]; j++)
			printf(" %s", k[i]->tools[j]);
		printf("%s\n%-10s swap pressure on it: %s%s%s%s\n", j ? "" : " none",
		       "", k[i]->swap_pressure ? k[i]->swap_pressure : "reclaim",
		       k[i]->swap_in_ram ? "; swap lives in RAM" : "",
		       k[i]->joins_nodes ? "; joins two guests" : "",
		       k[i]->cmdline ? "; adds to the kernel command line" : "");
	}
	return 0;
}

/*
 * The debug profile (--debug): config/profiles/debug.config, its own
 * build key.  Measured on this machine's TCG guests: raid10 took 153.6 s
 * against 13.1 s (swapfile-integrity 112 s against 6.4 s), so every
 * topology's timeout and in-guest bound is scaled by time_scale.
 * KASAN's shadow, lockdep's tables and the larger kernel keep about
 * 111 MiB of a 192 MiB guest (it OOMs at boot), so each guest
 * gets memory_extra more, leaving the tests about the memory they have on
 * the default kernel.  kasan_multi_shot reports every KASAN error, not
 * only a boot's first, so each test is blamed for its own.
 */
static const struct profile {
	const char *name;
	int time_scale;
	long long memory_extra;
	const char *kargs;
} debug_profile = { "debug", 10, 128LL << 20, "kasan_multi_shot" };

static void use_profile(struct ctx *c, const struct profile *p)
{
	c->ko.profile = p->name;
	c->ro.time_scale = p->time_scale;
	c->ro.memory_extra = p->memory_extra;
	c->ro.kargs = c->o.kargs ? xasprintf("%s %s", p->kargs, c->o.kargs) :
		      p->kargs;
}

/* --kernel-artifact: its kernel, series and profile in place of a build. */
static void use_artifact(struct ctx *c)
{
	if (c->o.changed_functions)
		die("--changed-functions reads a kernel tree, which a --kernel-artifact run has not");
	c->art = xcalloc(1, sizeof(*c->art));
	artifact_load(c->o.kernel_artifact, c->o.root, c->art);
	if (strcmp(c->art->profile, "default") &&
	    strcmp(c->art->profile, debug_profile.name))
		die("%s: profile \"%s\" is not one this runner has",
		    c->art->dir, c->art->profile);
	/* As --debug would: the profile, and the durations' mode. */
	c->o.debug = !strcmp(c->art->profile, debug_profile.name);
	c->ksrc = *c->art->kernel;
	printf("runner: kernel artifact %s: kernel %s, series %s, profile %s\n",
	       c->art->dir, c->art->key, c->art->series, c->art->profile);
}

static struct ctx *setup(int argc, char **argv)
{
	struct ctx *c = xcalloc(1, sizeof(*c));
	char *root = getenv("STACKTEST_ROOT");

	c->o = (struct options){ .accel = "auto", .seed = 1, .shrink_runs = 16 };
	c->o.root = abs_path(root ? root : ".");
	/* Topology files name guest tests relative to the root. */
	setenv("STACKTEST_ROOT", c->o.root, 1);
	c->o.jobs = sysconf(_SC_NPROCESSORS_ONLN);
	parse_args(argc, argv, &c->o);
	explore_options(&c->o);
	c->o.build = xasprintf("%s/build", c->o.root);
	c->ko.build = c->o.build;
	c->ko.config_dir = xasprintf("%s/config", c->o.root);
	c->ko.fragment = c->o.fragment ? abs_path(c->o.fragment) : NULL;
	if (c->o.kernel_artifact)
		use_artifact(c);
	else if ((!c->o.list || c->o.mutate) && !c->o.layers && !c->o.merge)
		ksource_resolve(c->o.kernel, c->o.root, c->o.build, &c->ksrc);
	c->ko.ksrc = &c->ksrc;
	c->ko.jobs = sysconf(_SC_NPROCESSORS_ONLN);
	c->ro.build = c->o.build;
	/* STACKTEST_TMP: where disk images go (the fault tests fill it). */
	c->ro.tmp = getenv("STACKTEST_TMP") ? getenv("STACKTEST_TMP") :
		    xasprintf("%s/tmp", c->o.build);
	c->ro.initramfs = c->art ? c->art->initramfs :
			  xasprintf("%s/guest/initramfs.cpio.gz", c->o.build);
	c->ro.seed = c->o.seed;
	c->ro.timeout = c->o.timeout;
	c->ro.keep = c->o.keep;
	c->ro.verbose = c->o.verbose;
	c->ro.kargs = c->o.kargs;
	c->ro.time_scale = 1;
	if (c->o.debug)
		use_profile(c, &debug_profile);
	return c;
}

/* A folder to write, absolute, without a trailing '/'. */
static char *out_dir(const char *arg)
{
	char *cwd = getcwd(NULL, 0);
	char *d = arg[0] == '/' ? xstrdup(arg) : xasprintf("%s/%s", cwd, arg);
	size_t n = strlen(d);

	while (n > 1 && d[n - 1] == '/')
		d[--n] = 0;
	free(cwd);
	return d;
}

static int build_only(struct ctx *c)
{
	struct kernel k;
	char **series, *dir = NULL;
	int ns, s;

	series = series_list(&c->o, &ns);
	if (c->o.artifact && ns != 1)
		die("--artifact DIR holds one kernel: give one --series");
	if (c->o.artifact) {
		dir = out_dir(c->o.artifact);
		artifact_check_dest(dir);
	}
	install_stop_handlers();
	for (s = 0; s < ns; s++) {
		c->ko.series = series[s];
		c->ko.prefix = -1;
		kbuild(&c->ko, &k);
		printf("runner: %s: kernel %s %s in %.1fs\n",
		       base_name(series[s]), k.key,
		       k.cached ? "cached" : "built", k.seconds);
	}
	if (dir) {
		artifact_write(dir, &k, series[0], c->ko.profile,
			       c->ro.initramfs, c->o.root);
		printf("runner: kernel artifact %s (kernel %s, series %s)\n",
		       dir, k.key, base_name(series[0]));
	}
	return 0;
}

/* The series to run: --series, with --baseline first, or --repeat copies. */
static char **series_to_run(struct ctx *c, const struct expect *e, int *ns)
{
	char **series;
	int s;

	if (c->art) {
		*ns = 1;
		series = xcalloc(1, sizeof(char *));
		series[0] = c->art->series_path;
	} else {
		series = series_list(&c->o, ns);
	}
	if (c->o.baseline) {
		series = xrealloc(series, (*ns + 1) * sizeof(char *));
		memmove(series + 1, series, *ns * sizeof(char *));
		series[0] = c->o.baseline;
		(*ns)++;
	}
	if (c->o.repeat > 1) {
		if (*ns > 1 || e->n || c->o.baseline)
			die("--repeat wants one series, without --expect or --baseline");
		series = xrealloc(series, c->o.repeat * sizeof(char *));
		for (s = 1; s < c->o.repeat; s++)
			series[s] = series[0];
		*ns = c->o.repeat;
	}
	return series;
}

/* Everything the runs found, on the console; the verdict's inputs. */
static void summarize(struct ctx *c, struct run_report *rr,
		      const struct expect *e, int ns, struct verdict_in *in)
{
	int s;

	printf("\n");
	for (s = 0; s < rr->nseries; s++)
		report_failures(rr->series[s].res, rr->series[s].ntopo);
	for (s = 0; s < rr->nseries; s++)
		report_verdicts(rr->series[s].name, rr->series[s].res,
				rr->series[s].ntopo, &in->tests_passed,
				&in->tests_failed);
	for (s = 0; s < rr->nseries && !stop_requested; s++) {
		in->never_executed += cov_report(rr->series[s].name,
						 rr->series[s].cov);
		paths_report(rr->series[s].name, c->topo, c->n,
			     rr->series[s].res);
	}
	if (c->o.repeat > 1)
		report_rates(rr->series, rr->nseries, c->n);
	else if (!stop_requested && (ns > 1 || e->n))
		report_matrix(rr->series, ns, c->n, e, &in->met, &in->unmet);
	if (e->n && !stop_requested) {
		report_unmet(rr->series, ns, c->n, e);
		printf("runner: %d of %d expected verdicts held (%s)\n",
		       in->met, in->met + in->unmet, e->path);
	}
	for (s = 1; c->o.baseline && !stop_requested && s < ns; s++)
		in->new_failures += report_baseline(&rr->series[0],
						    &rr->series[s]);
}

int main(int argc, char **argv)
{
	struct run_report rr = { 0 };
	struct verdict_in in = { 0 };
	struct expect e = { 0 };
	char **paths, **series, err[512];
	int ns, s, status;
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
		return cov_print_changed(ksource_tree(&c->ksrc, c->o.build),
					 argc - optind, argv + optind);
	if (c->o.layers)
		return list_layers();
	if (c->o.merge)
		return merge_main(&c->o, argc - optind, argv + optind);
	if (c->o.build_only)
		return build_only(c);
	paths = selected_topologies(&c->o, &c->n);
	c->topo = load_all(paths, c->n);
	explore_prepare(c);
	if (c->o.mutate && c->o.list)
		return mutate_main(c);
	if (c->o.list) {
		list(c->topo, c->n);
		return 0;
	}
	if (c->o.expect && expect_load(c->o.expect, &e, err, sizeof(err)))
		die("%s", err);
	e.kseries = c->ksrc.series;
	install_stop_handlers();
	atexit(child_kill_all);
	rr.id = run_id();
	rr.kernel = &c->ksrc;
	rr.profile = c->ko.profile ? c->ko.profile : "default";
	printf("runner: kernel %s\n", c->ksrc.version);
	c->results = xasprintf("%s/results/%s", c->o.build, rr.id);
	printf("runner: results in %s\n", c->results);
	if (c->o.mutate)
		return mutate_main(c);
	if (c->o.bisect) {
		in.bisect = true;
		in.first_bad = bisect(c, series_list(&c->o, &ns)[0]);
		status = run_verdict(&rr, &in);
		printf("%d passed, %d failed\n", rr.passed, rr.failed);
		return status;
	}
	series = series_to_run(c, &e, &ns);
	rr.series = xcalloc(ns, sizeof(*rr.series));
	for (s = 0; s < ns; s++) {
		char *label = c->o.repeat > 1 ?
			xasprintf("%s#%d", base_name(series[s]), s + 1) :
			base_name(series[s]);

		rr.nseries = s + 1;
		if (!run_series(c, series[s], -1, label, &rr.series[s]))
			break;
	}
	summarize(c, &rr, &e, ns, &in);
	in.expect = e.n > 0;
	in.baseline = c->o.baseline != NULL;
	in.require_coverage = c->o.require_coverage;
	in.interrupted = stop_requested;
	status = run_verdict(&rr, &in);
	rr.seed = c->o.seed;
	rr.accel = c->ro.accel;
	rr.shard_k = c->o.shard_k;
	rr.shard_n = c->o.shard_n;
	rr.peak_rss_kib = peak_child_rss();
	printf("runner: peak memory of one child process: %lld MiB\n",
	       rr.peak_rss_kib >> 10);
	write_reports(&c->o, &rr, c->results);
	if (c->o.tap)
		report_tap(&rr);
	printf("%d passed, %d failed\n", rr.passed, rr.failed);
	return status;
}
