// SPDX-License-Identifier: GPL-2.0
/*
 * The core of the in-guest stack: each layer gets the disks its entry
 * says it takes (layer_disks(), the same function the host checks a
 * topology with), builds, and the finished stack is exported to the
 * tests through the environment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"

int stack_build_layer(struct stack *s, const struct layer *l, char *msg,
		      size_t len)
{
	const struct layer_kind *k = layer_kind(l->kind);
	int n;

	if (!k) {
		snprintf(msg, len, "unknown layer kind %s", l->kind);
		return -1;
	}
	n = layer_disks(l, s->top[0] != 0, s->ndisks - s->next_disk, msg,
			len);
	if (n < 0)
		return -1;
	s->ntake = n;
	if (k->build(s, l, msg, len))
		return -1;
	s->next_disk += n;
	s->ntake = 0;
	return 0;
}

int stack_teardown_layer(struct stack *s, const struct layer *l, char *msg,
			 size_t len)
{
	return layer_kind(l->kind)->teardown(s, l, msg, len);
}

const char *stack_disk(const struct stack *s, int i)
{
	return i < s->ntake ? s->disks[s->next_disk + i] : "";
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
	snprintf(free_disks, sizeof(free_disks), "%d", s->swap_flags);
	setenv("STACK_SWAP_FLAGS", free_disks, 1);
	setenv("STACK_CLONE_SOURCE", s->clone_src, 1);
	setenv("STACK_CLONE_DEST", s->clone_dst, 1);
}

int stack_lower(struct stack *s, char *dev, size_t len, char *msg,
		size_t mlen)
{
	const char *d = s->top[0] ? s->top : stack_disk(s, 0);

	if (!*d) {
		snprintf(msg, mlen, "no device below and no free disk");
		return -1;
	}
	if (d != dev)
		snprintf(dev, len, "%s", d);
	return 0;
}
