// SPDX-License-Identifier: GPL-2.0
/*
 * selftests/panic: crash the guest kernel on purpose (sysrq 'c'), so the
 * harness's own tests can check that a panic is reported as CRASH with
 * its text.  Not a test of any kernel.
 */
#include <stdio.h>

#include "stacktest.h"

static int test_main(void)
{
	printf("KTAP version 1\n1..1\n# selftests/panic: sysrq-c\n");
	fflush(stdout);
	write_str("/proc/sys/kernel/sysrq", "1");
	write_str("/proc/sysrq-trigger", "c");
	printf("not ok 1 the kernel is still running after sysrq-c\n");
	return 1;
}

GUEST_TEST(
	.name = "selftests/panic",
	.what = "harness self-test: the guest kernel panics (sysrq-c)",
	.requires = {
		REQ_PATH("/proc/sysrq-trigger"),
	},
	.run = test_main,
);
