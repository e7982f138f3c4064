// SPDX-License-Identifier: GPL-2.0
/*
 * selftests/quiet: a step that declares a short progress bound, keeps it
 * renewed with progress notes for a while, then spins without a word
 * (running, not blocked: no hung-task report can see it).  The harness's
 * own tests check that the host ends the run when the bound passes
 * unrenewed, not before, and not at the deadline, naming the step.  Not
 * a test of any kernel.
 */
#include <stdio.h>

#include "stacktest.h"

#define BOUND_S 10
#define NOTES_S 20	/* twice the bound: only the notes keep it alive */

static int test_main(void)
{
	volatile unsigned long spin = 0;
	double t0;

	printf("KTAP version 1\n1..1\n");
	progress_begin("a silent spin", BOUND_S);
	for (t0 = mono_s(); mono_s() - t0 < NOTES_S; spin++)
		progress_note("spinning, %.0f s", mono_s() - t0);
	printf("# selftests/quiet: silent from now\n");
	fflush(stdout);
	while (spin || !spin)
		spin++;
	return 0;
}

GUEST_TEST(
	.name = "selftests/quiet",
	.what = "harness self-test: a step quiet past its bound (no progress)",
	.run = test_main,
);
