// SPDX-License-Identifier: GPL-2.0
/*
 * md-writebehind: raid1 write-behind, where md hands the write-mostly
 * mirror a private copy of the data (alloc_behind_master_bio()) and
 * completes the write before that mirror has it.
 *
 * $STACK_TOP is a raid1 with an internal bitmap, write-behind enabled and
 * the member in slot 0 write-mostly (6.1 considers behind I/O only for the
 * mirror in slot 0).  Seeded patterns are written by several processes at
 * once, O_DIRECT multi-page and buffered; max_backlog_used > 0 proves
 * behind writes happened.  Then the fast member is failed and everything
 * read back from the write-mostly member alone; more is written degraded;
 * the fast member is removed and re-added (a bitmap-based resync); the
 * write-mostly member is failed in turn so the re-added one alone must
 * hold every byte; it is re-added, a "check" scrub must report
 * mismatch_cnt 0 and the data is read back once more.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stacktest.h"


#define CHUNK (1LL << 20)
#define NCHUNKS 48
#define NWRITERS 3
#define TIMEOUT 300.0

static struct region r;

static int writer(void *arg)
{
	long w = (long)arg;

	return region_write(&r, w * NCHUNKS / NWRITERS,
			    (w + 1) * NCHUNKS / NWRITERS, 1);
}

static int verify_both(const char *what)
{
	char d[64], b[64];

	snprintf(d, sizeof(d), "%s, O_DIRECT", what);
	snprintf(b, sizeof(b), "%s, buffered", what);
	return region_verify(&r, 1, d) || region_verify(&r, 0, b);
}

/* Fail, remove and re-add one member; wait for the resync to end. */
static int cycle_member(const char *md, const char *dev, const char *what)
{
	int ok;

	ok = !mdadm("--fail", md, dev, NULL) && !md_wait_idle(md, 1, TIMEOUT);
	ok = ok && !verify_both(what);
	return ok ? 0 : -1;
}

static int readd(const char *md, const char *dev)
{
	if (mdadm("--remove", md, dev, NULL))
		return -1;
	if (mdadm("--re-add", md, dev, NULL)) {
		ktap_diag("--re-add %s refused", dev);
		md_dump(md);
		return -1;
	}
	return md_wait_idle(md, 0, TIMEOUT);
}

static int test_main(void)
{
	const char *md = env_or("STACK_TOP", "");
	struct md_member m[MD_MAX_MEMBERS];
	char slow[40], fast[40];
	long long backlog;
	int n, ok, i, pid[NWRITERS];
	struct ktap_out k;

	ktap_begin(&k, 9);
	md_speed_up();
	n = md_members(md, m, MD_MAX_MEMBERS);
	ok = n == 2 && m[0].slot == 0 && m[1].slot == 1 &&
	     strstr(m[0].state, "write_mostly") &&
	     !strstr(m[1].state, "write_mostly") &&
	     md_attr_ll(md, "bitmap/backlog") > 0;
	md_dump(md);
	ktap_diag("bitmap/backlog (write-behind limit) %lld",
		  md_attr_ll(md, "bitmap/backlog"));
	ktap_result(&k, ok, "raid1: slot 0 write-mostly, bitmap with write-behind");
	if (!ok)
		return ktap_end(&k);
	snprintf(slow, sizeof(slow), "%s", m[0].dev);
	snprintf(fast, sizeof(fast), "%s", m[1].dev);
	r.dev = md;
	r.chunk = CHUNK;
	r.nchunks = NCHUNKS;
	r.seed = env_seed();
	if (md_wait_idle(md, 0, TIMEOUT)) {
		ktap_result(&k, 0, "array idle at the start");
		return ktap_end(&k);
	}
	md_attr_write(md, "bitmap/max_backlog_used", "0");

	for (i = 0; i < NWRITERS; i++)
		pid[i] = spawn(writer, (void *)(long)i);
	ok = 1;
	for (i = 0; i < NWRITERS; i++)
		ok &= reap(pid[i]) == 0;
	region_write_gen(&r, 0, NCHUNKS, 1);
	ok = ok && !verify_both("after concurrent writes");
	ktap_result(&k, ok, "%d concurrent writers, data reads back", NWRITERS);

	backlog = md_attr_ll(md, "bitmap/max_backlog_used");
	ktap_diag("bitmap/max_backlog_used %lld", backlog);
	ktap_result(&k, backlog > 0, "behind writes happened (max_backlog_used %lld)",
		    backlog);

	ok = !cycle_member(md, fast, "write-mostly member alone");
	ktap_result(&k, ok, "fast member %s failed: %s alone reads back", fast,
		    slow);

	ok = !region_write(&r, 0, NCHUNKS / 2, 2) &&
	     !verify_both("degraded writes");
	ktap_result(&k, ok, "writes on the degraded array read back");

	ok = !readd(md, fast) && !verify_both("after re-add");
	ktap_result(&k, ok, "%s removed, re-added, resync finished", fast);

	/* Now the re-added member alone: the resync must have copied it all. */
	ok = !cycle_member(md, slow, "re-added member alone") &&
	     !readd(md, slow);
	md_members(md, m, MD_MAX_MEMBERS);
	ktap_diag("after cycling %s: slot 0 %s state %s", slow, m[0].name,
		  m[0].state);
	ktap_result(&k, ok, "%s alone reads back; %s re-added", fast, slow);

	ktap_result(&k, !md_scrub_clean(md, TIMEOUT),
		    "check scrub: mismatch_cnt 0");

	ok = !verify_both("final") && md_attr_ll(md, "degraded") == 0;
	md_dump(md);
	trace_diag("alloc_behind_master_bio");
	ktap_result(&k, ok, "final read-back on the complete array");
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "md-writebehind",
	.what = "raid1 write-behind: behind writes, degraded reads, re-add, scrub",
	.requires = {
		REQ_LAYER("md"),
		REQ_TOOL("mdadm"),
		REQ_ENV("STACK_TOP"),
	},
	.run = test_main,
);
