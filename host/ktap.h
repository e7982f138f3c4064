/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_KTAP_H
#define HOST_KTAP_H

#include <stdbool.h>
#include "util.h"

enum ktap_result { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };

#define KTAP_MAX_DEPTH 8

struct ktap_test {
	int num;
	char *name;
	enum ktap_result result;
	char *directive;	/* text after '#', or NULL */
	double duration;	/* seconds, from "# duration_ms: N"; -1 unknown */
	/*
	 * Everything before the result since the previous one at its depth:
	 * its diagnostics and its subtests' lines (indented as they came,
	 * less the test's own indentation).
	 */
	char *detail;
	int plan;		/* its subtests' plan "1..N", -1 if none */
	int nsub;
	struct ktap_test *sub;	/* its subtests (nested KTAP), in order */
};

/*
 * A streaming reader of a KTAP v1 document
 * (Documentation/dev-tools/ktap.rst) that keeps the tree: a subtest's
 * lines are indented four spaces more than its parent's result, and come
 * before it.  Protocol errors of the top level (no version line, no plan,
 * results out of order, fewer results than planned) are collected in
 * errors; a subtest document's plan is kept with its parent.
 */
struct ktap_level {
	int ntests;
	struct ktap_test *tests;
	struct strbuf pending;	/* detail for the next result here */
	double pending_duration;
	int plan;
};

struct ktap {
	bool version_seen;
	int plan;		/* -1 until "1..N" */
	int ntests;
	struct ktap_test *tests;
	struct ktap_level level[KTAP_MAX_DEPTH];	/* [0]: the top */
	struct strbuf errors;
	int lineno;
};

void ktap_init(struct ktap *k);
/* Feed one line (no newline); returns the top-level test it completed. */
const struct ktap_test *ktap_feed(struct ktap *k, const char *line);
/* After the last line: check the plan; returns the number of errors found. */
int ktap_finish(struct ktap *k);
void ktap_free(struct ktap *k);
void ktap_test_free(struct ktap_test *t);

#endif
