// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"

void ktap_init(struct ktap *k)
{
	memset(k, 0, sizeof(*k));
	k->plan = -1;
	k->pending_duration = -1;
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

static const struct ktap_test *add_result(struct ktap *k, const char *line,
					  bool ok)
{
	struct ktap_test *t;
	const char *p = line + (ok ? 3 : 7);
	const char *hash;
	char *end;
	long num = strtol(p, &end, 10);

	if (end == p || (*end && *end != ' ')) {
		ktap_error(k, "result without a test number", line);
		return NULL;
	}
	if (num != k->ntests + 1)
		ktap_error(k, "test number out of sequence", line);
	k->tests = xrealloc(k->tests, (k->ntests + 1) * sizeof(*t));
	t = &k->tests[k->ntests++];
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
	t->duration = k->pending_duration;
	t->detail = k->pending.buf ? k->pending.buf : xstrdup("");
	memset(&k->pending, 0, sizeof(k->pending));
	k->pending_duration = -1;
	return t;
}

static void parse_plan(struct ktap *k, const char *line)
{
	char *end;
	long n = strtol(line + 3, &end, 10);

	if (*end && *end != ' ')
		ktap_error(k, "malformed plan", line);
	else if (k->plan >= 0)
		ktap_error(k, "second plan", line);
	else
		k->plan = n;
}

const struct ktap_test *ktap_feed(struct ktap *k, const char *line)
{
	k->lineno++;
	if (line[0] == ' ' || line[0] == '\t') {
		sb_printf(&k->pending, "%s\n", line);
		return NULL;
	}
	if (!strncmp(line, "KTAP version ", 13)) {
		if (strcmp(line + 13, "1"))
			ktap_error(k, "unsupported version", line);
		k->version_seen = true;
	} else if (!strncmp(line, "1..", 3)) {
		parse_plan(k, line);
	} else if (!strncmp(line, "ok ", 3)) {
		return add_result(k, line, true);
	} else if (!strncmp(line, "not ok ", 7)) {
		return add_result(k, line, false);
	} else if (!strncmp(line, "# duration_ms: ", 15)) {
		k->pending_duration = atof(line + 15) / 1000.0;
	} else if (!strncmp(line, "Bail out!", 9)) {
		ktap_error(k, "guest bailed out", line);
	} else {
		sb_printf(&k->pending, "%s\n", line);
	}
	return NULL;
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

void ktap_free(struct ktap *k)
{
	int i;

	for (i = 0; i < k->ntests; i++) {
		free(k->tests[i].name);
		free(k->tests[i].directive);
		free(k->tests[i].detail);
	}
	free(k->tests);
	sb_free(&k->pending);
	sb_free(&k->errors);
}
