// SPDX-License-Identifier: GPL-2.0
/*
 * md-member-fault: md's error paths, reached the way a dying disk reaches
 * them.  fail_make_request fails every bio one member's disk gets (its
 * share of the writes, md's superblock and bitmap writes, the resync's),
 * so md must notice the errors itself: no "mdadm --fail".
 *
 * A writer rewrites a seeded pattern on $STACK_TOP while slot 1's disk
 * starts failing (on RAID6 slot 2's too, 2 MiB later: the array goes
 * doubly degraded under the writer): the writer must see no error, md
 * must mark the members faulty and run degraded, and the data must read
 * back (on RAID6 through the two-failure reconstruction of
 * ops_run_compute6_2).  A spare (the first of $STACK_FREE_DISKS) is added
 * and starts failing mid-rebuild: md must stop the recovery, fail the
 * spare and keep serving the data.  The faults are cleared, the failed
 * members are wiped and added back (on RAID6 both while recovery is
 * frozen, so one recovery rebuilds the two at once), the rebuild must
 * complete with the data intact and a "check" scrub must find
 * mismatch_cnt 0.  Failing bios reach md_error, super_written's error
 * branch, raid1's narrow_write_error, end_sync_write's error branch (or
 * raid10's and raid5's), which ordinary I/O never runs.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stacktest.h"

#define CHUNK (1LL << 20)
#define NCHUNKS 32
#define TIMEOUT 300.0
#define FAULTY_S 60.0		/* md fails a member within a second here */
#define INJECT "fail_make_request"
#define INJECT_TIMES 1000000000LL

#define MAX_VICTIMS 2

static struct region r;
static char victims[MAX_VICTIMS][40];
static int nvictims;		/* the failures the level survives: 2 on RAID6 */

static int writer(void *arg)
{
	(void)arg;
	return region_write(&r, 0, r.nchunks, 2);
}

/* dev-NAME/state of md's member dev. */
static void member_state(const char *md, const char *dev, char *buf,
			 size_t len)
{
	char attr[64];

	snprintf(attr, sizeof(attr), "dev-%.40s/state", md_name(dev));
	if (md_attr(md, attr, buf, len))
		snprintf(buf, len, "(gone)");
}

/* Wait until md has marked dev faulty and has no sync running. */
static int wait_faulty(const char *md, const char *dev)
{
	double t0 = mono_s();
	char state[64];

	for (;;) {
		member_state(md, dev, state, sizeof(state));
		if (strstr(state, "faulty") && md_idle(md, -1))
			break;
		if (mono_s() - t0 > scaled(FAULTY_S)) {
			ktap_diag("%s not faulty with md idle after %.0fs: %s",
				  dev, scaled(FAULTY_S), state);
			md_dump(md);
			return -1;
		}
		usleep(50000);
	}
	ktap_diag("%s faulty after %.1fs, md degraded %lld", dev,
		  mono_s() - t0, md_attr_ll(md, "degraded"));
	return 0;
}

static long long injected(void)
{
	return INJECT_TIMES - fault_times_left(INJECT);
}

/* Slot 1's disk (and 2's) fails under a writer; returns the step's verdict. */
static int members_fail_under_writer(const char *md)
{
	long long before = injected(), at;
	int ok, pid, i;

	pid = spawn(writer, NULL);
	ok = !wait_written(md, dev_written_sectors(md) + 4096, pid);
	for (i = 0; i < nvictims && ok; i++) {
		if (i)	/* the next one while md runs degraded */
			ok = !wait_written(md, dev_written_sectors(md) + 4096,
					   pid);
		ok = ok && !fail_disk(victims[i], 1);
	}
	at = dev_written_sectors(md);
	ok &= reap(pid) == 0;
	region_write_gen(&r, 0, NCHUNKS, 2);
	/* The writer met the failing disks: 4 MiB more went through md. */
	ktap_diag("%lld KiB written to %s after %s began failing",
		  (dev_written_sectors(md) - at) / 2, md, victims[nvictims - 1]);
	ok &= dev_written_sectors(md) - at >= 8192;
	for (i = 0; i < nvictims; i++)
		ok = ok && !wait_faulty(md, victims[i]);
	ok = ok && md_attr_ll(md, "degraded") == nvictims;
	ktap_diag("%lld bios to the failing members failed", injected() - before);
	return ok && injected() > before;
}

/* The spare's disk fails part-way through the rebuild onto it. */
static int spare_fails_mid_rebuild(const char *md, const char *spare)
{
	long long done, total, before;
	double t0;
	int ok;

	/* Slow enough to catch the recovery part-way. */
	md_speed_limit(4096);
	ok = !mdadm("--remove", md, victims[0], NULL) &&
	     !mdadm("--add", md, spare, NULL) && !md_wait_started(md, 60);
	t0 = mono_s();
	while (ok && (md_sync_progress(md, &done, &total) || done < 2048)) {
		if (md_idle(md, -1) || mono_s() - t0 > scaled(60)) {
			ktap_diag("the rebuild onto %s was not caught part-way",
				  spare);
			md_dump(md);
			ok = 0;
		}
		usleep(10000);
	}
	if (ok)
		ktap_diag("rebuild at %lld of %lld sectors: %s fails now", done,
			  total, spare);
	before = injected();
	ok = ok && !fail_disk(spare, 1);
	md_speed_up();
	ok = ok && !wait_faulty(md, spare) &&
	     md_attr_ll(md, "degraded") == nvictims;
	ktap_diag("%lld bios to %s failed", injected() - before, spare);
	return ok && injected() > before;
}

/* Wait (bounded) until md has given dev a slot in the array. */
static int wait_slot(const char *md, const char *dev)
{
	double t0 = mono_s();
	char attr[64];
	long long slot;

	snprintf(attr, sizeof(attr), "dev-%.40s/slot", md_name(dev));
	while ((slot = md_attr_ll(md, attr)) < 0 &&
	       mono_s() - t0 < scaled(FAULTY_S))
		usleep(20000);
	ktap_diag("%s in slot %lld after %.1fs", dev, slot, mono_s() - t0);
	return slot < 0 ? -1 : 0;
}

/*
 * The failed members come back as new disks: faults cleared before any
 * tool reads them, wiped, added; on RAID6 both while recovery is frozen,
 * so that one recovery rebuilds the two at once.
 */
static int replace_members(const char *md, const char *spare)
{
	int ok = !fail_disk(spare, 0) && !mdadm("--remove", md, spare, NULL);
	int i;

	for (i = 0; i < nvictims && ok; i++)
		ok = !fail_disk(victims[i], 0);
	ok = ok && (nvictims == 1 || !md_attr_write(md, "sync_action", "frozen"));
	for (i = 0; i < nvictims && ok; i++)
		ok = (!i || !mdadm("--remove", md, victims[i], NULL)) &&
		     !mdadm("--zero-superblock", victims[i], NULL) &&
		     !mdadm("--add", md, victims[i], NULL);
	ok = ok && (nvictims == 1 || !md_attr_write(md, "sync_action", "recover"));
	if (!ok && nvictims > 1)	/* never leave the array frozen */
		md_attr_write(md, "sync_action", "idle");
	ok = ok && !md_wait_started(md, 60);
	/*
	 * Both taken into the array.  Not at once: sync_action reads
	 * "recover" as soon as it is written, before md's thread has given
	 * the spares their slots (remove_and_add_spares).
	 */
	for (i = 0; ok && nvictims > 1 && i < nvictims; i++)
		ok = !wait_slot(md, victims[i]);
	return ok ? 0 : -1;
}

/*
 * RAID6's two-failure recovery (crypto/async_tx/async_raid6_recov.c: two
 * data blocks, or a data block and P, from the survivors and Q), counted
 * where the topology traces it; -1 when it does not.
 */
static long long raid6_recoveries(void)
{
	long long a = trace_hits("async_raid6_2data_recov");
	long long b = trace_hits("async_raid6_datap_recov");

	return a < 0 || b < 0 ? -1 : a + b;
}

/* The degraded array reads back; on RAID6 through the two-failure recovery. */
static int degraded_reads_back(void)
{
	long long before = raid6_recoveries(), ran;
	int ok = !region_verify(&r, 1, "degraded O_DIRECT") &&
		 !region_verify(&r, 0, "degraded buffered");

	if (nvictims == 1)
		return ok;
	ran = raid6_recoveries() - before;
	if (before < 0) {
		ktap_diag("the two-failure recovery is not counted here (trace = async_raid6_2data_recov async_raid6_datap_recov)");
		return ok;
	}
	ktap_diag("the read-back ran raid6's two-failure recovery %lld times",
		  ran);
	return ok && ran > 0;
}

static int setup(const char *md, char *spare, size_t len)
{
	struct md_member m[MD_MAX_MEMBERS];
	long long size = md_attr_ll(md, "../size") * 512;
	int n = md_members(md, m, MD_MAX_MEMBERS), i;
	char level[16] = "";

	md_attr(md, "level", level, sizeof(level));
	nvictims = strcmp(level, "raid6") ? 1 : 2;
	for (i = 0; i < nvictims; i++)
		if (n > i + 1 && m[i + 1].slot == i + 1)
			snprintf(victims[i], sizeof(victims[i]), "%s",
				 m[i + 1].dev);
	ktap_diag("%s: %s, %lld MiB, slot 1 %s%s%s, free disks '%s'", md,
		  level, size >> 20, victims[0], nvictims > 1 ? ", slot 2 " : "",
		  nvictims > 1 ? victims[1] : "", env_or("STACK_FREE_DISKS", ""));
	if (!*victims[nvictims - 1] || md_free_disk(0, spare, len) ||
	    size < (NCHUNKS + 8) * CHUNK) {
		ktap_diag("needs a redundant md array on top and a free disk");
		md_dump(md);
		return -1;
	}
	r.dev = md;
	r.chunk = CHUNK;
	r.nchunks = NCHUNKS;
	r.seed = env_seed();
	md_speed_up();
	return md_wait_idle(md, 0, TIMEOUT) || fault_setup(INJECT, 100, INJECT_TIMES);
}

static int test_main(void)
{
	const char *md = env_or("STACK_TOP", "");
	char spare[40] = "";
	const char *failed;
	struct ktap_out k;
	int ok, passes = 0;

	ktap_begin(&k, 8);
	ok = !setup(md, spare, sizeof(spare)) &&
	     !region_write(&r, 0, NCHUNKS, 1) &&
	     !region_verify(&r, 1, "initial");
	ktap_result(&k, ok, "complete array, injector armed, pattern written");
	if (!ok)
		return ktap_end(&k);

	failed = nvictims > 1 ? "both failed members" : victims[0];
	ktap_result(&k, members_fail_under_writer(md),
		    "%s bios fail under a writer: md fails %s, no write lost",
		    nvictims > 1 ? "two members'" : victims[0],
		    nvictims > 1 ? "both" : "it");
	ok = degraded_reads_back();
	ktap_result(&k, ok, "%s array reads back the data",
		    nvictims > 1 ? "doubly degraded" : "degraded");

	ktap_result(&k, spare_fails_mid_rebuild(md, spare),
		    "spare %s's bios fail mid-rebuild: md fails it, stays degraded",
		    spare);
	ok = !region_verify(&r, 1, "after the failed rebuild");
	ktap_result(&k, ok, "still degraded, the data intact");

	ok = !replace_members(md, spare);
	ok = ok && !region_verify_while_syncing(&r, md, 0, "during rebuild",
						&passes);
	ktap_diag("%d read-back passes during the rebuild", passes);
	ok = ok && !md_wait_idle(md, 0, TIMEOUT) &&
	     !region_verify(&r, 1, "after rebuild");
	ktap_result(&k, ok, "faults cleared, %s rebuilt, data intact", failed);

	ktap_result(&k, !md_scrub_clean(md, TIMEOUT),
		    "check scrub: mismatch_cnt 0");
	ok = !region_verify(&r, 1, "final O_DIRECT") &&
	     !region_verify(&r, 0, "final buffered") &&
	     md_attr_ll(md, "degraded") == 0;
	md_dump(md);
	ktap_result(&k, ok, "final read-back, array complete");
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "md-member-fault",
	.what = "md: a member's bios (two on RAID6) fail (fail_make_request) under writes, then a spare's mid-rebuild",
	.requires = {
		REQ_LAYER("md"),
		REQ_TOOL("mdadm"),
		REQ_ENV("STACK_TOP"),
		REQ_ENV("STACK_FREE_DISKS"),
		REQ_KCONFIG("CONFIG_FAIL_MAKE_REQUEST"),
	},
	.run = test_main,
);
