// SPDX-License-Identifier: GPL-2.0
/* Swap on the stack, what swapfile and swapdev share: mkswap, swapon, swapoff. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/swap.h>
#include <unistd.h>

#include "stack.h"

/* mkswap and swapon, for a swap file and a swap device alike. */
int swap_start(const char *path, char *msg, size_t len)
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
