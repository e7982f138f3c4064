// SPDX-License-Identifier: GPL-2.0
/*
 * swap-bios: dm's cap on swap writes in flight.  dm-crypt and dm-thin
 * allocate memory to write, so under memory pressure each of their
 * swap writes in flight holds memory the writes themselves need; dm
 * caps how many it maps at once (dm_mod's swap_bios, default 2048),
 * and knows a swap write by REQ_SWAP, which __swap_writepage() sets.
 *
 * With swap_bios set to LIMIT, a sampler reads the swap device's
 * in-flight writes (/sys/dev/block/M:m/inflight) all through a swap
 * round trip.  dm counts a write from its mapping to its end, and
 * releases the cap a little before it ends its count, so LIMIT + 1 may
 * show for an instant; more means writes went past the cap (a kernel
 * that drops REQ_SWAP, or a target that loses its limit).  The sampler
 * must have seen a write in flight, or it proved nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "stacktest.h"

#define LIMIT 1
#define SWAP_BIOS "/sys/module/dm_mod/parameters/swap_bios"

struct sampler {
	char path[80];
	bool stop;	/* atomic */
	long long samples;
	long long busy;		/* samples with a write in flight */
	long long over;		/* samples above LIMIT + 1 */
	long long max;
};

static long long inflight_writes(const char *path)
{
	char buf[64];
	long long r, w;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return sscanf(buf, "%lld %lld", &r, &w) == 2 ? w : -1;
}

static void *sample(void *arg)
{
	struct sampler *s = arg;
	long long w;

	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		w = inflight_writes(s->path);
		if (w < 0)
			break;
		s->samples++;
		s->busy += w > 0;
		s->over += w > LIMIT + 1;
		if (w > s->max)
			s->max = w;
		/* A uniprocessor guest: kcryptd and the hog run first. */
		sched_yield();
	}
	return NULL;
}

/* The dm target type of dev's table ("crypt", "thin"), or "" if none. */
static void dm_target(const char *dev, char type[32])
{
	const char *argv[] = { "dmsetup", "table", dev, NULL };
	char out[512];
	long long a, b;

	if (run_out(argv, out, sizeof(out)) ||
	    sscanf(out, "%lld %lld %31s", &a, &b, type) != 3)
		*type = 0;
}

static int test_main(void)
{
	const char *dev = env_or("STACK_SWAPDEV", "");
	struct sampler s = { .max = -1 };
	char type[32], limit[24];
	long long old;
	struct ktap_out k;
	struct stat st;
	pthread_t t;
	int ok, started;

	dm_target(dev, type);
	if (strcmp(type, "crypt") && strcmp(type, "thin"))
		return ktap_skip("%s is no dm-crypt or dm-thin device (%s)",
				 dev, *type ? type : "no dm table");
	if (stat(dev, &st))
		return ktap_skip("%s: %s", dev, strerror(errno));
	old = read_ll(SWAP_BIOS);
	if (old < 1)
		return ktap_skip("%s holds no count", SWAP_BIOS);
	snprintf(s.path, sizeof(s.path), "/sys/dev/block/%u:%u/inflight",
		 major(st.st_rdev), minor(st.st_rdev));
	ktap_begin(&k, 6);
	snprintf(limit, sizeof(limit), "%d", LIMIT);
	ok = !write_str(SWAP_BIOS, limit);
	ktap_result(&k, ok, "dm_mod swap_bios %s (was %lld)", limit, old);
	started = ok && !pthread_create(&t, NULL, sample, &s);
	swap_round_trip(&k, env_seed(), dev, started, 0);
	__atomic_store_n(&s.stop, true, __ATOMIC_RELAXED);
	if (started)
		pthread_join(t, NULL);
	snprintf(limit, sizeof(limit), "%lld", old);
	write_str(SWAP_BIOS, limit);
	ktap_diag("%s (%s): %lld samples, %lld with writes in flight, %lld above %d, at most %lld",
		  dev, type, s.samples, s.busy, s.over, LIMIT + 1, s.max);
	ktap_result(&k, s.busy > 0 && s.over == 0,
		    "swap writes in flight on %s within swap_bios %d (+1 ending)",
		    dev, LIMIT);
	ktap_result(&k, !swap_on(dev), "swapon again");
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "swap-bios",
	.what = "dm maps at most swap_bios swap writes at once on dm-crypt and dm-thin (REQ_SWAP seen)",
	.requires = {
		REQ_ENV("STACK_SWAPDEV"),
		REQ_TOOL("dmsetup"),
		REQ_PATH(SWAP_BIOS),
	},
	.run = test_main,
);
