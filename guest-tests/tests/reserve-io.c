// SPDX-License-Identifier: GPL-2.0
/*
 * reserve-io: writes to the stack while every slab allocation of the
 * writing task fails, so each bio the stacking drivers allocate for them
 * comes from their mempools' reserves.  That is the promise a bioset
 * makes: with no memory at all, I/O still moves, as long as every
 * element taken from a reserve comes back.  Under global reclaim the
 * slab allocator fails the same way, by chance; failslab (task-filter,
 * probability 100, ignore-gfp-wait=N) makes it certain.
 *
 * md RAID1 and RAID10 without a bitmap submit each member's clone from
 * inside md's ->submit_bio, where it waits on current->bio_list until md
 * returns; the clones come from mddev->bio_set, whose reserve is
 * BIO_POOL_SIZE (2) and which has no rescuer.  A write to a 3-way mirror
 * takes both reserved clones and waits for ever for a third
 * (topologies/known-issues/raid1-bioset-reserve.ini; the fix,
 * patches/fix-md-bioset-rescuer, punts the pending clones to a rescuer).
 *
 * The writes are O_DIRECT and at most 4 pages, so the syscall itself
 * allocates nothing (__blkdev_direct_IO_simple: the bio and its vectors
 * on the stack): every failed allocation is one of the stack's.  Each
 * must end in time, none may fail, the injector must have fired, and the
 * region, pre-filled, must read back with each write and its neighbours.
 * The test's memory is locked first, so no page fault (whose page-table
 * lock may come from slab) happens while armed.  Needs the debug profile
 * (--debug: FAILSLAB, SLUB).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stacktest.h"

#define PAGE 4096
#define AREA (4LL << 20)	/* the region at the device's start */
#define NPAGE (AREA / PAGE)
#define NWRITE 64
#define MAX_PAGES 4		/* DIO_INLINE_BIO_VECS */
#define TIMES 1000000LL		/* failslab's budget: the count it spends */
#define BASE_STREAM 0x5e0

static uint64_t owner[NPAGE];	/* the stream page p holds */

static uint64_t stream_of(long long p)
{
	return owner[p];
}

/* Write w: 1 to 4 pages at a seeded page of the region. */
static void pick(int w, long long *page, int *pages)
{
	uint64_t r = pattern_word(env_seed(), 0x5e1, w);

	*pages = 1 + r % MAX_PAGES;
	*page = (r >> 8) % (NPAGE - MAX_PAGES + 1);
}

/* Opened before arming: an open() while armed would fail for its file. */
static int fail_fd = -1;

static int make_it_fail(int on)
{
	if (fail_fd < 0)
		fail_fd = open("/proc/thread-self/make-it-fail",
			       O_WRONLY | O_CLOEXEC);
	return fail_fd < 0 || pwrite(fail_fd, on ? "1" : "0", 1, 0) != 1;
}

/* The filters before the probability: nothing else may fail meanwhile. */
static int arm(void)
{
	return make_it_fail(0) || fault_setup("failslab", 0, TIMES) ||
	       fault_attr("failslab", "ignore-gfp-wait", "N") ||
	       fault_attr("failslab", "task-filter", "Y") ||
	       fault_attr("failslab", "probability", "100") ||
	       make_it_fail(1);
}

static void disarm(void)
{
	make_it_fail(0);
	fault_attr("failslab", "probability", "0");
	fault_attr("failslab", "task-filter", "N");
	fault_attr("failslab", "ignore-gfp-wait", "Y");
}

/* The armed writes; returns how many ended in full, *err the first errno. */
static int do_writes(int fd, char *buf, int *err)
{
	long long page;
	int w, pages, done = 0;

	*err = 0;
	for (w = 0; w < NWRITE; w++) {
		uint64_t s = BASE_STREAM + 1 + w;

		pick(w, &page, &pages);
		pattern_fill(buf, pages * PAGE, env_seed(), s, page * PAGE);
		errno = 0;
		if (pwrite(fd, buf, pages * PAGE,
			   page * PAGE) != pages * PAGE) {
			int e = errno ? errno : EIO;	/* short: EIO */

			if (!*err)
				*err = e;
			ktap_diag("write %d (%d pages at page %lld): %s", w,
				  pages, page, strerror(e));
			continue;
		}
		while (pages--)
			owner[page + pages] = s;
		done++;
		progress_note("%d of %d writes ended", done, NWRITE);
	}
	return done;
}

static int test_main(void)
{
	const char *dev = env_or("STACK_TOP", "");
	struct ktap_out k;
	long long p, left, bad, punts;
	int fd, armed, done = 0, err = 0;
	char *buf;

	if (posix_memalign((void **)&buf, PAGE, MAX_PAGES * PAGE))
		return 1;
	memset(buf, 0, MAX_PAGES * PAGE);	/* faulted in before arming */
	for (p = 0; p < NPAGE; p++)
		owner[p] = BASE_STREAM;
	ktap_begin(&k, 4);
	fd = open(dev, O_RDWR | O_DIRECT | O_CLOEXEC);
	ktap_result(&k, fd >= 0 && !pattern_write_fd(fd, AREA, env_seed(),
						     BASE_STREAM),
		    "%s: the first %lld MiB written with the base pattern", dev,
		    AREA >> 20);
	armed = fd >= 0 && !mlockall(MCL_CURRENT) && !arm();
	ktap_result(&k, armed,
		    "failslab armed for this task alone, every allocation");
	/* Bounded (after the result line, which ends a bound): 2 notes. */
	progress_begin("O_DIRECT writes, every slab allocation failed", 6);
	if (armed)
		done = do_writes(fd, buf, &err);
	disarm();
	progress_end();
	munlockall();
	left = fault_times_left("failslab");
	punts = trace_hits("punt_bios_to_rescuer");
	if (punts >= 0)
		ktap_diag("punt_bios_to_rescuer: %lld calls", punts);
	ktap_result(&k, done == NWRITE && left >= 0 && left < TIMES,
		    "%d of %d writes ended, %lld slab allocations failed (errno %d)",
		    done, NWRITE, left >= 0 ? TIMES - left : -1,
		    done == NWRITE ? 0 : err);
	drop_caches();
	bad = fd >= 0 ? pattern_verify_fd(fd, AREA, env_seed(), stream_of,
					  "region") : -1;
	ktap_result(&k, bad == 0,
		    "each write and the pages around it read back (%lld differ)",
		    bad);
	if (fd >= 0)
		close(fd);
	free(buf);
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "reserve-io",
	.what = "O_DIRECT writes, every slab allocation of the writer failed (failslab): the stack's bios from its mempool reserves must still move",
	.requires = {
		REQ_ENV("STACK_TOP"),
		REQ_KCONFIG("CONFIG_FAILSLAB"),
		REQ_KCONFIG("CONFIG_FAULT_INJECTION_DEBUG_FS"),
	},
	.run = test_main,
);
