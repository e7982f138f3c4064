/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Our own dm-zoned formatter (no dmzadm): metadata version 2 for a regular
 * "cache" device plus one zoned device, laid out exactly as
 * drivers/md/dm-zoned-metadata.c of linux 6.1 reads it.
 *
 * With two devices dm-zoned numbers the zones of the regular device first
 * (DIV_ROUND_UP(capacity, zone size) of them, a runt one offline), then the
 * zoned device's.  On the regular device: the primary metadata set at
 * zone 0 (super block, chunk mapping blocks, bitmap blocks), the secondary
 * set at zone nr_meta_zones.  On the zoned device: the "tertiary" super
 * block at block 0 of its first zone, which dm-zoned marks as metadata.
 */
#ifndef STACKS_DMZ_FORMAT_H
#define STACKS_DMZ_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define DMZ_BLOCK_SIZE 4096
#define DMZ_MAGIC 0x445a4244u		/* 'D'<<24 | 'Z'<<16 | 'B'<<8 | 'D' */
#define DMZ_META_VER 2
#define DMZ_MAP_ENTRIES (DMZ_BLOCK_SIZE / 8)
#define DMZ_MAP_UNMAPPED 0xffffffffu

/* struct dmz_super, 512 bytes used of a 4K block, little endian. */
struct dmz_super {
	uint32_t magic;			/*   0 */
	uint32_t version;		/*   4 */
	uint64_t gen;			/*   8 */
	uint64_t sb_block;		/*  16 */
	uint32_t nr_meta_blocks;	/*  24 */
	uint32_t nr_reserved_seq;	/*  28 */
	uint32_t nr_chunks;		/*  32 */
	uint32_t nr_map_blocks;		/*  36 */
	uint32_t nr_bitmap_blocks;	/*  40 */
	uint32_t crc;			/*  44 */
	uint8_t dmz_label[32];		/*  48 */
	uint8_t dmz_uuid[16];		/*  80 */
	uint8_t dev_uuid[16];		/*  96 */
	uint8_t reserved[400];		/* 112 */
};

struct dmz_geom {
	/* Inputs. */
	uint64_t zone_sectors;		/* zone size of the zoned device */
	uint64_t cache_sectors;		/* capacity of the regular device */
	uint32_t nr_zoned_zones;	/* zones of the zoned device */
	uint32_t want_reserved_seq;	/* 0: a default */
	uint32_t want_meta_zones;	/* 0: as few as the metadata needs */
	/* Outputs of dmz_geometry(). */
	uint32_t zone_nr_blocks;
	uint32_t zone_nr_bitmap_blocks;
	uint32_t nr_cache_zones;	/* as the kernel counts: rounded up */
	uint32_t nr_cache_full;		/* without the runt */
	uint32_t nr_zones;		/* cache + zoned */
	uint32_t nr_meta_zones;		/* per metadata set */
	uint32_t nr_meta_blocks;
	uint32_t nr_map_blocks;
	uint32_t nr_bitmap_blocks;
	uint32_t nr_reserved_seq;
	uint32_t nr_chunks;
	uint64_t sb_block[3];		/* absolute: primary, secondary, tertiary */
	uint64_t sb_offset[3];		/* bytes, within its own device */
	uint64_t target_sectors;	/* nr_chunks zones */
};

/* The kernel's crc32_le(): reflected 0xedb88320, no inversions. */
uint32_t dmz_crc32_le(uint32_t crc, const void *buf, size_t len);
/*
 * Compute the layout; on bad geometry return -1 and say why in err
 * (zone size not a power of two, too few zones, cache device too small).
 */
int dmz_geometry(struct dmz_geom *g, char *err, size_t len);
/*
 * Fill a 4K super block: set 0 primary, 1 secondary, 2 tertiary (on the
 * zoned device, generation 0).  The crc is that of dmz_check_sb().
 */
void dmz_fill_sb(const struct dmz_geom *g, int set, uint64_t gen,
		 const char *label, const uint8_t dmz_uuid[16],
		 const uint8_t dev_uuid[16], void *block);
/* Check a super block as dmz_check_sb() does its magic, version and crc. */
int dmz_sb_crc_ok(const void *block);
/*
 * Format: write both metadata sets to cache_fd and the tertiary super
 * block to zoned_fd.  When zoned_fd is a zoned block device its zones are
 * reset first.  Either fd may be a plain file (unit tests).  Returns 0,
 * or -1 with a message.
 */
int dmz_format(int cache_fd, int zoned_fd, struct dmz_geom *g,
	       const char *label, char *err, size_t len);
/*
 * The same on two device paths, geometry read from the devices; only
 * g->want_reserved_seq and g->want_meta_zones are inputs.
 */
int dmz_format_devices(const char *cache, const char *zoned,
		       const char *label, struct dmz_geom *g, char *err,
		       size_t len);

#endif
