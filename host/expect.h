/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_EXPECT_H
#define HOST_EXPECT_H

#include "run.h"

/*
 * Expected verdicts for a matrix of series x topologies, an INI file:
 *
 *	[replay-2014-rw-page]		; a series folder's name
 *	brd = fail:swapfile-integrity	; this test must fail there
 *	* = pass			; every other topology must pass
 *
 * Values: pass, fail (anything failed), fail:TEST (TEST failed).
 * A section [SERIES@X.Y] holds what differs on kernel series X.Y (6.12):
 * there its rules come first, and a topology it does not name (nor "*")
 * falls to [SERIES].
 */
struct expect_rule {
	char series[64], topology[64], want[96];
	int line;
};

struct expect {
	char *path;
	const char *kseries;	/* the kernel's X.Y: [SERIES@X.Y] applies */
	int n;
	struct expect_rule *rules;
};

int expect_load(const char *path, struct expect *e, char *err, size_t len);
/*
 * The rule for (series, topology): [SERIES@X.Y]'s before [SERIES]'s; in
 * a section, an exact match beats "*"; NULL if none.
 */
const struct expect_rule *expect_find(const struct expect *e,
				      const char *series, const char *topo);
/* Does the result meet the rule?  why gets a short explanation. */
bool expect_met(const struct expect_rule *r, const struct topo_result *res,
		char *why, size_t len);

#endif
