// SPDX-License-Identifier: GPL-2.0
/*
 * Progress, seen from the host: a test whose KTAP output goes quiet
 * longer than its bound ends the run as TIMEOUT naming the test and the
 * step.  The bound is the runner's default (scaled by the profile) until
 * a step declares its own with progress_begin(): longer for a wait whose
 * own timeout says more, shorter for one that knows it is quick.  Every
 * KTAP line renews it; progress_note() is a line that says how far a
 * long step got, printed at most every PROGRESS_EVERY seconds.
 *
 * The protocol is two KTAP diagnostics the host reads as they come:
 *   # progress: WHAT: quiet up to N s
 *   # progress: default bound
 * A result line ("ok N ...", "not ok N ...") also ends a declared bound.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stacktest.h"

#define PROGRESS_EVERY 5.0
#define PROGRESS_DEPTH 4

static struct {
	char what[96];
	double seconds;
} bound[PROGRESS_DEPTH];
static int depth;
static double last_note;
static FILE *to;		/* stdout, or PID 1's KTAP port */
static const char *indent = "";

void progress_to(FILE *f, const char *prefix)
{
	to = f;
	indent = prefix;
}

static FILE *port(void)
{
	return to ? to : stdout;
}

/* Deeper than PROGRESS_DEPTH, the deepest kept bound stands for the rest. */
static void say_bound(void)
{
	int i = (depth < PROGRESS_DEPTH ? depth : PROGRESS_DEPTH) - 1;

	if (depth)
		fprintf(port(), "%s# progress: %s: quiet up to %.0f s\n", indent,
			bound[i].what, bound[i].seconds);
	else
		fprintf(port(), "%s# progress: default bound\n", indent);
	fflush(port());
	last_note = mono_s();
}

void progress_begin(const char *what, double seconds)
{
	int i = depth++;

	if (i < PROGRESS_DEPTH) {
		snprintf(bound[i].what, sizeof(bound[i].what), "%s", what);
		bound[i].seconds = scaled(seconds);
	}
	say_bound();
}

/* The host's bound on a wait that has a timeout of its own comes later. */
#define WAIT_MARGIN 15

void progress_wait(const char *what, double timeout)
{
	progress_begin(what, timeout + WAIT_MARGIN);
}

void progress_end(void)
{
	if (depth)
		depth--;
	say_bound();
}

void progress_reset(void)
{
	depth = 0;
}

/* One write per line: the hog's two threads both take notes. */
void progress_note(const char *fmt, ...)
{
	double now = mono_s();
	char line[256];
	va_list ap;

	if (now - last_note < PROGRESS_EVERY)
		return;
	last_note = now;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(port(), "%s# progress: %s\n", indent, line);
	fflush(port());
}
