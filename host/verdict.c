// SPDX-License-Identifier: GPL-2.0
/*
 * A topology's verdict, from what its guests said: each guest's KTAP tree
 * (a test with its steps), whether QEMU ended by itself in time, and the
 * kernel's log, where every splat is named after the test in whose
 * window it appeared (PID 1 marks each test's start and end there).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hang.h"
#include "verdict.h"

struct test_result *result_add(struct topo_result *r, const char *name,
			       enum ktap_result res, double dur,
			       const char *detail)
{
	struct test_result *t;

	r->tests = xrealloc(r->tests, (r->ntests + 1) * sizeof(*t));
	t = &r->tests[r->ntests++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->result = res;
	t->duration = dur;
	t->detail = xstrdup(detail ? detail : "");
	if (res == KTAP_PASS)
		r->npassed++;
	else if (res == KTAP_SKIP)
		r->nskipped++;
	else
		r->nfailed++;
	return t;
}

static void copy_ktap(struct test_result *t, const struct ktap_test *k)
{
	t->name = xstrdup(k->name);
	t->result = k->result;
	t->duration = k->duration;
	t->detail = xstrdup(k->detail);
	t->directive = k->directive ? xstrdup(k->directive) : NULL;
	result_steps_from_ktap(t, k);
}

void result_steps_from_ktap(struct test_result *t, const struct ktap_test *k)
{
	int i;

	t->nsub = k->nsub;
	t->sub = k->nsub ? xcalloc(k->nsub, sizeof(*t->sub)) : NULL;
	for (i = 0; i < k->nsub; i++)
		copy_ktap(&t->sub[i], &k->sub[i]);
}

struct test_result *result_find(struct topo_result *r, const char *name)
{
	int i;

	for (i = 0; i < r->ntests; i++)
		if (!strcmp(r->tests[i].name, name))
			return &r->tests[i];
	return NULL;
}

/*
 * What in the console means trouble.  The guest boots with loglevel=5, so
 * the console carries warnings and worse, not the routine chatter.
 */
static const char *const splats[] = {
	"Kernel panic", "BUG:", "WARNING:", "Oops", "general protection fault",
	"KASAN", "UBSAN", "INFO: task", "rcu: INFO", "INFO: rcu",
	"possible circular locking", "I/O error", "EXT4-fs error",
	"EXT4-fs warning", "JBD2:", "Call Trace:",
	/* debugobjects' own (its "out of memory" turns the checks off) */
	"ODEBUG:", NULL,
};

/* The tools' own "WARNING:" lines share the console: see kernel_says(). */
bool is_splat(const char *line)
{
	return kernel_says(line, splats);
}

/* PID 1's "stacktest: begin NAME" / "stacktest: end NAME" in the kernel log. */
static void track_window(const char *line, char *window, size_t len)
{
	const char *p = strstr(line, "] stacktest: ");

	if (!p)
		return;
	p += 13;
	if (!strncmp(p, "begin ", 6))
		snprintf(window, len, "%s", p + 6);
	else if (!strncmp(p, "end ", 4))
		snprintf(window, len, "after %s", p + 4);
}

/* One window's splats, a step of the kernel-log test. */
static void add_window(struct test_result *kl, const char *window,
		       struct strbuf *lines)
{
	struct test_result *w;

	if (!kl || !lines->len)
		return;
	kl->sub = xrealloc(kl->sub, (kl->nsub + 1) * sizeof(*w));
	w = &kl->sub[kl->nsub++];
	memset(w, 0, sizeof(*w));
	w->name = xstrdup(window);
	w->result = KTAP_FAIL;
	w->duration = -1;
	w->detail = xstrdup(lines->buf);
	sb_free(lines);
}

char *scan_console(const char *console, struct test_result *kl)
{
	struct strbuf sb = { 0 }, win = { 0 };
	char *text = xstrdup(console), *line, *save, window[80] = "boot";
	char shown[80] = "";
	bool dump = false;
	int n = 0;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char before[80];

		snprintf(before, sizeof(before), "%s", window);
		track_window(line, window, sizeof(window));
		if (strcmp(before, window))
			add_window(kl, before, &win);
		/*
		 * PID 1's own dump of blocked tasks near the deadline (sysrq-w)
		 * shows call traces on purpose: a diagnosis, not a splat.  A
		 * guest that then hangs is judged by the deadline.
		 */
		if (pid1_dump_marker(line))
			dump = pid1_dump_marker(line) > 0;
		if (dump || !is_splat(line))
			continue;
		sb_printf(&win, "%s\n", line);
		if (n++ >= 40)
			continue;
		if (strcmp(shown, window))
			sb_printf(&sb, "%s%s:\n", !strcmp(window, "boot") ?
				  "at " : strncmp(window, "after ", 6) ?
				  "during " : "", window);
		snprintf(shown, sizeof(shown), "%s", window);
		sb_printf(&sb, "  %s\n", line);
	}
	add_window(kl, window, &win);
	if (n > 40)
		sb_printf(&sb, "... %d more\n", n - 40);
	free(text);
	return sb.buf;
}

const char *console_tail(const char *text, int lines)
{
	const char *p;
	int n = 0;

	for (p = text + strlen(text); p > text; p--)
		if (p[-1] == '\n' && ++n > lines)
			break;
	return p;
}

/*
 * A test that says it passed must have reported every step it planned
 * and none of them failed; else it fails here, saying why.
 */
enum ktap_result test_checked(const struct ktap_test *t, struct strbuf *why)
{
	int i, bad = 0;

	if (t->result != KTAP_PASS)
		return t->result;
	for (i = 0; i < t->nsub; i++)
		bad += t->sub[i].result == KTAP_FAIL;
	if (bad)
		sb_printf(why, "passed, yet %d of its steps failed\n", bad);
	if (t->plan >= 0 && t->plan != t->nsub)
		sb_printf(why, "passed, yet it planned %d steps and reported %d\n",
			  t->plan, t->nsub);
	return why->len ? KTAP_FAIL : KTAP_PASS;
}

/* What QEMU's monitor said at the deadline, in one line. */
static void deadline_state(struct strbuf *why, const char *state_log,
			   const char *sysmap)
{
	char *state = read_file(state_log, NULL);
	char *map = state ? read_file(sysmap, NULL) : NULL;
	char *sum = state ? vcpu_summary(state, map) : NULL;

	if (sum)
		sb_printf(why, "QEMU at the deadline (%s): %s\n", state_log,
			  sum);
	free(sum);
	free(map);
	free(state);
}

/* The guest's own tests, each with its steps, named after prefix. */
static void add_tests(struct topo_result *r, const struct ktap *k,
		      const char *prefix)
{
	int i;

	for (i = 0; i < k->ntests; i++) {
		const struct ktap_test *kt = &k->tests[i];
		struct strbuf why = { 0 };
		enum ktap_result res = test_checked(kt, &why);
		char *name = xasprintf("%s%s", prefix, kt->name);
		struct test_result *t;

		sb_add(&why, kt->detail, strlen(kt->detail));
		t = result_add(r, name, res, kt->duration, why.buf);
		t->directive = kt->directive ? xstrdup(kt->directive) : NULL;
		result_steps_from_ktap(t, kt);
		free(name);
		sb_free(&why);
	}
}

/*
 * The console line where the guest's crash begins: the first oops, BUG
 * or panic line (our own NMI's panic at a deadline is not a crash).
 */
static const char *crash_start(const char *text)
{
	static const char *const what[] = {
		"] BUG: unable to handle", "] BUG: kernel NULL pointer",
		"] kernel BUG at", "] Oops", "] general protection fault",
		"] invalid opcode:", "] divide error:", "] stack segment:",
		"] Kernel panic - not syncing", NULL,
	};
	const char *first = NULL, *p;
	size_t len;
	int i;

	for (i = 0; what[i]; i++) {
		p = strstr(text, what[i]);
		if (p && (!first || p < first))
			first = p;
	}
	if (!first)
		return NULL;
	len = strcspn(first, "\n");
	p = strstr(first, "] Kernel panic - not syncing: NMI");
	if (p && p < first + len)
		return NULL;
	while (first > text && first[-1] != '\n')
		first--;
	return first;
}

/* Whether the guest's kernel panicked on its own (not at our NMI). */
static bool crashed(const char *text)
{
	return crash_start(text) && strstr(text, "] Kernel panic - not syncing");
}

/* The crash's lines, up to its "Kernel panic" line (at most 60). */
static void add_crash(struct strbuf *why, const char *text)
{
	const char *p = crash_start(text), *eol;
	int n;

	if (!p)
		return;
	sb_printf(why, "crash: the guest's kernel oopsed or panicked (oops=panic ends the run at once):\n");
	for (n = 0; *p && n < 60; n++, p = *eol ? eol + 1 : eol) {
		eol = p + strcspn(p, "\n");
		sb_printf(why, "  %.*s\n", (int)(eol - p), p);
		if (strstr(p, "] Kernel panic - not syncing") &&
		    strstr(p, "] Kernel panic - not syncing") < eol)
			break;
	}
}

/* "guest": QEMU ended by itself, in time, with a complete KTAP plan. */
static void add_guest(struct topo_result *r, struct ktap *k,
		      const struct guest_result *g, const struct guest *gs,
		      const char *text, const char *sysmap, const char *prefix)
{
	struct strbuf why = { 0 };
	char *name, *copy = xstrdup(text), *nmi;

	nmi = g->timed_out ? nmi_split(copy) : NULL;
	if (g->timed_out && *g->hang)
		sb_printf(&why, "hang: the kernel reported one %.0f s after start, %s %s (last KTAP line: %s); the run was ended then, after PID 1's forensics (or %d s), not at its %d s deadline:\n  %s\n",
			  g->hang_s, g->test_ended ? "after" : "during",
			  *g->test ? g->test : "boot",
			  *g->step ? g->step : "none", HANG_GRACE, gs->timeout,
			  g->hang);
	else if (g->timed_out && g->quiet_s)
		sb_printf(&why, "no progress: nothing on the KTAP port for %.0f s (%s%s), %s %s (last KTAP line: %s); the run was ended %.0f s after start, not at its %d s deadline\n",
			  g->quiet_bound, *g->quiet ? "the bound of " :
			  "the default bound", g->quiet,
			  g->test_ended ? "after" : "during",
			  *g->test ? g->test : "boot",
			  *g->step ? g->step : "none", g->quiet_s,
			  gs->timeout);
	else if (g->timed_out && g->peer_ended)
		sb_printf(&why, "timeout: its peer hung or crashed, so this node was ended with it, not at its %d s deadline\n",
			  gs->timeout);
	else if (g->timed_out)
		sb_printf(&why, "timeout: the guest did not finish in time; QEMU was killed\n");
	if (g->timed_out)
		deadline_state(&why, gs->state_log, sysmap);
	if (g->panic_killed)
		sb_printf(&why, "panic: the guest panicked and did not reboot; QEMU was killed\n");
	if (g->interrupted)
		sb_printf(&why, "interrupted: QEMU was killed\n");
	if (!g->timed_out && !g->interrupted && !g->panic_killed && g->status)
		sb_printf(&why, "QEMU exited with status %d\n", g->status);
	ktap_finish(k);
	if (k->errors.len)
		sb_add(&why, k->errors.buf, k->errors.len);
	if (!g->timed_out && !g->interrupted)
		add_crash(&why, copy);
	if (why.len)
		sb_printf(&why, "last console lines (%s):\n%s", gs->console_log,
			  console_tail(copy, 25));
	if (nmi)
		sb_printf(&why, "the guest's stack at the deadline's NMI (every task's follows in the console log):\n%s",
			  nmi);
	name = xasprintf("%sguest", prefix);
	result_add(r, name, why.len ? KTAP_FAIL : KTAP_PASS, g->seconds,
		   why.buf);
	free(name);
	free(nmi);
	free(copy);
	sb_free(&why);
}

/*
 * The test a crash, a hang or the deadline cut short has no result of
 * its own: it fails here, saying what stopped it.
 */
static void add_unfinished(struct topo_result *r, const struct guest_result *g,
			   const char *prefix, bool panic)
{
	const char *why = "the guest ended during it (see guest)";
	char *name, *detail;

	if (!*g->test || g->test_ended || g->interrupted)
		return;
	if (panic)
		why = "the kernel crashed during it (see guest and kernel-log)";
	else if (*g->hang)
		why = "the kernel reported a hang during it (see guest)";
	else if (g->quiet_s)
		why = "it made no progress within its bound (see guest)";
	else if (g->peer_ended)
		why = "its peer hung or crashed (see the peer's guest)";
	else if (g->timed_out)
		why = "the run's deadline came during it (see guest)";
	name = xasprintf("%s%s", prefix, g->test);
	detail = xasprintf("did not finish: %s\n", why);
	if (!result_find(r, name))
		result_add(r, name, KTAP_FAIL, 0, detail);
	free(detail);
	free(name);
}

int guest_verdict(struct topo_result *r, struct ktap *k,
		  const struct guest_result *g, const struct guest *gs,
		  const char *sysmap, const char *prefix)
{
	char *text = read_file(gs->console_log, NULL), *splat, *name;
	struct test_result windows = { 0 }, *kl;
	int v = 0;

	if (!text)
		text = xstrdup("(no console log)\n");
	add_tests(r, k, prefix);
	add_guest(r, k, g, gs, text, sysmap, prefix);
	splat = scan_console(text, &windows);
	name = xasprintf("%skernel-log", prefix);
	kl = result_add(r, name, splat && *splat ? KTAP_FAIL : KTAP_PASS, 0,
			splat);
	kl->sub = windows.sub;
	kl->nsub = windows.nsub;
	free(name);
	v |= g->timed_out ? V_TIMEOUT : 0;
	v |= g->interrupted ? V_INTERRUPTED : 0;
	/* From the whole text: the splat summary stops at 40 lines. */
	v |= crashed(text) ? V_CRASH : 0;
	add_unfinished(r, g, prefix, v & V_CRASH && !g->timed_out);
	free(splat);
	free(text);
	return v;
}

const char *topo_verdict(const struct topo_result *r, int v)
{
	return v & V_INTERRUPTED ? "INTERRUPTED" : v & V_TIMEOUT ? "TIMEOUT" :
	       v & V_CRASH ? "CRASH" : r->nfailed ? "FAIL" : "PASS";
}
