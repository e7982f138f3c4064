// SPDX-License-Identifier: GPL-2.0
/*
 * Machine-readable reports: JSON built with json-c, JUnit XML written with
 * libxml2's xmlTextWriter.  Each goes to a temporary file renamed into
 * place, so a reader never sees half a report.
 */
#include <errno.h>
#include <json.h>
#include <libxml/xmlwriter.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "run.h"

static const char *result_name(enum ktap_result r)
{
	return r == KTAP_PASS ? "pass" : r == KTAP_SKIP ? "skip" : "fail";
}

/* A test and, nested under "steps", its steps (KTAP subtests). */
static json_object *test_json(const struct test_result *t)
{
	json_object *o = json_object_new_object(), *a;
	int i;

	json_object_object_add(o, "name", json_object_new_string(t->name));
	json_object_object_add(o, "result",
			       json_object_new_string(result_name(t->result)));
	json_object_object_add(o, "duration_s",
			       json_object_new_double(t->duration));
	if (t->directive)
		json_object_object_add(o, "directive",
				       json_object_new_string(t->directive));
	json_object_object_add(o, "detail", json_object_new_string(t->detail));
	if (!t->nsub)
		return o;
	a = json_object_new_array();
	for (i = 0; i < t->nsub; i++)
		json_object_array_add(a, test_json(&t->sub[i]));
	json_object_object_add(o, "steps", a);
	return o;
}

/* Each guest's console: console.log, or console-node0.log, -node1.log. */
static json_object *console_logs(const struct topo_result *r)
{
	json_object *a = json_object_new_array();
	char *p;
	int i;

	for (i = 0; i < (r->nodes > 1 ? r->nodes : 1); i++) {
		p = node_file(r->dir, "console", ".log", r->nodes, i);
		json_object_array_add(a, json_object_new_string(p));
		free(p);
	}
	return a;
}

static json_object *topo_json(const struct topo_result *r)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	json_object *cov = json_object_new_object();
	int i;

	for (i = 0; i < r->ncov; i++)
		json_object_object_add(cov, r->cov[i].name,
				       json_object_new_int64(r->cov[i].hits));
	json_object_object_add(o, "calls", cov);
	json_object_object_add(o, "topology", json_object_new_string(r->name));
	json_object_object_add(o, "verdict", json_object_new_string(r->verdict));
	json_object_object_add(o, "passed", json_object_new_int(r->npassed));
	json_object_object_add(o, "failed", json_object_new_int(r->nfailed));
	json_object_object_add(o, "skipped", json_object_new_int(r->nskipped));
	json_object_object_add(o, "wall_s", json_object_new_double(r->wall));
	json_object_object_add(o, "uptime_at_init_s",
			       json_object_new_double(r->uptime));
	json_object_object_add(o, "boot_to_first_ktap_s",
			       json_object_new_double(r->first_ktap));
	json_object_object_add(o, "results_dir", json_object_new_string(r->dir));
	json_object_object_add(o, "nodes", json_object_new_int(r->nodes));
	json_object_object_add(o, "console_logs", console_logs(r));
	for (i = 0; i < r->ntests; i++)
		json_object_array_add(a, test_json(&r->tests[i]));
	json_object_object_add(o, "tests", a);
	return o;
}

static const char *fn_state(const struct cov_fn *f)
{
	if (f->absent)
		return "absent";
	if (f->removed)
		return "removed";
	if (f->untraceable)
		return "not-traceable";
	if (cov_uncounted(f))
		return "unreachable";
	return f->hits ? "executed" : "never-executed";
}

static json_object *cov_json(const struct cov *c)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	int i, traceable, run = cov_executed(c, &traceable);

	for (i = 0; i < c->n; i++) {
		const struct cov_fn *f = &c->fn[i];
		json_object *fo = json_object_new_object();

		json_object_object_add(fo, "function", json_object_new_string(f->name));
		json_object_object_add(fo, "file", json_object_new_string(f->file));
		json_object_object_add(fo, "state", json_object_new_string(fn_state(f)));
		if (f->untraceable)
			json_object_object_add(fo, "why", json_object_new_string(f->why));
		json_object_object_add(fo, "calls", json_object_new_int64(f->hits));
		json_object_object_add(fo, "topologies", json_object_new_string(f->where));
		json_object_array_add(a, fo);
	}
	json_object_object_add(o, "executed", json_object_new_int(run));
	json_object_object_add(o, "traceable", json_object_new_int(traceable));
	json_object_object_add(o, "functions", a);
	return o;
}

static json_object *series_json(const struct series_report *s)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	int i;

	json_object_object_add(o, "series", json_object_new_string(s->name));
	json_object_object_add(o, "path", json_object_new_string(s->path));
	json_object_object_add(o, "kernel_build_key",
			       json_object_new_string(s->kernel_key));
	json_object_object_add(o, "coverage", cov_json(s->cov));
	for (i = 0; i < s->ntopo; i++)
		json_object_array_add(a, topo_json(&s->res[i]));
	json_object_object_add(o, "topologies", a);
	return o;
}

static json_object *jstr_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* The kernel under test: what --kernel named, its version, its commit. */
json_object *ksource_json(const struct ksource *k)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "source", jstr_or_null(k->name));
	json_object_object_add(o, "kind", json_object_new_string(
				       k->tree ? (k->git ? "git" : "tree") :
				       "debian-package"));
	json_object_object_add(o, "release", jstr_or_null(k->release));
	json_object_object_add(o, "version", jstr_or_null(k->version));
	json_object_object_add(o, "series", jstr_or_null(k->series));
	json_object_object_add(o, "commit", jstr_or_null(k->commit));
	json_object_object_add(o, "uncommitted", jstr_or_null(k->dirty));
	return o;
}

int json_write_put(json_object *o, const char *path)
{
	const char *text = json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	int rc = write_file_atomic(path, text, strlen(text));

	json_object_put(o);
	return rc;
}

int report_json(const struct run_report *r, const char *path)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	int i;

	json_object_object_add(o, "run", json_object_new_string(r->id));
	if (r->kernel)
		json_object_object_add(o, "kernel", ksource_json(r->kernel));
	json_object_object_add(o, "profile", json_object_new_string(
				       r->profile ? r->profile : "default"));
	json_object_object_add(o, "seed", json_object_new_uint64(r->seed));
	json_object_object_add(o, "accel",
			       json_object_new_string(r->accel ? r->accel : ""));
	json_object_object_add(o, "complete", json_object_new_boolean(r->complete));
	if (r->shard_n) {
		json_object *sh = json_object_new_object();

		json_object_object_add(sh, "k", json_object_new_int(r->shard_k));
		json_object_object_add(sh, "n", json_object_new_int(r->shard_n));
		json_object_object_add(o, "shard", sh);
	}
	json_object_object_add(o, "passed", json_object_new_int(r->passed));
	json_object_object_add(o, "failed", json_object_new_int(r->failed));
	json_object_object_add(o, "peak_child_rss_kib",
			       json_object_new_int64(r->peak_rss_kib));
	for (i = 0; i < r->nseries; i++)
		json_object_array_add(a, series_json(&r->series[i]));
	json_object_object_add(o, "series", a);
	return json_write_put(o, path);
}

/* "replay-5.12-rc1-swapfile" -> "replay-5_12-rc1-swapfile": a dot is a package. */
static char *junit_name(const char *s)
{
	char *c = xstrdup(s), *p;

	for (p = c; *p; p++)
		if (*p == '.')
			*p = '_';
	return c;
}

static void junit_case(xmlTextWriterPtr w, const char *cls, const char *name,
		       const struct test_result *t)
{
	char time[32];

	snprintf(time, sizeof(time), "%.3f", t->duration > 0 ? t->duration : 0);
	xmlTextWriterStartElement(w, BAD_CAST "testcase");
	xmlTextWriterWriteAttribute(w, BAD_CAST "classname", BAD_CAST cls);
	xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST name);
	xmlTextWriterWriteAttribute(w, BAD_CAST "time", BAD_CAST time);
	if (t->result == KTAP_FAIL) {
		xmlTextWriterStartElement(w, BAD_CAST "failure");
		xmlTextWriterWriteAttribute(w, BAD_CAST "message",
					    BAD_CAST "guest test failed");
		xmlTextWriterWriteString(w, BAD_CAST t->detail);
		xmlTextWriterEndElement(w);
	} else if (t->result == KTAP_SKIP) {
		xmlTextWriterStartElement(w, BAD_CAST "skipped");
		if (t->directive)
			xmlTextWriterWriteAttribute(w, BAD_CAST "message",
						    BAD_CAST t->directive);
		xmlTextWriterEndElement(w);
	}
	xmlTextWriterEndElement(w);
}

struct junit_count {
	int tests, failures, skipped;
};

static bool any_step_failed(const struct test_result *t)
{
	int i;

	for (i = 0; i < t->nsub; i++)
		if (t->sub[i].result == KTAP_FAIL || any_step_failed(&t->sub[i]))
			return true;
	return false;
}

/*
 * A test as testcases the way CI viewers group them (package, class,
 * case): its steps are cases of class "series.topology.test", a step's
 * own steps named "step / substep".  A test (or step) is a case itself
 * when it has no steps, or when it failed with none of them failing
 * (killed, a planned step missing), so every failure shows where it was.
 * With w NULL, only counts.
 */
static void junit_test(xmlTextWriterPtr w, const char *cls, const char *name,
		       const struct test_result *t, struct junit_count *n,
		       bool top)
{
	char *sub_cls, *sub;
	int i;

	if (!t->nsub || (t->result == KTAP_FAIL && !any_step_failed(t))) {
		if (w)
			junit_case(w, cls, name, t);
		n->tests++;
		n->failures += t->result == KTAP_FAIL;
		n->skipped += t->result == KTAP_SKIP;
	}
	sub_cls = top ? xasprintf("%s.%s", cls, name) : xstrdup(cls);
	for (i = 0; i < t->nsub; i++) {
		sub = top ? xasprintf("%02d %s", i + 1, t->sub[i].name) :
		      xasprintf("%s / %s", name, t->sub[i].name);
		junit_test(w, sub_cls, sub, &t->sub[i], n, false);
		free(sub);
	}
	free(sub_cls);
}

static void junit_property(xmlTextWriterPtr w, const char *name,
			   const char *value)
{
	if (!value)
		return;
	xmlTextWriterStartElement(w, BAD_CAST "property");
	xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST name);
	xmlTextWriterWriteAttribute(w, BAD_CAST "value", BAD_CAST value);
	xmlTextWriterEndElement(w);
}

/* The kernel under test, as each suite's <properties>. */
static void junit_kernel(xmlTextWriterPtr w, const struct ksource *k)
{
	xmlTextWriterStartElement(w, BAD_CAST "properties");
	junit_property(w, "kernel.source", k->name);
	junit_property(w, "kernel.release", k->release);
	junit_property(w, "kernel.version", k->version);
	junit_property(w, "kernel.commit", k->commit);
	junit_property(w, "kernel.uncommitted", k->dirty);
	xmlTextWriterEndElement(w);
}

static void junit_suite(xmlTextWriterPtr w, const char *series,
			const struct topo_result *r, const struct ksource *k)
{
	char *s = junit_name(series), *cls = xasprintf("%s.%s", s, r->name);
	struct junit_count n = { 0 };
	char num[32];
	int i;

	for (i = 0; i < r->ntests; i++)
		junit_test(NULL, cls, r->tests[i].name, &r->tests[i], &n, true);
	xmlTextWriterStartElement(w, BAD_CAST "testsuite");
	xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST cls);
	snprintf(num, sizeof(num), "%d", n.tests);
	xmlTextWriterWriteAttribute(w, BAD_CAST "tests", BAD_CAST num);
	snprintf(num, sizeof(num), "%d", n.failures);
	xmlTextWriterWriteAttribute(w, BAD_CAST "failures", BAD_CAST num);
	snprintf(num, sizeof(num), "%d", n.skipped);
	xmlTextWriterWriteAttribute(w, BAD_CAST "skipped", BAD_CAST num);
	snprintf(num, sizeof(num), "%.3f", r->wall);
	xmlTextWriterWriteAttribute(w, BAD_CAST "time", BAD_CAST num);
	if (k)
		junit_kernel(w, k);
	for (i = 0; i < r->ntests; i++)
		junit_test(w, cls, r->tests[i].name, &r->tests[i], &n, true);
	xmlTextWriterEndElement(w);
	free(cls);
	free(s);
}

xmlTextWriterPtr junit_open(const char *path, char **tmp)
{
	xmlTextWriterPtr w;

	*tmp = xasprintf("%s.tmp.%d", path, getpid());
	w = xmlNewTextWriterFilename(*tmp, 0);
	if (!w) {
		free(*tmp);
		errno = EIO;
		return NULL;
	}
	xmlTextWriterSetIndent(w, 1);
	xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
	xmlTextWriterStartElement(w, BAD_CAST "testsuites");
	xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST "stacktest");
	return w;
}

int junit_close(xmlTextWriterPtr w, char *tmp, const char *path)
{
	int rc;

	xmlTextWriterEndElement(w);
	rc = xmlTextWriterEndDocument(w) < 0 ? -1 : 0;
	xmlFreeTextWriter(w);
	if (!rc)
		rc = rename(tmp, path);
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

int report_junit(const struct run_report *r, const char *path)
{
	char *tmp;
	xmlTextWriterPtr w = junit_open(path, &tmp);
	int i, j;

	if (!w)
		return -1;
	for (i = 0; i < r->nseries; i++)
		for (j = 0; j < r->series[i].ntopo; j++)
			junit_suite(w, r->series[i].name, &r->series[i].res[j],
				    r->kernel);
	return junit_close(w, tmp, path);
}

int topo_result_save(const struct topo_result *r, const char *path)
{
	json_object *o = topo_json(r);
	const char *text = json_object_to_json_string(o);
	int rc = write_file_atomic(path, text, strlen(text));

	json_object_put(o);
	return rc;
}

static char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return xstrdup(json_object_object_get_ex(o, key, &v) ?
		       json_object_get_string(v) : "");
}

static double jnum(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       json_object_get_double(v) : 0;
}

static enum ktap_result result_of(const char *s)
{
	return !strcmp(s, "pass") ? KTAP_PASS : !strcmp(s, "skip") ?
	       KTAP_SKIP : KTAP_FAIL;
}

static struct test_result *tests_load(json_object *a, int *n)
{
	struct test_result *v;
	json_object *steps, *d;
	size_t i;

	*n = json_object_array_length(a);
	v = xcalloc(*n ? *n : 1, sizeof(*v));
	for (i = 0; i < (size_t)*n; i++) {
		json_object *t = json_object_array_get_idx(a, i);
		char *res = jstr(t, "result");

		v[i].name = jstr(t, "name");
		v[i].result = result_of(res);
		v[i].duration = jnum(t, "duration_s");
		v[i].detail = jstr(t, "detail");
		if (json_object_object_get_ex(t, "directive", &d))
			v[i].directive = xstrdup(json_object_get_string(d));
		if (json_object_object_get_ex(t, "steps", &steps))
			v[i].sub = tests_load(steps, &v[i].nsub);
		free(res);
	}
	return v;
}

static void topo_from_json(json_object *o, struct topo_result *r)
{
	json_object *a, *cov;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->name = jstr(o, "topology");
	r->verdict = jstr(o, "verdict");
	r->npassed = jnum(o, "passed");
	r->nfailed = jnum(o, "failed");
	r->wall = jnum(o, "wall_s");
	r->uptime = jnum(o, "uptime_at_init_s");
	r->first_ktap = jnum(o, "boot_to_first_ktap_s");
	r->dir = jstr(o, "results_dir");
	r->nodes = jnum(o, "nodes");
	if (json_object_object_get_ex(o, "tests", &a))
		r->tests = tests_load(a, &r->ntests);
	for (i = 0; i < (size_t)r->ntests; i++)
		r->nskipped += r->tests[i].result == KTAP_SKIP;
	if (json_object_object_get_ex(o, "calls", &cov)) {
		json_object_object_foreach(cov, key, val) {
			struct cov_hit *h;

			r->cov = xrealloc(r->cov, (r->ncov + 1) * sizeof(*h));
			h = &r->cov[r->ncov++];
			snprintf(h->name, sizeof(h->name), "%s", key);
			h->hits = json_object_get_int64(val);
		}
	}
}

int topo_result_load(const char *path, struct topo_result *r)
{
	json_object *o = json_object_from_file(path);

	if (!o) {
		memset(r, 0, sizeof(*r));
		return -1;
	}
	topo_from_json(o, r);
	json_object_put(o);
	return 0;
}

/* A string member into a fixed buffer ("" when missing). */
static void jcopy(json_object *o, const char *key, char *buf, size_t len)
{
	json_object *v;

	snprintf(buf, len, "%s", json_object_object_get_ex(o, key, &v) ?
		 json_object_get_string(v) : "");
}

/* A function's state as cov_json() wrote it, back into its flags. */
static void fn_from_json(json_object *o, struct cov_fn *f)
{
	char *v;

	memset(f, 0, sizeof(*f));
	jcopy(o, "function", f->name, sizeof(f->name));
	jcopy(o, "file", f->file, sizeof(f->file));
	jcopy(o, "why", f->why, sizeof(f->why));
	jcopy(o, "topologies", f->where, sizeof(f->where));
	v = jstr(o, "state");
	f->absent = !strcmp(v, "absent");
	f->removed = !strcmp(v, "removed");
	f->untraceable = !strcmp(v, "not-traceable");
	f->unreachable = !strcmp(v, "unreachable");
	free(v);
	f->hits = jnum(o, "calls");
}

static void series_from_json(json_object *o, struct series_report *s)
{
	json_object *a, *cov, *fns;
	size_t i;

	s->name = jstr(o, "series");
	s->path = jstr(o, "path");
	s->kernel_key = jstr(o, "kernel_build_key");
	s->cov = xcalloc(1, sizeof(*s->cov));
	if (json_object_object_get_ex(o, "coverage", &cov) &&
	    json_object_object_get_ex(cov, "functions", &fns)) {
		s->cov->n = json_object_array_length(fns);
		s->cov->fn = xcalloc(s->cov->n ? s->cov->n : 1,
				     sizeof(*s->cov->fn));
		for (i = 0; i < (size_t)s->cov->n; i++)
			fn_from_json(json_object_array_get_idx(fns, i),
				     &s->cov->fn[i]);
	}
	if (!json_object_object_get_ex(o, "topologies", &a))
		return;
	s->ntopo = json_object_array_length(a);
	s->res = xcalloc(s->ntopo ? s->ntopo : 1, sizeof(*s->res));
	for (i = 0; i < (size_t)s->ntopo; i++)
		topo_from_json(json_object_array_get_idx(a, i), &s->res[i]);
}

struct ksource *ksource_from_json(json_object *o)
{
	struct ksource *k = xcalloc(1, sizeof(*k));
	json_object *v;

#define KFIELD(field, key)						\
	if (json_object_object_get_ex(o, key, &v) && v)			\
		k->field = xstrdup(json_object_get_string(v))
	KFIELD(name, "source");
	KFIELD(release, "release");
	KFIELD(version, "version");
	KFIELD(commit, "commit");
	KFIELD(dirty, "uncommitted");
	KFIELD(series, "series");
#undef KFIELD
	/* A tree's kernel names its path (only read back, never built). */
	if (json_object_object_get_ex(o, "kind", &v) && v &&
	    strcmp(json_object_get_string(v), "debian-package")) {
		k->tree = xstrdup(k->name ? k->name : "");
		k->git = !strcmp(json_object_get_string(v), "git");
	}
	/* Reports from before "series" was written: from the release. */
	if (!k->series && k->release)
		k->series = release_series(k->release);
	return k;
}

int run_report_load(const char *path, struct run_report *r, char *err,
		    size_t len)
{
	json_object *o = json_object_from_file(path), *a, *k;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "series", &a) ||
	    !json_object_is_type(a, json_type_array)) {
		snprintf(err, len, "%s: not a runner report (report.json)%s",
			 path, o ? "" : ": unreadable or not JSON");
		json_object_put(o);
		return -1;
	}
	r->id = jstr(o, "run");
	if (json_object_object_get_ex(o, "kernel", &k))
		r->kernel = ksource_from_json(k);
	r->profile = jstr(o, "profile");
	r->accel = jstr(o, "accel");
	r->seed = json_object_object_get_ex(o, "seed", &k) ?
		  json_object_get_uint64(k) : 0;
	r->peak_rss_kib = jnum(o, "peak_child_rss_kib");
	r->complete = json_object_object_get_ex(o, "complete", &k) &&
		      json_object_get_boolean(k);
	if (json_object_object_get_ex(o, "shard", &k) && k) {
		r->shard_k = jnum(k, "k");
		r->shard_n = jnum(k, "n");
	}
	r->nseries = json_object_array_length(a);
	r->series = xcalloc(r->nseries ? r->nseries : 1, sizeof(*r->series));
	for (i = 0; i < (size_t)r->nseries; i++) {
		struct series_report *s = &r->series[i];
		int t;

		series_from_json(json_object_array_get_idx(a, i), s);
		for (t = 0; t < s->ntopo; t++)
			s->res[t].run = r->id;
	}
	json_object_put(o);
	return 0;
}
