/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_KTAP_H
#define HOST_KTAP_H

#include <stdbool.h>
#include "util.h"

enum ktap_result { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };

struct ktap_test {
	int num;
	char *name;
	enum ktap_result result;
	char *directive;	/* text after '#', or NULL */
	double duration;	/* seconds, from "# duration_ms: N"; -1 unknown */
	char *detail;		/* nested lines and diagnostics before it */
};

/*
 * A streaming reader of the top level of a KTAP v1 document
 * (Documentation/dev-tools/ktap.rst): nested subtests are kept as text in
 * the parent's detail.  Protocol errors (no version line, no plan, results
 * out of order, fewer results than planned) are collected in errors.
 */
struct ktap {
	bool version_seen;
	int plan;		/* -1 until "1..N" */
	int ntests;
	struct ktap_test *tests;
	struct strbuf pending;	/* detail for the next result */
	double pending_duration;
	struct strbuf errors;
	int lineno;
};

void ktap_init(struct ktap *k);
/* Feed one line (no newline); returns the test it completed, or NULL. */
const struct ktap_test *ktap_feed(struct ktap *k, const char *line);
/* After the last line: check the plan; returns the number of errors found. */
int ktap_finish(struct ktap *k);
void ktap_free(struct ktap *k);

#endif
