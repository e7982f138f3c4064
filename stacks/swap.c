// SPDX-License-Identifier: GPL-2.0
/* Swap on the stack, what swapfile and swapdev share: mkswap, swapon, swapoff. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "stack.h"

#ifndef SWAP_FLAG_DISCARD_ONCE
#define SWAP_FLAG_DISCARD_ONCE 0x20000
#endif
#ifndef SWAP_FLAG_DISCARD_PAGES
#define SWAP_FLAG_DISCARD_PAGES 0x40000
#endif

/* swapon(2) flags for discard=none|once|pages|both (swapon --discard). */
static int discard_flags(const char *mode)
{
	if (!strcmp(mode, "once"))
		return SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_ONCE;
	if (!strcmp(mode, "pages"))
		return SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_PAGES;
	if (!strcmp(mode, "both"))
		return SWAP_FLAG_DISCARD;
	return 0;
}

/*
 * The block device holding path (the device itself, or the filesystem's)
 * as "MAJ:MIN" for /sys/dev/block; -1 when it cannot be told.
 */
static int holder(const char *path, char *out, size_t len)
{
	struct stat st;
	dev_t d;

	if (stat(path, &st))
		return -1;
	d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	snprintf(out, len, "%u:%u", major(d), minor(d));
	return 0;
}

/* Sectors discarded on a device so far (field 14 of its stat). */
static long long discarded(const char *majmin)
{
	char path[96];
	long long f[14] = { 0 };
	FILE *fp;
	int i;

	snprintf(path, sizeof(path), "/sys/dev/block/%s/stat", majmin);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	for (i = 0; i < 14 && fscanf(fp, "%lld", &f[i]) == 1; i++)
		;
	fclose(fp);
	return i == 14 ? f[13] : -1;
}

/*
 * With discard once or both, swapon discards the whole swap area: check
 * that the device below saw discards, so the mode is not silently off.
 */
static int swapon_discard(const char *path, int flags, const char *mode,
			  char *msg, size_t len)
{
	char dev[24], path_max[96];
	long long before, after;

	if (holder(path, dev, sizeof(dev)))
		return -1;
	snprintf(path_max, sizeof(path_max),
		 "/sys/dev/block/%s/queue/discard_max_bytes", dev);
	if (read_ll(path_max) <= 0) {
		snprintf(msg, len, "discard=%s, but %s is 0: the device takes no discards",
			 mode, path_max);
		return -1;
	}
	before = discarded(dev);
	if (swapon(path, flags)) {
		snprintf(msg, len, "swapon %s (discard=%s): %s", path, mode,
			 strerror(errno));
		return -1;
	}
	after = discarded(dev);
	if ((flags & SWAP_FLAG_DISCARD_PAGES) || after > before) {
		snprintf(msg, len, "discard=%s: %lld MiB discarded at swapon",
			 mode, (after - before) >> 11);
		return 0;
	}
	snprintf(msg, len, "swapon %s with discard=%s discarded nothing on %s",
		 path, mode, dev);
	swapoff(path);	/* the layer failed: leave nothing on */
	return -1;
}

int swap_start(struct stack *s, const struct layer *l, const char *path,
	       char *msg, size_t len)
{
	const char *argv[] = { "mkswap", path, NULL };
	const char *mode = layer_get(l, "discard", "none");

	s->swap_flags = discard_flags(mode);
	msg[0] = 0;
	if (run(argv)) {
		snprintf(msg, len, "mkswap %s failed", path);
		return -1;
	}
	if (s->swap_flags)
		return swapon_discard(path, s->swap_flags, mode, msg, len);
	if (swapon(path, 0)) {
		snprintf(msg, len, "swapon %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int swap_stop(const char *path, char *msg, size_t len)
{
	/* A test may have left it off; EINVAL then means "not active". */
	if (swapoff(path) && errno != EINVAL) {
		snprintf(msg, len, "swapoff %s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(msg, len, "%s off", path);
	return 0;
}
