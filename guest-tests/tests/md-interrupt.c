// SPDX-License-Identifier: GPL-2.0
/*
 * md-interrupt: md's three long operations -- a resync, a rebuild onto a
 * spare and a reshape (grow by one member) -- each cut twice and resumed:
 * first frozen through sync_action and resumed with "idle", then, while
 * it runs again, the array stopped and assembled again from its
 * superblocks.  md must resume each from its checkpoint (resync_start,
 * the spare's recovery_start, reshape_position), never from the start
 * and never past data it has not handled.
 *
 * Oracles, on a seeded region written straight to $STACK_TOP:
 *   - at each freeze: md recorded a checkpoint inside the device, and
 *     nothing moves while frozen (the checkpoint is read again after a
 *     whole read-back);
 *   - after each resume: the first progress md reports is at or past the
 *     checkpoint (a restart from zero would show a smaller one);
 *   - writes made while frozen (into the part not yet resynced or
 *     rebuilt; below the checkpoint of a reshape) and all older data read
 *     back, O_DIRECT and buffered, during and after;
 *   - after the rebuild, the member mirroring or sharing parity with the
 *     spare is failed and everything is read back from the degraded
 *     array, so the spare's own content is checked, not only the
 *     surviving copy;
 *   - a "check" scrub finds mismatch_cnt 0 at the end.
 *
 * Syncs are throttled with speed_limit_max while a cut is made, so the
 * cut lands mid-way; every wait is on md's own state and bounded.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stacktest.h"

#define CHUNK (1LL << 20)
#define NCHUNKS 64
#define TIMEOUT 300.0
#define SLOW_KIB 4096	/* a 96 MiB member takes ~24 s at this rate */
#define CUT_PCT 15	/* cut once this much more is done */
#define RESUME_S 60.0	/* md restarts a sync within a second or two */

enum op { RESYNC, REBUILD, RESHAPE };

static const char *const op_name[] = { "resync", "rebuild", "reshape" };

struct cut {
	enum op op;
	const char *md;
	char spare[32];			/* REBUILD: the spare's name */
	char devs[MD_MAX_MEMBERS][40];	/* members, to assemble again */
	int ndevs;
	long long mark;			/* the checkpoint at the last cut */
};

static struct region r;

/* Where the operation is now, in the units of its checkpoint. */
static long long progress(const struct cut *c)
{
	long long done, total;

	if (c->op == RESHAPE)
		return md_attr_ll(c->md, "reshape_position");
	if (md_sync_progress(c->md, &done, &total))
		return -1;
	return done;
}

/* The checkpoint md keeps for the operation. */
static long long checkpoint(const struct cut *c)
{
	char attr[64];

	if (c->op == RESYNC)
		return md_attr_ll(c->md, "resync_start");
	if (c->op == RESHAPE)
		return md_attr_ll(c->md, "reshape_position");
	snprintf(attr, sizeof(attr), "dev-%s/recovery_start", c->spare);
	return md_attr_ll(c->md, attr);
}

/* Percent done of the running sync, -1 when none runs. */
static int percent(const char *md)
{
	long long done, total;

	if (md_sync_progress(md, &done, &total))
		return -1;
	return (int)(done * 100 / total);
}

/* Wait until a sync runs and has done something; its percent done. */
static int percent_running(const char *md)
{
	double t0 = mono_s();
	int p;

	while ((p = percent(md)) <= 0) {
		if (mono_s() - t0 > scaled(RESUME_S)) {
			ktap_diag("no sync running after %.0fs", RESUME_S);
			md_dump(md);
			return -1;
		}
		usleep(20000);
	}
	return p;
}

/* Wait until the running sync has reached pct percent. */
static int wait_percent(const char *md, int pct)
{
	double t0 = mono_s();
	int p;

	progress_wait("the sync to reach its mark", TIMEOUT);
	while ((p = percent(md)) < pct) {
		if (mono_s() - t0 > scaled(TIMEOUT)) {
			ktap_diag("sync at %d%%, not %d%%, after %.0fs", p,
				  pct, TIMEOUT);
			md_dump(md);
			progress_end();
			return -1;
		}
		progress_note("%s: sync at %d%% of %d%%", md, p, pct);
		usleep(20000);
	}
	progress_end();
	return 0;
}

/*
 * After a resume: the first progress value that differs from the stale
 * one must not lie before the checkpoint.  md shows "0 / N" for a moment
 * before its sync thread sets the starting point, so 0 is not progress.
 */
static int resumed_from(const struct cut *c, long long mark)
{
	double t0 = mono_s();
	long long first = progress(c), p;

	for (;;) {
		p = progress(c);
		if (p > 0 && p != first)
			break;
		/* Throttled, it cannot end within this bound. */
		if (mono_s() - t0 > scaled(RESUME_S)) {
			ktap_diag("%s not resumed in %.0fs", op_name[c->op],
				  RESUME_S);
			md_dump(c->md);
			return -1;
		}
		usleep(10000);
	}
	ktap_diag("%s resumed: progress %lld, checkpoint %lld", op_name[c->op],
		  p, mark);
	return p >= mark ? 0 : -1;
}

/*
 * The chunks I/O may touch while the operation is frozen (-1: none): all,
 * except for a reshape.  raid5 holds I/O to the part it has reshaped
 * since its last checkpoint (between reshape_safe and reshape_progress,
 * make_stripe_request) until the reshape moves on, so with the reshape
 * frozen such I/O waits until it is resumed (a read waited 600 s here).
 * reshape_position shows that checkpoint: chunks wholly below it are safe.
 * The topology option frozen-reshape-io=none does no I/O at all while a
 * reshape is frozen: raid10 maps such I/O with the old data offset
 * (topologies/known-issues/raid10-reshape-frozen.ini).
 */
static int frozen_chunks(const struct cut *c)
{
	long long below;

	if (c->op != RESHAPE)
		return NCHUNKS;
	if (!strcmp(env_or("STACK_OPT_FROZEN_RESHAPE_IO", "all"), "none"))
		return -1;
	below = c->mark * 512 / CHUNK;
	return below < NCHUNKS ? (int)below : NCHUNKS;
}

/*
 * The chunks to write while frozen, [*from, *to): for a resync or a
 * rebuild, the first ones md has not synced yet (the checkpoint is in
 * the units of sync_completed's total, member sectors on raid5, array
 * sectors on raid10: as a fraction of it, it places the array offset);
 * for a reshape, chunks well below the checkpoint.
 */
static void frozen_writes(const struct cut *c, int io, long long total,
			  int *from, int *to)
{
	long long array = md_attr_ll(c->md, "../size") * 512;

	if (c->op == RESHAPE || total <= 0 || array <= 0) {
		*from = io / 4;
		*to = io / 2;
		return;
	}
	*from = (int)((c->mark * (array / CHUNK) + total - 1) / total);
	if (*from > NCHUNKS - NCHUNKS / 8)
		*from = NCHUNKS - NCHUNKS / 8;
	*to = *from + NCHUNKS / 8;
}

static int freeze_cut(struct ktap_out *k, struct cut *c, int gen)
{
	long long again, done, total = 0;
	struct region sub;
	int ok, from, to;

	ok = !wait_percent(c->md, CUT_PCT) &&
	     !md_sync_progress(c->md, &done, &total) &&
	     !md_attr_write(c->md, "sync_action", "frozen");
	c->mark = checkpoint(c);
	sub = r;
	sub.nchunks = frozen_chunks(c);
	ktap_diag("%s frozen at checkpoint %lld; I/O on %d of %d chunks",
		  op_name[c->op], c->mark, sub.nchunks, NCHUNKS);
	if (sub.nchunks < 0)
		ktap_diag("no I/O while frozen: option frozen-reshape-io=none");
	else
		ok = ok && sub.nchunks > 0 &&
		     !region_verify(&sub, 1, "while frozen");
	ok = ok && c->mark > 0;
	again = checkpoint(c);
	if (again != c->mark) {
		ktap_diag("checkpoint moved while frozen: %lld", again);
		ok = 0;
	}
	frozen_writes(c, sub.nchunks, total, &from, &to);
	if (sub.nchunks >= 0)
		ktap_diag("written while frozen: chunks %d-%d", from, to - 1);
	ok = ok && (sub.nchunks < 0 || !region_write(&r, from, to, gen));
	ktap_result(k, ok, "%s frozen mid-way: checkpoint kept, data intact, written to",
		    op_name[c->op]);
	return ok ? 0 : -1;
}

static int resume(struct ktap_out *k, struct cut *c)
{
	int ok;

	ok = !md_attr_write(c->md, "sync_action", "idle") &&
	     !resumed_from(c, c->mark);
	ktap_result(k, ok, "%s resumed from its checkpoint", op_name[c->op]);
	return ok ? 0 : -1;
}

static void remember_members(struct cut *c)
{
	struct md_member m[MD_MAX_MEMBERS];
	int i, n = md_members(c->md, m, MD_MAX_MEMBERS);

	c->ndevs = 0;
	for (i = 0; i < n; i++)
		if (!strstr(m[i].state, "faulty"))
			snprintf(c->devs[c->ndevs++], sizeof(c->devs[0]), "%s",
				 m[i].dev);
}

static int assemble(const struct cut *c)
{
	const char *argv[MD_MAX_MEMBERS + 8];
	int i, n = 0;

	argv[n++] = "mdadm";
	argv[n++] = "--assemble";
	argv[n++] = "--run";
	if (!access(MD_GROW_BACKUP, F_OK))
		argv[n++] = "--backup-file=" MD_GROW_BACKUP;
	argv[n++] = c->md;
	for (i = 0; i < c->ndevs; i++)
		argv[n++] = c->devs[i];
	argv[n] = NULL;
	return run(argv);
}

/* Stop the array while the operation runs, assemble it, let it finish. */
static int stop_cut(struct ktap_out *k, struct cut *c, int want_degraded)
{
	long long before, after;
	int ok, pct;

	remember_members(c);
	ok = (pct = percent_running(c->md)) >= 0 &&
	     !wait_percent(c->md, pct + CUT_PCT);
	before = progress(c);
	ok = ok && !mdadm("--stop", c->md, NULL) && !assemble(c) &&
	     !wait_path(c->md, 10);
	after = checkpoint(c);
	ktap_diag("%s stopped at progress %lld; assembled: checkpoint %lld",
		  op_name[c->op], before, after);
	md_dump(c->md);
	ok = ok && after >= before && !resumed_from(c, before);
	md_speed_up();
	ok = ok && !md_wait_idle(c->md, want_degraded, TIMEOUT) &&
	     !region_verify(&r, 1, "after the stop") &&
	     !region_verify(&r, 0, "after the stop, buffered");
	ktap_result(k, ok, "%s cut by stopping the array, resumed on assembly, data intact",
		    op_name[c->op]);
	return ok ? 0 : -1;
}

/* One operation, cut twice; start() begins it with syncs throttled. */
static int interrupted(struct ktap_out *k, struct cut *c,
		       int (*start)(struct cut *), int want_degraded, int gen)
{
	int ok;

	md_speed_limit(SLOW_KIB);
	ok = !start(c) && !md_wait_started(c->md, 60);
	if (!ok) {
		md_dump(c->md);
		md_speed_up();
		ktap_result(k, 0, "%s started", op_name[c->op]);
		ktap_result(k, 0, "%s resumed: it never started", op_name[c->op]);
		ktap_result(k, 0, "%s cut by a stop: it never started",
			    op_name[c->op]);
		return -1;
	}
	ok = !freeze_cut(k, c, gen);
	ok &= !resume(k, c);
	ok &= !stop_cut(k, c, want_degraded);
	md_speed_up();
	return ok ? 0 : -1;
}

/* A full resync: no bitmap (it would skip clean regions), resync_start 0. */
static int start_resync(struct cut *c)
{
	return md_attr_write(c->md, "sync_action", "frozen") ||
	       md_attr_write(c->md, "resync_start", "0") ||
	       md_attr_write(c->md, "sync_action", "idle");
}

static int start_rebuild(struct cut *c)
{
	struct md_member m[MD_MAX_MEMBERS];
	char spare[40];

	if (md_members(c->md, m, MD_MAX_MEMBERS) < 2 || m[1].slot != 1 ||
	    md_free_disk(0, spare, sizeof(spare)))
		return -1;
	snprintf(c->spare, sizeof(c->spare), "%s", md_name(spare));
	ktap_diag("failing %s, rebuilding onto %s", m[1].dev, spare);
	return mdadm("--fail", c->md, m[1].dev, NULL) ||
	       md_wait_idle(c->md, 1, TIMEOUT) ||
	       mdadm("--remove", c->md, m[1].dev, NULL) ||
	       mdadm("--add", c->md, spare, NULL);
}

static int start_reshape(struct cut *c)
{
	char extra[40];

	if (md_free_disk(1, extra, sizeof(extra)))
		return -1;
	return mdadm("--add", c->md, extra, NULL) ||
	       md_grow_disks(c->md, md_attr_ll(c->md, "raid_disks") + 1);
}

/*
 * The member that holds the other copy (raid10) or shares the stripe:
 * slot ^ 1.  That is the only other copy for raid10 near-2 with an even
 * number of members, as here; with far layouts or odd counts the spare
 * would be checked only in part.
 */
static int partner_check(struct ktap_out *k, const char *md, const char *spare)
{
	struct md_member m[MD_MAX_MEMBERS];
	int i, n = md_members(md, m, MD_MAX_MEMBERS), slot = -1, ok;
	const char *victim = NULL;

	for (i = 0; i < n; i++)
		if (!strcmp(m[i].name, spare))
			slot = m[i].slot;
	for (i = 0; i < n && slot >= 0; i++)
		if (m[i].slot == (slot ^ 1))
			victim = m[i].dev;
	ok = victim && !mdadm("--fail", md, victim, NULL) &&
	     !md_wait_idle(md, 1, TIMEOUT) &&
	     !region_verify(&r, 1, "spare's partner failed");
	if (victim) {
		ktap_diag("%s (slot %d) failed: the data came through %s",
			  victim, slot ^ 1, spare);
		ok &= !mdadm("--remove", md, victim, NULL) &&
		      !mdadm("--add", md, victim, NULL) &&
		      !md_wait_idle(md, 0, TIMEOUT);
	}
	ktap_result(k, ok, "rebuilt spare %s serves every byte with its partner failed",
		    spare);
	return ok ? 0 : -1;
}

static int test_main(void)
{
	const char *md = env_or("STACK_TOP", "");
	struct cut c = { .md = md };
	struct ktap_out k;
	char bitmap[32] = "";
	const char *why;
	int ok, ndisks;

	ktap_begin(&k, 13);
	md_speed_up();
	ndisks = md_attr_ll(md, "raid_disks");
	md_attr(md, "bitmap/location", bitmap, sizeof(bitmap));
	r = (struct region){ .dev = md, .chunk = CHUNK, .nchunks = NCHUNKS,
			     .seed = env_seed() };
	ok = !md_wait_idle(md, 0, TIMEOUT) &&
	     !region_write(&r, 0, NCHUNKS, 1) &&
	     !region_verify(&r, 1, "initial");
	ktap_result(&k, ok, "seeded pattern written and read back");

	/* A bitmap makes md skip clean regions and ignore the checkpoint. */
	if (*bitmap && strcmp(bitmap, "none") &&
	    mdadm("--grow", md, "--bitmap=none", NULL))
		ktap_diag("could not remove the bitmap");
	c.op = RESYNC;
	interrupted(&k, &c, start_resync, 0, 2);
	if (*bitmap && strcmp(bitmap, "none") &&
	    mdadm("--grow", md, "--bitmap=internal", NULL))
		ktap_diag("could not add the bitmap back");

	c.op = REBUILD;
	interrupted(&k, &c, start_rebuild, 0, 3);
	partner_check(&k, md, c.spare);

	why = md_no_reshape_reason(md);
	c.op = RESHAPE;
	if (why) {
		ktap_diag("not reshaped: %s", why);
		ktap_result(&k, 1, "reshape frozen # SKIP %s", why);
		ktap_result(&k, 1, "reshape resumed # SKIP %s", why);
		ktap_result(&k, 1, "reshape cut by a stop # SKIP %s", why);
	} else if (!interrupted(&k, &c, start_reshape, 0, 4)) {
		ndisks++;
	}

	ktap_result(&k, !md_scrub_clean(md, TIMEOUT),
		    "check scrub: mismatch_cnt 0");

	ok = !region_verify(&r, 1, "final O_DIRECT") &&
	     !region_verify(&r, 0, "final buffered") &&
	     md_attr_ll(md, "degraded") == 0 &&
	     md_attr_ll(md, "raid_disks") == ndisks;
	md_dump(md);
	trace_diag("reshape_request");
	trace_diag("md_do_sync");
	ktap_result(&k, ok, "final read-back, array complete with %d members",
		    ndisks);
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "md-interrupt",
	.what = "md: resync, rebuild and reshape each frozen and resumed, then cut by stopping the array and resumed on assembly",
	.requires = {
		REQ_LAYER("md"),
		REQ_TOOL("mdadm"),
		REQ_ENV("STACK_TOP"),
		REQ_ENV("STACK_FREE_DISKS"),
	},
	.run = test_main,
);
