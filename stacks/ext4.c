// SPDX-License-Identifier: GPL-2.0
/* ext4 on the device below, made with mkfs.ext4 and mounted. */
#include "stack.h"

static int ext4_build(struct stack *s, const struct layer *l, char *msg,
		      size_t len)
{
	/*
	 * 4K blocks as on any real system (mke2fs would pick 1K for a
	 * "small" filesystem); inode tables and journal initialised now, so
	 * no lazyinit thread writes behind the tests' backs.
	 */
	static const char *const opts[] = {
		"-F", "-q", "-b", "4096", "-E",
		"lazy_itable_init=0,lazy_journal_init=0", NULL,
	};

	return fs_make(s, "ext4", opts, msg, len);
}

static const struct layer_kind ext4 = {
	.name = "ext4",
	.what = "ext4 made with mkfs.ext4 -b 4096, mounted",
	.tools = { "mkfs.ext4", "e2fsck", "debugfs" },
	.fs = true,
	.build = ext4_build,
	.teardown = fs_unmount,
};
LAYER_KIND(ext4);
