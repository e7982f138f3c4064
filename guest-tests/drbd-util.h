/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DRBD 8.4 (in-tree) as the guest sees it: one resource "r0" on
 * /dev/drbd0 between node0 and node1, driven with Debian's drbdadm, and
 * its state read from /proc/drbd.  The two nodes coordinate only through
 * DRBD's own state, with bounded waits that name the state on timeout.
 */
#ifndef GUEST_DRBD_UTIL_H
#define GUEST_DRBD_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#define DRBD_RES "r0"
#define DRBD_DEV "/dev/drbd0"

struct drbd_state {
	char cs[24];		/* connection: Connected, StandAlone, ... */
	char role[16], peer_role[16];
	char disk[16], peer_disk[16];
	long long ns, nr, dw, dr, al, bm, oos;	/* KiB, or counts (al, bm) */
};

/* Read /proc/drbd's line for minor 0; -1 when the resource is not up. */
int drbd_state(struct drbd_state *st);
/* "cs:Connected ro:Primary/Secondary ds:UpToDate/UpToDate oos:0" */
void drbd_describe(char *buf, size_t len);

typedef bool (*drbd_cond)(const struct drbd_state *st);
bool drbd_connected_synced(const struct drbd_state *st);
bool drbd_peer_secondary_synced(const struct drbd_state *st);
bool drbd_link_up(const struct drbd_state *st);
bool drbd_link_down(const struct drbd_state *st);
bool drbd_connected(const struct drbd_state *st);
/*
 * Poll until cond holds, at most seconds.  On timeout, put "timeout after
 * N s waiting for WHAT: <state>" in msg and return -1.
 */
int drbd_wait(drbd_cond cond, const char *what, int seconds, char *msg,
	      size_t len);
/* drbdadm CMD r0 (and one option, or NULL); its exit status. */
int drbdadm(const char *cmd, const char *opt);
/* STACK_NODE: 0 for the node that goes primary first, 1 for its peer. */
int drbd_node(void);

/*
 * The peer's turn (node1): wait until node0 has demoted with both disks
 * UpToDate, then promote.  0 when this node is primary.
 */
int drbd_take_over(int seconds, char *msg, size_t len);
/* Online verify of the whole device; its out-of-sync KiB in *oos. */
int drbd_online_verify(long long *oos, char *msg, size_t len);

#endif
