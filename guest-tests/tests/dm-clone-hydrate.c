// SPDX-License-Identifier: GPL-2.0
/*
 * dm-clone-hydrate: the clone reads as its source before hydration;
 * seeded 4K writes go to the clone before and while hydration runs
 * (enabled by message); when every region is hydrated, the clone and the
 * destination disk read alone both hold the source with exactly those
 * writes, and the source disk is untouched.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "stacktest.h"


#define NAME "clone0"
#define DEV "/dev/mapper/" NAME
#define BLK 4096
#define CHUNK (1 << 20)
#define K 64			/* writes before hydration, as many during */
#define HYDRATE_S 300

static uint64_t seed;
static long long nblocks;
static long long written[2 * K];
static int nwritten;

static int was_written(long long b)
{
	int j;

	for (j = 0; j < nwritten; j++)
		if (written[j] == b)
			return 1;
	return 0;
}

/* The source is stream 7; the writes to the clone are stream 8. */
static uint64_t source_stream(long long b)
{
	return 7;
}

static uint64_t written_stream(long long b)
{
	return was_written(b) ? 8 : 7;
}

/* Compare a whole device with the source pattern (+ the writes if any). */
static int verify_dev(const char *dev, int with_writes)
{
	int fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	long long bad = pattern_verify_fd(fd, nblocks * BLK, seed,
					  with_writes ? written_stream :
					  source_stream, dev);

	if (fd >= 0)
		close(fd);
	return bad ? -1 : 0;
}

static int write_blocks(int n, char *buf)
{
	int fd = open(DEV, O_WRONLY | O_DIRECT | O_CLOEXEC), i, bad = fd < 0;
	uint64_t i0 = nwritten;

	for (i = 0; !bad && i < n; i++) {
		long long b = pattern_word(seed, 9, i0 + i) % nblocks;

		pattern_fill(buf, BLK, seed, 8, b * BLK);
		bad = pwrite(fd, buf, BLK, b * BLK) != BLK;
		if (!was_written(b))
			written[nwritten++] = b;
	}
	bad = bad || fdatasync(fd);
	if (fd >= 0)
		close(fd);
	return bad ? -1 : 0;
}

/* "<hydrated>/<total>" from dmsetup status. */
static int hydration(long long *done, long long *total)
{
	char out[512], *p;
	int field = 0;

	if (dm_status(NAME, out, sizeof(out)))
		return -1;
	/* 0 LEN clone MDBLK USED/TOTAL REGION HYDRATED/TOTAL HYDRATING ... */
	for (p = strtok(out, " "); p; p = strtok(NULL, " "))
		if (++field == 7)
			return sscanf(p, "%lld/%lld", done, total) == 2 ? 0 : -1;
	return -1;
}

static int wait_hydrated(void)
{
	long long done = 0, total = -1;
	double t0 = mono_s();

	progress_wait("hydration", HYDRATE_S);
	while (!hydration(&done, &total) && done < total) {
		if (mono_s() - t0 > scaled(HYDRATE_S)) {
			ktap_diag("timeout after %d s: %lld of %lld regions hydrated",
				  HYDRATE_S, done, total);
			progress_end();
			return -1;
		}
		progress_note("%lld of %lld regions hydrated", done, total);
		usleep(100000);
	}
	progress_end();
	ktap_diag("hydrated %lld/%lld regions in %.1fs", done, total,
		  mono_s() - t0);
	return total > 0 && done == total ? 0 : -1;
}

static int test_main(void)
{
	const char *src = env_or("STACK_CLONE_SOURCE", "");
	const char *dst = env_or("STACK_CLONE_DEST", "");
	const char *enable[] = { "dmsetup", "message", NAME, "0",
				 "enable_hydration", NULL };
	unsigned long long bytes = 0;
	long long done, total;
	struct ktap_out k;
	char *buf;
	int fd, ok;

	seed = env_seed();
	ktap_begin(&k, 6);
	fd = open(DEV, O_RDONLY | O_CLOEXEC);
	if (!*src || fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes) ||
	    posix_memalign((void **)&buf, BLK, CHUNK)) {
		ktap_diag("needs the dm-clone layer (%s)", DEV);
		ktap_result(&k, 0, "dm-clone on the stack");
		return ktap_end(&k);
	}
	close(fd);
	nblocks = bytes / BLK;
	ok = !hydration(&done, &total) && done == 0;
	ktap_result(&k, ok && !verify_dev(DEV, 0),
		    "before hydration the clone reads as its source (%lld MiB)",
		    nblocks * BLK >> 20);
	ktap_result(&k, !write_blocks(K, buf), "%d seeded 4K writes to the clone", K);
	ok = !run(enable) && !write_blocks(K, buf) && !hydration(&done, &total);
	ktap_diag("writes while hydrating: %lld/%lld regions hydrated after them",
		  done, total);
	ktap_result(&k, ok, "hydration enabled; %d more writes during it", K);
	ktap_result(&k, !wait_hydrated(), "every region hydrated");
	ktap_result(&k, !verify_dev(DEV, 1) && !verify_dev(dst, 1),
		    "the clone and the destination disk alone hold the source plus the %d written blocks",
		    nwritten);
	ktap_result(&k, !verify_dev(src, 0), "the source disk is untouched");
	free(buf);
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "dm-clone-hydrate",
	.what = "dm-clone: writes before and during hydration; the destination alone holds source + writes",
	.requires = {
		REQ_LAYER("dm-clone"),
		REQ_TOOL("dmsetup"),
		REQ_ENV("STACK_CLONE_SOURCE"),
	},
	.run = test_main,
);
