// SPDX-License-Identifier: GPL-2.0
/*
 * selftests/hang: a guest test that never finishes, so the harness's own
 * tests can check that the host-side timeout kills QEMU and reports the
 * console tail.  Not a test of any kernel.
 */
#include <stdio.h>
#include <unistd.h>

#include "stacktest.h"

static int test_main(void)
{
	printf("KTAP version 1\n1..1\n# selftests/hang: waiting forever\n");
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

GUEST_TEST(
	.name = "selftests/hang",
	.what = "harness self-test: never ends (the host's timeout must)",
	.run = test_main,
);
