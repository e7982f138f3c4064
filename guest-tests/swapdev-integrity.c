// SPDX-License-Identifier: GPL-2.0
/*
 * swapdev-integrity: swap straight on a stacked block device.  Pages
 * pushed out must come back intact, swapping must really happen, swapoff
 * must bring everything back; on md, a "check" scrub afterwards must find
 * every mirror or parity consistent (mismatch_cnt 0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#include "guest.h"
#include "hog.h"

/* "/dev/md0" -> "/sys/block/md0/md/ATTR" */
static void md_attr(char *buf, size_t len, const char *dev, const char *attr)
{
	const char *base = strrchr(dev, '/');

	snprintf(buf, len, "/sys/block/%s/md/%s", base ? base + 1 : dev, attr);
}

static int read_word(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok = f && fgets(buf, len, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok ? 0 : -1;
}

/* Start a check scrub and wait (bounded) until md is idle again. */
static int md_scrub(const char *dev, long long *mismatch)
{
	char action[128], state[32] = "";
	double end = mono_s() + 120;

	md_attr(action, sizeof(action), dev, "sync_action");
	if (write_str(action, "check")) {
		ktap_diag("cannot start check on %s: %s", dev, strerror(errno));
		return -1;
	}
	do {
		usleep(50000);
		if (read_word(action, state, sizeof(state)))
			return -1;
	} while (strcmp(state, "idle") && mono_s() < end);
	if (strcmp(state, "idle")) {
		ktap_diag("%s still '%s' after 120s", dev, state);
		return -1;
	}
	md_attr(action, sizeof(action), dev, "mismatch_cnt");
	*mismatch = read_ll(action);
	return 0;
}

int main(void)
{
	const char *dev = env_or("STACK_SWAPDEV", "");
	uint64_t seed = env_seed();
	long long mismatch = -1;
	char path[128];
	struct stat st;
	struct ktap k;
	int ok;

	ktap_begin(&k, 5);
	if (!*dev) {
		ktap_diag("needs a swapdev layer on the stack");
		ktap_result(&k, 0, "stack has a swap device");
		return ktap_end(&k);
	}
	swap_round_trip(&k, seed, dev, 1);
	md_attr(path, sizeof(path), dev, "sync_action");
	if (stat(path, &st)) {
		ktap_result(&k, 1, "md scrub # SKIP %s is not an md array", dev);
	} else {
		ok = !md_scrub(dev, &mismatch) && mismatch == 0;
		ktap_diag("mismatch_cnt %lld after check", mismatch);
		ktap_result(&k, ok, "md check scrub: mirrors consistent");
	}
	ok = !swapon(dev, 0);
	ktap_result(&k, ok, "swapon again");
	return ktap_end(&k);
}
