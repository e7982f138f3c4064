// SPDX-License-Identifier: GPL-2.0
/* A swap device: mkswap and swapon straight on the device below. */
#include <stdio.h>

#include "stack.h"

static int swapdev_build(struct stack *s, const struct layer *l, char *msg,
			 size_t len)
{
	if (stack_lower(s, s->swapdev, sizeof(s->swapdev), msg, len) ||
	    swap_start(s->swapdev, msg, len))
		return -1;
	snprintf(msg, len, "swap device %s, %lld MiB, active", s->swapdev,
		 dev_sectors(s->swapdev) >> 11);
	return 0;
}

static int swapdev_teardown(struct stack *s, const struct layer *l,
			    char *msg, size_t len)
{
	return swap_stop(s->swapdev, msg, len);
}

static const struct layer_kind swapdev = {
	.name = "swapdev",
	.what = "swap straight on the block device below",
	.tools = { "mkswap" },
	.build = swapdev_build,
	.teardown = swapdev_teardown,
};
LAYER_KIND(swapdev);
