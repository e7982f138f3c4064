// SPDX-License-Identifier: GPL-2.0
/*
 * main() of every guest test program: check the descriptor's
 * requirements, then run the test.  An unmet requirement is reported as
 * "1..0 # SKIP reason" and exit status GUEST_TEST_SKIP, before any work;
 * PID 1 turns that into "ok N NAME # SKIP reason".
 *
 * "NAME --describe" prints the descriptor (it runs on the host too: the
 * initramfs builder collects the tools each test needs from it).
 */
#include <stdio.h>
#include <string.h>

#include "stacktest.h"

static const char *const req_word[] = {
	[REQ_TOOL_] = "tool", [REQ_LAYER_] = "layer", [REQ_ENV_] = "env",
	[REQ_KCONFIG_] = "kconfig", [REQ_PATH_] = "path",
};

static int describe(const struct guest_test *t)
{
	const struct requirement *r;

	printf("test %s\nwhat %s\n", t->name, t->what);
	for (r = t->requires; r < t->requires + GUEST_TEST_MAX_REQS && r->kind; r++)
		printf("requires %s %s\n", req_word[r->kind], r->what);
	return 0;
}

int main(int argc, char **argv)
{
	const struct guest_test *t = &guest_test;
	const struct requirement *r;
	char why[256];

	if (argc > 1 && !strcmp(argv[1], "--describe"))
		return describe(t);
	for (r = t->requires; r < t->requires + GUEST_TEST_MAX_REQS && r->kind; r++) {
		if (!requirement_met(r, why, sizeof(why)))
			continue;
		printf("KTAP version 1\n1..0 # SKIP %s\n", why);
		return GUEST_TEST_SKIP;
	}
	return t->run();
}
