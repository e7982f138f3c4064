// SPDX-License-Identifier: GPL-2.0
/*
 * drbd-detach: DRBD's local-disk error path, reached the way a dying disk
 * reaches it.  fail_make_request fails every bio node0's lower disk gets
 * (data and meta-data), so DRBD must detach it itself (on-io-error
 * detach) and keep serving from the peer.
 *
 * node0 (primary): a seeded pattern over the first REGION of /dev/drbd0;
 * the lower disk starts failing and the region is rewritten: every write
 * must succeed, node0's disk must go Diskless with the peer UpToDate, and
 * the region must read back (from the peer).  The fault is cleared and
 * the disk re-attached: the resync must bring it UpToDate, and with the
 * link cut the region must read back from node0's own disk.  Still cut
 * off, with on-no-data-accessible suspend-io, the disk fails again under
 * a write: with no data left to reach, DRBD must freeze the write, not
 * fail it; the fault is cleared and the disk re-attached, and DRBD must
 * resubmit the frozen write to it (w_restart_disk_io, a clone from
 * drbd_io_bio_set: the seed series' path), which then completes and reads
 * back.  Reconnected, the peer resyncs.  Demote.
 *
 * node1: wait for node0 to demote, promote, read the region back, run an
 * online verify (0 out of sync), demote.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stacktest.h"

#define REGION (32LL << 20)
#define LINK_S 60
#define PEER_S 600
#define INJECT "fail_make_request"
#define INJECT_TIMES 1000000000LL
#define FROZEN (1LL << 20)	/* the frozen write, just past the region */
#define FROZEN_GEN 3
#define WARM_GEN 4		/* written first: its AL extent is then hot */

static int expect_gen;

static uint64_t region_stream(long long b)
{
	(void)b;
	return expect_gen;
}

static bool detached(const struct drbd_state *st)
{
	return !strcmp(st->disk, "Diskless") &&
	       !strcmp(st->peer_disk, "UpToDate");
}

static int region_io(int gen, int verify, const char *what)
{
	int fd = open(DRBD_DEV, (verify ? O_RDONLY : O_WRONLY) | O_DIRECT |
		      O_CLOEXEC);
	int bad;

	if (fd < 0) {
		ktap_diag("cannot open %s: %m", DRBD_DEV);
		return -1;
	}
	if (!verify)
		expect_gen = gen;
	bad = verify ? pattern_verify_fd(fd, REGION, env_seed(), region_stream,
					 what) :
		       pattern_write_fd(fd, REGION, env_seed(), gen);
	close(fd);
	return bad;
}

/* Write or check FROZEN bytes at offset REGION with stream gen. */
static int frozen_io(int gen, int verify)
{
	int fd = open(DRBD_DEV, (verify ? O_RDONLY : O_WRONLY) | O_DIRECT |
		      O_CLOEXEC);
	char *buf = NULL;
	int bad = -1;

	if (fd >= 0 && !posix_memalign((void **)&buf, 4096, FROZEN)) {
		if (!verify) {
			pattern_fill(buf, FROZEN, env_seed(), gen, REGION);
			bad = pwrite(fd, buf, FROZEN, REGION) != FROZEN ||
			      fdatasync(fd);
		} else if (pread(fd, buf, FROZEN, REGION) == FROZEN) {
			bad = pattern_check(buf, FROZEN, env_seed(), gen,
					    REGION) >= 0;
		}
	}
	free(buf);
	if (fd >= 0)
		close(fd);
	return bad;
}

static int frozen_writer(void *arg)
{
	(void)arg;
	return frozen_io(FROZEN_GEN, 0);
}

static bool frozen(const struct drbd_state *st)
{
	return st->suspended && !strcmp(st->disk, "Diskless");
}

/* on-no-data-accessible for minor 0's resource: io-error or suspend-io. */
static int no_data(const char *policy)
{
	char o[64];
	const char *argv[] = { "/lib/drbd/drbdsetup-84", "resource-options",
			       DRBD_RES, o, NULL };

	snprintf(o, sizeof(o), "--on-no-data-accessible=%s", policy);
	return run(argv);
}

/* Not reaped here: wait_child() wants its status. */
static bool still_running(int pid)
{
	siginfo_t si = { 0 };

	return !waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
	       si.si_pid == 0;
}

/*
 * Wait up to seconds (scaled) for pid's exit status; -1 if it was still
 * running.  A writer frozen in DRBD cannot be killed: resume-io first,
 * which fails a diskless node's frozen requests.
 */
static int wait_child(int pid, double seconds)
{
	static const char *const resume[] = { "drbdadm", "resume-io",
					       DRBD_RES, NULL };
	double end = mono_s() + scaled(seconds);
	int st = 0, r;

	progress_wait("the writer", seconds);
	while ((r = waitpid(pid, &st, WNOHANG)) == 0) {
		if (mono_s() > end) {
			run(resume);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			progress_end();
			return -1;
		}
		usleep(20000);
	}
	progress_end();
	if (r != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * Cut off and the disk failing under a write: frozen, not failed; the
 * re-attach resubmits it.  Starts and ends disconnected.
 */
static int frozen_write(struct ktap_out *k, const char *lower)
{
	long long restarts = trace_hits("w_restart_disk_io");
	char msg[256] = "";
	int ok, pid, rc;
	bool held;

	/*
	 * With its activity-log extent hot, the write goes to the disk at
	 * once (no AL transaction to fail first) and fails there: the
	 * request DRBD must hold and later resubmit.
	 */
	ok = !frozen_io(WARM_GEN, 0) && !no_data("suspend-io") &&
	     !fail_disk(lower, 1);
	pid = ok ? spawn(frozen_writer, NULL) : -1;
	ok = ok && pid > 0 &&
	     !drbd_wait(frozen, "the write to freeze", LINK_S, msg, sizeof(msg));
	held = ok && still_running(pid);
	ktap_diag("%s", msg[0] ? msg : "I/O suspended, node0 diskless");
	ktap_result(k, held, "no data accessible: DRBD froze the write, not failed it");
	ok = !fail_disk(lower, 0) && !drbdadm("attach", NULL);
	rc = pid > 0 ? wait_child(pid, LINK_S) : -1;
	no_data("io-error");
	ktap_diag("after the re-attach the writer %s",
		  rc == 0 ? "completed" : rc < 0 ? "was still frozen" : "failed");
	ok = ok && rc == 0 && !frozen_io(FROZEN_GEN, 1);
	if (restarts >= 0) {
		restarts = trace_hits("w_restart_disk_io") - restarts;
		ktap_diag("w_restart_disk_io ran %lld times", restarts);
		ok = ok && restarts > 0;
	} else {
		ktap_diag("w_restart_disk_io is not counted in this run");
	}
	ktap_result(k, held && ok,
		    "re-attached: w_restart_disk_io resubmitted the frozen write, it reads back");
	return ok;
}

/* node0's lower disk fails while the region is rewritten. */
static int disk_fails(struct ktap_out *k, const char *lower)
{
	char msg[256] = "";
	long long left;
	int ok;

	ok = lower && !fault_setup(INJECT, 100, INJECT_TIMES) &&
	     !fail_disk(lower, 1);
	ok = ok && !region_io(2, 0, "rewrite");
	ktap_result(k, ok, "%s fails: the rewrite through %s succeeds",
		    lower ? lower : "the lower disk", DRBD_DEV);
	ok = ok && !drbd_wait(detached, "node0 to detach its disk", LINK_S,
			      msg, sizeof(msg));
	left = fault_times_left(INJECT);
	ktap_diag("%s; %lld bios to %s failed", msg[0] ? msg : "detached",
		  INJECT_TIMES - left, lower ? lower : "the lower disk");
	ktap_result(k, ok && left < INJECT_TIMES,
		    "DRBD detached the failing disk, the peer UpToDate");
	return ok;
}

static int primary_part(struct ktap_out *k)
{
	struct drbd_state st;
	char lower[64] = "", msg[256] = "";
	int ok;

	ok = !drbd_lower(lower, sizeof(lower)) && !region_io(1, 0, "write") &&
	     !region_io(0, 1, "initial");
	ktap_result(k, ok, "%lld MiB pattern written through %s", REGION >> 20,
		    DRBD_DEV);
	ok = disk_fails(k, ok ? lower : NULL) && ok;
	ktap_result(k, ok && !region_io(0, 1, "diskless"),
		    "diskless node0 reads the region back from the peer");

	if (*lower)
		ok = !fail_disk(lower, 0) && ok;
	ok = ok && !drbdadm("attach", NULL) &&
	     !drbd_wait(drbd_connected_synced, "the re-attach and resync",
			LINK_S, msg, sizeof(msg)) && !drbd_state(&st);
	ktap_diag("%s; resync received %lld KiB", msg[0] ? msg : "synced",
		  st.nr);
	ktap_result(k, ok, "fault cleared, disk re-attached and resynced");

	ok = ok && !drbdadm("disconnect", NULL) &&
	     !drbd_wait(drbd_link_down, "the disconnect", LINK_S, msg,
			sizeof(msg)) && !region_io(0, 1, "node0's own disk");
	ktap_result(k, ok, "link cut: node0's own disk holds the rewrite");
	if (ok) {
		frozen_write(k, lower);
	} else {
		ktap_result(k, 0, "frozen write: not tried after the failure above");
		ktap_result(k, 0, "re-attach with a frozen write: not tried");
	}
	ok = !drbdadm("connect", NULL) &&
	     !drbd_wait(drbd_connected_synced, "the reconnect and resync",
			LINK_S, msg, sizeof(msg)) && !drbd_state(&st);
	ktap_diag("%s; resync sent %lld KiB", msg[0] ? msg : "synced", st.ns);
	ktap_result(k, ok, "reconnected: the peer resynced");
	ktap_result(k, !drbdadm("secondary", NULL), "demoted for the peer");
	return 0;
}

static int peer_read_back(void)
{
	expect_gen = 2;
	return region_io(0, 1, "peer") || frozen_io(FROZEN_GEN, 1);
}

static int test_main(void)
{
	struct ktap_out k;

	if (drbd_node() == 0) {
		ktap_begin(&k, 10);
		primary_part(&k);
	} else {
		ktap_begin(&k, 4);
		drbd_peer_part(&k, PEER_S, peer_read_back,
			       "the region and the resumed write read back as node0 wrote them");
	}
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "drbd-detach",
	.what = "DRBD: node0's disk fails (fail_make_request), detached, served by the peer, re-attached and resynced",
	.requires = {
		REQ_LAYER("drbd"),
		REQ_TOOL("drbdadm"),
		REQ_KCONFIG("CONFIG_FAIL_MAKE_REQUEST"),
	},
	.run = test_main,
);
