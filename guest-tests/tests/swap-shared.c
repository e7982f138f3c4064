// SPDX-License-Identifier: GPL-2.0
/*
 * swap-shared: the memory hog's pages go out to the stack's swap (file
 * or device) and come back through several tasks at once: the hog and
 * two forked children sharing its pages copy-on-write, two threads each,
 * all faulting every page in concurrently (the swap cache's races), one
 * child breaking COW on every 16th page first.  Every page of every task
 * must hold what that task last wrote there; swapping must really have
 * happened; swapoff must bring everything back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/swap.h>

#include "stacktest.h"

static int test_main(void)
{
	const char *swap = *env_or("STACK_SWAPFILE", "") ?
			   env_or("STACK_SWAPFILE", "") : env_or("STACK_SWAPDEV", "");
	struct ktap_out k;

	ktap_begin(&k, 4);
	if (!*swap) {
		ktap_diag("needs a swapfile or swapdev layer");
		ktap_result(&k, 0, "swap on the stack");
		return ktap_end(&k);
	}
	swap_round_trip(&k, env_seed(), swap, 1, 1);
	/* Leave the stack as it was built. */
	ktap_result(&k, !swap_on(swap), "swapon %s again", swap);
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "swap-shared",
	.what = "swapped pages faulted back by three tasks, two threads each, sharing them copy-on-write",
	.requires = {
		REQ_KCONFIG("CONFIG_SWAP"),
	},
	.run = test_main,
);
