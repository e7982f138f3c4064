// SPDX-License-Identifier: GPL-2.0
/*
 * data-integrity: seeded pattern writes through the top of the stack, half
 * with O_DIRECT and half buffered, in a shuffled order of random-sized
 * pieces; then drop caches and read everything back both ways.  A
 * mismatch names the file, offset and expected/actual bytes.
 *
 * With a filesystem on top, the files live in $STACK_MNT/data-integrity;
 * with a bare block device on top, regions of $STACK_TOP are used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stacktest.h"


#define NFILES 8
#define FILE_SIZE (4LL << 20)
#define MAX_PIECE (256 << 10)
#define MAX_PIECES 1024

struct target {
	char path[160];
	long long base;		/* byte offset inside path */
	int direct;		/* written with O_DIRECT */
};

static uint64_t seed;
static uint64_t rng_state;

static uint64_t rnd(void)
{
	return pattern_word(seed, 0xffff, rng_state++);
}

static int open_target(const struct target *t, int flags, int direct)
{
	int fd = open(t->path, flags | (direct ? O_DIRECT : 0) | O_CLOEXEC,
		      0644);

	if (fd < 0)
		ktap_diag("open %s: %s", t->path, strerror(errno));
	return fd;
}

/* Cut [0, FILE_SIZE) into pieces: 4K-aligned for O_DIRECT, any for buffered. */
static int make_pieces(long long *off, int direct)
{
	long long pos = 0;
	int n = 0;

	while (pos < FILE_SIZE) {
		long long len = 1 + rnd() % MAX_PIECE;

		if (direct)
			len = (len + 4095) & ~4095LL;
		if (pos + len > FILE_SIZE || n == MAX_PIECES - 1)
			len = FILE_SIZE - pos;
		off[n++] = pos;
		pos += len;
	}
	off[n] = FILE_SIZE;
	return n;
}

/* Write [o, end) of the pattern, at most MAX_PIECE at a time. */
static int write_piece(int fd, const struct target *t, int stream, char *buf,
		       long long o, long long end)
{
	while (o < end) {
		long long len = end - o < MAX_PIECE ? end - o : MAX_PIECE;

		pattern_fill(buf, len, seed, stream, o);
		if (pwrite(fd, buf, len, t->base + o) != len) {
			ktap_diag("write %s at %lld: %s", t->path, t->base + o,
				  strerror(errno));
			return 1;
		}
		o += len;
	}
	return 0;
}

static int write_target(const struct target *t, int stream, char *buf)
{
	static long long off[MAX_PIECES + 1];
	static int order[MAX_PIECES];
	int n = make_pieces(off, t->direct), i, fd, bad = 0;

	fd = open_target(t, O_WRONLY | O_CREAT, t->direct);
	if (fd < 0)
		return -1;
	/* Write the pieces in a shuffled order (Fisher-Yates). */
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		int j = rnd() % (i + 1), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	for (i = 0; i < n && !bad; i++)
		bad = write_piece(fd, t, stream, buf, off[order[i]],
				  off[order[i] + 1]);
	if (fsync(fd)) {
		ktap_diag("fsync %s: %s", t->path, strerror(errno));
		bad = 1;
	}
	close(fd);
	return bad ? -1 : 0;
}

static int verify_target(const struct target *t, int stream, int direct,
			 char *buf)
{
	long long o, bad_blocks = 0, first = -1;
	int fd = open_target(t, O_RDONLY, direct);

	if (fd < 0)
		return -1;
	for (o = 0; o < FILE_SIZE; o += MAX_PIECE) {
		long long m, len = FILE_SIZE - o < MAX_PIECE ? FILE_SIZE - o :
				   MAX_PIECE;

		if (pread(fd, buf, len, t->base + o) != len) {
			ktap_diag("read %s at %lld: %s", t->path, t->base + o,
				  strerror(errno));
			close(fd);
			return -1;
		}
		m = pattern_check(buf, len, seed, stream, o);
		if (m < 0)
			continue;
		if (first < 0) {
			char want[1];

			first = o + m;
			pattern_fill(want, 1, seed, stream, first);
			ktap_diag("%s: first mismatch at offset %lld: expected 0x%02x, got 0x%02x",
				  t->path, t->base + first,
				  (unsigned char)want[0],
				  (unsigned char)buf[m]);
		}
		for (m = 0; m < len; m += 4096)
			bad_blocks += pattern_check(buf + m, len - m < 4096 ?
						    len - m : 4096, seed,
						    stream, o + m) >= 0;
	}
	close(fd);
	if (bad_blocks)
		ktap_diag("%s: %lld bad 4K blocks of %lld", t->path,
			  bad_blocks, FILE_SIZE / 4096);
	return bad_blocks ? -1 : 0;
}

static int setup_targets(struct target *t)
{
	const char *mnt = getenv("STACK_MNT");
	const char *top = getenv("STACK_TOP");
	int i;

	if (mnt && *mnt) {
		char dir[128];

		snprintf(dir, sizeof(dir), "%s/data-integrity", mnt);
		mkdir(dir, 0755);
		for (i = 0; i < NFILES; i++) {
			snprintf(t[i].path, sizeof(t[i].path), "%s/f%d", dir, i);
			t[i].base = 0;
			t[i].direct = i % 2;
		}
		ktap_diag("files in %s", dir);
		return 0;
	}
	if (!top || !*top) {
		ktap_diag("no STACK_MNT or STACK_TOP: nothing to test");
		return -1;
	}
	for (i = 0; i < NFILES; i++) {
		snprintf(t[i].path, sizeof(t[i].path), "%s", top);
		t[i].base = i * FILE_SIZE;
		t[i].direct = i % 2;
	}
	ktap_diag("regions of %s", top);
	return 0;
}

static int test_main(void)
{
	static struct target t[NFILES];
	struct ktap_out k;
	char *buf;
	int i, bad;

	seed = env_seed();
	if (posix_memalign((void **)&buf, 4096, MAX_PIECE + 4096))
		return 1;
	ktap_begin(&k, 3);
	ktap_diag("seed %llu, %d targets of %lld MiB", (unsigned long long)seed,
		  NFILES, FILE_SIZE >> 20);
	if (setup_targets(t)) {
		ktap_result(&k, 0, "write");
		return ktap_end(&k);
	}
	for (i = 0, bad = 0; i < NFILES; i++)
		bad |= write_target(&t[i], i, buf) != 0;
	ktap_result(&k, !bad, "write (shuffled pieces, O_DIRECT and buffered)");
	drop_caches();
	for (i = 0, bad = 0; i < NFILES; i++)
		bad |= verify_target(&t[i], i, 1, buf) != 0;
	ktap_result(&k, !bad, "read back with O_DIRECT after drop_caches");
	drop_caches();
	for (i = 0, bad = 0; i < NFILES; i++)
		bad |= verify_target(&t[i], i, 0, buf) != 0;
	ktap_result(&k, !bad, "read back buffered after drop_caches");
	free(buf);
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "data-integrity",
	.what = "seeded writes through the top of the stack, read back O_DIRECT and buffered",
	.requires = {
		REQ_ENV("STACK_TOP"),
	},
	.run = test_main,
);
