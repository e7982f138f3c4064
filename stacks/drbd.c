// SPDX-License-Identifier: GPL-2.0
/*
 * DRBD 8.4 between the two guests of a "nodes = 2" topology.  Each node
 * writes the same resource file (its lower device comes from its own
 * stack), creates meta-data, brings r0 up and waits for the connection;
 * node0 forces itself primary and both wait for the initial full sync.
 * The runner builds the layers above DRBD on node0 only.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "stack.h"

#define CONNECT_S 90
#define SYNC_S 240
#define PEER_DONE_S 480

static int write_conf(const char *lower, const struct layer *l)
{
	FILE *f;

	mkdir("/etc/drbd.d", 0755);
	mkdir("/var", 0755);
	mkdir("/var/lib", 0755);
	mkdir("/var/lib/drbd", 0755);
	mkdir("/var/run", 0755);
	mkdir("/var/run/drbd", 0755);
	mkdir("/var/lock", 0755);	/* drbdmeta's lock files */
	f = fopen("/etc/drbd.conf", "w");
	if (!f)
		return -1;
	fprintf(f,
		"global { usage-count no; }\n"
		"resource " DRBD_RES " {\n"
		"\tnet { protocol %s; verify-alg crc32c; }\n"
		/*
		 * The smallest activity log (DRBD_AL_EXTENTS_MIN: 67 extents
		 * of 4 MiB): on a device larger than 268 MiB, scattered
		 * writes must evict extents and write AL transactions.
		 */
		"\tdisk { resync-rate 200M; al-extents 67; on-io-error detach; }\n"
		"\tdevice " DRBD_DEV ";\n\tdisk %s;\n\tmeta-disk internal;\n"
		"\ton node0 { address 10.99.0.1:7789; }\n"
		"\ton node1 { address 10.99.0.2:7789; }\n"
		"}\n", layer_get(l, "protocol", "C"), lower);
	return fclose(f);
}

/*
 * Swap over DRBD needs the network to make progress under memory
 * pressure, and DRBD 8.4 does not mark its sockets SOCK_MEMALLOC (nbd,
 * nvme-tcp and iscsi_tcp do), so its receive path gets no emergency
 * reserve.  Pushing pages out to a swap file on DRBD by memory pressure
 * stalled here ("Remote failed to finish a request within 42200ms >
 * ko-count"); with this larger free reserve it passed several times and
 * then deadlocked once more (drbd_r_r0 and kswapd0 blocked for minutes).
 * A later run with MADV_PAGEOUT plus a short filler to drop the swap cache
 * deadlocked the same way.  So on DRBD the swap tests' hog runs in a
 * memory cgroup (the entry's swap_pressure "memcg", lib/hog.c), which
 * leaves the rest of the guest free memory; the reserve stays for the
 * network's atomic allocations.  topologies/known-issues/drbd-reclaim.ini keeps
 * the global pressure that deadlocks.
 */
#define MIN_FREE_KB "16384"

static int drbd_build(struct stack *s, const struct layer *l, char *msg,
		      size_t len)
{
	char lower[64];
	double t0;

	if (stack_lower(s, lower, sizeof(lower), msg, len))
		return -1;
	if (write_str("/proc/sys/vm/min_free_kbytes", MIN_FREE_KB) ||
	    write_conf(lower, l)) {
		snprintf(msg, len, "cannot set min_free_kbytes or write /etc/drbd.conf");
		return -1;
	}
	if (drbdadm("create-md", "--force") || drbdadm("up", NULL)) {
		snprintf(msg, len, "drbdadm create-md/up on %s failed", lower);
		return -1;
	}
	if (drbd_wait(drbd_link_up, "the peer to connect", CONNECT_S, msg, len))
		return -1;
	t0 = mono_s();
	if (drbd_node() == 0 && drbdadm("primary", "--force")) {
		snprintf(msg, len, "drbdadm primary --force failed");
		return -1;
	}
	if (drbd_wait(drbd_connected_synced, "the initial full sync", SYNC_S,
		      msg, len))
		return -1;
	snprintf(s->top, sizeof(s->top), "%s", DRBD_DEV);
	snprintf(msg, len, "%s on %s, node%d, %s after %.1fs; min_free_kbytes %s",
		 DRBD_DEV, lower, drbd_node(), drbd_node() ? "synced from the peer" :
		 "primary, peer synced", mono_s() - t0, MIN_FREE_KB);
	return 0;
}

/*
 * node0 demotes and waits for its peer to leave (the peer may still be
 * checking what node0 wrote); node1 demotes and leaves.
 */
static int drbd_teardown(struct stack *s, const struct layer *l, char *msg,
			 size_t len)
{
	struct drbd_state st;

	if (!drbd_state(&st) && !strcmp(st.role, "Primary") &&
	    drbdadm("secondary", NULL)) {
		snprintf(msg, len, "drbdadm secondary failed (device still open?)");
		return -1;
	}
	if (drbd_node() == 0 &&
	    drbd_wait(drbd_link_down, "the peer to finish and go down",
		      PEER_DONE_S, msg, len))
		return -1;
	if (drbdadm("down", NULL)) {
		snprintf(msg, len, "drbdadm down failed");
		return -1;
	}
	snprintf(msg, len, "%s down", DRBD_RES);
	return 0;
}

static const struct layer_kind drbd = {
	.name = "drbd",
	.what = "DRBD 8.4 resource between the two nodes (drbdadm), node0 primary",
	.keys = {
		{ "protocol", 'e', "A|B|C" },
	},
	/* drbdadm runs drbdadm-84 and drbdsetup-84 for the in-tree 8.4. */
	.tools = { "drbdadm", "drbdsetup", "drbdmeta", "/lib/drbd/drbdadm-84",
		   "/lib/drbd/drbdsetup-84", "ip" },
	/* Global pressure deadlocked swap over DRBD (known-issues/drbd-reclaim). */
	.swap_pressure = "memcg",
	.joins_nodes = true,
	.build = drbd_build,
	.teardown = drbd_teardown,
};
LAYER_KIND(drbd);
