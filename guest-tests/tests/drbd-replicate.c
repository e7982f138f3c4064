// SPDX-License-Identifier: GPL-2.0
/*
 * drbd-replicate: the raw DRBD device, on both nodes at once.
 *
 * node0 (primary): fill the device with a seeded pattern; rewrite K
 * scattered 4K blocks while connected (the activity log must move:
 * 67 AL extents of 4 MiB, the device is larger; DRBD suspends AL updates while disconnected); then
 * disconnect and rewrite K other blocks: DRBD must count exactly those out
 * of sync; reconnect, and the resync must send exactly them (ns, reset at
 * connect).  Then a resync cut and resumed: disconnected, a 64 MiB
 * region A is rewritten; reconnected with the resync throttled, the link
 * is cut again once a quarter of it went over; with the resync cut, a
 * 4 MiB region B is rewritten; reconnected at full rate, the resync must
 * send exactly what was still out of sync at the cut plus B, not A again
 * from its start (DRBD keeps the bits of what it has not yet resynced).
 * Demote.
 *
 * node1: wait for node0 to demote, promote, read the whole device back
 * (the pattern with the K blocks rewritten), run an online verify (0 out
 * of sync), demote.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "stacktest.h"


#define BLK 4096
#define CHUNK (1 << 20)
#define K 96			/* blocks rewritten connected, then as many disconnected */
#define LINK_S 60		/* a disconnect or reconnect */
#define PEER_S 480		/* node0's whole part, seen from node1 */
#define REGION_A (64LL << 20)	/* rewritten disconnected, resync cut */
#define REGION_B (4LL << 20)	/* rewritten while the resync is cut */
#define SLOW_RATE "8M"		/* resync rate while it is cut */

static uint64_t seed;
static long long nblocks;
static long long rewritten[2 * K];

/* K distinct blocks, a pure function of the seed: both nodes agree. */
static void pick_blocks(void)
{
	int n = 0, j;
	uint64_t i;

	for (i = 0; n < 2 * K; i++) {
		long long b = pattern_word(seed, 3, i) % nblocks;

		for (j = 0; j < n && rewritten[j] != b; j++)
			;
		if (j == n)
			rewritten[n++] = b;
	}
}

static int is_rewritten(long long b)
{
	int j;

	for (j = 0; j < 2 * K; j++)
		if (rewritten[j] == b)
			return 1;
	return 0;
}

static int open_dev(int flags, char **buf)
{
	unsigned long long bytes = 0;
	int fd = open(DRBD_DEV, flags | O_DIRECT | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes) ||
	    posix_memalign((void **)buf, BLK, CHUNK)) {
		ktap_diag("cannot open %s: %m", DRBD_DEV);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	nblocks = bytes / BLK;
	pick_blocks();
	return fd;
}

static int rewrite(int fd, char *buf, int from, int to)
{
	int j;

	for (j = from; j < to; j++) {
		long long off = rewritten[j] * BLK;

		pattern_fill(buf, BLK, seed, 2, off);
		if (pwrite(fd, buf, BLK, off) != BLK)
			return -1;
	}
	return fdatasync(fd);
}

/* Where regions A and B lie: A at a quarter of the device, B at 3/4. */
static long long region_a(void)
{
	return nblocks * BLK / 4 / CHUNK * CHUNK;
}

static long long region_b(void)
{
	return nblocks * BLK * 3 / 4 / CHUNK * CHUNK;
}

/*
 * node0 wrote stream 1 everywhere, stream 2 over the rewritten blocks,
 * then stream 4 over region A and stream 5 over region B.
 */
static uint64_t node0_stream(long long b)
{
	long long off = b * BLK;

	if (off >= region_b() && off < region_b() + REGION_B)
		return 5;
	if (off >= region_a() && off < region_a() + REGION_A)
		return 4;
	return is_rewritten(b) ? 2 : 1;
}

/* Write stream s over [off, off + len) of fd, a megabyte at a time. */
static int write_region(int fd, char *buf, long long off, long long len,
			uint64_t s)
{
	long long o;

	for (o = off; o < off + len; o += CHUNK) {
		pattern_fill(buf, CHUNK, seed, s, o);
		if (pwrite(fd, buf, CHUNK, o) != CHUNK)
			return -1;
	}
	return fdatasync(fd);
}

/* drbdsetup-84 disk-options for minor 0 (drbdadm has no one-off form). */
static int resync_rate(const char *plan_ahead, const char *rate)
{
	char p[40], r[40];
	const char *argv[] = { "/lib/drbd/drbdsetup-84", "disk-options", "0",
			       p, r, NULL };

	snprintf(p, sizeof(p), "--c-plan-ahead=%s", plan_ahead);
	snprintf(r, sizeof(r), "--resync-rate=%s", rate);
	return run(argv);
}

/* A resync has sent at least a quarter of want KiB (or ended). */
static long long quarter_of;

static bool quarter_sent(const struct drbd_state *st)
{
	return st->ns >= quarter_of / 4 || drbd_connected(st);
}

/*
 * Region A out of sync, its resync cut a quarter of the way, region B
 * written meanwhile; the resync resumed must send exactly what remained.
 */
static int resync_cut(struct ktap_out *k, int fd, char *buf)
{
	struct drbd_state st = { .oos = -1 };
	long long oos_a, left, oos_b;
	char msg[256] = "";
	int ok;

	ok = !drbdadm("disconnect", NULL) &&
	     !drbd_wait(drbd_link_down, "the disconnect", LINK_S, msg, sizeof(msg)) &&
	     !write_region(fd, buf, region_a(), REGION_A, 4) &&
	     !drbd_state(&st);
	oos_a = st.oos;
	quarter_of = oos_a;
	ok = ok && !resync_rate("0", SLOW_RATE) && !drbdadm("connect", NULL) &&
	     !drbd_wait(quarter_sent, "a quarter of the resync", LINK_S, msg,
			sizeof(msg)) &&
	     !drbdadm("disconnect", NULL) &&
	     !drbd_wait(drbd_link_down, "the cut", LINK_S, msg, sizeof(msg)) &&
	     !drbd_state(&st);
	left = st.oos;
	ktap_diag("region A: %lld KiB out of sync; resync cut after %lld KiB sent, %lld KiB left",
		  oos_a, st.ns, left);
	ok = ok && !write_region(fd, buf, region_b(), REGION_B, 5) &&
	     !drbd_state(&st);
	oos_b = st.oos;
	ktap_result(k, ok && oos_a >= REGION_A / 1024 && left > 0 &&
		    left < oos_a && oos_b == left + REGION_B / 1024,
		    "resync cut mid-way: %lld of %lld KiB left, then %lld KiB with region B",
		    left, oos_a, oos_b);

	/* Whatever failed above: the stack's rate back, connected again. */
	ok = !resync_rate("20", "200M") && ok;
	drbdadm("connect", NULL);
	ok = !drbd_wait(drbd_connected_synced, "the resumed resync", LINK_S,
			msg, sizeof(msg)) && !drbd_state(&st) && ok;
	if (msg[0])
		ktap_diag("%s", msg);
	ktap_diag("resumed resync sent %lld KiB; out of sync at reconnect %lld KiB",
		  st.ns, oos_b);
	ktap_result(k, ok && st.ns == oos_b,
		    "resumed resync sent exactly what was left, not region A again");
	return ok ? 0 : -1;
}

static int primary_part(struct ktap_out *k)
{
	struct drbd_state st;
	long long al0, oos;
	char *buf = NULL, msg[256];
	int fd = open_dev(O_RDWR, &buf), ok;

	ok = !pattern_write_fd(fd, nblocks * BLK, seed, 1);
	ktap_result(k, ok, "%lld MiB pattern written through %s", nblocks * BLK >> 20,
		    DRBD_DEV);

	drbd_state(&st);
	al0 = st.al;
	ok = ok && !rewrite(fd, buf, 0, K) && !drbd_state(&st);
	ktap_result(k, ok && st.al > al0,
		    "activity log transactions under %d scattered writes: %lld",
		    K, st.al - al0);

	ok = ok && !drbdadm("disconnect", NULL) &&
	     !drbd_wait(drbd_link_down, "the disconnect", LINK_S, msg, sizeof(msg));
	ok = ok && !rewrite(fd, buf, K, 2 * K) && !drbd_state(&st);
	oos = st.oos;
	ktap_diag("disconnected: %d other blocks rewritten, oos %lld KiB", K, oos);
	ktap_result(k, ok && oos == K * BLK / 1024,
		    "DRBD counts exactly the %d blocks written while disconnected out of sync",
		    K);

	msg[0] = 0;
	ok = ok && !drbdadm("connect", NULL) &&
	     !drbd_wait(drbd_connected_synced, "the reconnect and resync",
			LINK_S, msg, sizeof(msg)) && !drbd_state(&st);
	if (msg[0])
		ktap_diag("%s", msg);
	ktap_diag("resync sent %lld KiB (out of sync before: %lld KiB)", st.ns,
		  oos);
	ktap_result(k, ok && st.ns == oos,
		    "bitmap resync sent only what changed");
	if (ok)
		resync_cut(k, fd, buf);
	else
		ktap_result(k, 0, "resync cut: not tried after the failure above");
	if (!ok)
		ktap_result(k, 0, "resync resumed: not tried");
	if (fd >= 0)
		close(fd);
	free(buf);
	ktap_result(k, !drbdadm("secondary", NULL), "demoted for the peer");
	return 0;
}

static int peer_read_back(void)
{
	char *buf = NULL;
	int fd = open_dev(O_RDONLY, &buf), bad;

	bad = fd < 0 || pattern_verify_fd(fd, nblocks * BLK, seed,
					   node0_stream, DRBD_DEV);
	ktap_diag("%lld MiB read back", nblocks * BLK >> 20);
	if (fd >= 0)
		close(fd);
	free(buf);
	return bad;
}

static int test_main(void)
{
	struct ktap_out k;
	char what[160];

	seed = env_seed();
	if (drbd_node() == 0) {
		ktap_begin(&k, 7);
		primary_part(&k);
	} else {
		ktap_begin(&k, 4);
		snprintf(what, sizeof(what),
			 "the whole device reads back as node0 wrote it (%d blocks rewritten, %d of them resynced)",
			 2 * K, K);
		drbd_peer_part(&k, PEER_S, peer_read_back, what);
	}
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "drbd-replicate",
	.what = "DRBD: activity log, exact resync after a disconnect, the peer reads every block",
	.requires = {
		REQ_LAYER("drbd"),
		REQ_TOOL("drbdadm"),
	},
	.run = test_main,
);
