// SPDX-License-Identifier: GPL-2.0
/* A swap file on the filesystem below: written in full, mkswap, swapon. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "stack.h"

/*
 * Write every block, so the file has real extents (swapon refuses holes).
 * On btrfs the file must be NOCOW, set while it is still empty.
 */
static int write_zeros(const char *path, long long size, bool nocow)
{
	static char buf[1 << 20];
	long long done = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int flags = 0;

	if (fd < 0)
		return -1;
	if (nocow && !ioctl(fd, FS_IOC_GETFLAGS, &flags))
		flags |= FS_NOCOW_FL;
	if (nocow && (!(flags & FS_NOCOW_FL) ||
		      ioctl(fd, FS_IOC_SETFLAGS, &flags))) {
		close(fd);
		return -1;
	}
	while (done < size) {
		long long n = size - done;

		if (n > (long long)sizeof(buf))
			n = sizeof(buf);
		progress_note("swap file: %lld of %lld MiB written", done >> 20,
			      size >> 20);
		if (write(fd, buf, n) != n)
			break;
		done += n;
	}
	if (done < size || fsync(fd)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int swapfile_build(struct stack *s, const struct layer *l, char *msg,
			  size_t len)
{
	long long size = parse_size(layer_get(l, "size", "64M"));

	if (!s->mnt[0]) {
		snprintf(msg, len, "swapfile needs a mounted filesystem below");
		return -1;
	}
	snprintf(s->swapfile, sizeof(s->swapfile), "%s/swapfile", s->mnt);
	if (write_zeros(s->swapfile, size, !strcmp(s->fstype, "btrfs"))) {
		snprintf(msg, len, "writing %s: %s", s->swapfile,
			 strerror(errno));
		return -1;
	}
	if (swap_start(s, l, s->swapfile, msg, len))
		return -1;
	snprintf(msg + strlen(msg), len - strlen(msg), "%s%s, %lld MiB, active",
		 *msg ? "; " : "", s->swapfile, size >> 20);
	return 0;
}

static int swapfile_teardown(struct stack *s, const struct layer *l,
			     char *msg, size_t len)
{
	return swap_stop(s->swapfile, msg, len);
}

static const struct layer_kind swapfile = {
	.name = "swapfile",
	.what = "swap file written (not sparse) on the filesystem",
	.keys = {
		{ "size", 's', NULL },
		{ "discard", 'e', "none|once|pages|both" },
	},
	.tools = { "mkswap" },
	.disks = layer_disks_none,
	.needs_fs = true,
	.build = swapfile_build,
	.teardown = swapfile_teardown,
};
LAYER_KIND(swapfile);

