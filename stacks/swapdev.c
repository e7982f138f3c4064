// SPDX-License-Identifier: GPL-2.0
/* A swap device: mkswap and swapon straight on the device below. */
#include <stdio.h>
#include <string.h>

#include "stack.h"

static int swapdev_build(struct stack *s, const struct layer *l, char *msg,
			 size_t len)
{
	if (stack_lower(s, s->swapdev, sizeof(s->swapdev), msg, len) ||
	    swap_start(s, l, s->swapdev, msg, len))
		return -1;
	snprintf(msg + strlen(msg), len - strlen(msg),
		 "%sswap device %s, %lld MiB, active", *msg ? "; " : "", s->swapdev,
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
	.keys = {
		{ "discard", 'e', "none|once|pages|both" },
	},
	.tools = { "mkswap" },
	.build = swapdev_build,
	.teardown = swapdev_teardown,
};
LAYER_KIND(swapdev);
