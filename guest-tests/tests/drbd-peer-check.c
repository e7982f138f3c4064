// SPDX-License-Identifier: GPL-2.0
/*
 * drbd-peer-check (node1): after node0 has run its tests on the stack
 * above DRBD and torn it down, take over and check the peer's copy: the
 * filesystem is clean for its checker, the data files node0's tests left
 * read back intact, and an online verify finds the copies identical.
 * And the link stayed up meanwhile: a write the peer never acknowledged
 * within ko-count makes node0 drop it, and the resync after the
 * reconnect leaves both copies equal, so only the drop itself shows it.
 * STACK_ABOVE names node0's layers above DRBD ("ext4 swapfile").
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stacktest.h"


#define PEER_S 900		/* node0's tests, seen from here */
#define MNT "/mnt/peer"

static const char *fs_above(void)
{
	const char *above = env_or("STACK_ABOVE", "");

	return strstr(above, "ext4") ? "ext4" : strstr(above, "xfs") ? "xfs" :
	       NULL;
}

static void check_files(struct ktap_out *k, const char *fs, uint64_t seed)
{
	char dir[64];
	int bad;

	mkdir(MNT, 0755);
	if (mount_fs(DRBD_DEV, MNT, fs, MS_RDONLY)) {
		ktap_result(k, 0, "node0's filesystem mounts read-only here");
		return;
	}
	snprintf(dir, sizeof(dir), MNT "/" DATAFILES_DIR);
	if (access(dir, F_OK)) {
		ktap_diag("no %s: node0 ran no test that leaves data files", dir);
		ktap_result(k, 1, "data files on this copy # SKIP none");
	} else {
		bad = datafiles_verify(MNT, seed);
		ktap_result(k, !bad, "node0's %d data files intact on this copy",
			    DATAFILES_N);
	}
	if (umount(MNT))
		ktap_diag("umount %s: %m", MNT);
}

static int test_main(void)
{
	const char *fs = fs_above();
	char msg[256];
	long long oos;
	struct ktap_out k;
	int ok, drops;

	ktap_begin(&k, 6);
	ok = !drbd_take_over(PEER_S, &drops, msg, sizeof(msg));
	ktap_diag("%s", msg);
	ktap_result(&k, ok, "took over as primary after node0's tests");
	ktap_result(&k, drops == 0,
		    "the link stayed up while node0 ran its tests (%d drops)",
		    drops);
	if (ok && fs) {
		ktap_result(&k, !fs_check(DRBD_DEV, fs), "node0's %s is clean here (%s)",
			    fs, fs_checker(fs));
		check_files(&k, fs, env_seed());
	} else {
		ktap_result(&k, 1, "filesystem check # SKIP %s",
			    ok ? "no filesystem above DRBD" : "not primary");
		ktap_result(&k, 1, "data files # SKIP no filesystem checked");
	}
	ok = ok && !drbd_online_verify(&oos, msg, sizeof(msg));
	ktap_diag("%s", msg);
	ktap_result(&k, ok && oos == 0, "online verify: the two copies agree");
	ktap_result(&k, !drbdadm("secondary", NULL), "demoted");
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "drbd-peer-check",
	.what = "DRBD peer (node1): takes over and checks its copy of node0's filesystem",
	.requires = {
		REQ_LAYER("drbd"),
		REQ_TOOL("drbdadm"),
	},
	.run = test_main,
);
