// SPDX-License-Identifier: GPL-2.0
/*
 * dm-zoned metadata v2 formatter; see dmz-format.h for the layout.  Every
 * rule here mirrors a check of linux 6.1 drivers/md/dm-zoned-metadata.c:
 * dmz_check_sb (magic, version, crc32_le seeded with the generation over
 * the 4K block with crc 0, sb_block, uuids, label, meta/reserved/chunk
 * counts), dmz_load_sb (secondary set at zone nr_meta_zones, tertiary
 * super block at the zoned device's first zone), dmz_emulate_zones and
 * dmz_fixup_devices (regular device zones first, rounded up, runt
 * offline), dmz_load_mapping (map entries 0xffffffff = unmapped) and
 * dmz_get_bitmap (bitmap block of zone z at 1 + nr_map_blocks +
 * z * zone_nr_bitmap_blocks).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/blkzoned.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dmz-format.h"

_Static_assert(sizeof(struct dmz_super) == 512, "dmz_super is 512 bytes");
_Static_assert(__builtin_offsetof(struct dmz_super, crc) == 44, "crc at 44");
_Static_assert(__builtin_offsetof(struct dmz_super, dmz_label) == 48,
	       "label at 48");
_Static_assert(__builtin_offsetof(struct dmz_super, dev_uuid) == 96,
	       "dev_uuid at 96");

uint32_t dmz_crc32_le(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

static uint32_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

int dmz_geometry(struct dmz_geom *g, char *err, size_t len)
{
	uint64_t zs = g->zone_sectors;
	uint32_t seq, useable, mz, mb = 0, chunks = 0, map = 0;
	long long avail = 0;
	int i;

	if (!zs || (zs & (zs - 1))) {
		snprintf(err, len, "dm-zoned: zone size %llu sectors is not a power of two",
			 (unsigned long long)zs);
		return -1;
	}
	if (zs < 8 || zs / 8 > (1u << 31)) {
		snprintf(err, len, "dm-zoned: zone size %llu sectors is outside 4K..8T",
			 (unsigned long long)zs);
		return -1;
	}
	g->zone_nr_blocks = zs / 8;
	g->zone_nr_bitmap_blocks = (g->zone_nr_blocks >> 3) >> 12;
	if (!g->zone_nr_bitmap_blocks)
		g->zone_nr_bitmap_blocks = 1;
	g->nr_cache_full = g->cache_sectors / zs;
	g->nr_cache_zones = div_up(g->cache_sectors, zs);
	if (g->nr_zoned_zones < 3) {
		snprintf(err, len, "dm-zoned: the zoned device has %u zones; at least 3 are needed (tertiary super block, reserved, data)",
			 g->nr_zoned_zones);
		return -1;
	}
	g->nr_zones = g->nr_cache_zones + g->nr_zoned_zones;
	g->nr_bitmap_blocks = g->nr_zones * g->zone_nr_bitmap_blocks;
	seq = g->nr_zoned_zones - 1;	/* zone 0 holds the tertiary sb */
	g->nr_reserved_seq = g->want_reserved_seq;
	if (!g->nr_reserved_seq) {
		g->nr_reserved_seq = seq / 8;
		if (g->nr_reserved_seq < 1)
			g->nr_reserved_seq = 1;
		if (g->nr_reserved_seq > 16)
			g->nr_reserved_seq = 16;
	}
	if (g->nr_reserved_seq >= seq) {
		snprintf(err, len, "dm-zoned: %u reserved sequential zones leave none of the %u sequential zones for data",
			 g->nr_reserved_seq, seq);
		return -1;
	}
	/* Only the full regular zones hold data; the runt is offline. */
	useable = g->nr_cache_full + g->nr_zoned_zones;
	mz = g->want_meta_zones > 1 ? g->want_meta_zones : 1;
	/* Chunks shrink as metadata zones grow: iterate to a fixed point. */
	for (i = 0; i < 64; i++) {
		uint32_t nmz;

		avail = (long long)useable - 2 * mz - g->nr_reserved_seq - 1;
		chunks = avail > 0 ? avail : 1;
		map = div_up(chunks, DMZ_MAP_ENTRIES);
		mb = 1 + map + g->nr_bitmap_blocks;
		nmz = div_up(mb, g->zone_nr_blocks);
		if (nmz <= mz)
			break;
		mz = nmz;
	}
	/*
	 * The kernel derives the zone count from nr_meta_blocks.  A larger
	 * set (want_meta_zones) is what a device with many more zones gets:
	 * the blocks past the bitmaps are never read but are copied when a
	 * set is recovered from the other.
	 */
	if (div_up(mb, g->zone_nr_blocks) < g->want_meta_zones)
		mb = (g->want_meta_zones - 1) * g->zone_nr_blocks + 1;
	g->nr_meta_zones = div_up(mb, g->zone_nr_blocks);
	g->nr_meta_blocks = mb;
	g->nr_map_blocks = map;
	if (g->nr_cache_full < 2 * g->nr_meta_zones + 1) {
		snprintf(err, len, "dm-zoned: cache device too small: %llu MiB holds %u full zones of %llu MiB; the two metadata sets take %u, and at least one must remain for caching",
			 (unsigned long long)(g->cache_sectors >> 11),
			 g->nr_cache_full, (unsigned long long)(zs >> 11),
			 2 * g->nr_meta_zones);
		return -1;
	}
	if (avail < 1) {
		snprintf(err, len, "dm-zoned: too few zones: %u usable, none left for data after %u metadata and %u reserved",
			 useable, 2 * g->nr_meta_zones + 1, g->nr_reserved_seq);
		return -1;
	}
	g->nr_chunks = chunks;
	g->sb_block[0] = 0;
	g->sb_block[1] = (uint64_t)g->nr_meta_zones * g->zone_nr_blocks;
	g->sb_block[2] = (uint64_t)g->nr_cache_zones * g->zone_nr_blocks;
	g->sb_offset[0] = 0;
	g->sb_offset[1] = g->sb_block[1] * DMZ_BLOCK_SIZE;
	g->sb_offset[2] = 0;
	g->target_sectors = (uint64_t)g->nr_chunks * zs;
	return 0;
}

void dmz_fill_sb(const struct dmz_geom *g, int set, uint64_t gen,
		 const char *label, const uint8_t dmz_uuid[16],
		 const uint8_t dev_uuid[16], void *block)
{
	struct dmz_super *sb = block;

	memset(block, 0, DMZ_BLOCK_SIZE);
	sb->magic = htole32(DMZ_MAGIC);
	sb->version = htole32(DMZ_META_VER);
	sb->gen = htole64(gen);
	sb->sb_block = htole64(g->sb_block[set]);
	sb->nr_meta_blocks = htole32(g->nr_meta_blocks);
	sb->nr_reserved_seq = htole32(g->nr_reserved_seq);
	sb->nr_chunks = htole32(g->nr_chunks);
	sb->nr_map_blocks = htole32(g->nr_map_blocks);
	sb->nr_bitmap_blocks = htole32(g->nr_bitmap_blocks);
	strncpy((char *)sb->dmz_label, label, sizeof(sb->dmz_label) - 1);
	memcpy(sb->dmz_uuid, dmz_uuid, 16);
	memcpy(sb->dev_uuid, dev_uuid, 16);
	sb->crc = 0;
	/* crc32_le() takes a u32 seed: the generation, truncated. */
	sb->crc = htole32(dmz_crc32_le((uint32_t)gen, block, DMZ_BLOCK_SIZE));
}

int dmz_sb_crc_ok(const void *block)
{
	uint8_t copy[DMZ_BLOCK_SIZE];
	struct dmz_super *sb = (struct dmz_super *)copy;
	uint32_t stored;

	memcpy(copy, block, sizeof(copy));
	if (le32toh(sb->magic) != DMZ_MAGIC || le32toh(sb->version) > DMZ_META_VER)
		return 0;
	stored = le32toh(sb->crc);
	sb->crc = 0;
	return dmz_crc32_le((uint32_t)le64toh(sb->gen), copy, sizeof(copy)) ==
	       stored;
}

static void make_uuid(uint8_t u[16])
{
	struct timespec ts;
	int i;

	if (getrandom(u, 16, GRND_NONBLOCK) != 16) {
		clock_gettime(CLOCK_REALTIME, &ts);
		for (i = 0; i < 16; i++)
			u[i] = (ts.tv_nsec >> (i % 4 * 8)) ^ (ts.tv_sec >> i) ^
			       (getpid() + i * 37);
	}
	u[6] = (u[6] & 0x0f) | 0x40;	/* version 4 */
	u[8] = (u[8] & 0x3f) | 0x80;
	u[0] |= 1;			/* never the null uuid */
}

static int write_block(int fd, const void *buf, uint64_t off,
		       const char *what, char *err, size_t len)
{
	ssize_t n = pwrite(fd, buf, DMZ_BLOCK_SIZE, off);

	if (n != DMZ_BLOCK_SIZE) {
		snprintf(err, len, "dm-zoned: writing %s at byte %llu: %s", what,
			 (unsigned long long)off,
			 n < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

/* Reset every zone when fd is a zoned block device; files are left. */
static int reset_zones(int fd, const struct dmz_geom *g, char *err,
		       size_t len)
{
	struct blk_zone_range r = {
		0, (uint64_t)g->nr_zoned_zones * g->zone_sectors
	};
	struct stat st;

	if (fstat(fd, &st) || !S_ISBLK(st.st_mode))
		return 0;
	if (ioctl(fd, BLKRESETZONE, &r)) {
		snprintf(err, len, "dm-zoned: resetting the zones: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

int dmz_format(int cache_fd, int zoned_fd, struct dmz_geom *g,
	       const char *label, char *err, size_t len)
{
	uint8_t dmz_uuid[16], cache_uuid[16], zoned_uuid[16];
	uint8_t *blk = NULL;
	uint32_t b;
	int set, ret = -1;

	if (dmz_geometry(g, err, len))
		return -1;
	if (posix_memalign((void **)&blk, DMZ_BLOCK_SIZE, DMZ_BLOCK_SIZE)) {
		snprintf(err, len, "dm-zoned: out of memory");
		return -1;
	}
	make_uuid(dmz_uuid);
	make_uuid(cache_uuid);
	make_uuid(zoned_uuid);
	if (reset_zones(zoned_fd, g, err, len))
		goto out;
	for (set = 0; set < 2; set++) {
		uint64_t base = g->sb_offset[set];

		/* Mapping table: every chunk unmapped (dzone and bzone). */
		memset(blk, 0xff, DMZ_BLOCK_SIZE);
		for (b = 0; b < g->nr_map_blocks; b++)
			if (write_block(cache_fd, blk,
					base + (1 + (uint64_t)b) * DMZ_BLOCK_SIZE,
					"a mapping block", err, len))
				goto out;
		/* Bitmaps: no valid block anywhere. */
		memset(blk, 0, DMZ_BLOCK_SIZE);
		for (b = 0; b < g->nr_bitmap_blocks; b++)
			if (write_block(cache_fd, blk, base +
					(1 + (uint64_t)g->nr_map_blocks + b) *
					DMZ_BLOCK_SIZE, "a bitmap block", err,
					len))
				goto out;
		/* The super block last, as dm-zoned itself does. */
		dmz_fill_sb(g, set, 1, label, dmz_uuid, cache_uuid, blk);
		if (write_block(cache_fd, blk, base, set ? "the secondary super block" :
				"the primary super block", err, len))
			goto out;
	}
	dmz_fill_sb(g, 2, 0, label, dmz_uuid, zoned_uuid, blk);
	if (write_block(zoned_fd, blk, g->sb_offset[2],
			"the tertiary super block", err, len))
		goto out;
	if (fsync(cache_fd) || fsync(zoned_fd)) {
		snprintf(err, len, "dm-zoned: fsync: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(blk);
	return ret;
}

int dmz_format_devices(const char *cache, const char *zoned,
		       const char *label, struct dmz_geom *g, char *err,
		       size_t len)
{
	unsigned long long bytes = 0;
	unsigned int zsz = 0, nz = 0;
	struct {
		struct blk_zone_report r;
		struct blk_zone z;
	} rep;
	uint32_t want = g->want_reserved_seq, want_mz = g->want_meta_zones;
	int cfd, zfd, ret = -1;

	memset(g, 0, sizeof(*g));
	g->want_reserved_seq = want;
	g->want_meta_zones = want_mz;
	cfd = open(cache, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (cfd < 0) {
		snprintf(err, len, "dm-zoned: cannot open %s: %s", cache,
			 strerror(errno));
		return -1;
	}
	zfd = open(zoned, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (zfd < 0) {
		snprintf(err, len, "dm-zoned: cannot open %s: %s", zoned,
			 strerror(errno));
		close(cfd);
		return -1;
	}
	if (ioctl(cfd, BLKGETSIZE64, &bytes)) {
		snprintf(err, len, "dm-zoned: size of %s: %s", cache,
			 strerror(errno));
		goto out;
	}
	if (ioctl(zfd, BLKGETZONESZ, &zsz) || !zsz ||
	    ioctl(zfd, BLKGETNRZONES, &nz)) {
		snprintf(err, len, "dm-zoned: %s is not a zoned block device",
			 zoned);
		goto out;
	}
	/* dmz_init_zone: zones shorter in capacity than size are refused. */
	memset(&rep, 0, sizeof(rep));
	rep.r.nr_zones = 1;
	if (!ioctl(zfd, BLKREPORTZONE, &rep) && rep.r.nr_zones == 1 &&
	    (rep.r.flags & BLK_ZONE_REP_CAPACITY) &&
	    rep.z.capacity != rep.z.len) {
		snprintf(err, len, "dm-zoned: %s: zone capacity %llu sectors is below the zone size %llu (dm-zoned refuses such zones)",
			 zoned, (unsigned long long)rep.z.capacity,
			 (unsigned long long)rep.z.len);
		goto out;
	}
	g->zone_sectors = zsz;
	g->cache_sectors = bytes >> 9;
	g->nr_zoned_zones = nz;
	ret = dmz_format(cfd, zfd, g, label, err, len);
out:
	close(cfd);
	close(zfd);
	return ret;
}
