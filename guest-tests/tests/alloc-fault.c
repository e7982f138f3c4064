// SPDX-License-Identifier: GPL-2.0
/*
 * alloc-fault: every allocation a write makes on its way down the stack,
 * failed one at a time.  With failslab and fail_page_alloc armed for
 * /proc/thread-self/fail-nth only (probability 0, so nothing else fails;
 * ignore-gfp-wait=N, so allocations that may sleep count too), write N
 * fails exactly the Nth slab or page allocation this task makes, for
 * N = 1, 2, ... until a write makes fewer than N: then every allocation
 * point of that write has been failed once.  In the stacking drivers
 * (md's clones from mddev->bio_set, its r1bio/r10bio pools, dm's clones,
 * DRBD's requests) that is a mempool's first, non-blocking try, so the
 * pool's reserve must take over.
 *
 * Two walks over $STACK_TOP: 64 KiB O_DIRECT writes, and buffered writes
 * with the Nth allocation of their fdatasync failed (writeback submits
 * in this task).  A write may fail with ENOMEM (the allocation was the
 * syscall's own); it must never fail with EIO (an allocation failure
 * turned into an I/O error: the caller would think the disk lost data),
 * a write that succeeded must read back, and none may hang.  Needs the
 * debug profile (--debug: FAILSLAB, FAIL_PAGE_ALLOC).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stacktest.h"

#define BLK (64 << 10)
#define NBLK 64			/* a 4 MiB region at the device's start */
#define MAX_N 400		/* more allocation points: a step fails */

struct walk {
	int direct;
	int fd, nth;		/* the device, /proc/thread-self/fail-nth */
	int gen[NBLK];		/* the stream block b holds; 0: unknown */
	int points, enomem, eio, other;
	char *buf;
};

static int set_nth(int fd, int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%d", n);

	return pwrite(fd, s, len, 0) == len ? 0 : -1;
}

/* The fail-nth count left: 0 once the Nth allocation was failed. */
static int get_nth(int fd)
{
	char s[16] = "";

	if (pread(fd, s, sizeof(s) - 1, 0) <= 0)
		return -1;
	return atoi(s);
}

/* Write block b with stream gen, the nth allocation failed; 0, or errno. */
static int write_nth(struct walk *w, int b, int gen, int n, int *left)
{
	off_t off = (off_t)b * BLK;
	int err = 0;

	*left = -1;
	pattern_fill(w->buf, BLK, env_seed(), gen, off);
	if (!w->direct && pwrite(w->fd, w->buf, BLK, off) != BLK)
		return EIO;
	if (set_nth(w->nth, n))
		return ENXIO;
	errno = 0;
	if (w->direct && pwrite(w->fd, w->buf, BLK, off) != BLK)
		err = errno ? errno : EIO;
	if (!w->direct && fdatasync(w->fd))
		err = errno;
	*left = get_nth(w->nth);
	set_nth(w->nth, 0);
	return err;
}

/* One walk: N = 1, 2, ... until a write makes fewer than N allocations. */
static int walk(struct walk *w)
{
	int n, b, err, left = 0;

	for (n = 1; n <= MAX_N; n++) {
		b = (n * 7) % NBLK;
		err = write_nth(w, b, 1000 + n, n, &left);
		w->gen[b] = err ? 0 : 1000 + n;
		if (err == ENOMEM)
			w->enomem++;
		else if (err == EIO)
			w->eio++;
		else if (err)
			w->other++;
		if (err && err != ENOMEM)
			ktap_diag("%s write %d, allocation %d failed: %s",
				  w->direct ? "O_DIRECT" : "buffered", b, n,
				  strerror(err));
		if (left > 0)
			break;
	}
	w->points = n - 1;
	ktap_diag("%s: %d allocation points failed in turn; ENOMEM %d, EIO %d, other %d",
		  w->direct ? "O_DIRECT writes" : "fdatasync of buffered writes",
		  w->points, w->enomem, w->eio, w->other);
	return n <= MAX_N && left > 0;
}

/* Every block whose last write succeeded holds its stream. */
static int verify(const struct walk *w, int fd)
{
	int b, bad = 0;

	for (b = 0; b < NBLK; b++) {
		if (!w->gen[b])
			continue;
		if (pread(fd, w->buf, BLK, (off_t)b * BLK) != BLK ||
		    pattern_check(w->buf, BLK, env_seed(), w->gen[b],
				  (off_t)b * BLK) >= 0) {
			if (!bad++)
				ktap_diag("block %d does not hold write %d",
					  b, w->gen[b]);
		}
	}
	return bad;
}

static int arm(void)
{
	static const char *const inj[] = { "failslab", "fail_page_alloc" };
	size_t i;
	int bad = 0;

	for (i = 0; i < 2; i++) {
		/* For fail-nth alone: probability 0 fails nothing else. */
		bad |= fault_setup(inj[i], 0, -1);
		bad |= fault_attr(inj[i], "ignore-gfp-wait", "N");
	}
	return bad | fault_attr("fail_page_alloc", "min-order", "0");
}

static int run_walk(struct ktap_out *k, const char *dev, int direct,
		    char *buf)
{
	struct walk w = { .direct = direct, .buf = buf };
	int ok, rfd;

	w.fd = open(dev, O_RDWR | O_CLOEXEC | (direct ? O_DIRECT : 0));
	w.nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	ok = w.fd >= 0 && w.nth >= 0 && walk(&w);
	ktap_result(k, ok && w.points > 0,
		    "%s: every allocation point failed once (%d), each write ended",
		    direct ? "O_DIRECT" : "buffered + fdatasync", w.points);
	rfd = open(dev, O_RDONLY | O_CLOEXEC | O_DIRECT);
	drop_caches();
	ok = ok && w.eio == 0 && w.other == 0 && rfd >= 0 && !verify(&w, rfd);
	ktap_result(k, ok, "%s: no EIO, every completed write reads back",
		    direct ? "O_DIRECT" : "buffered + fdatasync");
	if (rfd >= 0)
		close(rfd);
	if (w.nth >= 0)
		close(w.nth);
	if (w.fd >= 0)
		close(w.fd);
	return ok;
}

static int test_main(void)
{
	const char *dev = env_or("STACK_TOP", "");
	struct ktap_out k;
	char *buf;

	if (posix_memalign((void **)&buf, 4096, BLK))
		return 1;
	ktap_begin(&k, 5);
	ktap_result(&k, !arm(), "failslab and fail_page_alloc armed for fail-nth");
	run_walk(&k, dev, 1, buf);
	run_walk(&k, dev, 0, buf);
	free(buf);
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "alloc-fault",
	.what = "each slab and page allocation of a write to the stack failed in turn (fail-nth): no EIO, no lost write",
	.requires = {
		REQ_ENV("STACK_TOP"),
		REQ_KCONFIG("CONFIG_FAILSLAB"),
		REQ_KCONFIG("CONFIG_FAIL_PAGE_ALLOC"),
	},
	.run = test_main,
);
