// SPDX-License-Identifier: GPL-2.0
/* f2fs: the series' bio allocation change touched its __bio_alloc(). */
#include "stack.h"

static int f2fs_build(struct stack *s, const struct layer *l, char *msg,
		      size_t len)
{
	static const char *const opts[] = { "-f", "-q", NULL };

	return fs_make(s, "f2fs", opts, msg, len);
}

static const struct layer_kind f2fs = {
	.name = "f2fs",
	.what = "f2fs made with mkfs.f2fs, mounted",
	.tools = { "mkfs.f2fs", "fsck.f2fs" },
	.fs = true,
	.build = f2fs_build,
	.teardown = fs_unmount,
};
LAYER_KIND(f2fs);
