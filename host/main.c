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
#include <time.h>
#include <unistd.h>

#include "coverage.h"
#include "expect.h"
#include "kbuild.h"
#include "qemu.h"
#include "run.h"
#include "topo.h"
#include "util.h"

#define TARBALL "/usr/src/linux-source-6.1.tar.xz"

struct options {
	char *root, *build, *series, *topologies, *accel, *expect;
	unsigned long long seed;
	int timeout, jobs;
	bool all, list, keep, verbose, require_coverage, changed_functions;
};

static void usage(FILE *f)
{
	fputs("usage: runner [--topology NAME[,NAME...] | --all | --list]\n"
	      "              [--series DIR[,DIR...]] [--expect FILE]\n"
	      "              [--seed N] [--timeout SECONDS]\n"
	      "              [--accel auto|tcg|kvm] [--keep] [--verbose]\n"
	      "              [--require-coverage]\n"
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
		{ "changed-functions", no_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "t:als:S:T:A:kvhE:CF", lo, NULL)) != -1) {
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
	if (optind < argc)
		die("unexpected argument '%s' (see --help)", argv[optind]);
	if (strcmp(o->accel, "auto") && strcmp(o->accel, "tcg") &&
	    strcmp(o->accel, "kvm"))
		die("--accel %s: want auto, tcg or kvm", o->accel);
	if (!o->all && !o->list && !o->topologies) {
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

static char **selected(const struct options *o, int *n)
{
	char *copy, *tok, *save, **names = NULL;

	if (o->all || o->list)
		return all_topologies(o, n);
	*n = 0;
	copy = xstrdup(o->topologies);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		names = xrealloc(names, (*n + 1) * sizeof(char *));
		names[(*n)++] = topo_path(o, tok);
	}
	free(copy);
	return names;
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
		printf("%-26s %-18s %-11s %3d passed %3d failed %6.1fs wall, uptime at init %.2fs\n",
		       series, res[i].name, res[i].verdict, res[i].npassed,
		       res[i].nfailed, res[i].wall, res[i].uptime);
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
static void report_matrix(char **series, int ns, struct topo_result **res,
			  int nt, const struct expect *e, int *met,
			  int *unmet)
{
	char why[160];
	int s, t;

	printf("\n%-18s", "topology");
	for (s = 0; s < ns; s++)
		printf(" | %-26s", base_name(series[s]));
	printf("\n");
	for (t = 0; t < nt; t++) {
		printf("%-18s", res[0][t].name);
		for (s = 0; s < ns; s++) {
			const struct expect_rule *r = e->n ?
				expect_find(e, base_name(series[s]), res[s][t].name) : NULL;
			bool ok = r && expect_met(r, &res[s][t], why, sizeof(why));
			char cell[64];

			snprintf(cell, sizeof(cell), "%s%s", res[s][t].verdict,
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

static void report_unmet(char **series, int ns, struct topo_result **res,
			 int nt, const struct expect *e)
{
	char why[160];
	int s, t;

	for (s = 0; s < ns; s++)
		for (t = 0; t < nt; t++) {
			const struct expect_rule *r =
				expect_find(e, base_name(series[s]), res[s][t].name);

			if (!r)
				printf("UNEXPECTED: %s on %s: %s has no rule for it\n",
				       res[s][t].name, base_name(series[s]),
				       e->path);
			else if (!expect_met(r, &res[s][t], why, sizeof(why)))
				printf("UNEXPECTED: %s on %s: %s\n",
				       res[s][t].name, base_name(series[s]), why);
		}
}

/*
 * The functions the series changed: derived from its patches and the
 * patched tree, or, where the folder has one, its committed coverage.list
 * (patches/base: nothing changed, so the seed series' functions).
 */
static void series_coverage(const char *series, const struct kernel *k,
			    struct cov *c, struct run_opts *ro)
{
	char *list = xasprintf("%s/coverage.list", series), err[512], **names;
	char *src = xasprintf("%s/src", k->dir);
	struct strbuf kd = { 0 };
	int n, i;

	memset(c, 0, sizeof(*c));
	if (path_exists(list)) {
		if (cov_from_list(c, list, err, sizeof(err)))
			die("%s", err);
	} else {
		if (series_read(series, &names, &n, &kd, err, sizeof(err)))
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
			printf("  %-32s %12s  (%s: inlined or notrace)\n",
			       f->name, "not traceable", f->file);
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

int main(int argc, char **argv)
{
	struct options o = { .accel = "auto", .seed = 1 };
	struct kbuild_opts ko = { 0 };
	struct run_opts ro = { 0 };
	struct topo_result **res;
	struct topology *topo;
	struct expect e = { 0 };
	struct kernel k;
	char **paths, **series, *results, err[512];
	int n, ns, s, i, done = 0, passed = 0, failed = 0, met = 0, unmet = 0;
	int never = 0;
	struct cov *cov;

	setvbuf(stdout, NULL, _IOLBF, 0);
	o.root = abs_path(getenv("STACKTEST_ROOT") ? getenv("STACKTEST_ROOT") : ".");
	parse_args(argc, argv, &o);
	if (o.changed_functions)
		return print_changed(&o, argc - optind, argv + optind);
	paths = selected(&o, &n);
	topo = load_all(paths, n);
	if (o.list) {
		list(topo, n);
		return 0;
	}
	if (o.expect && expect_load(o.expect, &e, err, sizeof(err)))
		die("%s", err);
	series = series_list(&o, &ns);
	install_stop_handlers();
	o.build = xasprintf("%s/build", o.root);
	ko.build = o.build;
	ko.fragment = xasprintf("%s/guest-tests/kernel.config", o.root);
	ko.tarball = TARBALL;
	ko.jobs = sysconf(_SC_NPROCESSORS_ONLN);
	ro.build = o.build;
	ro.initramfs = xasprintf("%s/guest/initramfs.cpio.gz", o.build);
	ro.seed = o.seed;
	ro.timeout = o.timeout;
	ro.keep = o.keep;
	ro.verbose = o.verbose;
	results = xasprintf("%s/results/%s", o.build, run_id());
	printf("runner: results in %s\n", results);
	res = xcalloc(ns, sizeof(*res));
	cov = xcalloc(ns, sizeof(*cov));
	for (s = 0; s < ns && !stop_requested; s++) {
		ko.series = series[s];
		kbuild(&ko, &k);
		printf("runner: series %s, kernel %s (%s%s), seed %llu\n",
		       base_name(series[s]), k.key,
		       k.cached ? "cached" : "built in ",
		       k.cached ? "" : xasprintf("%.0fs", k.seconds), o.seed);
		series_coverage(series[s], &k, &cov[s], &ro);
		if (!ro.accel)
			ro.accel = strcmp(o.accel, "auto") ? o.accel :
				   probe_accel(&k, &ro);
		res[s] = xcalloc(n, sizeof(**res));
		for (i = 0; i < n && !stop_requested; i++) {
			ro.results = ns > 1 ?
				xasprintf("%s/%s/%s", results, base_name(series[s]), topo[i].name) :
				xasprintf("%s/%s", results, topo[i].name);
			run_topology(&topo[i], &k, &ro, &res[s][i]);
			copy_config(&k, ro.results);
			add_hits(&cov[s], &res[s][i]);
		}
		done = s + 1;
		if (i < n)
			done = s;	/* an interrupted series is not reported */
	}
	printf("\n");
	for (s = 0; s < done; s++)
		report_failures(res[s], n);
	for (s = 0; s < done; s++)
		report_verdicts(base_name(series[s]), res[s], n, &passed, &failed);
	for (s = 0; s < done; s++)
		never += report_coverage(base_name(series[s]), &cov[s]);
	if (done && (ns > 1 || e.n))
		report_matrix(series, done, res, n, &e, &met, &unmet);
	if (e.n) {
		report_unmet(series, done, res, n, &e);
		printf("runner: %d of %d expected verdicts held (%s)\n", met,
		       met + unmet, e.path);
		passed = met;
		failed = unmet;
	}
	if (o.require_coverage && never) {
		printf("runner: --require-coverage: %d changed functions never executed\n",
		       never);
		failed++;
	}
	if (stop_requested) {
		printf("runner: interrupted: this report is incomplete\n");
		failed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
