// SPDX-License-Identifier: GPL-2.0
/* A swap file on the filesystem: written in full, mkswap, swapon. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/swap.h>
#include <unistd.h>

#include "stack.h"
#include "../guest-tests/guest.h"

/* Write every block, so the file has real extents (swapon refuses holes). */
static int write_zeros(const char *path, long long size)
{
	static char buf[1 << 20];
	long long done = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	while (done < size) {
		long long n = size - done;

		if (n > (long long)sizeof(buf))
			n = sizeof(buf);

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

/* mkswap and swapon, for a swap file and a swap device alike. */
static int swap_start(const char *path, char *msg, size_t len)
{
	const char *argv[] = { "mkswap", path, NULL };

	if (run(argv)) {
		snprintf(msg, len, "mkswap %s failed", path);
		return -1;
	}
	if (swapon(path, 0)) {
		snprintf(msg, len, "swapon %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int swap_stop(const char *path, char *msg, size_t len)
{
	/* A test may have left it off; EINVAL then means "not active". */
	if (swapoff(path) && errno != EINVAL) {
		snprintf(msg, len, "swapoff %s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(msg, len, "%s off", path);
	return 0;
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
	if (write_zeros(s->swapfile, size)) {
		snprintf(msg, len, "writing %s: %s", s->swapfile,
			 strerror(errno));
		return -1;
	}
	if (swap_start(s->swapfile, msg, len))
		return -1;
	snprintf(msg, len, "%s, %lld MiB, active", s->swapfile, size >> 20);
	return 0;
}

static int swapfile_teardown(struct stack *s, const struct layer *l,
			     char *msg, size_t len)
{
	return swap_stop(s->swapfile, msg, len);
}

const struct layer_ops swapfile_ops = {
	"swapfile", swapfile_build, swapfile_teardown
};

/* A swap device: mkswap and swapon straight on the top block device. */
static int swapdev_build(struct stack *s, const struct layer *l, char *msg,
			 size_t len)
{
	if (stack_lower(s, s->swapdev, sizeof(s->swapdev), msg, len) ||
	    swap_start(s->swapdev, msg, len))
		return -1;
	snprintf(msg, len, "swap device %s, %lld MiB, active", s->swapdev,
		 dev_sectors(s->swapdev) >> 11);
	return 0;
}

static int swapdev_teardown(struct stack *s, const struct layer *l,
			    char *msg, size_t len)
{
	return swap_stop(s->swapdev, msg, len);
}

const struct layer_ops swapdev_ops = {
	"swapdev", swapdev_build, swapdev_teardown
};
