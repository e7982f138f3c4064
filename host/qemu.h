/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_QEMU_H
#define HOST_QEMU_H

#include <stdbool.h>

struct guest {
	const char *kernel, *initrd, *append, *accel;
	long long memory;
	int smp;
	int ndisks;
	char **disks;
	int nzoned;		/* the last nzoned disks are NVMe ZNS */
	const char *console_log, *ktap_log, *qemu_log;
	const char *state_log;	/* QEMU's monitor at the deadline */
	int timeout;		/* seconds */
	/*
	 * Seconds a guest may print nothing on the KTAP port, unless a step
	 * declares its own bound there (lib/progress.c); 0: no such bound.
	 */
	int quiet;
	int net_fd;		/* >= 0: a stream socket to the peer guest */
	const char *mac;	/* its virtio-net MAC */
};

struct guest_result {
	int status;		/* QEMU's exit status, 128+sig if killed */
	bool timed_out;
	bool interrupted;
	bool panic_killed;	/* it panicked and did not end by itself */
	bool peer_ended;	/* ended early because its peer hung or crashed */
	double seconds;
	/*
	 * The kernel's own detector (hung task, RCU stall, soft lockup)
	 * reported a hang: its first line, when (seconds after start) and
	 * in which test.  The run then ends as at its deadline, early.
	 */
	char hang[256];
	double hang_s;
	/*
	 * No progress: the KTAP port was quiet past the bound: the step that
	 * declared it ("" for the default), how long, when (0: not so).
	 */
	char quiet[128];
	double quiet_bound, quiet_s;
	char test[64];		/* the last test begun ("stacktest: begin") */
	bool test_ended;	/* ... and ended ("stacktest: end") */
	char step[256];		/* the last line on the KTAP port */
};

/* After a hang report: seconds for PID 1's forensics before the NMI. */
#define HANG_GRACE 10

/*
 * PID 1's own dumps of blocked tasks (at a hang report, near the deadline)
 * show call traces on purpose: 1 at a line opening one, -1 at the line
 * closing it, else 0.
 */
int pid1_dump_marker(const char *line);

/* Whether a console line is a kernel detector's report of a hang. */
bool is_hang_report(const char *line);

/*
 * A KTAP line's word on the quiet bound (lib/progress.c): N > 0 seconds
 * declared by the step named in what, -1 back to the default (a result
 * line, "# progress: default bound"), 0 nothing to say.
 */
long progress_bound(const char *line, char *what, size_t len);

/* Called for every line from the KTAP port, and every few seconds (NULL). */
typedef void (*guest_line_cb)(void *ctx, const char *line);

/*
 * Boot a guest and wait for it: console and KTAP port each go to their
 * log, KTAP lines also to cb.  On a stop request QEMU is killed.  At the
 * deadline the vCPU state from QEMU's monitor goes to state_log, the
 * guest gets an NMI (with unknown_nmi_panic it panics and prints where
 * it was) and a few seconds to print, then QEMU is killed.  The same
 * happens early, a little after the console shows a hang report (time
 * for PID 1's forensics), and QEMU is killed when a panic does not end
 * it by itself.  Returns 0
 * when QEMU could be started.
 */
int guest_run(const struct guest *g, guest_line_cb cb, void *ctx,
	      struct guest_result *r);
/* n guests at once (DRBD's two nodes), each with its own ctx and result. */
int guests_run(const struct guest *g, int n, guest_line_cb cb, void **ctx,
	       struct guest_result *r);

#endif
