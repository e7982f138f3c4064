// SPDX-License-Identifier: GPL-2.0
/*
 * The run as a KCIDB submission (the KernelCI database's I/O schema,
 * v5.3): one checkout and one build per series (the kernel source with
 * the series applied, built with the run's profile), and a test per
 * topology ("stacktest.raid10") and per guest test in it
 * ("stacktest.raid10.swapfile-integrity").  Checked in make check with
 * the schema's own validator (kcidb-io, host/vendor/kcidb-io).
 *
 * Checkout and build ids come from the kernel's build key (the source,
 * the series and the config: the debug profile's is another checkout
 * too), so shards of one build name the same objects; test ids add the
 * run, the series and the test's index.
 */
#include <ctype.h>
#include <json.h>
#include <string.h>

#include "kcidb.h"
#include "report.h"
#include "util.h"

#define ORIGIN "stacktest"
#define EXCERPT_MAX 16384	/* the schema's maxLength of log_excerpt */

/*
 * A test path component: what the schema allows ([A-Za-z0-9_-]), else
 * _; never empty.  Two names may so meet ("a.b", "a b"): ids add the
 * test's index, so they stay unique.
 */
static char *path_part(const char *s)
{
	char *c = xstrdup(*s ? s : "_"), *p;

	for (p = c; *p; p++)
		if (!isascii(*p) || (!isalnum(*p) && *p != '_' && *p != '-'))
			*p = '_';
	return c;
}

static const char *test_status(enum ktap_result r)
{
	return r == KTAP_PASS ? "PASS" : r == KTAP_SKIP ? "SKIP" : "FAIL";
}

/*
 * A topology's verdict as a status.  A hang (TIMEOUT) or an oops (CRASH)
 * is the kernel found faulty: FAIL.  A run cut short by the user ran
 * nothing to judge: MISS.
 */
static const char *topo_status(const char *verdict)
{
	if (!strcmp(verdict, "PASS") || !strcmp(verdict, "SKIP"))
		return verdict;
	if (!strcmp(verdict, "INTERRUPTED"))
		return "MISS";
	return "FAIL";
}

static void add_str(json_object *o, const char *key, const char *val)
{
	if (val && *val)
		json_object_object_add(o, key, json_object_new_string(val));
}

/* The end of a failure's detail (where its verdict is), at most the limit. */
static void add_excerpt(json_object *o, const char *detail)
{
	size_t n = detail ? strlen(detail) : 0;

	if (!n)
		return;
	detail += n > EXCERPT_MAX ? n - EXCERPT_MAX : 0;
	/* Not in the middle of a UTF-8 character. */
	while ((*detail & 0xC0) == 0x80)
		detail++;
	json_object_object_add(o, "log_excerpt", json_object_new_string(detail));
}

/* The checkout (and build) of a series: one per build key. */
static char *checkout_id(const struct series_report *s)
{
	return xasprintf(ORIGIN ":checkout-%s", s->kernel_key);
}

static json_object *checkout_json(const struct run_report *r,
				  const struct series_report *s)
{
	json_object *o = json_object_new_object(), *misc = json_object_new_object();
	const struct ksource *k = r->kernel;
	char *id = checkout_id(s);
	char *comment = xasprintf("%s with patch series %s", k ? k->version : "kernel",
				  s->name);

	add_str(o, "id", id);
	add_str(o, "origin", ORIGIN);
	add_str(o, "tree_name", k ? k->name : NULL);
	if (k && k->commit && strlen(k->commit) == 40)
		add_str(o, "git_commit_hash", k->commit);
	add_str(o, "comment", comment);
	json_object_object_add(o, "valid", json_object_new_boolean(1));
	add_str(misc, "series", s->name);
	add_str(misc, "series_path", s->path);
	add_str(misc, "kernel_release", k ? k->release : NULL);
	add_str(misc, "uncommitted_sha256", k ? k->dirty : NULL);
	json_object_object_add(o, "misc", misc);
	free(id);
	free(comment);
	return o;
}

static json_object *build_json(const struct run_report *r,
			       const struct series_report *s)
{
	json_object *o = json_object_new_object(), *misc = json_object_new_object();
	char *id = xasprintf(ORIGIN ":build-%s", s->kernel_key);
	char *co = checkout_id(s);

	add_str(o, "id", id);
	add_str(o, "origin", ORIGIN);
	add_str(o, "checkout_id", co);
	add_str(o, "architecture", "x86_64");
	add_str(o, "config_name", r->profile ? r->profile : "default");
	/* Tests ran on it: the build (and its patches) went through. */
	add_str(o, "status", "PASS");
	add_str(misc, "build_key", s->kernel_key);
	json_object_object_add(o, "misc", misc);
	free(id);
	free(co);
	return o;
}

/*
 * The fields a topology's and a test's entry share.  Its id: the run it
 * ran in (a shard's own, when merged), the series, the path and the
 * test's index (0: the topology itself).
 */
static json_object *test_base(const struct run_report *r,
			      const struct series_report *s,
			      const struct topo_result *t, const char *test,
			      int index)
{
	json_object *o = json_object_new_object(), *env = json_object_new_object();
	char *topo = path_part(t->name), *name = test ? path_part(test) : NULL;
	char *path = name ? xasprintf(ORIGIN ".%s.%s", topo, name) :
		     xasprintf(ORIGIN ".%s", topo);
	char *id = xasprintf(ORIGIN ":%s:%s:%s:%d", t->run ? t->run : r->id,
			     s->name, path, index);
	char *bid = xasprintf(ORIGIN ":build-%s", s->kernel_key);
	char *where = xasprintf("QEMU (%s), %d guest%s", r->accel ? r->accel : "tcg",
				t->nodes, t->nodes > 1 ? "s" : "");

	add_str(o, "id", id);
	add_str(o, "origin", ORIGIN);
	add_str(o, "build_id", bid);
	add_str(o, "path", path);
	add_str(env, "comment", where);
	json_object_object_add(o, "environment", env);
	free(topo);
	free(name);
	free(path);
	free(id);
	free(bid);
	free(where);
	return o;
}

static void add_topology(json_object *tests, const struct run_report *r,
			 const struct series_report *s,
			 const struct topo_result *t)
{
	json_object *o = test_base(r, s, t, NULL, 0), *misc = json_object_new_object();
	int i;

	add_str(o, "status", topo_status(t->verdict));
	if (t->wall > 0)
		json_object_object_add(o, "duration", json_object_new_double(t->wall));
	add_str(misc, "verdict", t->verdict);
	add_str(misc, "results_dir", t->dir);
	json_object_object_add(misc, "seed", json_object_new_uint64(r->seed));
	json_object_object_add(o, "misc", misc);
	json_object_array_add(tests, o);
	for (i = 0; i < t->ntests; i++) {
		const struct test_result *x = &t->tests[i];

		o = test_base(r, s, t, x->name, i + 1);
		add_str(o, "status", test_status(x->result));
		if (x->duration >= 0)
			json_object_object_add(o, "duration",
					       json_object_new_double(x->duration));
		if (x->result == KTAP_FAIL)
			add_excerpt(o, x->detail);
		else if (x->directive)
			add_str(o, "comment", x->directive);
		misc = json_object_new_object();
		add_str(misc, "name", x->name);
		json_object_object_add(o, "misc", misc);
		json_object_array_add(tests, o);
	}
}

static bool built_before(const struct run_report *r, int s)
{
	int i;

	for (i = 0; i < s; i++)
		if (!strcmp(r->series[i].kernel_key, r->series[s].kernel_key))
			return true;
	return false;
}

int report_kcidb(const struct run_report *r, const char *path)
{
	json_object *o = json_object_new_object(), *v = json_object_new_object();
	json_object *co = json_object_new_array(), *b = json_object_new_array();
	json_object *tests = json_object_new_array();
	int s, t;

	json_object_object_add(v, "major", json_object_new_int(KCIDB_MAJOR));
	json_object_object_add(v, "minor", json_object_new_int(KCIDB_MINOR));
	json_object_object_add(o, "version", v);
	for (s = 0; s < r->nseries; s++) {
		const struct series_report *sr = &r->series[s];

		/* Two series of one build key are one checkout and build. */
		if (!built_before(r, s)) {
			json_object_array_add(co, checkout_json(r, sr));
			json_object_array_add(b, build_json(r, sr));
		}
		for (t = 0; t < sr->ntopo; t++)
			add_topology(tests, r, sr, &sr->res[t]);
	}
	json_object_object_add(o, "checkouts", co);
	json_object_object_add(o, "builds", b);
	json_object_object_add(o, "tests", tests);
	return json_write_put(o, path);
}
