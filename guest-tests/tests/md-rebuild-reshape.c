// SPDX-License-Identifier: GPL-2.0
/*
 * md-rebuild-reshape: the md paths a redundant array takes when a member
 * dies and when it grows, with the data checked across every transition.
 *
 * Seeded patterns are written straight to $STACK_TOP (an md array); a
 * member is failed while a writer is running; the data is read back from
 * the degraded array; the failed member is removed and a spare (the first
 * of $STACK_FREE_DISKS) is added and rebuilt while the data is read back;
 * another free disk is added and the array grown by one member, the data
 * read back again and again while the reshape runs; new writes land in
 * the new geometry; a "check" scrub must find mismatch_cnt 0.
 *
 * md cannot reshape every layout (raid10 "far" copies, for one): when md
 * or mdadm refuses the grow, the grow steps are reported as SKIP with the
 * reason, never as a pass.  Every wait is on md's own state and bounded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stacktest.h"


#define CHUNK (1LL << 20)
#define NCHUNKS 64
#define TIMEOUT 300.0

static struct region r;
static int writer_gen;

static int writer(void *arg)
{
	(void)arg;
	return region_write(&r, 0, r.nchunks, writer_gen);
}

static int test_main(void)
{
	const char *md = env_or("STACK_TOP", "");
	struct md_member m[MD_MAX_MEMBERS];
	char spare[40], extra[40], victim[40] = "";
	const char *why;
	long long base, size;
	int n, ok, pid, passes = 0, ndisks, grown = 0;
	struct ktap_out k;
	char level[32];

	ktap_begin(&k, 9);
	md_speed_up();
	md_attr(md, "level", level, sizeof(level));
	ndisks = md_attr_ll(md, "raid_disks");
	size = md_attr_ll(md, "../size") * 512;
	n = md_members(md, m, MD_MAX_MEMBERS);
	if (n > 1 && m[1].slot == 1)
		snprintf(victim, sizeof(victim), "%s", m[1].dev);
	ktap_diag("%s: %s, %d raid disks, %lld MiB, free disks '%s'", md,
		  level, ndisks, size >> 20, env_or("STACK_FREE_DISKS", ""));
	if (!*level || ndisks < 2 || !*victim || md_free_disk(0, spare,
	    sizeof(spare)) || md_free_disk(1, extra, sizeof(extra)) ||
	    size < (NCHUNKS + 8) * CHUNK) {
		ktap_diag("needs an md array on top with two free disks");
		md_dump(md);
		ktap_result(&k, 0, "md array and two free disks");
		return ktap_end(&k);
	}
	r.dev = md;
	r.base = 0;
	r.chunk = CHUNK;
	r.nchunks = NCHUNKS;
	r.seed = env_seed();
	if (md_wait_idle(md, 0, TIMEOUT)) {
		ktap_result(&k, 0, "array idle and complete at the start");
		return ktap_end(&k);
	}

	ok = !region_write(&r, 0, NCHUNKS, 1) &&
	     !region_verify(&r, 1, "initial");
	ktap_result(&k, ok, "seeded pattern written and read back");

	/* Fail slot 1 while a writer rewrites everything. */
	writer_gen = 2;
	base = dev_written_sectors(md);
	pid = spawn(writer, NULL);
	ok = !wait_written(md, base + 4096, pid);
	ok &= !mdadm("--fail", md, victim, NULL);
	ok &= reap(pid) == 0;
	region_write_gen(&r, 0, NCHUNKS, writer_gen);
	ok &= !md_wait_idle(md, 1, TIMEOUT);
	ktap_result(&k, ok, "%s failed under write load, writer finished",
		    victim);

	ok = !region_verify(&r, 1, "degraded O_DIRECT") &&
	     !region_verify(&r, 0, "degraded buffered");
	ktap_result(&k, ok, "degraded array reads back the data");

	ok = !mdadm("--remove", md, victim, NULL) &&
	     !mdadm("--add", md, spare, NULL) &&
	     !md_wait_started(md, 60);
	ok = ok && !region_verify_while_syncing(&r, md, 0, "during rebuild",
						   &passes);
	ktap_diag("%d read-back passes during the rebuild", passes);
	ok = ok && !md_wait_idle(md, 0, TIMEOUT) &&
	     !region_verify(&r, 1, "after rebuild");
	ktap_result(&k, ok, "rebuilt onto spare %s, data intact", spare);

	/*
	 * Always ask: only a refusal by mdadm/md is reported as SKIP, and
	 * only for a layout md is known not to reshape.
	 */
	why = md_no_reshape_reason(md);
	ok = !mdadm("--add", md, extra, NULL) && !md_grow_disks(md, ndisks + 1);
	if (!ok && why) {
		ktap_diag("mdadm --grow refused, as expected: %s", why);
		ktap_result(&k, 1, "grow to %d members # SKIP refused: %s",
			    ndisks + 1, why);
	} else {
		if (why)
			ktap_diag("grow accepted although %s", why);
		why = NULL;
		ktap_diag("after mdadm --grow:");
		md_dump(md);
		ok = ok && !region_verify_while_syncing(&r, md, 0,
						"during reshape", &passes);
		ktap_diag("%d read-back passes during the reshape", passes);
		ok = ok && !md_wait_idle(md, 0, TIMEOUT) &&
		     md_attr_ll(md, "raid_disks") == ndisks + 1 &&
		     !region_verify(&r, 1, "after reshape");
		if (!ok)
			md_dump(md);
		grown = ok;
		ktap_result(&k, ok, "grown to %d members, data intact",
			    ndisks + 1);
	}

	if (!grown) {
		ktap_result(&k, 1, "writes in the new geometry # SKIP %s",
			    why ? why : "no reshape");
	} else {
		ok = !region_write(&r, NCHUNKS / 2, NCHUNKS, 3) &&
		     !region_verify(&r, 1, "new geometry");
		ktap_result(&k, ok, "writes in the new geometry read back");
	}

	ktap_result(&k, !md_scrub_clean(md, TIMEOUT),
		    "check scrub: mismatch_cnt 0");

	ok = !region_verify(&r, 1, "final O_DIRECT") &&
	     !region_verify(&r, 0, "final buffered");
	ktap_result(&k, ok, "final read-back, O_DIRECT and buffered");

	ok = md_attr_ll(md, "degraded") == 0;
	md_dump(md);
	trace_diag("reshape_request");
	trace_diag("r10buf_pool_alloc");
	trace_diag("r1buf_pool_alloc");
	ktap_result(&k, ok, "array complete at the end");
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "md-rebuild-reshape",
	.what = "md: a member failed under a writer, rebuilt onto a spare, grown by one disk, scrubbed",
	.requires = {
		REQ_LAYER("md"),
		REQ_TOOL("mdadm"),
		REQ_ENV("STACK_TOP"),
		REQ_ENV("STACK_FREE_DISKS"),
	},
	.run = test_main,
);
