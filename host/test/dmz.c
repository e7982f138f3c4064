// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the dm-zoned formatter (stacks/dmz-format.c): the layout
 * dm-zoned 6.1 expects, the super block crc as dmz_check_sb() computes it
 * (golden values computed independently: crc32_le(seed, p) ==
 * ~zlib.crc32(p, ~seed)), bad geometry refused with a clear message, and
 * a format onto two image files read back block by block.  Ends with
 * "dmz: N passed, N failed".
 */
#define _GNU_SOURCE
#include <endian.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../stacks/dmz-format.h"
#include "../topo.h"

#include "check.h"

#define MIB (2048ull)	/* sectors */

static struct dmz_geom geom(uint64_t cache_mib, uint64_t zone_sectors,
			    uint32_t zones)
{
	struct dmz_geom g = { 0 };

	g.cache_sectors = cache_mib * MIB;
	g.zone_sectors = zone_sectors;
	g.nr_zoned_zones = zones;
	return g;
}

static void test_layout(void)
{
	struct dmz_geom g = geom(192, 16 * MIB, 16);
	char err[256] = "";
	int rc;

	CHECK(sizeof(struct dmz_super) == 512, "struct dmz_super is 512 bytes");
	CHECK(__builtin_offsetof(struct dmz_super, gen) == 8 &&
	      __builtin_offsetof(struct dmz_super, nr_meta_blocks) == 24 &&
	      __builtin_offsetof(struct dmz_super, nr_bitmap_blocks) == 40 &&
	      __builtin_offsetof(struct dmz_super, crc) == 44 &&
	      __builtin_offsetof(struct dmz_super, dmz_uuid) == 80 &&
	      __builtin_offsetof(struct dmz_super, reserved) == 112,
	      "dmz_super field offsets as in dm-zoned-metadata.c");
	CHECK(DMZ_MAGIC == ((unsigned)'D' << 24 | 'Z' << 16 | 'B' << 8 | 'D'),
	      "magic is 'DZBD' as the kernel builds it");
	CHECK(!dmz_geometry(&g, err, sizeof(err)), "192M cache + 16x16M zones: %s",
	      err[0] ? err : "accepted");
	CHECK(g.zone_nr_blocks == 4096 && g.zone_nr_bitmap_blocks == 1,
	      "16M zone: 4096 blocks, 1 bitmap block (got %u, %u)",
	      g.zone_nr_blocks, g.zone_nr_bitmap_blocks);
	CHECK(g.nr_cache_zones == 12 && g.nr_zones == 28,
	      "regular device first: 12 cache zones, 28 in all (got %u, %u)",
	      g.nr_cache_zones, g.nr_zones);
	CHECK(g.nr_bitmap_blocks == 28 && g.nr_map_blocks == 1 &&
	      g.nr_meta_blocks == 30 && g.nr_meta_zones == 1,
	      "bitmaps for every zone: 28 + 1 map + sb = 30 blocks, 1 zone (got %u %u %u %u)",
	      g.nr_bitmap_blocks, g.nr_map_blocks, g.nr_meta_blocks,
	      g.nr_meta_zones);
	CHECK(g.nr_reserved_seq == 1 && g.nr_chunks == 24,
	      "28 zones - 2 meta - 1 reserved - 1 tertiary = 24 chunks (got %u reserved, %u chunks)",
	      g.nr_reserved_seq, g.nr_chunks);
	CHECK(g.sb_block[0] == 0 && g.sb_block[1] == 4096 &&
	      g.sb_block[2] == 12 * 4096 && g.sb_offset[1] == 16ull << 20 &&
	      g.sb_offset[2] == 0,
	      "sb blocks 0 / zone 1 / first zoned zone (got %llu %llu %llu)",
	      (unsigned long long)g.sb_block[0],
	      (unsigned long long)g.sb_block[1],
	      (unsigned long long)g.sb_block[2]);
	CHECK(g.target_sectors == 24 * 16 * MIB, "target: 24 chunks of 16M");
	/* kernel dmz_check_sb bounds, with the kernel's own zone counts. */
	CHECK(g.nr_meta_zones < g.nr_cache_zones &&
	      g.nr_reserved_seq < g.nr_cache_zones + g.nr_zoned_zones - g.nr_meta_zones &&
	      g.nr_chunks <= g.nr_cache_zones + g.nr_zoned_zones -
	      (2 * g.nr_meta_zones + g.nr_reserved_seq),
	      "passes dmz_check_sb's meta/reserved/chunk bounds");

	g = geom(200, 16 * MIB, 16);
	rc = dmz_geometry(&g, err, sizeof(err));
	CHECK(!rc && g.nr_cache_zones == 13 &&
	      g.nr_cache_full == 12 && g.sb_block[2] == 13 * 4096 &&
	      g.nr_chunks == 24,
	      "200M cache: a runt zone is numbered (tertiary sb at zone 13) but holds no chunk");

	/* Many zones: the metadata outgrows one zone and the loop settles. */
	g = geom(4096, 256, 40000);
	rc = dmz_geometry(&g, err, sizeof(err));
	CHECK(!rc && g.nr_meta_zones == (g.nr_meta_blocks + g.zone_nr_blocks - 1) /
	      g.zone_nr_blocks && g.nr_meta_zones > 1 &&
	      g.nr_map_blocks == (g.nr_chunks + 511) / 512,
	      "128K zones x 40000: %u meta zones consistent with %u meta blocks",
	      g.nr_meta_zones, g.nr_meta_blocks);
}

static void fill_test_sb(const struct dmz_geom *g, int set, uint64_t gen,
			 uint8_t *blk)
{
	uint8_t u1[16], u2[16];
	int i;

	for (i = 0; i < 16; i++) {
		u1[i] = i + 1;
		u2[i] = i + 17;
	}
	dmz_fill_sb(g, set, gen, "dmz-test", u1, u2, blk);
}

static void test_crc(void)
{
	struct dmz_geom g = geom(192, 16 * MIB, 16);
	uint8_t blk[DMZ_BLOCK_SIZE];
	struct dmz_super *sb = (struct dmz_super *)blk;
	char err[256];

	CHECK((dmz_crc32_le(~0u, "123456789", 9) ^ ~0u) == 0xcbf43926,
	      "crc32_le is the reflected 0xedb88320 CRC (check value)");
	dmz_geometry(&g, err, sizeof(err));
	fill_test_sb(&g, 0, 1, blk);
	CHECK(le32toh(sb->crc) == 0xcacd2ba3,
	      "primary sb crc = crc32_le(gen 1, block with crc 0) = 0xcacd2ba3 (got 0x%08x)",
	      le32toh(sb->crc));
	CHECK(dmz_sb_crc_ok(blk), "the crc verifies as dmz_check_sb does");
	fill_test_sb(&g, 2, 0, blk);
	CHECK(le32toh(sb->crc) == 0x63c059d5 && le64toh(sb->sb_block) == 12 * 4096,
	      "tertiary sb: gen 0, sb_block 49152, crc 0x63c059d5 (got 0x%08x)",
	      le32toh(sb->crc));
	blk[300] ^= 1;
	CHECK(!dmz_sb_crc_ok(blk),
	      "a flipped bit in the reserved area fails the crc (whole 4K block covered)");
	fill_test_sb(&g, 0, 1, blk);
	blk[4095] ^= 0x80;
	CHECK(!dmz_sb_crc_ok(blk), "the last byte of the 4K block is covered too");
}

static void expect_refused(struct dmz_geom g, const char *want,
			   const char *what)
{
	char err[256] = "";
	int rc = dmz_geometry(&g, err, sizeof(err));

	CHECK(rc == -1 && strstr(err, want), "%s refused: %s", what, err);
}

/*
 * meta-zones=2: each set padded to two zones (what a device with many
 * more zones gets), the secondary set then starts at zone 2, where
 * dm-zoned's search for it after a bad primary steps past zone 1.
 */
static void test_meta_zones(void)
{
	struct dmz_geom g = geom(192, 16 * MIB, 16), one = g;
	char err[256] = "";

	g.want_meta_zones = 2;
	CHECK(!dmz_geometry(&g, err, sizeof(err)) && !dmz_geometry(&one, err, sizeof(err)),
	      "192M cache + 16 zones: one and two metadata zones per set %s", err);
	CHECK(one.nr_meta_zones == 1 && g.nr_meta_zones == 2,
	      "metadata zones per set: 1 by default, 2 when asked (got %u, %u)",
	      one.nr_meta_zones, g.nr_meta_zones);
	CHECK(g.nr_meta_blocks == 4097 && g.sb_block[1] == 2 * 4096,
	      "2 zones: nr_meta_blocks 4097 (the kernel rounds it up to 2 zones), secondary sb at block 8192 (got %u, %llu)",
	      g.nr_meta_blocks, (unsigned long long)g.sb_block[1]);
	CHECK(g.nr_map_blocks == one.nr_map_blocks &&
	      g.nr_chunks == one.nr_chunks - 2,
	      "same mapping blocks, 2 chunks fewer for the 2 extra metadata zones (%u, %u of %u)",
	      g.nr_map_blocks, g.nr_chunks, one.nr_chunks);
	g = geom(64, 16 * MIB, 16);
	g.want_meta_zones = 2;
	expect_refused(g, "cache device too small",
		       "2 metadata zones per set on a 64M cache (4 zones)");
}

static void test_bad_geometry(void)
{
	expect_refused(geom(192, 24 * MIB, 16), "not a power of two",
		       "24M zones");
	expect_refused(geom(192, 0, 16), "not a power of two", "zone size 0");
	expect_refused(geom(192, 4, 16), "outside", "2K zones");
	expect_refused(geom(192, 16 * MIB, 2), "at least 3",
		       "a 2-zone zoned device");
	expect_refused(geom(32, 16 * MIB, 16), "cache device too small",
		       "a 32M cache (2 zones, both metadata)");
	expect_refused(geom(8, 16 * MIB, 16), "cache device too small",
		       "a cache smaller than one zone");
	{
		struct dmz_geom g = geom(192, 16 * MIB, 4);

		g.want_reserved_seq = 3;
		expect_refused(g, "leave none", "3 reserved of 3 sequential zones");
	}
}

static int read_block(int fd, uint64_t off, uint8_t *blk)
{
	return pread(fd, blk, DMZ_BLOCK_SIZE, off) == DMZ_BLOCK_SIZE ? 0 : -1;
}

static void test_format_images(void)
{
	char cpath[] = "/tmp/dmz-cache-XXXXXX", zpath[] = "/tmp/dmz-zoned-XXXXXX";
	int cfd = mkstemp(cpath), zfd = mkstemp(zpath), i, all_ff = 1;
	struct dmz_geom g = geom(192, 16 * MIB, 16);
	uint8_t blk[DMZ_BLOCK_SIZE], p[DMZ_BLOCK_SIZE], t[DMZ_BLOCK_SIZE];
	struct dmz_super *sp = (struct dmz_super *)p, *st = (struct dmz_super *)t,
			 *s2 = (struct dmz_super *)blk;
	char err[256] = "";

	if (cfd < 0 || zfd < 0 || ftruncate(cfd, 192 << 20) ||
	    ftruncate(zfd, 256 << 20)) {
		CHECK(0, "cannot create image files in /tmp");
		return;
	}
	/* Stale bytes where bitmaps go must be cleared by the format. */
	memset(blk, 0xa5, sizeof(blk));
	for (i = 0; i < 40; i++)
		if (pwrite(cfd, blk, sizeof(blk), (uint64_t)i * 4096) < 0)
			break;
	CHECK(!dmz_format(cfd, zfd, &g, "dmz-test", err, sizeof(err)),
	      "format two image files: %s", err[0] ? err : "done");
	CHECK(!read_block(cfd, 0, p) && dmz_sb_crc_ok(p) &&
	      le64toh(sp->gen) == 1 && le64toh(sp->sb_block) == 0 &&
	      le32toh(sp->nr_chunks) == 24,
	      "primary sb at block 0: valid crc, gen 1, 24 chunks");
	CHECK(!read_block(cfd, 16 << 20, blk) && dmz_sb_crc_ok(blk) &&
	      le64toh(s2->sb_block) == 4096 &&
	      !memcmp(s2->dmz_uuid, sp->dmz_uuid, 16) &&
	      !memcmp(s2->dev_uuid, sp->dev_uuid, 16),
	      "secondary sb at zone nr_meta_zones (16 MiB): sb_block 4096, same uuids");
	CHECK(!read_block(zfd, 0, t) && dmz_sb_crc_ok(t) &&
	      le64toh(st->gen) == 0 && le64toh(st->sb_block) == 12 * 4096 &&
	      !memcmp(st->dmz_uuid, sp->dmz_uuid, 16) &&
	      memcmp(st->dev_uuid, sp->dev_uuid, 16) &&
	      !memcmp(st->dmz_label, sp->dmz_label, 32) &&
	      !strcmp((char *)st->dmz_label, "dmz-test"),
	      "tertiary sb on the zoned image: gen 0, sb_block 49152, same set uuid and label, own device uuid");
	read_block(cfd, 4096, blk);
	for (i = 0; i < DMZ_BLOCK_SIZE; i++)
		all_ff &= blk[i] == 0xff;
	CHECK(all_ff, "mapping block 1: every chunk unmapped (0xffffffff)");
	read_block(cfd, (16ull << 20) + 4096, blk);
	for (i = 0; i < DMZ_BLOCK_SIZE; i++)
		all_ff &= blk[i] == 0xff;
	CHECK(all_ff, "secondary mapping block: unmapped too");
	for (i = 2; i < 30; i++) {
		int j, zero = 1;

		read_block(cfd, (uint64_t)i * 4096, blk);
		for (j = 0; j < DMZ_BLOCK_SIZE; j++)
			zero &= !blk[j];
		if (!zero)
			break;
	}
	CHECK(i == 30, "bitmap blocks 2..29 zeroed (first non-zero: %d)", i);
	close(cfd);
	close(zfd);
	unlink(cpath);
	unlink(zpath);
}

static void topo_text(const char *text, struct topology *t, char *err,
		      size_t len)
{
	char path[] = "/tmp/dmz-topo-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		snprintf(err, len, "cannot write %s", path);
	else if (topo_load(path, t, err, len))
		;
	else
		err[0] = 0;
	if (fd >= 0)
		close(fd);
	unlink(path);
}

static void test_topology(void)
{
	struct topology t;
	char err[512] = "";
	const char *head = "[topology]\ndescription = x\nmemory = 192M\n"
			   "[tests]\ntest = data-integrity\n[disks]\n";
	char buf[512];

	CHECK(!topo_load("topologies/dm-zoned.ini", &t, err, sizeof(err)) &&
	      t.ndisks == 1 && t.nzoned == 1 && t.zoned_size == 256 << 20 &&
	      t.nlayers == 3 && !strcmp(t.layers[0].kind, "dm-zoned"),
	      "topologies/dm-zoned.ini: 1 virtio + 1 zoned of 256M, dm-zoned layer %s",
	      err);
	topo_free(&t);
	snprintf(buf, sizeof(buf), "%scount = 1\nsize = 64M\nzoned = 2\n", head);
	topo_text(buf, &t, err, sizeof(err));
	CHECK(!err[0] && t.nzoned == 2 && t.zoned_size == 64 << 20,
	      "zoned-size defaults to size (%s)", err);
	topo_free(&t);
	snprintf(buf, sizeof(buf), "%scount = 1\nsize = 40M\nzoned = 1\n", head);
	topo_text(buf, &t, err, sizeof(err));
	CHECK(strstr(err, "give zoned-size"), "a 40M size cannot be zoned: %s",
	      err);
	snprintf(buf, sizeof(buf), "%scount = 1\nsize = 64M\nzoned = 1\nzoned-size = 40M\n", head);
	topo_text(buf, &t, err, sizeof(err));
	CHECK(strstr(err, ":10: zoned-size = 40M: want a multiple"),
	      "zoned-size not a multiple of 16M names file:line: %s", err);
	snprintf(buf, sizeof(buf), "%szoned = 5\n", head);
	topo_text(buf, &t, err, sizeof(err));
	CHECK(strstr(err, "want 0 to 4 zoned"), "zoned = 5 refused: %s", err);
}

int main(void)
{
	test_topology();
	test_layout();
	test_crc();
	test_bad_geometry();
	test_meta_zones();
	test_format_images();
	printf("dmz: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
