// SPDX-License-Identifier: GPL-2.0
/* The memory hog that pushes pages out to swap and checks them back. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stacktest.h"

#define BLK 4096
#define HOG_STREAM 0x686f67
/* Hog pages between two looks at the clock for a progress note. */
#define PROGRESS_PAGES 256

long long meminfo_kb(const char *key)
{
	char line[128];
	size_t klen = strlen(key);
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':')
			v = atoll(line + klen + 1);
	if (f)
		fclose(f);
	return v;
}

/*
 * How the hog's pages get out to swap:
 * - RECLAIM: more than the guest's RAM, global memory pressure;
 * - MEMCG: the hog alone in a memory cgroup whose memory.max is a
 *   quarter of it: reclaim runs in the hog's own context while the rest
 *   of the guest has free memory, so a driver that allocates on its
 *   write path (dm-zoned's metadata blocks, DRBD's network buffers) gets
 *   it;
 * - PAGEOUT: madvise(MADV_PAGEOUT), no pressure at all.
 */
enum pressure { RECLAIM, MEMCG, PAGEOUT };

static const char *const pressure_name[] = { "reclaim", "memcg", "pageout" };

#define CGROUP "/sys/fs/cgroup"

/* Move this process into a fresh memory cgroup limited to limit bytes. */
static int enter_memcg(long long limit)
{
	char buf[32];

	mkdir(CGROUP, 0755);
	if (mount("cgroup2", CGROUP, "cgroup2", 0, NULL) && errno != EBUSY) {
		ktap_diag("mount cgroup2: %m");
		return -1;
	}
	rmdir(CGROUP "/hog");
	snprintf(buf, sizeof(buf), "%lld", limit);
	if (write_str(CGROUP "/cgroup.subtree_control", "+memory") ||
	    (mkdir(CGROUP "/hog", 0755) && errno != EEXIST) ||
	    write_str(CGROUP "/hog/memory.max", buf) ||
	    write_str(CGROUP "/hog/cgroup.procs", "0")) {
		ktap_diag("memory cgroup " CGROUP "/hog: %m");
		return -1;
	}
	return 0;
}

int swap_on(const char *path)
{
	return swapon(path, atoi(env_or("STACK_SWAP_FLAGS", "0")));
}

/* In a child: fill memory, get it out to swap, then verify it all. */
#define COW_EVERY 16
#define HOG_COW_STREAM 0x636f77

struct scan {
	unsigned char *m;
	long long pages, start, bad;
	uint64_t seed;
	int backwards, cow;
};

/*
 * Check every page, from start on (or backwards); with cow, every
 * COW_EVERY-th page holds this task's own copy.
 */
static void *scan_pages(void *arg)
{
	struct scan *s = arg;
	long long i, p;

	for (i = 0; i < s->pages; i++) {
		uint64_t st;

		p = (s->start + (s->backwards ? s->pages - 1 - i : i)) % s->pages;
		if (i % PROGRESS_PAGES == 0)
			progress_note("hog: page %lld of %lld checked", i,
				      s->pages);
		st = s->cow && p % COW_EVERY == 0 ? HOG_COW_STREAM : HOG_STREAM;
		if (pattern_check(s->m + p * BLK, BLK, s->seed, st, p * BLK) < 0)
			continue;
		if (!s->bad++)
			ktap_diag("hog page %lld came back wrong%s", p,
				  st == HOG_COW_STREAM ? " (a copy-on-write copy)" : "");
	}
	return NULL;
}

/* Two threads fault every page in at once, from two places, two ways. */
static long long scan_threads(unsigned char *m, long long pages, uint64_t seed,
			      int cow)
{
	struct scan a = { m, pages, 0, 0, seed, 0, cow };
	struct scan b = { m, pages, pages / 2, 0, seed, 1, cow };
	pthread_t t;

	if (pthread_create(&t, NULL, scan_pages, &b)) {
		scan_pages(&b);
		scan_pages(&a);
		return a.bad + b.bad;
	}
	scan_pages(&a);
	pthread_join(t, NULL);
	return a.bad + b.bad;
}

/*
 * The pages come back through several tasks at once: this process and
 * two forked children, which share the swapped-out pages copy-on-write,
 * two threads each, all faulting every page in concurrently.  One child
 * first writes its own pattern into every COW_EVERY-th page (breaking
 * COW on pages that are out on swap or in the swap cache) and must see
 * its copies; everyone else must still see the original.
 */
static long long verify_shared(unsigned char *m, long long pages,
			       uint64_t seed)
{
	long long bad, p;
	pid_t kid[2];
	int i, st;

	fflush(NULL);
	for (i = 0; i < 2; i++) {
		kid[i] = fork();
		if (kid[i])
			continue;
		/* Killed with the hog: none outlives it holding swap. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (p = 0; i == 1 && p < pages; p += COW_EVERY)
			pattern_fill(m + p * BLK, BLK, seed, HOG_COW_STREAM,
				     p * BLK);
		fflush(NULL);
		_exit(scan_threads(m, pages, seed, i == 1) ? 1 : 0);
	}
	bad = scan_threads(m, pages, seed, 0);
	for (i = 0; i < 2; i++) {
		if (kid[i] > 0 && waitpid(kid[i], &st, 0) == kid[i] &&
		    WIFEXITED(st) && !WEXITSTATUS(st))
			continue;
		ktap_diag("forked verifier %d%s failed", i,
			  i ? " (with copy-on-write copies)" : "");
		bad++;
	}
	return bad;
}

static int hog(uint64_t seed, long long bytes, enum pressure how, int shared)
{
	long long pages = bytes / BLK, p, bad = 0;
	unsigned char *m;

	if (how == MEMCG && enter_memcg(bytes / 4))
		return 2;
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 2;
	for (p = 0; p < pages; p++) {
		if (p % PROGRESS_PAGES == 0)
			progress_note("hog: page %lld of %lld written", p,
				      pages);
		pattern_fill(m + p * BLK, BLK, seed, HOG_STREAM, p * BLK);
	}
	if (how == PAGEOUT && madvise(m, bytes, MADV_PAGEOUT))
		ktap_diag("madvise(MADV_PAGEOUT): %m");
	if (shared)
		bad = verify_shared(m, pages, seed);
	for (p = 0; !shared && p < pages; p++) {
		if (p % PROGRESS_PAGES == 0)
			progress_note("hog: page %lld of %lld checked", p,
				      pages);
		if (pattern_check(m + p * BLK, BLK, seed, HOG_STREAM,
				  p * BLK) < 0)
			continue;
		if (!bad)
			ktap_diag("hog page %lld came back wrong", p);
		bad++;
	}
	if (bad)
		ktap_diag("%lld of %lld hog pages came back wrong", bad,
		       pages);
	return bad ? 1 : 0;
}

/* PID 1 exports the stack's swap pressure (its layers' or the topology's). */
static enum pressure pressure(void)
{
	const char *want = env_or("STACK_SWAP_PRESSURE", "reclaim");
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(want, pressure_name[i]))
			return i;
	return RECLAIM;
}

/* Swapping into RAM (brd, zram) frees nothing. */
static bool swap_in_ram(void)
{
	return !strcmp(env_or("STACK_SWAP_IN_RAM", "0"), "1");
}

/* How much to hog: enough to swap, never enough to fill the swap. */
static long long hog_size(enum pressure how)
{
	long long total = meminfo_kb("MemTotal") << 10;
	long long avail = meminfo_kb("MemAvailable") << 10;
	long long swap = meminfo_kb("SwapFree") << 10;
	long long bytes, share;

	if (how == PAGEOUT) {
		bytes = avail / 2;
		return bytes > swap - (16LL << 20) ? swap - (16LL << 20) : bytes;
	}
	if (how == MEMCG) {
		/*
		 * Pages that come back keep their swap slots: all of it must
		 * fit the swap, and its quarter in RAM half of what is free.
		 */
		bytes = swap - (32LL << 20);
		return bytes > 2 * avail ? 2 * avail : bytes;
	}
	/*
	 * More than RAM, so pages must go out; but where the stack itself
	 * holds much memory no more than half the free swap beyond what is
	 * available: pages that come back keep their swap slots, pages in
	 * writeback hold a slot and RAM at once, and a full swap ends in the
	 * OOM killer.  A stack that keeps much swap writeback in flight
	 * (dm-integrity's journal) takes less: option hog-swap-share=PCT.
	 */
	share = atoi(env_or("STACK_OPT_HOG_SWAP_SHARE", "50"));
	if (share < 1 || share > 100)
		share = 50;
	bytes = total + (32LL << 20);
	if (bytes > avail + swap - (48LL << 20))
		bytes = avail + swap - (48LL << 20);
	if (bytes > avail + swap * share / 100)
		bytes = avail + swap * share / 100;
	return bytes;
}

static const char *pressure_why(enum pressure how)
{
	if (how == PAGEOUT)
		return swap_in_ram() ?
		       "pushed out with MADV_PAGEOUT (RAM-backed swap)" :
		       "pushed out with MADV_PAGEOUT";
	if (how == MEMCG)
		return "pushed out by its memory cgroup's limit (a quarter of it)";
	return "pushed out by memory pressure";
}

int run_hog(uint64_t seed, long long *bytes, int shared)
{
	enum pressure how = pressure();

	/*
	 * Shared, three tasks fault the pages back at once: under global
	 * pressure the OOM killer came in 1 of 7 runs (raid1), so the hog
	 * and its children are confined to a memory cgroup instead.
	 */
	if (shared && how == RECLAIM)
		how = MEMCG;
	int st;
	pid_t pid;

	*bytes = hog_size(how);
	/*
	 * Shared: the copy-on-write copies and two more tasks need memory
	 * and swap of their own (at full size the OOM killer came).
	 */
	if (shared)
		*bytes -= *bytes / 8;
	ktap_diag("memory hog: %lld MiB, guest RAM %lld MiB, free swap %lld MiB, %s",
		  *bytes >> 20, meminfo_kb("MemTotal") >> 10,
		  meminfo_kb("SwapFree") >> 10, pressure_why(how));
	fflush(NULL);
	pid = fork();
	if (!pid)
		_exit(hog(seed, *bytes, how, shared));
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	if (how == MEMCG)
		rmdir(CGROUP "/hog");
	if (WIFSIGNALED(st))
		ktap_diag("hog killed by signal %d%s", WTERMSIG(st),
			  WTERMSIG(st) == SIGKILL ? " (OOM killer?)" : "");
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

int swap_round_trip(struct ktap_out *k, uint64_t seed, const char *swap,
		    int ready, int shared)
{
	long long out0 = vmstat("pswpout"), in0 = vmstat("pswpin"), bytes;
	int ok = ready && !run_hog(seed, &bytes, shared), moved, off;

	ktap_result(k, ok, "memory hog's pages intact after coming back from %s%s",
		    swap, shared ? ", faulted in by 3 tasks x 2 threads at once, copy-on-write copies too" : "");
	ktap_diag("pswpout +%lld, pswpin +%lld pages", vmstat("pswpout") - out0,
		  vmstat("pswpin") - in0);
	/*
	 * Paged out to a device that completes writes later, the pages stay
	 * in the swap cache (only reclaim drops it) and come back from there.
	 */
	if (pressure() == PAGEOUT && !swap_in_ram()) {
		moved = vmstat("pswpout") > out0;
		ktap_result(k, moved, "pages went out to swap (paged out, they come back from the swap cache)");
	} else {
		moved = vmstat("pswpout") > out0 && vmstat("pswpin") > in0;
		ktap_result(k, moved, "pages went out to swap and came back");
	}
	off = !swapoff(swap);
	if (!off)
		ktap_diag("swapoff %s: %s", swap, strerror(errno));
	ktap_result(k, off, "swapoff");
	return ok && moved && off ? 0 : -1;
}
