// SPDX-License-Identifier: GPL-2.0
/*
 * selftest-hang: a guest test that never finishes, so the harness's own
 * tests can check that the host-side timeout kills QEMU and reports the
 * console tail.  Not a test of any kernel.
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("KTAP version 1\n1..1\n# selftest-hang: waiting forever\n");
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}
