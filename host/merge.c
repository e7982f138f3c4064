// SPDX-License-Identifier: GPL-2.0
/*
 * --merge REPORT...: the reports of several runs of one kernel (CI shards,
 * --shard K/N, fed one --build-only artifact or one build key) as one
 * run: series joined by name, each topology once, coverage summed.  The
 * merged run is judged as a run would be (--expect, --require-coverage)
 * and written where --json, --junit and --kcidb say.
 *
 * Shards that disagree are an error naming both files: another kernel,
 * profile, seed or accelerator, a series built from another build key,
 * one topology in two shards, two reports of one --shard K/N, or of
 * another N.  A shard that was interrupted, or one of 1..N missing, makes
 * the merge incomplete (no matrix, and a failure, as for a run).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "covrun.h"
#include "kcidb.h"
#include "merge.h"
#include "report.h"
#include "results.h"

struct shard {
	char *path;
	struct run_report r;
};

/* Which report each merged series and topology came from. */
static struct origin {
	const char *series, *topology, *path;
} *origins;
static int norigins;

static const char *origin_of(const char *series, const char *topology)
{
	int i;

	for (i = 0; i < norigins; i++)
		if (!strcmp(origins[i].series, series) &&
		    (!topology || !strcmp(origins[i].topology, topology)))
			return origins[i].path;
	return "an earlier report";
}

static void origin_add(const char *series, const char *topology,
		       const char *path)
{
	origins = xrealloc(origins, (norigins + 1) * sizeof(*origins));
	origins[norigins++] = (struct origin){ series, topology, path };
}

static const char *str_or(const char *s)
{
	return s ? s : "";
}

/* A results folder means its report.json. */
static char *report_path(const char *arg)
{
	struct stat st;

	if (!stat(arg, &st) && S_ISDIR(st.st_mode))
		return xasprintf("%s/report.json", arg);
	return xstrdup(arg);
}

static const char *kernel_of(const struct run_report *r)
{
	return r->kernel ? str_or(r->kernel->version) : "";
}

static struct series_report *find_series(struct run_report *m,
					 const char *name)
{
	int i;

	for (i = 0; i < m->nseries; i++)
		if (!strcmp(m->series[i].name, name))
			return &m->series[i];
	return NULL;
}

/* f's calls added to the merged coverage's function of the same name. */
static void cov_add(struct cov *c, const struct cov_fn *f)
{
	struct cov_fn *g = NULL;
	size_t n;
	int i;

	for (i = 0; i < c->n && !g; i++)
		if (!strcmp(c->fn[i].name, f->name) &&
		    !strcmp(c->fn[i].file, f->file))
			g = &c->fn[i];
	if (!g) {
		c->fn = xrealloc(c->fn, (c->n + 1) * sizeof(*c->fn));
		c->fn[c->n++] = *f;
		return;
	}
	/*
	 * What one shard learnt of the function holds for the build: a
	 * shard whose guests never ran cannot know it is untraceable.
	 */
	g->absent |= f->absent;
	g->removed |= f->removed;
	g->unreachable |= f->unreachable;
	if (f->untraceable && !g->untraceable) {
		g->untraceable = true;
		memcpy(g->why, f->why, sizeof(g->why));
	}
	g->hits += f->hits > 0 ? f->hits : 0;
	n = strlen(g->where);
	/* The topologies that reached it: as many as the field holds. */
	if (*f->where && n + 1 + strlen(f->where) < sizeof(g->where)) {
		if (n)
			g->where[n++] = ' ';
		memcpy(g->where + n, f->where, strlen(f->where) + 1);
	}
}

static void add_series(struct run_report *m, const struct shard *sh,
		       const struct series_report *s)
{
	struct series_report *t = find_series(m, s->name);
	int i, j;

	if (!t) {
		m->series = xrealloc(m->series, (m->nseries + 1) * sizeof(*t));
		t = &m->series[m->nseries++];
		memset(t, 0, sizeof(*t));
		t->name = s->name;
		t->path = s->path;
		t->kernel_key = s->kernel_key;
		t->cov = xcalloc(1, sizeof(*t->cov));
	} else if (strcmp(t->kernel_key, s->kernel_key)) {
		die("--merge: %s built series %s as kernel %s, %s as %s: not shards of one build",
		    sh->path, s->name, s->kernel_key,
		    origin_of(s->name, NULL), t->kernel_key);
	}
	if (!s->ntopo)
		origin_add(s->name, "", sh->path);
	for (i = 0; i < s->cov->n; i++)
		cov_add(t->cov, &s->cov->fn[i]);
	for (i = 0; i < s->ntopo; i++) {
		for (j = 0; j < t->ntopo; j++)
			if (!strcmp(t->res[j].name, s->res[i].name))
				break;
		if (j < t->ntopo)
			die("--merge: topology %s of series %s is in %s and in %s: shards overlap",
			    s->res[i].name, s->name,
			    origin_of(s->name, s->res[i].name), sh->path);
		origin_add(s->name, s->res[i].name, sh->path);
		t->res = xrealloc(t->res, (t->ntopo + 1) * sizeof(*t->res));
		t->res[t->ntopo++] = s->res[i];
	}
}

static void load_shards(struct shard *sh, int n, struct run_report *m)
{
	char err[512];
	int i, s;

	for (i = 0; i < n; i++) {
		if (run_report_load(sh[i].path, &sh[i].r, err, sizeof(err)))
			die("--merge: %s", err);
		if (i && strcmp(kernel_of(&sh[i].r), kernel_of(&sh[0].r)))
			die("--merge: %s ran kernel '%s', %s ran '%s'",
			    sh[i].path, kernel_of(&sh[i].r), sh[0].path,
			    kernel_of(&sh[0].r));
		if (i && strcmp(str_or(sh[i].r.profile), str_or(sh[0].r.profile)))
			die("--merge: %s ran the %s profile, %s the %s one",
			    sh[i].path, sh[i].r.profile, sh[0].path,
			    sh[0].r.profile);
		if (i && (sh[i].r.seed != sh[0].r.seed ||
			  strcmp(str_or(sh[i].r.accel), str_or(sh[0].r.accel))))
			die("--merge: %s ran with seed %llu under %s, %s with seed %llu under %s: not one run's shards",
			    sh[i].path, sh[i].r.seed, str_or(sh[i].r.accel),
			    sh[0].path, sh[0].r.seed, str_or(sh[0].r.accel));
		if (!sh[i].r.complete)
			printf("runner: --merge: %s was interrupted: the merged report is incomplete\n",
			       sh[i].path);
	}
	*m = sh[0].r;
	m->series = NULL;
	m->nseries = 0;
	m->complete = true;
	for (i = 0; i < n; i++) {
		m->complete = m->complete && sh[i].r.complete;
		if (sh[i].r.peak_rss_kib > m->peak_rss_kib)
			m->peak_rss_kib = sh[i].r.peak_rss_kib;
		for (s = 0; s < sh[i].r.nseries; s++)
			add_series(m, &sh[i], &sh[i].r.series[s]);
	}
}

static char *shard_name(const struct run_report *r)
{
	return r->shard_n ? xasprintf("shard %d/%d", r->shard_k, r->shard_n) :
			    xstrdup("no shard (a whole run)");
}

/*
 * Shards of --shard K/N: all of one N, each K once.  A missing one (its
 * job died before it wrote a report) leaves the merge incomplete, as an
 * interrupted shard does: its topologies never ran.
 */
static void check_shards(const struct shard *sh, int n, struct run_report *m)
{
	int i, j, want = sh[0].r.shard_n;

	for (i = 1; i < n; i++) {
		if (sh[i].r.shard_n != want)
			die("--merge: %s is %s, %s is %s: not shards of one run",
			    sh[i].path, shard_name(&sh[i].r), sh[0].path,
			    shard_name(&sh[0].r));
		for (j = 0; want && j < i; j++)
			if (sh[j].r.shard_k == sh[i].r.shard_k)
				die("--merge: %s and %s are both %s",
				    sh[j].path, sh[i].path, shard_name(&sh[i].r));
	}
	for (i = 1; i <= want; i++) {
		for (j = 0; j < n && sh[j].r.shard_k != i; j++)
			;
		if (j == n) {
			printf("runner: --merge: shard %d/%d is missing: the merged report is incomplete\n",
			       i, want);
			m->complete = false;
		}
	}
	m->shard_k = 0;
	m->shard_n = 0;
}

/*
 * The merged run's topologies: every series must have the same ones, in
 * the same order, for the matrix.  An interrupted shard may lack some
 * (its run stopped): then the merge is incomplete and has no matrix.
 */
static int topologies_of(const struct run_report *m, bool *matrix)
{
	int s, t;

	*matrix = m->complete;
	for (s = 1; s < m->nseries; s++) {
		bool same = m->series[s].ntopo == m->series[0].ntopo;

		for (t = 0; same && t < m->series[0].ntopo; t++)
			same = !strcmp(m->series[s].res[t].name,
				       m->series[0].res[t].name);
		if (!same && m->complete)
			die("--merge: series %s and %s ran other topologies: a shard is missing",
			    m->series[s].name, m->series[0].name);
		*matrix = *matrix && same;
	}
	return m->nseries ? m->series[0].ntopo : 0;
}

int merge_main(const struct options *o, int argc, char **argv)
{
	struct shard *sh = xcalloc(argc, sizeof(*sh));
	struct verdict_in in = { 0 };
	struct expect e = { 0 };
	struct run_report m;
	char err[512];
	int i, s, nt, status;
	bool matrix;

	if (o->expect && expect_load(o->expect, &e, err, sizeof(err)))
		die("%s", err);
	for (i = 0; i < argc; i++)
		sh[i].path = report_path(argv[i]);
	load_shards(sh, argc, &m);
	check_shards(sh, argc, &m);
	if (m.kernel)
		e.kseries = m.kernel->series;
	nt = topologies_of(&m, &matrix);
	printf("runner: merged %d reports: %d series, %d topologies each, kernel %s\n",
	       argc, m.nseries, nt, kernel_of(&m));
	for (s = 0; s < m.nseries; s++)
		report_failures(m.series[s].res, m.series[s].ntopo);
	for (s = 0; s < m.nseries; s++)
		report_verdicts(m.series[s].name, m.series[s].res,
				m.series[s].ntopo, &in.tests_passed,
				&in.tests_failed);
	for (s = 0; s < m.nseries; s++)
		in.never_executed += cov_report(m.series[s].name,
						m.series[s].cov);
	if (matrix && (m.nseries > 1 || e.n))
		report_matrix(m.series, m.nseries, nt, &e, &in.met, &in.unmet);
	if (matrix && e.n) {
		report_unmet(m.series, m.nseries, nt, &e);
		printf("runner: %d of %d expected verdicts held (%s)\n",
		       in.met, in.met + in.unmet, e.path);
	}
	in.expect = e.n > 0;
	in.require_coverage = o->require_coverage;
	in.interrupted = !m.complete;
	status = run_verdict(&m, &in);
	if (o->json && report_json(&m, o->json))
		die("cannot write %s", o->json);
	if (o->junit && report_junit(&m, o->junit))
		die("cannot write %s", o->junit);
	if (o->kcidb && report_kcidb(&m, o->kcidb))
		die("cannot write %s", o->kcidb);
	printf("%d passed, %d failed\n", m.passed, m.failed);
	return status;
}
