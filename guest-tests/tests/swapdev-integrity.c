// SPDX-License-Identifier: GPL-2.0
/*
 * swapdev-integrity: swap straight on a stacked block device.  Pages
 * pushed out must come back intact, swapping must really happen, swapoff
 * must bring everything back; on md, a "check" scrub afterwards must find
 * every mirror or parity consistent (mismatch_cnt 0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#include "stacktest.h"

static int test_main(void)
{
	const char *dev = env_or("STACK_SWAPDEV", "");
	uint64_t seed = env_seed();
	long long mismatch = -1;
	char action[32];
	struct ktap_out k;
	int ok;

	ktap_begin(&k, 5);
	swap_round_trip(&k, seed, dev, 1, 0);
	if (md_attr(dev, "sync_action", action, sizeof(action))) {
		ktap_result(&k, 1, "md scrub # SKIP %s is not an md array", dev);
	} else {
		ok = !md_check(dev, 120, &mismatch) && mismatch == 0;
		ktap_diag("mismatch_cnt %lld after check", mismatch);
		ktap_result(&k, ok, "md check scrub: mirrors consistent");
	}
	ok = !swap_on(dev);
	ktap_result(&k, ok, "swapon again");
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "swapdev-integrity",
	.what = "pages swapped to a swap device come back; md mirrors agree after",
	.requires = {
		REQ_ENV("STACK_SWAPDEV"),
		REQ_KCONFIG("CONFIG_SWAP"),
	},
	.run = test_main,
);
