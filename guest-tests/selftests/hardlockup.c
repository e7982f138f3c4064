// SPDX-License-Identifier: GPL-2.0
/*
 * selftests/hardlockup: this task loops in the kernel with interrupts off
 * (LKDTM's HARDLOCKUP).  The guest has no detector for it (the NMI
 * watchdog needs a PMU, which TCG lacks), so the harness's own tests
 * check that the progress bound declared here ends the run and that the
 * host's NMI shows the loop's stack.  Not a test of any kernel.
 */
#include <stdio.h>

#include "stacktest.h"

#define BOUND_S 10

static int test_main(void)
{
	printf("KTAP version 1\n1..1\n");
	progress_begin("a hard lockup", BOUND_S);
	printf("# selftests/hardlockup: interrupts off in the kernel from now\n");
	lkdtm_provoke("HARDLOCKUP");
	printf("not ok 1 LKDTM's HARDLOCKUP returned\n");
	return 1;
}

GUEST_TEST(
	.name = "selftests/hardlockup",
	.what = "harness self-test: a hard lockup (no detector: the host's bound)",
	.requires = {
		REQ_KCONFIG("CONFIG_LKDTM"),
	},
	.run = test_main,
);
