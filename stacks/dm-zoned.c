// SPDX-License-Identifier: GPL-2.0
/*
 * dm-zoned (metadata v2) over two free disks: a regular one, which holds
 * the metadata and serves as cache, then a zoned one (an NVMe ZNS
 * namespace, [disks] zoned = N).  Formatted by our own dmz-format.c, then
 * "0 SIZE zoned REGULAR ZONED" (dm-zoned-target.c dmz_ctr).  The target
 * loading at all is the proof the kernel accepted the metadata; its status
 * ("Z zones U/C cache R/r random S/s sequential") is reported at build and
 * again at teardown: sequential zones mapped by then were filled by
 * reclaim, since new chunks are mapped to cache zones first.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmz-format.h"
#include "stack.h"

static int zoned_model(const char *dev, char *model, size_t len)
{
	const char *base = strrchr(dev, '/');
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/zoned",
		 base ? base + 1 : dev);
	snprintf(model, len, "unknown");
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(model, len, f))
		model[strcspn(model, "\n")] = 0;
	fclose(f);
	return strcmp(model, "none") != 0;
}

static void status(char *out, size_t len)
{
	if (dm_status("dmz0", out, len))
		snprintf(out, len, "(dmsetup status failed)");
	fprintf(stderr, "dm-zoned status: %s\n", out);
}

static int zoned_build(struct stack *s, const struct layer *l, char *msg,
		       size_t len)
{
	const char *cache, *zoned;
	char cm[32], zm[32], table[256], st[160];
	struct dmz_geom g;

	cache = stack_disk(s, 0);
	zoned = stack_disk(s, 1);
	if (wait_path(zoned, 10)) {
		snprintf(msg, len, "%s did not appear", zoned);
		return -1;
	}
	if (zoned_model(cache, cm, sizeof(cm)) != 0 ||
	    zoned_model(zoned, zm, sizeof(zm)) != 1) {
		snprintf(msg, len, "dm-zoned wants a regular disk then a zoned one: %s is %s, %s is %s",
			 cache, cm, zoned, zm);
		return -1;
	}
	memset(&g, 0, sizeof(g));
	g.want_reserved_seq = atoi(layer_get(l, "reserved", "0"));
	g.want_meta_zones = atoi(layer_get(l, "meta-zones", "0"));
	if (dmz_format_devices(cache, zoned, "dmz-test", &g, msg, len))
		return -1;
	fprintf(stderr, "dmz-format: %s + %s (%s): %u+%u zones of %llu MiB, %u meta zones x2 (%u blocks: 1 sb, %u map, %u bitmap), %u reserved seq, %u chunks\n",
		cache, zoned, zm, g.nr_cache_zones, g.nr_zoned_zones,
		(unsigned long long)g.zone_sectors >> 11, g.nr_meta_zones,
		g.nr_meta_blocks, g.nr_map_blocks, g.nr_bitmap_blocks,
		g.nr_reserved_seq, g.nr_chunks);
	snprintf(table, sizeof(table), "0 %llu zoned %s %s\n",
		 (unsigned long long)g.target_sectors, cache, zoned);
	if (dm_create(s, "dmz0", table, msg, len))
		return -1;
	status(st, sizeof(st));
	snprintf(msg, len, "%s: dm-zoned %s + %s (%s), %u chunks = %llu MiB, %u metadata zone(s) per set; status: %s",
		 s->top, cache, zoned, zm, g.nr_chunks,
		 (unsigned long long)g.target_sectors >> 11, g.nr_meta_zones,
		 st);
	return 0;
}

static int zoned_teardown(struct stack *s, const struct layer *l, char *msg,
			  size_t len)
{
	unsigned int uc, c, ur, r, us, sq;
	char st[160], *p;

	status(st, sizeof(st));
	if (dm_remove("dmz0", msg, len))
		return -1;
	p = strstr(st, "zones ");
	/*
	 * New chunks go to cache zones: a mapped sequential zone was filled
	 * by reclaim.
	 */
	if (p && sscanf(p, "zones %u/%u cache %u/%u random %u/%u sequential",
			&uc, &c, &ur, &r, &us, &sq) == 6)
		snprintf(msg, len, "dmz0 removed; before: %u/%u cache zones in use, %u/%u sequential zones mapped (%s); status: %s",
			 c - uc, c, sq - us, sq,
			 sq > us ? "reclaim ran" : "reclaim never ran", st);
	else
		snprintf(msg, len, "dmz0 removed; status before: %s", st);
	return 0;
}

static int zoned_disks(const struct layer *l, bool below, int free,
		       char *err, size_t len)
{
	if (below || free < 2) {
		snprintf(err, len, "dm-zoned goes on two free disks (regular, then zoned)");
		return -1;
	}
	return 2;
}

static const struct layer_kind dm_zoned = {
	.name = "dm-zoned",
	.what = "dm-zoned v2 over a regular cache disk and a zoned disk, formatted by stacks/dmz-format.c (dmsetup)",
	.keys = {
		{ "reserved", 'n', NULL },
		{ "meta-zones", 'n', NULL },
	},
	.tools = { "dmsetup" },
	.disks = zoned_disks,
	/*
	 * Global pressure livelocks swap on dm-zoned (its chunk worker
	 * allocates metadata blocks with GFP_NOIO and no mempool):
	 * topologies/known-issues/dm-zoned-reclaim.ini.
	 */
	.swap_pressure = "memcg",
	.build = zoned_build,
	.teardown = zoned_teardown,
	.ops = { DM_OP_SUSPEND },
	.settle = dm_settle,
};
LAYER_KIND(dm_zoned);
