// SPDX-License-Identifier: GPL-2.0
/*
 * dm-clone over three free disks: a source filled with a seeded pattern
 * (stream 7 of the run's seed), a destination and a metadata disk (both
 * zero: sparse images).  Created with hydration off, so the test sees the
 * clone before, during and after hydration (it enables it by message).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stack.h"

#define NAME "clone0"
#define REGION_SECTORS 64	/* 32 KiB regions */

static int fill_source(const char *dev, long long bytes)
{
	int fd = open(dev, O_WRONLY | O_DIRECT | O_CLOEXEC);
	int bad = pattern_write_fd(fd, bytes, env_seed(), 7);

	if (fd >= 0)
		close(fd);
	return bad;
}

static int clone_build(struct stack *s, const struct layer *l, char *msg,
		       size_t len)
{
	const char *src, *dst, *meta;
	char table[256];
	long long sz;

	src = stack_disk(s, 0);
	dst = stack_disk(s, 1);
	meta = stack_disk(s, 2);
	sz = dev_sectors(src);
	if (sz <= 0 || fill_source(src, sz * 512)) {
		snprintf(msg, len, "cannot fill the source %s", src);
		return -1;
	}
	snprintf(table, sizeof(table), "0 %lld clone %s %s %s %d 1 no_hydration\n",
		 sz, meta, dst, src, REGION_SECTORS);
	if (dm_create(s, NAME, table, msg, len))
		return -1;
	snprintf(s->clone_src, sizeof(s->clone_src), "%s", src);
	snprintf(s->clone_dst, sizeof(s->clone_dst), "%s", dst);
	snprintf(msg, len, "%s: dm-clone of %s (pattern, %lld MiB) onto %s, metadata on %s, hydration off",
		 s->top, src, sz >> 11, dst, meta);
	return 0;
}

static int clone_teardown(struct stack *s, const struct layer *l, char *msg,
			  size_t len)
{
	return dm_remove(NAME, msg, len);
}

static int clone_disks(const struct layer *l, bool below, int free,
		       char *err, size_t len)
{
	if (below || free < 3) {
		snprintf(err, len, "dm-clone wants 3 free disks (source, destination, metadata)%s",
			 below ? ", not the layer below" : "");
		return -1;
	}
	return 3;
}

static const struct layer_kind dm_clone = {
	.name = "dm-clone",
	.what = "dm-clone of a pattern-filled disk onto another, hydration off until the test enables it (dmsetup)",
	.tools = { "dmsetup" },
	.disks = clone_disks,
	.build = clone_build,
	.teardown = clone_teardown,
	.ops = { DM_OP_SUSPEND },
	.settle = dm_settle,
};
LAYER_KIND(dm_clone);
