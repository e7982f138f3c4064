/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-guest stack builders.  Each layer kind (layer.h) builds on top of
 * the current stack with the real tool and tears down in reverse; the
 * core (stack.c) hands each layer the disks its entry says it takes and
 * exports the finished stack to the tests.
 */
#ifndef STACKS_STACK_H
#define STACKS_STACK_H

#include <stddef.h>
#include "layer.h"
#include "stacktest.h"

#define STACK_MAX_DISKS 16

struct stack {
	char disks[STACK_MAX_DISKS][32];	/* raw disks, bottom pool */
	int ndisks;
	int next_disk;		/* the first disk the building layer takes */
	int ntake;		/* how many it takes (layer_disks()) */
	char top[64];		/* the block device at the top, if any */
	char fsdev[64];		/* device holding the filesystem */
	char fstype[16];
	char mnt[64];		/* where the filesystem is mounted */
	char swapfile[128];
	char swapdev[64];	/* a swap device (no filesystem) */
	int swap_flags;		/* swapon(2) flags: the discard mode */
	int nmd;		/* md arrays created: /dev/md0 .. */
	char clone_src[32], clone_dst[32];	/* dm-clone's disks */
};

/* Build one layer on s (its disks taken from the pool); 0 on success. */
int stack_build_layer(struct stack *s, const struct layer *l, char *msg,
		      size_t len);
int stack_teardown_layer(struct stack *s, const struct layer *l, char *msg,
			 size_t len);
/* Export the stack to tests as STACK_TOP, STACK_FSDEV, STACK_MNT, ... */
void stack_export(const struct stack *s);
/*
 * The device a layer goes on: the stack's top, else the disk it takes.
 * Copies it into dev (unless dev is s->top).
 */
int stack_lower(struct stack *s, char *dev, size_t len, char *msg,
		size_t mlen);
/* Free disk i of those the building layer takes. */
const char *stack_disk(const struct stack *s, int i);

/*
 * device-mapper (dm.c): dmsetup create NAME from TABLE (its node becomes
 * the top); dmsetup remove NAME.
 */
int dm_create(struct stack *s, const char *name, const char *table,
	      char *msg, size_t len);
int dm_remove(const char *name, char *msg, size_t len);
/* A walk's dm operations (layer_op): suspend/resume, reload the live table. */
int dm_op_pick(const char *kind, uint64_t r, char *args, size_t len);
int dm_op_suspend(const char *kind, const char *args, char *msg, size_t len);
int dm_op_reload(const char *kind, const char *args, char *msg, size_t len);
int dm_settle(const char *kind, char *msg, size_t len);
#define DM_OP_SUSPEND { "suspend", dm_op_pick, dm_op_suspend, false }
#define DM_OP_RELOAD { "reload", dm_op_pick, dm_op_reload, false }

/* Filesystems (fs.c): mkfs.TYPE OPTS on the device below, mounted. */
int fs_make(struct stack *s, const char *type, const char *const *opts,
	    char *msg, size_t len);
int fs_unmount(struct stack *s, const struct layer *l, char *msg, size_t len);

/*
 * Swap (swap.c): mkswap and swapon with the layer's discard=none|once|
 * pages|both as s->swap_flags; swapoff.
 */
int swap_start(struct stack *s, const struct layer *l, const char *path,
	       char *msg, size_t len);
int swap_stop(const char *path, char *msg, size_t len);

#endif
