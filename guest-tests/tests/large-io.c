// SPDX-License-Identifier: GPL-2.0
/*
 * large-io: O_DIRECT writes and reads of 1 to 16 MiB at offsets
 * unaligned to any chunk, stripe or region, so every stack splits them
 * (md at its chunk and stripe, dm at its target and region boundaries,
 * the block layer at its request-size and segment limits, BIO_MAX_VECS
 * pages to a bio).  The writes overlap; afterwards every sector must
 * hold what the last write to it put there, read back O_DIRECT in other
 * seeded sizes and offsets, and buffered after dropping caches.
 *
 * Then the bios' memory: LEAK_READS O_DIRECT reads of the first MiB,
 * written first (a read of a file's unwritten extent sends no bio), must
 * leave the guest's slab where it was: on a raw device each read is one
 * bio of BIO_MAX_VECS vectors (a 4 KiB vector array from the bio_set's
 * slab), in a file as many bios as extents, vectors of 4 KiB in all.  A stacking driver
 * or bio_free() that loses a bio or its vectors on completion grows it
 * by 4 KiB or more per read; nothing else in a read of the same sectors
 * allocates for long.  Not on a KASAN kernel: its quarantine keeps
 * freed objects in the slab for a while, by design.
 *
 * On a raw device on top the region is its first AREA bytes, sectors
 * 512 bytes; with a filesystem on top, a file of AREA bytes in it
 * (O_DIRECT on a file: 4 KiB units).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "stacktest.h"

#define AREA (48LL << 20)
#define MAX_IO (16LL << 20)
#define NWRITES 10
#define NREADS 10
#define LEAK_IO (1LL << 20)
#define LEAK_READS 512
/*
 * Slab growth allowed, in KiB: an eighth of what losing 4 KiB of vectors
 * per read would.  On base it grows by 0.
 */
#define LEAK_SLACK_KB (LEAK_READS * 4LL / 8)

static uint64_t seed, rng;
static long long unit;		/* alignment: 512 raw, 4096 in a file */
static unsigned char *owner;	/* per unit: 1 + the write that last wrote it */

static uint64_t rnd(void)
{
	return pattern_word(seed, 0x1a76e, rng++);
}

/* A seeded extent of 1 to 16 MiB in the area, in units, unaligned. */
static void pick(long long *off, long long *len)
{
	long long units = AREA / unit;

	*len = ((1LL << 20) + rnd() % (MAX_IO - (1LL << 20) + 1)) / unit;
	*off = rnd() % (units - *len + 1);
	*off *= unit;
	*len *= unit;
}

static uint64_t stream(int w)
{
	return 0x1a0 + w;
}

static int do_writes(int fd, unsigned char *buf)
{
	long long off, len, u;
	int w;

	for (w = 0; w < NWRITES; w++) {
		pick(&off, &len);
		pattern_fill(buf, len, seed, stream(w), off);
		if (pwrite(fd, buf, len, off) != len) {
			ktap_diag("write %d: %lld bytes at %lld: %s", w, len,
				  off, strerror(errno));
			return -1;
		}
		for (u = off / unit; u < (off + len) / unit; u++)
			owner[u] = 1 + w;
		ktap_diag("write %d: %lld KiB at byte %lld", w, len >> 10, off);
	}
	return fsync(fd);
}

/* Check [off, off+len) of buf against the owners; bad units counted. */
static long long check(const unsigned char *buf, long long off,
		       long long len, const char *how)
{
	long long u, bad = 0;

	for (u = 0; u < len / unit; u++) {
		int w = owner[off / unit + u];

		if (!w)
			continue;
		if (pattern_check(buf + u * unit, unit, seed, stream(w - 1),
				  off + u * unit) < 0)
			continue;
		if (bad++ < 4)
			ktap_diag("%s: byte %lld is not what write %d put there",
				  how, off + u * unit, w - 1);
	}
	return bad;
}

static long long read_direct(int fd, unsigned char *buf)
{
	long long off, len, bad = 0;
	int r;

	for (r = 0; r < NREADS; r++) {
		pick(&off, &len);
		if (pread(fd, buf, len, off) != len) {
			ktap_diag("O_DIRECT read of %lld at %lld: %s", len, off,
				  strerror(errno));
			return -1;
		}
		bad += check(buf, off, len, "O_DIRECT read");
	}
	return bad;
}

static long long read_buffered(const char *path, unsigned char *buf)
{
	long long off, bad = 0;
	int fd;

	drop_caches();
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (off = 0; off < AREA; off += MAX_IO) {
		if (pread(fd, buf, MAX_IO, off) != MAX_IO) {
			close(fd);
			return -1;
		}
		bad += check(buf, off, MAX_IO, "buffered read");
	}
	close(fd);
	return bad;
}

/*
 * The first MiB written, then the slab's growth in KiB across LEAK_READS
 * reads of it into *kb, after a few reads to let anything lazily set up
 * be set up.
 */
static int slab_growth(int fd, unsigned char *buf, long long *kb)
{
	long long before = 0, after, u;
	int r;

	pattern_fill(buf, LEAK_IO, seed, stream(NWRITES), 0);
	if (pwrite(fd, buf, LEAK_IO, 0) != LEAK_IO || fsync(fd)) {
		ktap_diag("O_DIRECT write of %lld at 0: %s", LEAK_IO,
			  strerror(errno));
		return -1;
	}
	for (u = 0; u < LEAK_IO / unit; u++)
		owner[u] = 1 + NWRITES;
	for (r = 0; r < 16 + LEAK_READS; r++) {
		if (r == 16)
			before = meminfo_kb("Slab");
		if (pread(fd, buf, LEAK_IO, 0) != LEAK_IO) {
			ktap_diag("O_DIRECT read of %lld at 0: %s", LEAK_IO,
				  strerror(errno));
			return -1;
		}
	}
	after = meminfo_kb("Slab");
	if (before < 0 || after < 0) {
		ktap_diag("no Slab in /proc/meminfo");
		return -1;
	}
	*kb = after - before;
	return 0;
}

static void leak_check(struct ktap_out *k, int fd, unsigned char *buf)
{
	long long grew = 0;
	int r;

	if (kconfig_on("CONFIG_KASAN")) {
		ktap_result(k, 1, "no bio memory lost # SKIP KASAN's quarantine holds freed objects");
		return;
	}
	r = slab_growth(fd, buf, &grew);
	if (!r)
		ktap_diag("Slab grew by %lld KiB across %d reads of %lld KiB",
			  grew, LEAK_READS, LEAK_IO >> 10);
	ktap_result(k, !r && grew < LEAK_SLACK_KB,
		    "no bio memory lost: Slab grew less than %lld KiB across %d O_DIRECT reads of 1 MiB",
		    LEAK_SLACK_KB, LEAK_READS);
}

static int open_target(char *path, size_t len)
{
	const char *mnt = env_or("STACK_MNT", "");
	int fd;

	if (*mnt) {
		unit = 4096;
		snprintf(path, len, "%s/large-io", mnt);
		fd = open(path, O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);
		if (fd >= 0 && fallocate(fd, 0, 0, AREA)) {
			close(fd);
			return -1;
		}
		return fd;
	}
	unit = 512;
	snprintf(path, len, "%s", env_or("STACK_TOP", ""));
	return open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
}

static int test_main(void)
{
	struct ktap_out k;
	unsigned char *buf = NULL;
	unsigned long long size = 0;
	long long bad;
	char path[160];
	int fd;

	seed = env_seed();
	ktap_begin(&k, 4);
	fd = open_target(path, sizeof(path));
	if (fd < 0 || posix_memalign((void **)&buf, 4096, MAX_IO) ||
	    !(owner = calloc(AREA / 512, 1)) ||
	    (unit == 512 && (ioctl(fd, BLKGETSIZE64, &size) ||
			     size < (unsigned long long)AREA))) {
		ktap_diag("%s: %s (needs %lld MiB)", path, strerror(errno),
			  AREA >> 20);
		ktap_result(&k, 0, "%d O_DIRECT writes of 1-16 MiB", NWRITES);
		return ktap_end(&k);
	}
	ktap_result(&k, !do_writes(fd, buf),
		    "%d O_DIRECT writes of 1-16 MiB at unaligned offsets on %s",
		    NWRITES, path);
	bad = read_direct(fd, buf);
	ktap_result(&k, bad == 0, "%d O_DIRECT reads of 1-16 MiB: every %lld-byte unit the last write's",
		    NREADS, unit);
	leak_check(&k, fd, buf);
	close(fd);
	bad = read_buffered(path, buf);
	ktap_result(&k, bad == 0, "all %lld MiB read back buffered after drop_caches",
		    AREA >> 20);
	if (unit == 4096)
		unlink(path);
	free(buf);
	free(owner);
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "large-io",
	.what = "O_DIRECT writes and reads of 1-16 MiB at unaligned offsets, split by every layer, verified per sector",
	.requires = {
		REQ_ENV("STACK_TOP"),
	},
	.run = test_main,
);
