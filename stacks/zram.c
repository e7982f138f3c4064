// SPDX-License-Identifier: GPL-2.0
/*
 * zram, the compressed RAM disk (its driver has rw_page too), sized
 * through sysfs; swap on it pages out with MADV_PAGEOUT, like brd.
 */
#include <stdio.h>
#include <string.h>

#include "stack.h"

static int zram_build(struct stack *s, const struct layer *l, char *msg,
		      size_t len)
{
	const char *size = layer_get(l, "size", "256M");
	char bytes[32];

	snprintf(bytes, sizeof(bytes), "%lld", parse_size(size));
	if (write_str("/sys/block/zram0/comp_algorithm", "lzo") ||
	    write_str("/sys/block/zram0/disksize", bytes) ||
	    wait_path("/dev/zram0", 5)) {
		snprintf(msg, len, "cannot set up zram0 (%s)", size);
		return -1;
	}
	snprintf(s->top, sizeof(s->top), "/dev/zram0");
	snprintf(msg, len, "/dev/zram0: zram lzo, %s", size);
	return 0;
}

static int zram_teardown(struct stack *s, const struct layer *l, char *msg,
			 size_t len)
{
	if (write_str("/sys/block/zram0/reset", "1")) {
		snprintf(msg, len, "zram0 reset failed");
		return -1;
	}
	snprintf(msg, len, "zram0 reset");
	return 0;
}

static const struct layer_kind zram = {
	.name = "zram",
	.what = "zram compressed RAM disk (has rw_page)",
	.keys = {
		{ "size", 's', NULL },
	},
	.disks = layer_disks_none,
	.swap_pressure = "pageout",
	.swap_in_ram = true,
	.build = zram_build,
	.teardown = zram_teardown,
};
LAYER_KIND(zram);
