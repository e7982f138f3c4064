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

/* mkfs.TYPE OPTS... DEV on the device below, then mount it at MNT. */
static int make_fs(struct stack *s, const char *type,
		   const char *const *opts, char *msg, size_t len)
{
	const char *argv[16];
	char mkfs[32];
	int a = 0;

	if (stack_lower(s, s->top, sizeof(s->top), msg, len))
		return -1;
	snprintf(mkfs, sizeof(mkfs), "mkfs.%s", type);
	argv[a++] = mkfs;
	while (*opts && a < 14)
		argv[a++] = *opts++;
	argv[a++] = s->top;
	argv[a] = NULL;
	if (run(argv)) {
		snprintf(msg, len, "%s %s failed", mkfs, s->top);
		return -1;
	}
	mkdir(MNT, 0755);
	if (mount_fs(s->top, MNT, type, 0)) {
		snprintf(msg, len, "mount %s: %s", s->top, strerror(errno));
		return -1;
	}
	snprintf(s->fsdev, sizeof(s->fsdev), "%s", s->top);
	snprintf(s->fstype, sizeof(s->fstype), "%s", type);
	snprintf(s->mnt, sizeof(s->mnt), MNT);
	snprintf(msg, len, "%s on %s at %s", type, s->top, MNT);
	return 0;
}

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

	return make_fs(s, "ext4", opts, msg, len);
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
	static const char *const opts[] = { "-f", "-q", NULL };

	return make_fs(s, "xfs", opts, msg, len);
}

/* Unmounting is the same for every filesystem. */
const struct layer_ops xfs_ops = { "xfs", xfs_build, ext4_teardown };

/* f2fs: the series' bio allocation change touched its __bio_alloc(). */
static int f2fs_build(struct stack *s, const struct layer *l, char *msg,
		      size_t len)
{
	static const char *const opts[] = { "-f", "-q", NULL };

	return make_fs(s, "f2fs", opts, msg, len);
}

const struct layer_ops f2fs_ops = { "f2fs", f2fs_build, ext4_teardown };
