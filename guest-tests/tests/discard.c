// SPDX-License-Identifier: GPL-2.0
/*
 * discard: discards and write-zeroes through the stack, at seeded ranges
 * unaligned to any chunk or region and spanning their boundaries.
 *
 * On a raw device on top: its first AREA bytes hold a seeded pattern;
 * then BLKDISCARD and BLKZEROOUT ranges.  Every byte outside all ranges
 * must be unchanged (a discard that reaches past its range destroys its
 * neighbours), every BLKZEROOUT range must read zero, and on md mirrors
 * a "check" scrub must find every copy the same (a discard that reached
 * one mirror and not the other).  The disks below are QEMU images that
 * punch a hole for a discard (discard=unmap), so a discard really
 * removes data at the bottom of the stack.
 *
 * With a filesystem on top: files hold the pattern; fallocate
 * PUNCH_HOLE and ZERO_RANGE on seeded ranges must read zero there and
 * leave the rest; fstrim passes the filesystem's free space down; the
 * files read back after dropping caches and the filesystem is clean.
 *
 * A stack whose top does not take discards (queue/discard_max_bytes 0:
 * md RAID5 unless told its members zero discarded data) is a SKIP
 * naming that limit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "stacktest.h"

#define AREA (16LL << 20)
#define NRANGES 12
#define MAX_RANGE (1LL << 20)
#define NFILES 4
#define FILE_SIZE (2LL << 20)

enum kind { KEEP, DISCARDED, ZEROED };

static uint64_t seed, rng;
static unsigned char *state;	/* per 512 bytes (raw) or 4 KiB (files) */

static uint64_t rnd(void)
{
	return pattern_word(seed, 0xd15c, rng++);
}

/* queue/discard_max_bytes of the device at path (via sysfs). */
static long long discard_max(const char *dev, char *name, size_t len)
{
	struct stat st;
	char path[128];

	if (stat(dev, &st))
		return -1;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/discard_max_bytes",
		 major(st.st_rdev), minor(st.st_rdev));
	snprintf(name, len, "%s", path);
	return read_ll(path);
}

/* A seeded range in [0, area) of whole units, at most MAX_RANGE long. */
static void pick(long long area, long long unit, long long *off,
		 long long *len)
{
	*len = (unit + rnd() % MAX_RANGE) / unit * unit;
	*off = rnd() % (area - *len) / unit * unit;
}

/* Read [0, area) of fd; each unit as st[] says it must be. */
static long long verify(int fd, long long area, long long unit,
			const unsigned char *st, const char *what)
{
	const long long chunk = 1 << 20;
	static char *buf;
	long long off, u, bad = 0, gone = 0, discarded = 0;

	/* Aligned: the device may be open O_DIRECT. */
	if (!buf && posix_memalign((void **)&buf, 4096, chunk))
		return -1;
	for (off = 0; off < area; off += chunk) {
		if (pread(fd, buf, chunk, off) != chunk) {
			ktap_diag("%s: read at %lld: %s", what, off,
				  strerror(errno));
			return -1;
		}
		for (u = 0; u < chunk / unit; u++) {
			long long at = off + u * unit;
			char *p = buf + u * unit;
			int ok = 1;

			if (st[at / unit] == KEEP)
				ok = pattern_check(p, unit, seed, 0xd5, at) < 0;
			else if (st[at / unit] == ZEROED)
				ok = !p[0] && !memcmp(p, p + 1, unit - 1);
			else if (discarded++, !p[0] && !memcmp(p, p + 1, unit - 1))
				gone++;
			if (ok)
				continue;
			if (bad++ < 4)
				ktap_diag("%s: byte %lld %s", what, at,
					  st[at / unit] == KEEP ?
					  "changed, outside every range" :
					  "not zero after zeroing");
		}
	}
	if (discarded)
		ktap_diag("%s: %lld of %lld discarded units read zero (the discard reached the disks)",
			  what, gone, discarded);
	if (bad)
		ktap_diag("%s: %lld units wrong", what, bad);
	return bad;
}

static int raw(struct ktap_out *k, const char *dev)
{
	const char *md = strstr(env_or("STACK_KINDS", ""), "md") ?
			 env_or("STACK_TOP", "") : NULL;
	long long off, len, mismatch = 0;
	uint64_t r[2];
	int fd = open(dev, O_RDWR | O_DIRECT | O_CLOEXEC), i, ok, nd = 0, nz = 0;
	char action[32];

	ok = fd >= 0 && !pattern_write_fd(fd, AREA, seed, 0xd5);
	ktap_result(k, ok, "%lld MiB of %s written with a seeded pattern",
		    AREA >> 20, dev);
	for (i = 0; ok && i < NRANGES; i++) {
		int zero = rnd() % 3 == 0;

		pick(AREA, 512, &off, &len);
		r[0] = off;
		r[1] = len;
		if (ioctl(fd, zero ? BLKZEROOUT : BLKDISCARD, r)) {
			ktap_diag("%s %lld+%lld: %s", zero ? "BLKZEROOUT" :
				  "BLKDISCARD", off, len, strerror(errno));
			ok = 0;
		}
		memset(state + off / 512, zero ? ZEROED : DISCARDED, len / 512);
		nd += !zero;
		nz += zero;
	}
	ktap_result(k, ok, "%d BLKDISCARD and %d BLKZEROOUT ranges, unaligned", nd, nz);
	drop_caches();
	ok = ok && !verify(fd, AREA, 512, state, dev);
	ktap_result(k, ok, "every byte outside the ranges unchanged, every zeroed range zero");
	if (md && !md_attr(md, "sync_action", action, sizeof(action))) {
		ok = !md_check(md, 120, &mismatch) && !mismatch;
		ktap_diag("%s: mismatch_cnt %lld after check", md, mismatch);
		ktap_result(k, ok, "md check scrub: every copy the same after the discards");
	} else {
		ktap_result(k, 1, "md check scrub # SKIP no md array on top");
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

static void file_path(char *p, size_t n, const char *mnt, int f)
{
	snprintf(p, n, "%.100s/discard/f%d", mnt, f);
}

/*
 * Used data blocks of the LVM thin pool under the filesystem, from
 * "thin-pool TRANS USED_META/TOTAL USED_DATA/TOTAL ..."; -1 when the
 * stack has none (the lvm layer names it vg0/pool0).
 */
static long long thin_used(void)
{
	char st[256];
	long long used;

	if (access("/dev/mapper/vg0-pool0-tpool", F_OK) ||
	    dm_status("vg0-pool0-tpool", st, sizeof(st)) ||
	    sscanf(st, "%*s %*s thin-pool %*s %*s %lld/", &used) != 1)
		return -1;
	return used;
}

/*
 * On a thin volume, a discard must give the pool its blocks back: a file
 * written and deleted leaves them mapped until fstrim passes the free
 * space down.  The pool's used data blocks must fall.
 */
static void thin_returns(struct ktap_out *k, const char *mnt)
{
	const char *trim[] = { "fstrim", mnt, NULL };
	long long before, after;
	char path[160];
	int fd, ok;

	if (thin_used() < 0) {
		ktap_result(k, 1, "thin pool usage falls after fstrim # SKIP no thin pool below");
		return;
	}
	snprintf(path, sizeof(path), "%s/discard/scratch", mnt);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ok = fd >= 0 && !pattern_write_fd(fd, 8LL << 20, seed, 0x7417);
	if (fd >= 0)
		close(fd);
	ok = ok && !unlink(path);
	sync();
	before = thin_used();
	ok = ok && !run(trim);
	after = thin_used();
	ktap_diag("thin pool: %lld data blocks used before fstrim, %lld after",
		  before, after);
	ktap_result(k, ok && after < before,
		    "thin pool usage falls after fstrim");
}

static int files(struct ktap_out *k, const char *mnt, const char *fsdev,
		 const char *fstype)
{
	const char *trim[] = { "fstrim", "-v", mnt, NULL };
	const char *swap = env_or("STACK_SWAPFILE", "");
	long long off, len, bad = 0;
	char path[160];
	int f, i, fd, ok = 1;

	snprintf(path, sizeof(path), "%s/discard", mnt);
	mkdir(path, 0755);
	for (f = 0; f < NFILES && ok; f++) {
		file_path(path, sizeof(path), mnt, f);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		ok = fd >= 0 && !pattern_write_fd(fd, FILE_SIZE, seed, 0xd5);
		for (i = 0; ok && i < NRANGES / NFILES; i++) {
			int zero = rnd() % 2;

			pick(FILE_SIZE, 4096, &off, &len);
			ok = !fallocate(fd, FALLOC_FL_KEEP_SIZE | (zero ?
					FALLOC_FL_ZERO_RANGE : FALLOC_FL_PUNCH_HOLE),
					off, len) && !fsync(fd);
			if (!ok)
				ktap_diag("%s: fallocate %s %lld+%lld: %s", path,
					  zero ? "ZERO_RANGE" : "PUNCH_HOLE", off,
					  len, strerror(errno));
			memset(state + f * (FILE_SIZE / 4096) + off / 4096,
			       ZEROED, len / 4096);
		}
		if (fd >= 0)
			close(fd);
	}
	ktap_result(k, ok, "%d files, punched holes and zeroed ranges (fallocate)", NFILES);
	ok = ok && !run(trim);
	ktap_result(k, ok, "fstrim %s", mnt);
	drop_caches();
	for (f = 0; f < NFILES; f++) {
		file_path(path, sizeof(path), mnt, f);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			bad++;
			continue;
		}
		/* Each file's units follow the previous file's in state[]. */
		bad += verify(fd, FILE_SIZE, 4096,
			      state + f * (FILE_SIZE / 4096), path) != 0;
		close(fd);
	}
	ktap_result(k, !bad, "the files read back: holes and zeroed ranges zero, the rest unchanged");
	thin_returns(k, mnt);
	/* A swap file on it must be off before it unmounts (and back after). */
	if (*swap && swapoff(swap))
		ktap_diag("swapoff %s: %s", swap, strerror(errno));
	ok = !umount(mnt) && !fs_check(fsdev, fstype);
	ktap_result(k, ok, "%s clean after the discards (%s)", fsdev, fs_checker(fstype));
	if (mount_fs(fsdev, mnt, fstype, 0) || (*swap && swap_on(swap)))
		ktap_diag("could not mount %s and swap on it again", fsdev);
	return 0;
}

static int test_main(void)
{
	const char *mnt = env_or("STACK_MNT", ""), *top = env_or("STACK_TOP", "");
	const char *dev = *mnt ? env_or("STACK_FSDEV", "") : top;
	struct ktap_out k;
	char limit[160];
	long long max = discard_max(dev, limit, sizeof(limit));

	seed = env_seed();
	if (max <= 0)
		return ktap_skip("%s: %s is %lld: it takes no discards", dev,
				 limit, max);
	state = calloc(AREA / 512, 1);
	ktap_begin(&k, *mnt ? 5 : 4);
	if (*mnt)
		files(&k, mnt, dev, env_or("STACK_FSTYPE", ""));
	else
		raw(&k, dev);
	free(state);
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "discard",
	.what = "discard, write-zeroes, punch-hole and fstrim through the stack: the ranges zero or gone, nothing outside them touched",
	.requires = {
		REQ_ENV("STACK_TOP"),
		REQ_TOOL("fstrim"),
	},
	.run = test_main,
);
