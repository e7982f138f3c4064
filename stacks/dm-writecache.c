// SPDX-License-Identifier: GPL-2.0
/*
 * dm-writecache over two free disks: the first is the origin (the slow
 * disk), the second the cache (the fast one, "s": block-device mode),
 * 4 KiB blocks: "0 SIZE writecache s ORIGIN CACHE 4096 0"
 * (dm-writecache.c writecache_ctr).  Writes land in the cache and are
 * written back to the origin later; at teardown the cache is flushed
 * ("dmsetup message wc0 0 flush") and the device removed, so the origin
 * alone must then hold every byte.
 */
#include <stdio.h>
#include <string.h>

#include "stack.h"

static int wc_build(struct stack *s, const struct layer *l, char *msg,
		    size_t len)
{
	const char *origin = stack_disk(s, 0), *cache = stack_disk(s, 1);
	char table[256];

	snprintf(table, sizeof(table), "0 %lld writecache s %s %s 4096 0\n",
		 dev_sectors(origin), origin, cache);
	if (dm_create(s, "wc0", table, msg, len))
		return -1;
	snprintf(msg, len, "%s: dm-writecache, origin %s, cache %s, %lld MiB",
		 s->top, origin, cache, dev_sectors(origin) >> 11);
	return 0;
}

static int wc_teardown(struct stack *s, const struct layer *l, char *msg,
		       size_t len)
{
	const char *flush[] = { "dmsetup", "message", "wc0", "0", "flush",
				NULL };

	if (run(flush)) {
		snprintf(msg, len, "dmsetup message wc0 0 flush failed");
		return -1;
	}
	return dm_remove("wc0", msg, len);
}

static int wc_disks(const struct layer *l, bool below, int free, char *err,
		    size_t len)
{
	if (below || free < 2) {
		snprintf(err, len, "dm-writecache goes on two free disks (origin, then cache)");
		return -1;
	}
	return 2;
}

static const struct layer_kind dm_writecache = {
	.name = "dm-writecache",
	.what = "dm-writecache: a cache disk taking the writes for an origin disk (dmsetup)",
	.tools = { "dmsetup" },
	.disks = wc_disks,
	.build = wc_build,
	.teardown = wc_teardown,
};
LAYER_KIND(dm_writecache);
