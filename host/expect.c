// SPDX-License-Identifier: GPL-2.0
#include <ini.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"

struct load_state {
	struct expect *e;
	char msg[200];
};

static int on_key(void *user, const char *section, const char *k,
		  const char *v)
{
	struct load_state *ls = user;
	struct expect_rule *r;

	if (ls->msg[0])
		return 1;
	if (strcmp(v, "pass") && strcmp(v, "fail") && strncmp(v, "fail:", 5)) {
		snprintf(ls->msg, sizeof(ls->msg),
			 "%s = %s: want pass, fail or fail:TEST", k, v);
		return 0;
	}
	if (strlen(section) >= sizeof(r->series) ||
	    strlen(k) >= sizeof(r->topology) || strlen(v) >= sizeof(r->want)) {
		snprintf(ls->msg, sizeof(ls->msg), "name too long");
		return 0;
	}
	ls->e->rules = xrealloc(ls->e->rules, (ls->e->n + 1) * sizeof(*r));
	r = &ls->e->rules[ls->e->n++];
	strcpy(r->series, section);
	strcpy(r->topology, k);
	strcpy(r->want, v);
	return 1;
}

int expect_load(const char *path, struct expect *e, char *err, size_t len)
{
	struct load_state ls = { .e = e };
	int line;

	memset(e, 0, sizeof(*e));
	e->path = xstrdup(path);
	line = ini_parse(path, on_key, &ls);
	if (line < 0) {
		snprintf(err, len, "%s: cannot open", path);
		return -1;
	}
	if (line > 0) {
		snprintf(err, len, "%s:%d: %s", path, line,
			 ls.msg[0] ? ls.msg : ini_syntax_why(path, line));
		return -1;
	}
	return 0;
}

static const struct expect_rule *find_in(const struct expect *e,
					 const char *section, const char *topo)
{
	const struct expect_rule *star = NULL;
	int i;

	for (i = 0; i < e->n; i++) {
		if (strcmp(e->rules[i].series, section))
			continue;
		if (!strcmp(e->rules[i].topology, topo))
			return &e->rules[i];
		if (!strcmp(e->rules[i].topology, "*") && !star)
			star = &e->rules[i];
	}
	return star;
}

const struct expect_rule *expect_find(const struct expect *e,
				      const char *series, const char *topo)
{
	const struct expect_rule *r = NULL;
	char own[160];

	if (e->kseries) {
		snprintf(own, sizeof(own), "%s@%s", series, e->kseries);
		r = find_in(e, own, topo);
	}
	return r ? r : find_in(e, series, topo);
}

static bool test_failed(const struct topo_result *res, const char *name)
{
	int i;

	for (i = 0; i < res->ntests; i++) {
		const char *t = res->tests[i].name, *node = strchr(t, '/');

		/* Of two nodes: "swapfile-integrity" is node0's or node1's. */
		if ((!strcmp(t, name) || (node && !strcmp(node + 1, name))) &&
		    res->tests[i].result == KTAP_FAIL)
			return true;
	}
	return false;
}

bool expect_met(const struct expect_rule *r, const struct topo_result *res,
		char *why, size_t len)
{
	bool passed = !strcmp(res->verdict, "PASS");

	if (!strcmp(r->want, "pass")) {
		snprintf(why, len, passed ? "passed as expected" :
			 "expected to pass, got %s", res->verdict);
		return passed;
	}
	if (!strcmp(r->want, "fail")) {
		snprintf(why, len, passed ? "expected to fail, passed" :
			 "failed as expected");
		return !passed;
	}
	if (test_failed(res, r->want + 5)) {
		snprintf(why, len, "%s failed as expected", r->want + 5);
		return true;
	}
	snprintf(why, len, "expected %s to fail; verdict %s", r->want + 5,
		 res->verdict);
	return false;
}
