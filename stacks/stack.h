/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-guest stack builders.  Each layer kind has the same shape: build on
 * top of the current stack with the real tool, tear down in reverse.
 */
#ifndef STACKS_STACK_H
#define STACKS_STACK_H

#include <stddef.h>
#include "spec.h"

#define STACK_MAX_DISKS 16

struct stack {
	char disks[STACK_MAX_DISKS][32];	/* raw disks, bottom pool */
	int ndisks;
	int next_disk;		/* first disk no layer has taken yet */
	char top[64];		/* the block device at the top, if any */
	char fsdev[64];		/* device holding the filesystem */
	char fstype[16];
	char mnt[64];		/* where the filesystem is mounted */
	char swapfile[128];
	char swapdev[64];	/* a swap device (no filesystem) */
	int nmd;		/* md arrays created: /dev/md0 .. */
	char clone_src[32], clone_dst[32];	/* dm-clone's disks */
};

struct layer_ops {
	const char *kind;
	int (*build)(struct stack *s, const struct layer *l, char *msg,
		     size_t len);
	int (*teardown)(struct stack *s, const struct layer *l, char *msg,
			size_t len);
};

extern const struct layer_ops md_ops, ext4_ops, xfs_ops, f2fs_ops, dm_clone_ops, swapfile_ops, swapdev_ops,
	dm_linear_ops, dm_crypt_ops, lvm_ops, brd_ops, zram_ops, dm_zoned_ops,
	drbd_ops;
/* dmsetup create NAME from TABLE (the node becomes the top); remove. */
int dm_create(struct stack *s, const char *name, const char *table,
	      char *msg, size_t len);
int dm_remove(const char *name, char *msg, size_t len);
const struct layer_ops *stack_ops(const char *kind);
/* Export the stack to tests as STACK_TOP, STACK_FSDEV, STACK_MNT, ... */
void stack_export(const struct stack *s);
/* The device a layer goes on: the stack's top, else the next free disk. */
int stack_lower(struct stack *s, char *dev, size_t len, char *msg,
		size_t mlen);
/* Size of a block device in 512-byte sectors, -1 on error. */
long long dev_sectors(const char *dev);
/* Wait until path exists (devices appear asynchronously); 0 when it did. */
int wait_path(const char *path, double seconds);

#endif
