/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_VERDICT_H
#define HOST_VERDICT_H

#include "qemu.h"
#include "result.h"

enum { V_TIMEOUT = 1, V_INTERRUPTED = 2, V_CRASH = 4 };

/*
 * One guest's part of a topology's result: its own tests (each with its
 * steps; a test that passed while a step failed or a planned step is
 * missing fails), then "guest" (QEMU ended by itself, in time, with a
 * complete KTAP plan) and "kernel-log" (no splat in its console, each
 * splat named after the test in whose window it came), all named after
 * prefix ("node1/" of two nodes).  Returns V_* flags for topo_verdict().
 */
int guest_verdict(struct topo_result *r, struct ktap *k,
		  const struct guest_result *g, const struct guest *gs,
		  const char *sysmap, const char *prefix);
/*
 * A test's result, checked: one that says it passed while a step failed
 * or a planned step is missing fails, the reason appended to why.
 */
enum ktap_result test_checked(const struct ktap_test *t, struct strbuf *why);
/* PASS, FAIL, TIMEOUT, CRASH or INTERRUPTED. */
const char *topo_verdict(const struct topo_result *r, int v);

/* A console line where the kernel (a "[ 1.23]" stamped line) is unwell. */
bool is_splat(const char *line);
/*
 * The console's splats as text, grouped under "during TEST:" by the test
 * in whose window they came ("at boot:" before the first, "after TEST:"
 * between tests); with kl, each window with splats becomes a failed step
 * of it, named after the window.
 */
char *scan_console(const char *console, struct test_result *kl);
/* The last lines of text. */
const char *console_tail(const char *text, int lines);

#endif
