// SPDX-License-Identifier: GPL-2.0
/*
 * selftests/softlockup: this task loops in the kernel with preemption off
 * (LKDTM's SOFTLOCKUP), so the harness's own tests can check that the
 * kernel's soft-lockup watchdog reports it and the report ends the run
 * early, naming this test.  Not a test of any kernel.
 */
#include <stdio.h>

#include "stacktest.h"

static int test_main(void)
{
	printf("KTAP version 1\n1..1\n");
	printf("# selftests/softlockup: a CPU held in the kernel from now\n");
	lkdtm_provoke("SOFTLOCKUP");
	printf("not ok 1 LKDTM's SOFTLOCKUP returned\n");
	return 1;
}

GUEST_TEST(
	.name = "selftests/softlockup",
	.what = "harness self-test: a soft lockup (the kernel's watchdog report)",
	.requires = {
		REQ_KCONFIG("CONFIG_LKDTM"),
		REQ_KCONFIG("CONFIG_SOFTLOCKUP_DETECTOR"),
	},
	.run = test_main,
);
