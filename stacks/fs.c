// SPDX-License-Identifier: GPL-2.0
/* Filesystems: made with the real mkfs, mounted with mount(2). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "stack.h"
#include "../guest-tests/guest.h"

#define MNT "/mnt/stack"

static int ext4_build(struct stack *s, const struct layer *l, char *msg,
		      size_t len)
{
	/*
	 * 4K blocks as on any real system (mke2fs would pick 1K for a
	 * "small" filesystem); inode tables and journal initialised now, so
	 * no lazyinit thread writes behind the tests' backs.
	 */
	const char *argv[] = { "mkfs.ext4", "-F", "-q", "-b", "4096", "-E",
			       "lazy_itable_init=0,lazy_journal_init=0",
			       s->top, NULL };

	if (stack_lower(s, s->top, sizeof(s->top), msg, len))
		return -1;
	if (run(argv)) {
		snprintf(msg, len, "mkfs.ext4 %s failed", s->top);
		return -1;
	}
	mkdir(MNT, 0755);
	if (mount_fs(s->top, MNT, "ext4", 0)) {
		snprintf(msg, len, "mount %s: %s", s->top, strerror(errno));
		return -1;
	}
	snprintf(s->fsdev, sizeof(s->fsdev), "%s", s->top);
	snprintf(s->fstype, sizeof(s->fstype), "ext4");
	snprintf(s->mnt, sizeof(s->mnt), MNT);
	snprintf(msg, len, "ext4 on %s at %s", s->top, MNT);
	return 0;
}

static int ext4_teardown(struct stack *s, const struct layer *l, char *msg,
			 size_t len)
{
	(void)l;
	if (umount(s->mnt)) {
		snprintf(msg, len, "umount %s: %s", s->mnt, strerror(errno));
		return -1;
	}
	snprintf(msg, len, "%s unmounted", s->mnt);
	s->mnt[0] = 0;
	return 0;
}

const struct layer_ops ext4_ops = { "ext4", ext4_build, ext4_teardown };

static int xfs_build(struct stack *s, const struct layer *l, char *msg,
		     size_t len)
{
	const char *argv[] = { "mkfs.xfs", "-f", "-q", s->top, NULL };

	if (stack_lower(s, s->top, sizeof(s->top), msg, len))
		return -1;
	if (run(argv)) {
		snprintf(msg, len, "mkfs.xfs %s failed", s->top);
		return -1;
	}
	mkdir(MNT, 0755);
	if (mount_fs(s->top, MNT, "xfs", 0)) {
		snprintf(msg, len, "mount %s: %s", s->top, strerror(errno));
		return -1;
	}
	snprintf(s->fsdev, sizeof(s->fsdev), "%s", s->top);
	snprintf(s->fstype, sizeof(s->fstype), "xfs");
	snprintf(s->mnt, sizeof(s->mnt), MNT);
	snprintf(msg, len, "xfs on %s at %s", s->top, MNT);
	return 0;
}

/* Unmounting is the same for every filesystem. */
const struct layer_ops xfs_ops = { "xfs", xfs_build, ext4_teardown };
