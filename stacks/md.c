// SPDX-License-Identifier: GPL-2.0
/* md arrays with mdadm --create / --stop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"

static int md_build(struct stack *s, const struct layer *l, char *msg,
		    size_t len)
{
	const char *argv[32];
	char dev[32], level[32], layout[32], ndev[32], chunk[32], bitmap[32];
	char behind[32], state[96];
	int n = s->ntake, i, a = 0;

	snprintf(dev, sizeof(dev), "/dev/md%d", s->nmd);
	snprintf(level, sizeof(level), "--level=%s",
		 layer_get(l, "level", "raid1"));
	snprintf(ndev, sizeof(ndev), "--raid-devices=%d", n);
	snprintf(bitmap, sizeof(bitmap), "--bitmap=%s",
		 layer_get(l, "bitmap", "none"));
	argv[a++] = "mdadm";
	argv[a++] = "--create";
	argv[a++] = dev;
	argv[a++] = "--run";
	argv[a++] = "--metadata=1.2";
	argv[a++] = level;
	argv[a++] = ndev;
	argv[a++] = bitmap;
	/*
	 * The member disks are fresh all-zero images, so every mirror and
	 * every parity already agrees: skipping the initial resync is exact.
	 */
	argv[a++] = "--assume-clean";
	if (layer_get(l, "layout", NULL)) {
		snprintf(layout, sizeof(layout), "--layout=%s",
			 layer_get(l, "layout", NULL));
		argv[a++] = layout;
	}
	if (layer_get(l, "chunk", NULL)) {
		snprintf(chunk, sizeof(chunk), "--chunk=%lldK",
			 parse_size(layer_get(l, "chunk", NULL)) >> 10);
		argv[a++] = chunk;
	}
	/* Write-behind needs the bitmap; mdadm refuses it without one. */
	if (layer_get(l, "write-behind", NULL)) {
		snprintf(behind, sizeof(behind), "--write-behind=%s",
			 layer_get(l, "write-behind", NULL));
		argv[a++] = behind;
	}
	for (i = 0; i < n; i++)
		argv[a++] = stack_disk(s, i);
	argv[a] = NULL;
	if (run(argv)) {
		snprintf(msg, len, "mdadm --create %s failed", dev);
		return -1;
	}
	if (wait_path(dev, 10)) {
		snprintf(msg, len, "%s did not appear", dev);
		return -1;
	}
	/*
	 * raid1 starts a behind write only when the mirror in slot 0 is
	 * write-mostly, and mdadm --create fills slots in the order given:
	 * flag the first member through sysfs (mdadm has no per-device
	 * "not write-mostly" switch for --create).
	 */
	if (layer_get(l, "write-mostly", NULL)) {
		const char *d = strrchr(stack_disk(s, 0), '/');

		snprintf(state, sizeof(state), "/sys/block/md%d/md/dev-%s/state",
			 s->nmd, d ? d + 1 : stack_disk(s, 0));
		if (write_str(state, "writemostly")) {
			snprintf(msg, len, "cannot set %s writemostly", state);
			return -1;
		}
	}
	s->nmd++;
	snprintf(s->top, sizeof(s->top), "%s", dev);
	snprintf(msg, len, "%s: %s over %d disks", dev, level + 8, n);
	return 0;
}

static int md_teardown(struct stack *s, const struct layer *l, char *msg,
		       size_t len)
{
	char dev[32];
	const char *argv[] = { "mdadm", "--stop", dev, NULL };

	(void)l;
	snprintf(dev, sizeof(dev), "/dev/md%d", --s->nmd);
	if (run(argv)) {
		snprintf(msg, len, "mdadm --stop %s failed", dev);
		return -1;
	}
	snprintf(msg, len, "%s stopped", dev);
	return 0;
}

/* The free disks it is given (devices=N), or all of them; never a device below. */
static int md_disks(const struct layer *l, bool below, int free, char *err,
		    size_t len)
{
	int n = atoi(layer_get(l, "devices", "0"));

	if (below) {
		snprintf(err, len, "md goes on free disks, not on the layer below");
		return -1;
	}
	if (!n)
		n = free;
	if (n < 2 || n > free) {
		snprintf(err, len, "md wants %d disks, %d are free", n, free);
		return -1;
	}
	return n;
}

static const struct layer_kind md = {
	.name = "md",
	.what = "md array built with mdadm --create over free disks",
	.keys = {
		{ "level", 'e', "raid1|raid10|raid5|raid6" },
		{ "layout", 'e', "n2|f2|o2|left-symmetric" },
		{ "devices", 'n', NULL },
		{ "chunk", 's', NULL },
		{ "bitmap", 'e', "internal|none" },
		{ "write-mostly", 'e', "first" },
		{ "write-behind", 'n', NULL },
	},
	.tools = { "mdadm" },
	.disks = md_disks,
	.build = md_build,
	.teardown = md_teardown,
};
LAYER_KIND(md);
