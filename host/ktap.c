// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP v1, nested: each level of indentation (four spaces) is the
 * document of the subtests of the next result one level up.  The tree is
 * kept; every result also keeps its lines as text (its detail).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"

void ktap_init(struct ktap *k)
{
	int d;

	memset(k, 0, sizeof(*k));
	k->plan = -1;
	for (d = 0; d < KTAP_MAX_DEPTH; d++) {
		k->level[d].pending_duration = -1;
		k->level[d].plan = -1;
	}
}

static void ktap_error(struct ktap *k, const char *msg, const char *line)
{
	sb_printf(&k->errors, "KTAP line %d: %s%s%s\n", k->lineno, msg,
		  line ? ": " : "", line ? line : "");
}

static char *trim_dup(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	return strndup(s, n);
}

/* "ok 3 name # SKIP why" at depth d: a result, with the subtests below. */
static struct ktap_test *add_result(struct ktap *k, int d, const char *line,
				    bool ok)
{
	struct ktap_level *lv = &k->level[d], *below = NULL;
	const char *p = line + (ok ? 3 : 7), *hash;
	struct ktap_test *t;
	char *end;
	long num = strtol(p, &end, 10);

	if (end == p || (*end && *end != ' ')) {
		if (!d)
			ktap_error(k, "result without a test number", line);
		return NULL;
	}
	if (!d && num != lv->ntests + 1)
		ktap_error(k, "test number out of sequence", line);
	lv->tests = xrealloc(lv->tests, (lv->ntests + 1) * sizeof(*t));
	t = &lv->tests[lv->ntests++];
	memset(t, 0, sizeof(*t));
	t->num = num;
	p = end;
	if (*p == ' ')
		p++;
	if (*p == '-' && p[1] == ' ')
		p += 2;
	hash = strchr(p, '#');
	t->name = trim_dup(p, hash ? (size_t)(hash - p) : strlen(p));
	t->directive = hash ? trim_dup(hash + 1, strlen(hash + 1)) : NULL;
	t->result = ok ? KTAP_PASS : KTAP_FAIL;
	if (t->directive && !strncasecmp(t->directive, "SKIP", 4))
		t->result = KTAP_SKIP;
	t->duration = lv->pending_duration;
	t->detail = lv->pending.buf ? lv->pending.buf : xstrdup("");
	memset(&lv->pending, 0, sizeof(lv->pending));
	lv->pending_duration = -1;
	t->plan = -1;
	if (d + 1 < KTAP_MAX_DEPTH) {
		below = &k->level[d + 1];
		t->sub = below->tests;
		t->nsub = below->ntests;
		t->plan = below->plan;
		below->tests = NULL;
		below->ntests = 0;
		below->plan = -1;
		sb_free(&below->pending);
		below->pending_duration = -1;
	}
	return t;
}

static void parse_plan(struct ktap *k, int d, const char *line)
{
	char *end;
	long n = strtol(line + 3, &end, 10);
	int *plan = d ? &k->level[d].plan : &k->plan;

	if (*end && *end != ' ') {
		if (!d)
			ktap_error(k, "malformed plan", line);
	} else if (*plan >= 0 && !d) {
		ktap_error(k, "second plan", line);
	} else {
		*plan = n;
	}
}

/* How deep a line is (four spaces a level), and the line without them. */
static int depth_of(const char **line)
{
	int d = 0;

	while (d + 1 < KTAP_MAX_DEPTH && !strncmp(*line, "    ", 4)) {
		*line += 4;
		d++;
	}
	while (**line == ' ' || **line == '\t')
		(*line)++;
	return d;
}

/* The line goes into the detail of the next result at each depth above d. */
static void add_to_parents(struct ktap *k, int d, const char *raw)
{
	int up;

	for (up = 0; up < d; up++)
		sb_printf(&k->level[up].pending, "%s\n", raw + 4 * up);
}

const struct ktap_test *ktap_feed(struct ktap *k, const char *raw)
{
	const char *line = raw;
	int d = depth_of(&line);
	struct ktap_level *lv = &k->level[d];
	const struct ktap_test *done = NULL;

	k->lineno++;
	add_to_parents(k, d, raw);
	if (!strncmp(line, "KTAP version ", 13)) {
		if (!d && strcmp(line + 13, "1"))
			ktap_error(k, "unsupported version", line);
		if (!d)
			k->version_seen = true;
	} else if (!strncmp(line, "1..", 3)) {
		parse_plan(k, d, line);
	} else if (!strncmp(line, "ok ", 3) || !strncmp(line, "not ok ", 7)) {
		done = add_result(k, d, line, line[0] == 'o');
	} else if (!strncmp(line, "# duration_ms: ", 15)) {
		lv->pending_duration = atof(line + 15) / 1000.0;
	} else if (!strncmp(line, "Bail out!", 9)) {
		ktap_error(k, "guest bailed out", line);
	} else {
		sb_printf(&lv->pending, "%s\n", line);
	}
	k->tests = k->level[0].tests;
	k->ntests = k->level[0].ntests;
	return d ? NULL : done;
}

int ktap_finish(struct ktap *k)
{
	char msg[128];
	size_t i;
	int n = 0;

	if (!k->version_seen)
		ktap_error(k, "no 'KTAP version 1' line", NULL);
	if (k->plan < 0) {
		ktap_error(k, "no plan line (1..N)", NULL);
	} else if (k->ntests != k->plan) {
		snprintf(msg, sizeof(msg), "plan says %d tests, %d reported",
			 k->plan, k->ntests);
		ktap_error(k, msg, NULL);
	}
	for (i = 0; i < k->errors.len; i++)
		n += k->errors.buf[i] == '\n';
	return n;
}

void ktap_test_free(struct ktap_test *t)
{
	int i;

	for (i = 0; i < t->nsub; i++)
		ktap_test_free(&t->sub[i]);
	free(t->sub);
	free(t->name);
	free(t->directive);
	free(t->detail);
}

void ktap_free(struct ktap *k)
{
	int d, i;

	for (d = 0; d < KTAP_MAX_DEPTH; d++) {
		for (i = 0; i < k->level[d].ntests; i++)
			ktap_test_free(&k->level[d].tests[i]);
		free(k->level[d].tests);
		sb_free(&k->level[d].pending);
	}
	sb_free(&k->errors);
	k->tests = NULL;
	k->ntests = 0;
}
