// SPDX-License-Identifier: GPL-2.0
/*
 * selftests/drbd-cut (node1, a self-test of the harness): when node0
 * disconnects in the middle of drbd-replicate, take this node's end of
 * the link down, so node0's reconnect can never succeed.  node0 must then
 * fail with a bounded timeout that names the DRBD state, and the run must
 * end with both guests gone.
 */
#include <stdio.h>

#include "stacktest.h"

static int test_main(void)
{
	const char *cut[] = { "ip", "link", "set", "eth0", "down", NULL };
	char msg[256];
	struct ktap_out k;
	int ok;

	ktap_begin(&k, 2);
	ok = !drbd_wait(drbd_link_down, "node0 to disconnect", 600, msg,
			sizeof(msg));
	ktap_result(&k, ok, "node0 disconnected mid-test");
	ktap_result(&k, ok && !run(cut), "link cut: eth0 down on node1");
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "selftests/drbd-cut",
	.what = "harness self-test: the DRBD peer cuts its link mid-test",
	.requires = {
		REQ_LAYER("drbd"),
		REQ_TOOL("ip"),
	},
	.run = test_main,
);
