// SPDX-License-Identifier: GPL-2.0
/* dm-linear: free disks concatenated into one device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"

static int linear_build(struct stack *s, const struct layer *l, char *msg,
			size_t len)
{
	int n = s->ntake, i;
	char table[1024];
	long long start = 0;
	size_t off = 0;

	for (i = 0; i < n; i++) {
		const char *d = stack_disk(s, i);
		long long sz = dev_sectors(d);

		off += snprintf(table + off, sizeof(table) - off,
				"%lld %lld linear %s 0\n", start, sz, d);
		start += sz;
	}
	if (dm_create(s, "linear0", table, msg, len))
		return -1;
	snprintf(msg, len, "%s: dm-linear over %d disks, %lld MiB", s->top, n,
		 start >> 11);
	return 0;
}

static int linear_teardown(struct stack *s, const struct layer *l, char *msg,
			   size_t len)
{
	return dm_remove("linear0", msg, len);
}

/* devices=N free disks (default 2), concatenated. */
static int linear_disks(const struct layer *l, bool below, int free,
			char *err, size_t len)
{
	int n = atoi(layer_get(l, "devices", "2"));

	if (below || n > free) {
		snprintf(err, len, "dm-linear wants %d free disks%s, %d are free",
			 n, below ? " (not the layer below)" : "", free);
		return -1;
	}
	return n;
}

static const struct layer_kind dm_linear = {
	.name = "dm-linear",
	.what = "dm-linear concatenating free disks (dmsetup)",
	.keys = {
		{ "devices", 'n', NULL },
	},
	.tools = { "dmsetup" },
	.disks = linear_disks,
	.build = linear_build,
	.teardown = linear_teardown,
	.ops = { DM_OP_SUSPEND, DM_OP_RELOAD },
	.settle = dm_settle,
};
LAYER_KIND(dm_linear);
