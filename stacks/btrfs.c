// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs on the device below, made with mkfs.btrfs (one device: data
 * single, metadata DUP) and mounted.  btrfs maps a swap file itself
 * (btrfs_swap_activate: the file must be NOCOW, the swapfile layer makes
 * it so), and FIEMAP reports its extents in btrfs's logical address
 * space: swapfile-integrity maps them to the device through the chunk
 * tree.
 */
#include "stack.h"

static int btrfs_build(struct stack *s, const struct layer *l, char *msg,
		       size_t len)
{
	static const char *const opts[] = { "-f", "-q", NULL };

	return fs_make(s, "btrfs", opts, msg, len);
}

static const struct layer_kind btrfs = {
	.name = "btrfs",
	.what = "btrfs made with mkfs.btrfs (one device), mounted",
	.tools = { "mkfs.btrfs", "btrfs" },
	.fs = true,
	.build = btrfs_build,
	.teardown = fs_unmount,
};
LAYER_KIND(btrfs);
