// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stack.h"
#include "../guest-tests/guest.h"

static const struct layer_ops *const all_ops[] = {
	&md_ops, &dm_linear_ops, &dm_crypt_ops, &dm_clone_ops, &dm_zoned_ops, &lvm_ops,
	&brd_ops, &zram_ops, &drbd_ops,
	&ext4_ops, &xfs_ops, &f2fs_ops, &swapfile_ops, &swapdev_ops,
};

const struct layer_ops *stack_ops(const char *kind)
{
	size_t i;

	for (i = 0; i < sizeof(all_ops) / sizeof(all_ops[0]); i++)
		if (!strcmp(all_ops[i]->kind, kind))
			return all_ops[i];
	return NULL;
}

void stack_export(const struct stack *s)
{
	char free_disks[STACK_MAX_DISKS * 33] = "";
	size_t off = 0;
	int i;

	/* Disks no layer took: spares for tests that grow or rebuild. */
	for (i = s->next_disk; i < s->ndisks; i++)
		off += snprintf(free_disks + off, sizeof(free_disks) - off,
				"%s%s", off ? " " : "", s->disks[i]);
	setenv("STACK_FREE_DISKS", free_disks, 1);
	setenv("STACK_TOP", s->top, 1);
	setenv("STACK_FSDEV", s->fsdev, 1);
	setenv("STACK_FSTYPE", s->fstype, 1);
	setenv("STACK_MNT", s->mnt, 1);
	setenv("STACK_SWAPFILE", s->swapfile, 1);
	setenv("STACK_SWAPDEV", s->swapdev, 1);
	setenv("STACK_CLONE_SOURCE", s->clone_src, 1);
	setenv("STACK_CLONE_DEST", s->clone_dst, 1);
}

int stack_lower(struct stack *s, char *dev, size_t len, char *msg,
		size_t mlen)
{
	if (s->top[0]) {
		if (dev != s->top)
			snprintf(dev, len, "%s", s->top);
		return 0;
	}
	if (s->next_disk == s->ndisks) {
		snprintf(msg, mlen, "no device below and no free disk");
		return -1;
	}
	snprintf(dev, len, "%s", s->disks[s->next_disk++]);
	return 0;
}

int wait_path(const char *path, double seconds)
{
	double end = mono_s() + seconds;

	while (access(path, F_OK)) {
		if (mono_s() > end)
			return -1;
		usleep(10000);
	}
	return 0;
}
