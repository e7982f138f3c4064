// SPDX-License-Identifier: GPL-2.0
/* The memory hog that pushes pages out to swap and checks them back. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "hog.h"

#define BLK 4096
#define HOG_STREAM 0x686f67

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

/* In a child: fill more memory than the guest has, then verify it all. */
static int hog(uint64_t seed, long long bytes, int pageout)
{
	long long pages = bytes / BLK, p, bad = 0;
	unsigned char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return 2;
	for (p = 0; p < pages; p++)
		pattern_fill(m + p * BLK, BLK, seed, HOG_STREAM, p * BLK);
	if (pageout && madvise(m, bytes, MADV_PAGEOUT))
		ktap_diag("madvise(MADV_PAGEOUT): %m");
	for (p = 0; p < pages; p++) {
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

int run_hog(uint64_t seed, long long *bytes)
{
	const char *kinds = env_or("STACK_KINDS", "");
	/*
	 * Memory pressure cannot push pages to RAM-backed swap (swapping
	 * into RAM frees nothing), and over DRBD it deadlocks: DRBD 8.4's
	 * sockets are not SOCK_MEMALLOC; its receiver, kswapd and jbd2 were
	 * seen blocked for minutes (3 of 8 runs).  There the hog pages out
	 * with MADV_PAGEOUT.
	 */
	int ram = strstr(kinds, "brd") || strstr(kinds, "zram");
	int pageout = ram || strstr(kinds, "drbd");
	long long total = meminfo_kb("MemTotal") << 10;
	long long avail = meminfo_kb("MemAvailable") << 10;
	long long room = avail + (meminfo_kb("SwapFree") << 10);
	int st;
	pid_t pid;

	/*
	 * More than RAM, so pages must go out; but where the stack itself
	 * holds much memory (dm-zoned's metadata cache) no more than half
	 * the free swap beyond what is available: pages that come back keep
	 * their swap slots, and a full swap ends in the OOM killer.
	 */
	*bytes = total + (32LL << 20);
	if (*bytes > room - (48LL << 20))
		*bytes = room - (48LL << 20);
	if (*bytes > avail + (meminfo_kb("SwapFree") << 9))
		*bytes = avail + (meminfo_kb("SwapFree") << 9);
	if (pageout) {
		*bytes = avail / 2;
		if (*bytes > (meminfo_kb("SwapFree") << 10) - (16LL << 20))
			*bytes = (meminfo_kb("SwapFree") << 10) - (16LL << 20);
	}
	ktap_diag("memory hog: %lld MiB, guest RAM %lld MiB, free swap %lld MiB, %s",
		  *bytes >> 20, total >> 20, meminfo_kb("SwapFree") >> 10,
		  ram ? "pushed out with MADV_PAGEOUT (RAM-backed swap)" :
		  pageout ? "pushed out with MADV_PAGEOUT (swap over DRBD)" :
		  "pushed out by memory pressure");
	fflush(NULL);
	pid = fork();
	if (!pid)
		_exit(hog(seed, *bytes, pageout));
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	if (WIFSIGNALED(st))
		ktap_diag("hog killed by signal %d%s", WTERMSIG(st),
			  WTERMSIG(st) == SIGKILL ? " (OOM killer?)" : "");
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}


int swap_round_trip(struct ktap *k, uint64_t seed, const char *swap,
		    int ready)
{
	long long out0 = vmstat("pswpout"), in0 = vmstat("pswpin"), bytes;
	int ok = ready && !run_hog(seed, &bytes), moved, off;

	ktap_result(k, ok, "memory hog's pages intact after coming back from %s",
		    swap);
	ktap_diag("pswpout +%lld, pswpin +%lld pages", vmstat("pswpout") - out0,
		  vmstat("pswpin") - in0);
	/*
	 * Over DRBD the paged-out pages stay in the swap cache: only reclaim
	 * drops it, and reclaim is what deadlocks swap over DRBD here.  There
	 * the writes must go out; the pages come back from the swap cache.
	 */
	if (strstr(env_or("STACK_KINDS", ""), "drbd")) {
		moved = vmstat("pswpout") > out0;
		ktap_result(k, moved, "pages went out to swap (over DRBD they come back from the swap cache)");
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
