// SPDX-License-Identifier: GPL-2.0
/* Filesystems: made with the real mkfs, mounted with mount(2), unmounted. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "stack.h"

#define MNT "/mnt/stack"

/* mkfs.TYPE OPTS... DEV on the device below, then mount it at MNT. */
int fs_make(struct stack *s, const char *type, const char *const *opts,
	    char *msg, size_t len)
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

int fs_unmount(struct stack *s, const struct layer *l, char *msg, size_t len)
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
