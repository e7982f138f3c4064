// SPDX-License-Identifier: GPL-2.0
/*
 * dm-delay on the device below (or a free disk): every read waits
 * read-ms milliseconds, every write write-ms, before dm-delay passes it
 * down (absent: 0, not held).  Swap out through it keeps pages under
 * writeback for longer: the slow-device timing the other stacks never
 * have.
 * Added by following README's "Add a layer kind" guide.
 */
#include <stdio.h>
#include <stdlib.h>

#include "stack.h"

#define NAME "delay0"

static int delay_build(struct stack *s, const struct layer *l, char *msg,
		       size_t len)
{
	const char *ms = layer_get(l, "read-ms", "0");
	const char *wms = layer_get(l, "write-ms", "0");
	char table[256], lower[64];
	long long sz;

	if (stack_lower(s, lower, sizeof(lower), msg, len))
		return -1;
	sz = dev_sectors(lower);
	/* "delay DEV OFFSET MS [WRITE_DEV WRITE_OFFSET WRITE_MS]" */
	snprintf(table, sizeof(table), "0 %lld delay %s 0 %s %s 0 %s\n", sz,
		 lower, ms, lower, wms);
	if (dm_create(s, NAME, table, msg, len))
		return -1;
	snprintf(msg, len, "%s: dm-delay on %s, reads %s ms, writes %s ms",
		 s->top, lower, ms, wms);
	return 0;
}

static int delay_teardown(struct stack *s, const struct layer *l, char *msg,
			  size_t len)
{
	return dm_remove(NAME, msg, len);
}

static const struct layer_kind dm_delay = {
	.name = "dm-delay",
	.what = "dm-delay: reads held back read-ms, writes write-ms milliseconds (dmsetup)",
	.keys = {
		{ "read-ms", 'n', NULL },
		{ "write-ms", 'n', NULL },
	},
	.tools = { "dmsetup" },
	.build = delay_build,
	.teardown = delay_teardown,
	.ops = { DM_OP_SUSPEND, DM_OP_RELOAD },
	.settle = dm_settle,
};
LAYER_KIND(dm_delay);
