// SPDX-License-Identifier: GPL-2.0
/* xfs on the device below, made with mkfs.xfs and mounted. */
#include "stack.h"

static int xfs_build(struct stack *s, const struct layer *l, char *msg,
		     size_t len)
{
	static const char *const opts[] = { "-f", "-q", NULL };

	return fs_make(s, "xfs", opts, msg, len);
}

static const struct layer_kind xfs = {
	.name = "xfs",
	.what = "xfs made with mkfs.xfs, mounted",
	.tools = { "mkfs.xfs", "xfs_repair", "xfs_db" },
	.fs = true,
	.build = xfs_build,
	.teardown = fs_unmount,
};
LAYER_KIND(xfs);
