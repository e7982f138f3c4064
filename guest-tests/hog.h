/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GUEST_HOG_H
#define GUEST_HOG_H

#include <stdint.h>

long long meminfo_kb(const char *key);
/*
 * Fill anonymous memory with seeded, position-tagged pages in a child, get
 * them out to swap, then verify every page.  How they get out is the
 * topology's swap-pressure ($SWAP_PRESSURE: reclaim, memcg or pageout),
 * else chosen by the stack ($STACK_KINDS): global memory pressure, the
 * limit of a memory cgroup the hog runs in (dm-zoned, DRBD), or
 * madvise(MADV_PAGEOUT) (RAM-backed swap: brd, zram).  Prints KTAP
 * diagnostics; returns 0 when all pages came back intact.
 */
int run_hog(uint64_t seed, long long *bytes);

struct ktap;
/*
 * The swap round trip both swap tests share, as three KTAP results: the
 * hog's pages come back intact (only tried when ready), pages really went
 * out and came back (pswpout/pswpin moved), swapoff of swap succeeds.
 * Returns 0 when all three passed.
 */
int swap_round_trip(struct ktap *k, uint64_t seed, const char *swap,
		    int ready);

#endif
