// SPDX-License-Identifier: GPL-2.0
/*
 * brd, the RAM disk whose driver has rw_page (the path the 2014 swap bug
 * took), sized by the runner on the kernel command line.  Swap on it
 * pages out with MADV_PAGEOUT: swapping into RAM frees nothing, so memory
 * pressure would end in the OOM killer.
 */
#include <stdio.h>
#include <string.h>

#include "stack.h"

static int brd_build(struct stack *s, const struct layer *l, char *msg,
		     size_t len)
{
	if (wait_path("/dev/ram0", 5)) {
		snprintf(msg, len, "/dev/ram0 missing (brd.rd_nr on the command line?)");
		return -1;
	}
	snprintf(s->top, sizeof(s->top), "/dev/ram0");
	snprintf(msg, len, "/dev/ram0: brd, %lld MiB",
		 dev_sectors("/dev/ram0") >> 11);
	return 0;
}

static int brd_teardown(struct stack *s, const struct layer *l, char *msg,
			size_t len)
{
	snprintf(msg, len, "brd stays (built in)");
	return 0;
}

/* Built in: the driver takes its size from the kernel command line. */
static void brd_cmdline(const struct layer *l, char *buf, size_t len)
{
	snprintf(buf, len, "brd.rd_nr=1 brd.rd_size=%lld",
		 parse_size(layer_get(l, "size", "256M")) >> 10);
}

static const struct layer_kind brd = {
	.name = "brd",
	.what = "brd RAM disk (has rw_page)",
	.keys = {
		{ "size", 's', NULL },
	},
	.disks = layer_disks_none,
	.swap_pressure = "pageout",
	.swap_in_ram = true,
	.cmdline = brd_cmdline,
	.build = brd_build,
	.teardown = brd_teardown,
};
LAYER_KIND(brd);
