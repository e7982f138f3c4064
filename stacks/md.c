// SPDX-License-Identifier: GPL-2.0
/* md arrays with mdadm --create / --stop. */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "stack.h"

static int md_build(struct stack *s, const struct layer *l, char *msg,
		    size_t len)
{
	const char *argv[32];
	char dev[32], level[32], layout[32], ndev[32], chunk[32], bitmap[32];
	char behind[32], state[96];
	int n = s->ntake, i, a = 0;

	snprintf(dev, sizeof(dev), "/dev/md%d", s->nmd);
	snprintf(level, sizeof(level), "--level=%s",
		 layer_get(l, "level", "raid1"));
	snprintf(ndev, sizeof(ndev), "--raid-devices=%d", n);
	snprintf(bitmap, sizeof(bitmap), "--bitmap=%s",
		 layer_get(l, "bitmap", "none"));
	argv[a++] = "mdadm";
	argv[a++] = "--create";
	argv[a++] = dev;
	argv[a++] = "--run";
	argv[a++] = "--metadata=1.2";
	argv[a++] = level;
	argv[a++] = ndev;
	argv[a++] = bitmap;
	/*
	 * The member disks are fresh all-zero images, so every mirror and
	 * every parity already agrees: skipping the initial resync is exact.
	 */
	argv[a++] = "--assume-clean";
	if (layer_get(l, "layout", NULL)) {
		snprintf(layout, sizeof(layout), "--layout=%s",
			 layer_get(l, "layout", NULL));
		argv[a++] = layout;
	}
	if (layer_get(l, "chunk", NULL)) {
		snprintf(chunk, sizeof(chunk), "--chunk=%lldK",
			 parse_size(layer_get(l, "chunk", NULL)) >> 10);
		argv[a++] = chunk;
	}
	/* Write-behind needs the bitmap; mdadm refuses it without one. */
	if (layer_get(l, "write-behind", NULL)) {
		snprintf(behind, sizeof(behind), "--write-behind=%s",
			 layer_get(l, "write-behind", NULL));
		argv[a++] = behind;
	}
	for (i = 0; i < n; i++)
		argv[a++] = stack_disk(s, i);
	argv[a] = NULL;
	if (run(argv)) {
		snprintf(msg, len, "mdadm --create %s failed", dev);
		return -1;
	}
	if (wait_path(dev, 10)) {
		snprintf(msg, len, "%s did not appear", dev);
		return -1;
	}
	/*
	 * raid1 starts a behind write only when the mirror in slot 0 is
	 * write-mostly, and mdadm --create fills slots in the order given:
	 * flag the first member through sysfs (mdadm has no per-device
	 * "not write-mostly" switch for --create).
	 */
	if (layer_get(l, "write-mostly", NULL)) {
		const char *d = strrchr(stack_disk(s, 0), '/');

		snprintf(state, sizeof(state), "/sys/block/md%d/md/dev-%s/state",
			 s->nmd, d ? d + 1 : stack_disk(s, 0));
		if (write_str(state, "writemostly")) {
			snprintf(msg, len, "cannot set %s writemostly", state);
			return -1;
		}
	}
	s->nmd++;
	snprintf(s->top, sizeof(s->top), "%s", dev);
	snprintf(msg, len, "%s: %s over %d disks", dev, level + 8, n);
	return 0;
}

static int md_teardown(struct stack *s, const struct layer *l, char *msg,
		       size_t len)
{
	char dev[32];
	const char *argv[] = { "mdadm", "--stop", dev, NULL };

	(void)l;
	snprintf(dev, sizeof(dev), "/dev/md%d", --s->nmd);
	if (run(argv)) {
		snprintf(msg, len, "mdadm --stop %s failed", dev);
		return -1;
	}
	snprintf(msg, len, "%s stopped", dev);
	return 0;
}

/*
 * A walk's operations on the arrays (layer_op).  Members this process
 * took out, to be put back: removed (failed and removed), or armed (every
 * bio to it fails, md has not necessarily noticed yet).
 */
static struct {
	char md[16], dev[48];
	bool armed;
} out[MD_MAX_MEMBERS];
static int nout;

/* Every sync of md at the system's speed, raised by md_speed_up(). */
static void md_full_speed(const char *md)
{
	md_speed_up();
	md_attr_write(md, "sync_speed_min", "system");
	md_attr_write(md, "sync_speed_max", "system");
}

/* "/dev/NAME" in buf, for an array or a member named as sysfs does. */
static char *dev_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "/dev/%s", name);
	return buf;
}

/* md0, md1, ...: the arrays there are; one of them by r into md. */
static int md_pick_array(uint64_t r, char *md, size_t len)
{
	char path[64];
	int n = 0;

	while (n < 8) {
		snprintf(path, sizeof(path), "/sys/block/md%d/md", n);
		if (access(path, F_OK))
			break;
		n++;
	}
	if (!n)
		return -1;
	snprintf(md, len, "md%d", (int)(r % n));
	return 0;
}

static bool md_quiet(const char *md);

/* Whole and quiet: not degraded, no sync running, nothing of ours out. */
static bool md_whole(const char *md)
{
	return !nout && md_attr_ll(md, "degraded") == 0 && md_quiet(md);
}

/*
 * A member to fail, "md0 vdb": any in-sync one of an array that is not
 * degraded, or the one recovering (failing it fails nothing more).
 */
static bool md_failable(const struct md_member *m, long long degraded)
{
	if (m->slot < 0 || strstr(m->state, "faulty"))
		return false;
	return degraded ? !strstr(m->state, "in_sync") :
	       strstr(m->state, "in_sync") != NULL;
}

static int md_pick_member(const char *kind, uint64_t r, char *args,
			  size_t len)
{
	struct md_member m[MD_MAX_MEMBERS];
	long long degraded;
	char md[16];
	int n, i, k = 0;

	if (md_pick_array(r, md, sizeof(md)) || nout)
		return -1;
	degraded = md_attr_ll(md, "degraded");
	if (degraded < 0)
		return -1;
	n = md_members(md, m, MD_MAX_MEMBERS);
	for (i = 0; i < n; i++)
		k += md_failable(&m[i], degraded);
	if (!k)
		return -1;
	k = (r >> 8) % k;
	for (i = 0; i < n && (!md_failable(&m[i], degraded) || k--); i++)
		;
	snprintf(args, len, "%s %s", md, m[i].name);
	return 0;
}

/* Md's member called name, as it is now, into *out; false if none is. */
static bool md_member_named(const char *md, const char *name,
			    struct md_member *out)
{
	struct md_member m[MD_MAX_MEMBERS];
	int n = md_members(md, m, MD_MAX_MEMBERS), i;

	for (i = 0; i < n; i++)
		if (!strcmp(m[i].name, name)) {
			*out = m[i];
			return true;
		}
	return false;
}

/* The pick's condition, again when the operation runs (a replayed trace). */
static bool md_still_failable(const char *md, const char *name)
{
	long long degraded = md_attr_ll(md, "degraded");
	struct md_member m;

	return !nout && degraded >= 0 && md_member_named(md, name, &m) &&
	       md_failable(&m, degraded);
}

static int md_mark_out(const char *md, const char *dev, bool armed)
{
	if (nout == MD_MAX_MEMBERS)
		return -1;
	snprintf(out[nout].md, sizeof(out[nout].md), "%s", md);
	snprintf(out[nout].dev, sizeof(out[nout].dev), "%s", dev);
	out[nout++].armed = armed;
	return 0;
}

/* mdadm --remove, retried while md still finishes the failure (EBUSY). */
static int md_remove_member(const char *dev, const char *member)
{
	double end = mono_s() + scaled(20);

	while (mdadm(dev, "--remove", member, NULL)) {
		if (mono_s() > end)
			return -1;
		usleep(200000);
	}
	return 0;
}

/* Fail a member and remove it: the array runs degraded. */
static int md_op_fail(const char *kind, const char *args, char *msg,
		      size_t len)
{
	char md[16], name[32], dev[32], member[48];

	if (sscanf(args, "%15s %31s", md, name) != 2 ||
	    !md_still_failable(md, name))
		return 1;
	dev_path(dev, sizeof(dev), md);
	dev_path(member, sizeof(member), name);
	if (mdadm(dev, "--fail", member, NULL) ||
	    md_remove_member(dev, member)) {
		snprintf(msg, len, "mdadm --fail/--remove %s from %s failed",
			 member, dev);
		return -1;
	}
	return md_mark_out(md, member, false);
}

/*
 * Every bio to a member fails from now on (fail_make_request): md must
 * notice by itself and run degraded.
 */
static int md_op_fault(const char *kind, const char *args, char *msg,
		       size_t len)
{
	char md[16], name[32], member[48];

	if (sscanf(args, "%15s %31s", md, name) != 2 ||
	    !md_still_failable(md, name))
		return 1;
	dev_path(member, sizeof(member), name);
	if (fault_setup("fail_make_request", 100, -1) ||
	    fail_disk(member, 1)) {
		snprintf(msg, len, "cannot make %s fail", member);
		return 1;
	}
	return md_mark_out(md, member, true);
}

static int md_pick_out(const char *kind, uint64_t r, char *args, size_t len)
{
	if (!nout)
		return -1;
	snprintf(args, len, "%s %s", out[r % nout].md, out[r % nout].dev);
	return 0;
}

/* An armed member healed and, failed by md or by us, removed. */
static int md_disarm(int i, char *msg, size_t len)
{
	const char *member = out[i].dev;
	char dev[32];

	if (!out[i].armed)
		return 0;
	dev_path(dev, sizeof(dev), out[i].md);
	fail_disk(member, 0);
	mdadm(dev, "--fail", member, NULL);
	if (md_remove_member(dev, member)) {
		snprintf(msg, len, "%s: cannot remove faulty %s", out[i].md,
			 member);
		return -1;
	}
	out[i].armed = false;
	return 0;
}

/* Put member i back: disarmed, then re-added. */
static int md_put_back(int i, char *msg, size_t len)
{
	const char *member = out[i].dev;
	char dev[32];

	dev_path(dev, sizeof(dev), out[i].md);
	if (md_disarm(i, msg, len))
		return -1;
	/* --re-add resyncs only what the bitmap marked; else a full --add. */
	if (mdadm(dev, "--re-add", member, NULL) &&
	    mdadm(dev, "--add", member, NULL)) {
		snprintf(msg, len, "mdadm --add %s to %s failed", member, dev);
		return -1;
	}
	out[i] = out[--nout];
	return 0;
}

/* The member of ours that args ("md0 /dev/vdb") names, or -1. */
static int md_find_out(const char *args)
{
	char md[16], member[48];
	int i;

	if (sscanf(args, "%15s %47s", md, member) != 2)
		return -1;
	for (i = 0; i < nout; i++)
		if (!strcmp(out[i].md, md) && !strcmp(out[i].dev, member))
			return i;
	return -1;
}

/*
 * The member replaced by a new disk: its superblock gone and every
 * sector zeroed (BLKZEROOUT) before mdadm --add, so md must recover all
 * of it.
 */
static int md_wipe(const char *member, char *msg, size_t len)
{
	uint64_t range[2] = { 0, 0 };
	int fd = open(member, O_WRONLY | O_CLOEXEC);
	int r = -1;

	if (fd >= 0 && !ioctl(fd, BLKGETSIZE64, &range[1]))
		r = ioctl(fd, BLKZEROOUT, range);
	if (fd >= 0)
		close(fd);
	if (r)
		snprintf(msg, len, "cannot zero %s: %s", member,
			 strerror(errno));
	return r;
}

static int md_op_replace(const char *kind, const char *args, char *msg,
			 size_t len)
{
	int i = md_find_out(args);
	double end = mono_s() + scaled(5);

	if (i < 0)
		return 1;
	if (md_disarm(i, msg, len))
		return -1;
	/* md may still hold the removed disk for a moment (EBUSY). */
	while (mdadm("--zero-superblock", out[i].dev, NULL)) {
		if (mono_s() > end) {
			snprintf(msg, len, "mdadm --zero-superblock %s refused",
				 out[i].dev);
			return 1;
		}
		usleep(200000);
	}
	if (md_wipe(out[i].dev, msg, len))
		return -1;
	return md_put_back(i, msg, len);
}

static int md_op_readd(const char *kind, const char *args, char *msg,
		       size_t len)
{
	int i = md_find_out(args);

	return i < 0 ? 1 : md_put_back(i, msg, len);
}

/* A running resync or recovery, to freeze; or a frozen one, to thaw. */
static int md_pick_sync(const char *kind, uint64_t r, char *args, size_t len,
			bool frozen)
{
	char md[16], act[32];

	if (md_pick_array(r, md, sizeof(md)) ||
	    md_attr(md, "sync_action", act, sizeof(act)))
		return -1;
	if (frozen ? strcmp(act, "frozen") :
	    !strcmp(act, "frozen") || !strcmp(act, "idle"))
		return -1;
	snprintf(args, len, "%s", md);
	return 0;
}

static int md_pick_freeze(const char *kind, uint64_t r, char *args,
			  size_t len)
{
	return md_pick_sync(kind, r, args, len, false);
}

static int md_pick_thaw(const char *kind, uint64_t r, char *args, size_t len)
{
	return md_pick_sync(kind, r, args, len, true);
}

static int md_op_action(const char *args, const char *action, char *msg,
			size_t len)
{
	char md[16];

	if (sscanf(args, "%15s", md) != 1)
		return 1;
	if (md_attr_write(md, "sync_action", action)) {
		snprintf(msg, len, "%s: cannot write sync_action %s", md,
			 action);
		return -1;
	}
	return 0;
}

static int md_op_freeze(const char *kind, const char *args, char *msg,
			size_t len)
{
	return md_op_action(args, "frozen", msg, len);
}

/* "idle" unfreezes: md restarts the sync where it stopped. */
static int md_op_thaw(const char *kind, const char *args, char *msg,
		      size_t len)
{
	return md_op_action(args, "idle", msg, len);
}

/*
 * sync_speed_max, KiB/s, or the system's (md_speed_up's): a sync crawls
 * under the walk's I/O or races it.  wait and check lift it first.
 */
static int md_pick_speed(const char *kind, uint64_t r, char *args, size_t len)
{
	static const char *const kib[] = { "1000", "10000", "100000", "system" };
	char md[16];

	if (md_pick_array(r, md, sizeof(md)))
		return -1;
	snprintf(args, len, "%s %s", md, kib[(r >> 8) % 4]);
	return 0;
}

static int md_op_speed(const char *kind, const char *args, char *msg,
		       size_t len)
{
	char md[16], kib[16], min[24];

	if (sscanf(args, "%15s %15s", md, kib) != 2)
		return 1;
	/*
	 * md syncs at least at sync_speed_min whatever the load (the
	 * system's is raised by md_speed_up): the floor goes with the cap.
	 */
	if (strcmp(kib, "system"))
		snprintf(min, sizeof(min), "%d", atoi(kib) / 2);
	else
		snprintf(min, sizeof(min), "system");
	if (md_attr_write(md, "sync_speed_min", min) ||
	    md_attr_write(md, "sync_speed_max", kib)) {
		snprintf(msg, len, "%s: cannot set sync_speed_min/max", md);
		return -1;
	}
	return 0;
}

/* No resync, recovery or check running (mdadm --grow waits for none). */
static bool md_quiet(const char *md)
{
	char act[32];

	return !md_attr(md, "sync_action", act, sizeof(act)) &&
	       !strcmp(act, "idle");
}

/*
 * The write-intent bitmap on or off (mdadm --grow), whole or degraded:
 * a bitmap added while a member is out is younger than it, so its re-add
 * is a full recovery.
 */
static int md_pick_bitmap(const char *kind, uint64_t r, char *args,
			  size_t len)
{
	char md[16], loc[32];

	if (md_pick_array(r, md, sizeof(md)) || !md_quiet(md) ||
	    md_attr(md, "bitmap/location", loc, sizeof(loc)))
		return -1;
	snprintf(args, len, "%s %s", md, strcmp(loc, "none") ? "none" :
		 "internal");
	return 0;
}

static int md_op_bitmap(const char *kind, const char *args, char *msg,
			size_t len)
{
	char md[16], dev[32], bitmap[32], want[16];
	double end = mono_s() + scaled(5);

	if (sscanf(args, "%15s %15s", md, want) != 2 || !md_quiet(md))
		return 1;
	dev_path(dev, sizeof(dev), md);
	snprintf(bitmap, sizeof(bitmap), "--bitmap=%s", want);
	/*
	 * md refuses (EBUSY) while it still has recovery work flagged after
	 * a member left, which sysfs does not show: retry, then give up on
	 * the operation rather than blame the kernel.
	 */
	while (mdadm("--grow", dev, bitmap, NULL)) {
		if (mono_s() > end) {
			snprintf(msg, len, "mdadm --grow %s %s refused for %.0f s",
				 dev, bitmap, scaled(5));
			return 1;
		}
		usleep(200000);
	}
	return 0;
}

/* Swap in use on the stack: md's own docs say it can leave mirrors differing. */
static bool swap_used(void)
{
	return meminfo_kb("SwapTotal") != meminfo_kb("SwapFree");
}

/* A check scrub of a whole array: mismatch_cnt must be 0. */
static int md_pick_check(const char *kind, uint64_t r, char *args, size_t len)
{
	char md[16];

	if (md_pick_array(r, md, sizeof(md)) || !md_whole(md) || swap_used())
		return -1;
	snprintf(args, len, "%s", md);
	return 0;
}

static int md_op_check(const char *kind, const char *args, char *msg,
		       size_t len)
{
	char md[16], dev[32];
	long long mismatch = -1;

	if (sscanf(args, "%15s", md) != 1 || !md_whole(md) || swap_used())
		return 1;
	dev_path(dev, sizeof(dev), md);
	md_full_speed(md);
	if (md_check(dev, 300, &mismatch) || mismatch) {
		snprintf(msg, len, "%s: check found mismatch_cnt %lld", md,
			 mismatch);
		return -1;
	}
	return 0;
}

/* Wait for whatever sync runs to end (a walk goes on degraded or whole). */
static int md_pick_wait(const char *kind, uint64_t r, char *args, size_t len)
{
	char md[16], act[32];

	if (md_pick_array(r, md, sizeof(md)) ||
	    md_attr(md, "sync_action", act, sizeof(act)) ||
	    !strcmp(act, "idle") || !strcmp(act, "frozen"))
		return -1;
	snprintf(args, len, "%s", md);
	return 0;
}

static int md_op_wait(const char *kind, const char *args, char *msg,
		      size_t len)
{
	char md[16], act[32];

	if (sscanf(args, "%15s", md) != 1 ||
	    md_attr(md, "sync_action", act, sizeof(act)) ||
	    !strcmp(act, "frozen"))
		return 1;
	md_full_speed(md);
	if (md_wait_idle(md, -1, 300)) {
		snprintf(msg, len, "%s: sync did not end in %.0f s", md,
			 scaled(300));
		return -1;
	}
	return 0;
}

/*
 * Write-behind on (bitmap/backlog above 0).  md clears write-mostly
 * without waiting for the member's behind writes, and raid1 waits for
 * them only before reading from a write-mostly member: turning the flag
 * off there would let a read overtake a behind write.  Not walked (a
 * question for md, not one the model can judge).
 */
static bool md_behind(const char *md)
{
	return md_attr_ll(md, "bitmap/backlog") > 0;
}

/*
 * A mirror's write-mostly flag on or off (dev-NAME/state) under I/O:
 * raid1 then reads from it only when no other mirror will do, and with
 * write-behind its writes complete behind; md makes or frees the
 * member's serial pool as the flag moves.
 */
static int md_pick_mostly(const char *kind, uint64_t r, char *args,
			  size_t len)
{
	struct md_member m[MD_MAX_MEMBERS];
	char md[16], level[16];
	int n, i;

	if (md_pick_array(r, md, sizeof(md)) ||
	    md_attr(md, "level", level, sizeof(level)) || strcmp(level, "raid1"))
		return -1;
	n = md_members(md, m, MD_MAX_MEMBERS);
	i = n ? (r >> 8) % n : 0;
	if (!n || m[i].slot < 0 || strstr(m[i].state, "faulty"))
		return -1;
	if (strstr(m[i].state, "write_mostly") && md_behind(md))
		return -1;
	snprintf(args, len, "%s %s %s", md, m[i].name,
		 strstr(m[i].state, "write_mostly") ? "off" : "on");
	return 0;
}

static int md_op_mostly(const char *kind, const char *args, char *msg,
			size_t len)
{
	char md[16], name[32], onoff[8], attr[48];
	struct md_member m;

	if (sscanf(args, "%15s %31s %7s", md, name, onoff) != 3)
		return 1;
	if (!md_member_named(md, name, &m) || m.slot < 0 ||
	    strstr(m.state, "faulty") ||
	    (strcmp(onoff, "on") && md_behind(md)))
		return 1;
	snprintf(attr, sizeof(attr), "dev-%s/state", name);
	if (md_attr_write(md, attr, strcmp(onoff, "on") ? "-writemostly" :
			  "writemostly")) {
		snprintf(msg, len, "%s: cannot turn write-mostly %s on %s",
			 md, onoff, name);
		return -1;
	}
	return 0;
}

/* The device the walk's target sits on directly: its filesystem's, or the top. */
static bool md_under_target(const char *md)
{
	const char *mnt = getenv("STACK_MNT");
	const char *dev = getenv(mnt && *mnt ? "STACK_FSDEV" : "STACK_TOP");
	char want[32];

	return dev && !strcmp(dev, dev_path(want, sizeof(want), md));
}

/*
 * A member failing that a restart would lose: one of ours armed (every
 * bio to it fails, not yet removed), or one md failed by itself, which
 * settle could not put back.
 */
static bool md_any_failing(const char *md)
{
	struct md_member m[MD_MAX_MEMBERS];
	int i, n = md_members(md, m, MD_MAX_MEMBERS);

	for (i = 0; i < nout; i++)
		if (out[i].armed)
			return true;
	for (i = 0; i < n; i++)
		if (strstr(m[i].state, "faulty") || strstr(m[i].state, "blocked"))
			return true;
	return false;
}

/*
 * Stop an array and assemble it again from the members it has now, as a
 * reboot would: md builds a new conf from the superblocks alone, and a
 * sync under way resumes where they say.  A member we took out stays
 * out (the walk may re-add it later).  The walk's target is closed
 * around it (offline), so only an array right under it qualifies.
 */
static int md_pick_restart(const char *kind, uint64_t r, char *args,
			   size_t len)
{
	char md[16];

	if (md_pick_array(r, md, sizeof(md)) || !md_under_target(md) ||
	    md_any_failing(md))
		return -1;
	snprintf(args, len, "%s", md);
	return 0;
}

/*
 * mdadm --stop, retried while the last opener lets go (EBUSY); then md
 * deletes the old disk in the background: wait until it is gone, or the
 * assemble could find it still there.
 */
static int md_stop(const char *md, const char *dev)
{
	double end = mono_s() + scaled(10);
	char path[64];

	snprintf(path, sizeof(path), "/sys/block/%s", md);
	while (mdadm("--stop", dev, NULL)) {
		if (mono_s() > end)
			return -1;
		usleep(200000);
	}
	while (!access(path, F_OK)) {
		if (mono_s() > end)
			return -1;
		usleep(50000);
	}
	return 0;
}

/* Assembled and running: array_state neither inactive nor clear. */
static bool md_running(const char *md)
{
	char st[32];

	return !md_attr(md, "array_state", st, sizeof(st)) &&
	       strcmp(st, "inactive") && strcmp(st, "clear");
}

static int md_op_restart(const char *kind, const char *args, char *msg,
			 size_t len)
{
	struct md_member m[MD_MAX_MEMBERS];
	const char *argv[MD_MAX_MEMBERS + 6];
	char md[16], dev[32];
	int n, i, a = 0;

	if (sscanf(args, "%15s", md) != 1 || !md_under_target(md) ||
	    md_any_failing(md))
		return 1;
	n = md_members(md, m, MD_MAX_MEMBERS);
	dev_path(dev, sizeof(dev), md);
	argv[a++] = "mdadm";
	argv[a++] = "--assemble";
	argv[a++] = "--run";
	argv[a++] = dev;
	for (i = 0; i < n; i++)
		if (!strstr(m[i].state, "faulty"))
			argv[a++] = m[i].dev;
	argv[a] = NULL;
	if (md_stop(md, dev)) {
		snprintf(msg, len, "mdadm --stop %s failed with nothing open on it",
			 dev);
		return -1;
	}
	if (run(argv) || wait_path(dev, 10) || !md_running(md)) {
		snprintf(msg, len, "mdadm --assemble %s from its %d members failed",
			 dev, a - 4);
		return -1;
	}
	snprintf(msg, len, "%s assembled from %d members", dev, a - 4);
	return 0;
}

/* End of a walk: every member back, thawed, in sync, and checked. */
static int md_settle(const char *kind, char *msg, size_t len)
{
	char md[16], dev[32], path[64];
	int i;

	while (nout)
		if (md_put_back(nout - 1, msg, len))
			return -1;
	for (i = 0; i < 8; i++) {
		snprintf(md, sizeof(md), "md%d", i);
		snprintf(path, sizeof(path), "/sys/block/%s/md", md);
		if (access(path, F_OK))
			break;
		md_full_speed(md);
		md_op_thaw(kind, md, msg, len);
		if (md_wait_idle(dev_path(dev, sizeof(dev), md), 0, 300)) {
			snprintf(msg, len, "%s not whole after the walk", md);
			return -1;
		}
		if (!swap_used() && md_op_check(kind, md, msg, len) < 0)
			return -1;
	}
	snprintf(msg, len, "arrays whole, in sync, mismatch_cnt 0");
	return 0;
}

/* The free disks it is given (devices=N), or all of them; never a device below. */
static int md_disks(const struct layer *l, bool below, int free, char *err,
		    size_t len)
{
	int n = atoi(layer_get(l, "devices", "0"));

	if (below) {
		snprintf(err, len, "md goes on free disks, not on the layer below");
		return -1;
	}
	if (!n)
		n = free;
	if (n < 2 || n > free) {
		snprintf(err, len, "md wants %d disks, %d are free", n, free);
		return -1;
	}
	return n;
}

static const struct layer_kind md = {
	.name = "md",
	.what = "md array built with mdadm --create over free disks",
	.keys = {
		{ "level", 'e', "raid1|raid10|raid5|raid6" },
		{ "layout", 'e', "n2|f2|o2|left-symmetric" },
		{ "devices", 'n', NULL },
		{ "chunk", 's', NULL },
		{ "bitmap", 'e', "internal|none" },
		{ "write-mostly", 'e', "first" },
		{ "write-behind", 'n', NULL },
	},
	.tools = { "mdadm" },
	.disks = md_disks,
	.build = md_build,
	.teardown = md_teardown,
	.ops = {
		{ "fail", md_pick_member, md_op_fail, false, 4 },
		{ "fault", md_pick_member, md_op_fault, false, 4 },
		{ "re-add", md_pick_out, md_op_readd, false, 4 },
		{ "replace", md_pick_out, md_op_replace, false, 2 },
		{ "freeze", md_pick_freeze, md_op_freeze, false, 2 },
		{ "thaw", md_pick_thaw, md_op_thaw, false, 2 },
		{ "speed", md_pick_speed, md_op_speed, false, 2 },
		{ "bitmap", md_pick_bitmap, md_op_bitmap, true, 1 },
		{ "check", md_pick_check, md_op_check, true, 1 },
		{ "wait", md_pick_wait, md_op_wait, false, 2 },
		{ "mostly", md_pick_mostly, md_op_mostly, false, 2 },
		{ "restart", md_pick_restart, md_op_restart, true, 3, true },
	},
	.settle = md_settle,
};
LAYER_KIND(md);
