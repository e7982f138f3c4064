// SPDX-License-Identifier: GPL-2.0
/*
 * integrity-repair: the bit-rot stack.  md RAID1 over dm-integrity
 * (crc32c tags, no journal: data written in place) is $STACK_TOP.  A
 * seeded pattern is written through md; then bytes rot on one member's
 * raw disk, below dm-integrity: NBLOCKS blocks of the pattern are found
 * there by content and one byte of each is flipped.
 *
 * What a user of this stack relies on, through both of raid1's repair
 * paths (int0 is made write-mostly, so that md reads from int1):
 * - dm-integrity reads each rotten block as an error (EILSEQ: a tag
 *   mismatch is BLK_STS_PROTECTION), never as the rotten data, and counts
 *   the mismatches (dmsetup status);
 * - md reads the whole pattern back intact: a read that fails on int1 is
 *   served from int0 and the block rewritten on int1 (fix_read_error);
 *   int1 and its raw disk then hold the blocks right;
 * - more blocks rot; a "check" scrub reads every member (raid1
 *   process_checks: a member's read error counts as a mismatch and is
 *   rewritten from the other, even in check mode), no member is failed,
 *   and the second set is repaired on disk too;
 * - a second check finds mismatch_cnt 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stacktest.h"

#define BLK 4096
#define CHUNK (1LL << 20)
#define NCHUNKS 16
#define NBLOCKS 8
#define SCAN (1 << 20)
#define TIMEOUT 300.0

static struct region r;
static char member[32], raw[32];	/* "/dev/mapper/int1", its disk */
static long long data_offset;		/* bytes: md's data on int1 */
static long long md_off[NBLOCKS], raw_off[NBLOCKS];
static unsigned char *want[NBLOCKS];

/* The dm name of md member m ("dm-1" -> "int1"). */
static void dm_name(const struct md_member *m, char *buf, size_t len)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/dm/name", m->name);
	buf[0] = 0;
	f = fopen(path, "r");
	if (f && fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
}

/*
 * int1 and its raw disk from $STACK_INTEGRITY ("int0=/dev/vda int1=...");
 * where md's data starts on int1; int0 made write-mostly, so that md
 * reads from int1.
 */
static int find_members(const char *md)
{
	const char *p = strstr(env_or("STACK_INTEGRITY", ""), "int1=");
	struct md_member m[MD_MAX_MEMBERS];
	int n = md_members(md, m, MD_MAX_MEMBERS), i, found = 0;
	char name[32], attr[80];

	if (!p || sscanf(p, "int1=%31s", raw) != 1)
		return -1;
	snprintf(member, sizeof(member), "/dev/mapper/int1");
	for (i = 0; i < n; i++) {
		dm_name(&m[i], name, sizeof(name));
		if (!strcmp(name, "int1")) {
			snprintf(attr, sizeof(attr), "dev-%.31s/offset", m[i].name);
			data_offset = md_attr_ll(md, attr) * 512;
			found |= (data_offset >= 0) << 1;
		} else if (!strcmp(name, "int0")) {
			snprintf(attr, sizeof(attr), "dev-%.31s/state", m[i].name);
			found |= !md_attr_write(md, attr, "writemostly");
		}
	}
	ktap_diag("int1: md's data at byte %lld; int0 write-mostly: %s",
		  data_offset, found & 1 ? "yes" : "no");
	return found == 3 ? 0 : -1;
}

static int pread_direct(const char *dev, void *buf, long long off)
{
	int fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, BLK, off);
	int err = errno;

	if (fd >= 0)
		close(fd);
	errno = err;
	return n == BLK ? 0 : -1;
}

/*
 * The blocks to rot, as md holds them: in every other chunk, set 0 in
 * the even ones, set 1 in the odd ones.
 */
static int pick_blocks(int set)
{
	int i;

	for (i = 0; i < NBLOCKS; i++) {
		md_off[i] = (2 * i + set) * CHUNK + (i % 4) * BLK;
		if ((!want[i] && posix_memalign((void **)&want[i], BLK, BLK)) ||
		    pread_direct(r.dev, want[i], md_off[i])) {
			ktap_diag("read %s at %lld: %s", r.dev, md_off[i],
				  strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Where each block lies on the raw disk, found by its content. */
static int locate_raw(void)
{
	unsigned char *buf = NULL;
	long long off, found = 0, size = dev_sectors(raw) * 512;
	int fd = open(raw, O_RDONLY | O_DIRECT | O_CLOEXEC), i, b;

	for (i = 0; i < NBLOCKS; i++)
		raw_off[i] = -1;
	if (fd < 0 || posix_memalign((void **)&buf, BLK, SCAN))
		goto out;
	for (off = 0; off + SCAN <= size; off += SCAN) {
		progress_note("scan %s: %lld of %lld MiB", raw, off >> 20,
			      size >> 20);
		if (pread(fd, buf, SCAN, off) != SCAN)
			break;
		for (b = 0; b < SCAN / BLK; b++)
			for (i = 0; i < NBLOCKS; i++)
				if (!memcmp(buf + b * BLK, want[i], BLK)) {
					found += raw_off[i] < 0;
					raw_off[i] = off + b * BLK;
				}
	}
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	ktap_diag("%lld of %d blocks found on %s (below %s)", found, NBLOCKS,
		  raw, member);
	return found == NBLOCKS ? 0 : -1;
}

/* Flip one byte of each block on the raw disk, under dm-integrity. */
static int rot(void)
{
	unsigned char *buf = NULL;
	int fd = open(raw, O_RDWR | O_DIRECT | O_CLOEXEC), i, ok = fd >= 0;

	ok = ok && !posix_memalign((void **)&buf, BLK, BLK);
	for (i = 0; ok && i < NBLOCKS; i++) {
		memcpy(buf, want[i], BLK);
		buf[100 + i] ^= 0x40;
		ok = pwrite(fd, buf, BLK, raw_off[i]) == BLK;
	}
	ok = ok && !fsync(fd);
	free(buf);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* dm-integrity's mismatch count: "0 SECTORS integrity MISMATCHES ...". */
static long long mismatches(void)
{
	char out[256];
	long long n;

	if (dm_status("int1", out, sizeof(out)) ||
	    sscanf(out, "%*d %*d integrity %lld", &n) != 1)
		return -1;
	return n;
}

/* How many blocks int1 reads as errors, and how many it reads wrong. */
static void read_member(int *eio, int *wrong)
{
	unsigned char *buf = NULL;
	int i;

	*eio = *wrong = 0;
	if (posix_memalign((void **)&buf, BLK, BLK))
		return;
	for (i = 0; i < NBLOCKS; i++) {
		if (pread_direct(member, buf, data_offset + md_off[i]))
			*eio += errno == EILSEQ || errno == EIO;
		else
			*wrong += memcmp(buf, want[i], BLK) != 0;
	}
	free(buf);
}

/* The raw disk holds each block as written again. */
static int raw_restored(void)
{
	unsigned char *buf = NULL;
	int i, bad = 0;

	if (posix_memalign((void **)&buf, BLK, BLK))
		return -1;
	for (i = 0; i < NBLOCKS; i++)
		bad += pread_direct(raw, buf, raw_off[i]) ||
		       memcmp(buf, want[i], BLK);
	free(buf);
	ktap_diag("%d of %d rotten blocks still differ on %s", bad, NBLOCKS,
		  raw);
	return bad ? -1 : 0;
}

/* Rot set, then check that int1 reads each of its blocks as an error. */
static int rot_set(struct ktap_out *k, int set)
{
	long long before, after;
	int eio, wrong, ok;

	ok = !pick_blocks(set) && !locate_raw() && !rot();
	ktap_result(k, ok, "set %d: %d blocks rotten on %s, below dm-integrity",
		    set, NBLOCKS, raw);
	if (!ok)
		return -1;
	before = mismatches();
	drop_caches();
	read_member(&eio, &wrong);
	after = mismatches();
	ktap_diag("%s: %d of %d blocks read as errors, %d read wrong; mismatches %lld -> %lld",
		  member, eio, NBLOCKS, wrong, before, after);
	return eio == NBLOCKS && !wrong && after >= before + NBLOCKS ? 0 : -1;
}

/* int1 and its raw disk hold every block of the set right again. */
static int repaired(void)
{
	int eio, wrong;

	read_member(&eio, &wrong);
	ktap_diag("%s now: %d errors, %d wrong", member, eio, wrong);
	return !eio && !wrong && !raw_restored() ? 0 : -1;
}

static int test_main(void)
{
	struct ktap_out k;
	long long mm = -1;
	int ok;

	ktap_begin(&k, 9);
	r.dev = env_or("STACK_TOP", "");
	r.chunk = CHUNK;
	r.nchunks = NCHUNKS;
	r.seed = env_seed();
	ok = !md_wait_idle(r.dev, 0, TIMEOUT) && !find_members(r.dev) &&
	     !region_write(&r, 0, NCHUNKS, 1) &&
	     !region_verify(&r, 1, "initial");
	ktap_result(&k, ok, "pattern written through %s over %s", r.dev,
		    *member ? member : "(no int1 in $STACK_INTEGRITY)");
	if (!ok)
		return ktap_end(&k);

	ktap_result(&k, !rot_set(&k, 0),
		    "dm-integrity reads every rotten block as an error and counts it");
	ok = !region_verify(&r, 1, "through md, O_DIRECT") &&
	     !region_verify(&r, 0, "through md, buffered");
	ktap_result(&k, ok, "md reads the pattern back intact");
	ktap_result(&k, !repaired(),
		    "md's read-error path rewrote the rotten blocks on %s", member);

	ok = !rot_set(&k, 1);
	ok = !md_check(r.dev, TIMEOUT, &mm) && ok;
	ktap_diag("check: mismatch_cnt %lld", mm);
	md_dump(r.dev);
	ok = ok && mm > 0 && md_attr_ll(r.dev, "degraded") == 0;
	ktap_result(&k, ok, "check scrub counts the rotten set, no member failed");
	ktap_result(&k, !repaired(), "the check rewrote them on %s", member);

	ok = !md_scrub_clean(r.dev, TIMEOUT) && !region_verify(&r, 1, "final");
	ktap_result(&k, ok, "second check: mismatch_cnt 0, the pattern intact");
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "integrity-repair",
	.what = "bit rot under dm-integrity below md RAID1: read as EIO, repaired from the mirror, gone after a check",
	.requires = {
		REQ_LAYER("dm-integrity"),
		REQ_LAYER("md"),
		REQ_TOOL("dmsetup"),
		REQ_ENV("STACK_TOP"),
		REQ_ENV("STACK_INTEGRITY"),
	},
	.run = test_main,
);
