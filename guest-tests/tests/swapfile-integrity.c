// SPDX-License-Identifier: GPL-2.0
/*
 * swapfile-integrity: push pages out to a swap file on the stack and prove
 * that (1) they come back intact, (2) swapping really happened, and (3)
 * nothing outside the swap file's extents was written: data files keep
 * their checksums, the filesystem is clean for fsck, and a per-block
 * digest of the filesystem's device, taken unmounted before swapon and
 * after swapoff, differs only inside the swap file's extents (FIEMAP) and
 * in the few blocks an idle mount/unmount itself rewrites.
 *
 * (1) alone proves nothing: with the 5.12-rc1 bug, swap reads come from
 * the same wrong sectors the writes went to, so the hog sees its pages
 * intact while the filesystem under the swap file is destroyed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stacktest.h"


#define BLK 4096
#define MAX_EXTENTS 4096
#define CHUNK (1 << 20)
#define MAX_STRAY_SHOWN 8

struct extent {
	long long start, len;	/* bytes on the filesystem's device */
};

static uint64_t seed;
static const char *mnt, *fsdev, *fstype, *swapfile;

static uint64_t block_hash(const unsigned char *p)
{
	uint64_t h = 0xcbf29ce484222325ULL, w;
	int i;

	for (i = 0; i < BLK; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

/* One 64-bit digest per 4K block of the whole device, read with O_DIRECT. */
static uint64_t *digest_device(const char *dev, long long *nblocks)
{
	unsigned long long size = 0;
	uint64_t *d = NULL;
	void *buf = NULL;
	long long b, off;
	int fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) ||
	    posix_memalign(&buf, BLK, CHUNK)) {
		ktap_diag("digest %s: %s", dev, strerror(errno));
		goto out;
	}
	*nblocks = size / BLK;
	d = calloc(*nblocks, sizeof(*d));
	for (off = 0; d && off < *nblocks * BLK; off += CHUNK) {
		long long len = *nblocks * BLK - off < CHUNK ?
				*nblocks * BLK - off : CHUNK;

		progress_note("digest %s: %lld of %lld MiB", dev, off >> 20,
			      *nblocks * BLK >> 20);
		if (pread(fd, buf, len, off) != len) {
			ktap_diag("read %s at %lld: %s", dev, off,
				  strerror(errno));
			free(d);
			d = NULL;
			break;
		}
		for (b = 0; b < len / BLK; b++)
			d[off / BLK + b] = block_hash((unsigned char *)buf +
						      b * BLK);
	}
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return d;
}

static int get_extents(const char *path, struct extent *ext, int *n)
{
	size_t sz = sizeof(struct fiemap) + 256 * sizeof(struct fiemap_extent);
	struct fiemap *fm = calloc(1, sz);
	unsigned long long start = 0;
	unsigned int i;
	int fd = open(path, O_RDONLY | O_CLOEXEC), last = 0;

	*n = 0;
	while (fd >= 0 && fm && !last) {
		memset(fm, 0, sz);
		fm->fm_start = start;
		fm->fm_length = ~0ULL;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = 256;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) || !fm->fm_mapped_extents)
			break;
		for (i = 0; i < fm->fm_mapped_extents && *n < MAX_EXTENTS; i++) {
			struct fiemap_extent *fe = &fm->fm_extents[i];

			ext[*n].start = fe->fe_physical;
			ext[(*n)++].len = fe->fe_length;
			start = fe->fe_logical + fe->fe_length;
			last |= fe->fe_flags & FIEMAP_EXTENT_LAST;
		}
	}
	if (fd >= 0)
		close(fd);
	free(fm);
	return *n ? 0 : -1;
}

static int in_extents(long long off, const struct extent *ext, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (off >= ext[i].start && off < ext[i].start + ext[i].len)
			return 1;
	return 0;
}

/*
 * Where a mounted, idle ext4 may legitimately write: the primary
 * superblock (mount count, times, state; it lives in block 0) and its jbd2
 * journal (inode <8>), where a transaction may commit while mounted and
 * whose superblock is rewritten when the journal is emptied at unmount.
 * Seen here: an idle mount + swapon + swapoff + unmount changes block 0
 * and the first few journal blocks, nothing else.  The journal's extents
 * come from debugfs, in filesystem blocks (4K: the ext4 layer sets -b 4096).
 */
static int ext4_allowed(struct extent *al, int max)
{
	const char *argv[] = { "debugfs", "-R", "stat <8>", fsdev, NULL };
	static char out[16384];
	char *p;
	int n = 0;

	al[n].start = 0;
	al[n++].len = BLK;
	p = run_out(argv, out, sizeof(out)) ? NULL : strstr(out, "EXTENTS:");
	while (p && n < max) {
		long long l0, p0, p1;

		p = strchr(p, '(');
		if (!p)
			break;
		if (sscanf(p, "(%lld-%*d):%lld-%lld", &l0, &p0, &p1) == 3 ||
		    sscanf(p, "(%lld):%lld", &l0, &p0) == 2) {
			if (sscanf(p, "(%*d-%*d):%*d-%lld", &p1) != 1)
				p1 = p0;
			al[n].start = p0 * BLK;
			al[n++].len = (p1 - p0 + 1) * BLK;
			ktap_diag("allowed: journal blocks %lld-%lld", p0, p1);
		}
		p++;
	}
	if (n == 1)
		ktap_diag("debugfs could not locate the journal: only block 0 allowed");
	return n;
}

/* A "name = number" line of xfs_db's print; -1 when absent. */
static long long xfs_field(const char *out, const char *name)
{
	char key[40];
	const char *p;

	snprintf(key, sizeof(key), "\n%s = ", name);
	p = strstr(out, key);
	return p ? atoll(p + strlen(key)) : -1;
}

/*
 * xfs, idle: the primary superblock (sector 0, unmount clears its clean
 * flag's log state) and the internal log, where mount and unmount write
 * their records.  logstart is a filesystem block number in xfs's
 * (AG << agblklog | AG block) form.
 */
static int xfs_allowed(struct extent *al, int max)
{
	const char *argv[] = { "xfs_db", "-r", "-c", "sb 0", "-c",
			       "p logstart logblocks agblocks agblklog blocksize",
			       fsdev, NULL };
	long long ls, lb, agb, agl, bs;
	char out[1024] = "\n";

	if (max < 2 || run_out(argv, out + 1, sizeof(out) - 1))
		return 0;
	ls = xfs_field(out, "logstart");
	lb = xfs_field(out, "logblocks");
	agb = xfs_field(out, "agblocks");
	agl = xfs_field(out, "agblklog");
	bs = xfs_field(out, "blocksize");
	al[0].start = 0;
	al[0].len = BLK;
	if (ls <= 0 || lb <= 0 || agb <= 0 || agl <= 0 || bs <= 0) {
		ktap_diag("xfs_db did not give the log's place: only block 0 allowed");
		return 1;
	}
	al[1].start = ((ls >> agl) * agb + (ls & ((1LL << agl) - 1))) * bs;
	al[1].len = lb * bs;
	ktap_diag("allowed: xfs log, bytes %lld-%lld", al[1].start,
		  al[1].start + al[1].len - 1);
	return 2;
}

/*
 * btrfs's chunk tree (btrfs inspect-internal dump-tree -t chunk): each
 * stripe of each chunk, logical start and length, where it lies on the
 * device, and whether it holds data (else metadata or the system chunk).
 */
struct chunk {
	long long logical, len, phys;
	bool data;
};

static int btrfs_chunks(struct chunk *c, int max)
{
	const char *argv[] = { "btrfs", "inspect-internal", "dump-tree", "-t",
			       "chunk", fsdev, NULL };
	static char out[65536];
	long long logical = -1, len = 0, off;
	char *line, *save, *p, *type;
	bool data = false;
	int n = 0;

	if (run_out(argv, out, sizeof(out)))
		return -1;
	for (line = strtok_r(out, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		p = strstr(line, "CHUNK_ITEM ");
		if (p) {
			logical = atoll(p + 11);
			continue;
		}
		if (sscanf(line, " length %lld", &len) == 1) {
			/* "type DATA|single"; not a mixed DATA|METADATA */
			type = strstr(line, "type ");
			data = type && !strncmp(type + 5, "DATA", 4) &&
			       !strstr(type, "METADATA");
			continue;
		}
		p = strstr(line, "stripe ");
		if (logical >= 0 && p &&
		    sscanf(p, "stripe %*d devid %*d offset %lld", &off) == 1)
			c[n++] = (struct chunk){ logical, len, off, data };
	}
	return n;
}

/* The data chunk holding btrfs logical address a; NULL if none. */
static const struct chunk *data_chunk(const struct chunk *c, int n,
				      long long a)
{
	int i;

	for (i = 0; i < n; i++)
		if (c[i].data && a >= c[i].logical && a < c[i].logical + c[i].len)
			return &c[i];
	return NULL;
}

/*
 * FIEMAP's btrfs logical addresses to device offsets.  FIEMAP merges
 * extents that follow on logically, across the end of a chunk, so each
 * is cut at chunk ends; the pieces replace ext[], *n their count.
 */
static int btrfs_physical(struct extent *ext, int *n)
{
	static struct extent out[MAX_EXTENTS];
	struct chunk c[64];
	int nc = btrfs_chunks(c, 64), i, m = 0;

	for (i = 0; i < *n; i++) {
		long long a = ext[i].start, left = ext[i].len;

		while (left > 0) {
			const struct chunk *ch = data_chunk(c, nc, a);
			long long piece;

			if (!ch || m == MAX_EXTENTS) {
				ktap_diag("swap file extent at btrfs logical %lld: %s",
					  a, ch ? "too many pieces" :
					  "in no data chunk");
				return -1;
			}
			piece = ch->logical + ch->len - a;
			if (piece > left)
				piece = left;
			out[m++] = (struct extent){ a - ch->logical + ch->phys,
						    piece };
			a += piece;
			left -= piece;
		}
	}
	memcpy(ext, out, m * sizeof(*out));
	ktap_diag("btrfs: %d extents, %d pieces on the device", *n, m);
	*n = m;
	return 0;
}

/*
 * btrfs, idle: copy-on-write, so a mount or an unmount that commits
 * writes new tree blocks anywhere in the metadata and system chunks (both
 * copies: DUP), and the super block copies at 64 KiB and 64 MiB.  The
 * data chunks, and the first MiB (no chunk, nothing but the first super
 * block), must hold still.
 */
static int btrfs_allowed(struct extent *al, int max)
{
	struct chunk c[64];
	int nc = btrfs_chunks(c, 64), n = 0, i;

	if (max < 2)
		return 0;
	al[n++] = (struct extent){ 64 << 10, BLK };
	al[n++] = (struct extent){ 64 << 20, BLK };
	for (i = 0; i < nc && n < max; i++)
		if (!c[i].data) {
			al[n++] = (struct extent){ c[i].phys, c[i].len };
			ktap_diag("allowed: btrfs metadata/system chunk, bytes %lld-%lld",
				  c[i].phys, c[i].phys + c[i].len - 1);
		}
	return n;
}

static int fs_allowed(struct extent *al, int max)
{
	if (!strcmp(fstype, "btrfs"))
		return btrfs_allowed(al, max);
	if (!strcmp(fstype, "ext4"))
		return ext4_allowed(al, max);
	if (!strcmp(fstype, "xfs"))
		return xfs_allowed(al, max);
	return 0;
}

/* Name the owner of each stray block (debugfs icheck: inode 8 is the journal). */
static void explain_blocks(const long long *blocks, int n)
{
	char cmd[512], out[2048];
	const char *argv[] = { "debugfs", "-R", cmd, fsdev, NULL };
	int i, len = snprintf(cmd, sizeof(cmd), "icheck");

	if (strcmp(fstype, "ext4") || !n)
		return;
	for (i = 0; i < n && len < (int)sizeof(cmd) - 24; i++)
		len += snprintf(cmd + len, sizeof(cmd) - len, " %lld", blocks[i]);
	if (run_out(argv, out, sizeof(out)))
		return;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
		ktap_diag("  %s", line);
}

static int compare_digests(const uint64_t *a, const uint64_t *b, long long n,
			   const struct extent *ext, int next)
{
	struct extent al[16];
	long long stray = 0, inside = 0, allowed = 0, blk;
	long long shown[MAX_STRAY_SHOWN];
	int nal = fs_allowed(al, 16);

	for (blk = 0; blk < n; blk++) {
		if (a[blk] == b[blk])
			continue;
		if (in_extents(blk * BLK, ext, next)) {
			inside++;
		} else if (in_extents(blk * BLK, al, nal)) {
			allowed++;
		} else {
			if (stray < MAX_STRAY_SHOWN) {
				shown[stray] = blk;
				ktap_diag("stray write: block %lld (byte offset %lld) of %s changed outside the swap file",
					  blk, blk * BLK, fsdev);
			}
			stray++;
		}
	}
	explain_blocks(shown, stray < MAX_STRAY_SHOWN ? stray : MAX_STRAY_SHOWN);
	ktap_diag("changed blocks: %lld inside the swap file, %lld in superblock/journal/log, %lld elsewhere",
		  inside, allowed, stray);
	return stray ? -1 : 0;
}

static int remount(unsigned long flags)
{
	return mount_fs(fsdev, mnt, fstype, flags);
}

static int test_main(void)
{
	static struct extent ext[MAX_EXTENTS];
	uint64_t *before = NULL, *after = NULL;
	long long nb = 0, na = 0;
	struct ktap_out k;
	int next = 0, ok;

	seed = env_seed();
	mnt = env_or("STACK_MNT", "");
	fsdev = env_or("STACK_FSDEV", "");
	fstype = env_or("STACK_FSTYPE", "");
	swapfile = env_or("STACK_SWAPFILE", "");
	ktap_begin(&k, 8);
	ktap_result(&k, !datafiles_write(mnt, seed), "%d data files written (%lld MiB)",
		    DATAFILES_N, DATAFILES_N * DATAFILES_SIZE >> 20);

	/* Digest the filesystem unmounted, then mount noatime and swapon. */
	swapoff(swapfile);
	ok = !umount(mnt) && (before = digest_device(fsdev, &nb)) &&
	     !remount(MS_NOATIME) && !get_extents(swapfile, ext, &next) &&
	     (strcmp(fstype, "btrfs") || !btrfs_physical(ext, &next)) &&
	     !swap_on(swapfile);
	ktap_diag("swap file %s: %d extents; %lld blocks digested", swapfile,
		  next, nb);
	ktap_result(&k, ok, "baseline digest taken unmounted, swap file on");

	swap_round_trip(&k, seed, swapfile, ok, 0);

	drop_caches();
	ktap_result(&k, !datafiles_verify(mnt, seed), "data files intact after swapoff and drop_caches");

	ok = !umount(mnt) && (after = digest_device(fsdev, &na)) && na == nb;
	ok = ok && before && !compare_digests(before, after, nb, ext, next);
	ktap_result(&k, ok, "no writes outside the swap file's extents");

	ktap_result(&k, !fs_check(fsdev, fstype), "%s is clean (%s)", fsdev,
		    fs_checker(fstype));

	/* Leave the stack as the swapfile layer built it. */
	if (remount(0) || swap_on(swapfile))
		ktap_diag("could not restore mount and swap: %s",
			  strerror(errno));
	free(before);
	free(after);
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "swapfile-integrity",
	.what = "pages swapped to a swap file come back, and nothing outside its extents was written",
	.requires = {
		REQ_ENV("STACK_MNT"),
		REQ_ENV("STACK_FSDEV"),
		REQ_ENV("STACK_SWAPFILE"),
		REQ_TOOL("debugfs"),
		REQ_KCONFIG("CONFIG_SWAP"),
	},
	.run = test_main,
);
