// SPDX-License-Identifier: GPL-2.0
/*
 * fsync-storm: the flush path through a stacked device.  Several
 * processes append small seeded pieces to their own files on the mounted
 * filesystem and fsync after every one; every fsync commits the journal
 * with a preflush, which md turns into flushes of every member
 * (submit_flushes()).  Afterwards the filesystem is unmounted cleanly,
 * must be clean for its checker (e2fsck, xfs_repair, fsck.f2fs), and after
 * mounting it again each file must read back intact; every member disk's
 * flush counter (field 16 of /sys/block/NAME/stat, "flush I/Os") must
 * have moved.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stacktest.h"


#define NWORKERS 4
#define NWRITES 150
#define MAX_PIECE 6000
#define MAX_DEVS 16

static char dir[160];
static uint64_t seed;

static void file_path(char *buf, size_t len, int w)
{
	snprintf(buf, len, "%s/w%d", dir, w);
}

/* Piece j of worker w: its length, seeded. */
static long long piece_len(int w, int j)
{
	return 1 + pattern_word(seed, 0xfffd, (uint64_t)w << 32 | j) %
		   MAX_PIECE;
}

static int worker(void *arg)
{
	int w = (long)arg, j, fd;
	char path[200], buf[MAX_PIECE];
	long long off = 0, len;

	file_path(path, sizeof(path), w);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (j = 0; j < NWRITES; j++) {
		len = piece_len(w, j);
		pattern_fill(buf, len, seed, 200 + w, off);
		if (pwrite(fd, buf, len, off) != len ||
		    (j % 2 ? fdatasync(fd) : fsync(fd))) {
			fprintf(stderr, "write/fsync %s: %s\n", path,
				strerror(errno));
			close(fd);
			return 1;
		}
		off += len;
	}
	return close(fd) ? 1 : 0;
}

static int verify(int w)
{
	char path[200], *buf;
	long long size = 0, at;
	struct stat st;
	int j, fd, bad = 0;

	for (j = 0; j < NWRITES; j++)
		size += piece_len(w, j);
	file_path(path, sizeof(path), w);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_size != size) {
		ktap_diag("%s: want %lld bytes, have %lld", path, size,
			  fd < 0 ? -1LL : (long long)st.st_size);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	buf = malloc(size);
	if (!buf || pread(fd, buf, size, 0) != size) {
		ktap_diag("read %s: %s", path, strerror(errno));
		bad = -1;
	} else {
		at = pattern_check(buf, size, seed, 200 + w, 0);
		if (at >= 0) {
			ktap_diag("%s: first bad byte at %lld of %lld", path,
				  at, size);
			bad = -1;
		}
	}
	free(buf);
	close(fd);
	return bad;
}

/* Field 16 of /sys/block/NAME/stat (of 17): flush requests completed. */
static long long flushes(const char *name)
{
	char path[96];
	long long v[17];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	for (i = 0; i < 17; i++)
		if (fscanf(f, "%lld", &v[i]) != 1)
			break;
	fclose(f);
	return i == 17 ? v[15] : -1;
}

/* The disks under dev: /sys/block/NAME/slaves, or dev itself. */
static int lower_disks(const char *dev, char names[][32], int max)
{
	char path[96];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/block/%s/slaves", md_name(dev));
	d = opendir(path);
	while (d && (de = readdir(d)) && n < max)
		if (de->d_name[0] != '.')
			snprintf(names[n++], 32, "%.31s", de->d_name);
	if (d)
		closedir(d);
	return n;
}

static int test_main(void)
{
	const char *mnt = env_or("STACK_MNT", "");
	const char *fsdev = env_or("STACK_FSDEV", "");
	const char *fstype = env_or("STACK_FSTYPE", "");
	char names[MAX_DEVS][32];
	long long before[MAX_DEVS], top0, d;
	int pid[NWORKERS], i, n, ok, moved;
	double t0;
	struct ktap_out k;

	ktap_begin(&k, 4);
	seed = env_seed();
	n = lower_disks(fsdev, names, MAX_DEVS);
	if (!*mnt || !n) {
		ktap_diag("needs a mounted filesystem on a stacked device");
		ktap_result(&k, 0, "filesystem on a stacked device");
		return ktap_end(&k);
	}
	snprintf(dir, sizeof(dir), "%s/fsync-storm", mnt);
	mkdir(dir, 0755);
	sync();
	top0 = flushes(md_name(fsdev));
	for (i = 0; i < n; i++)
		before[i] = flushes(names[i]);

	t0 = mono_s();
	for (i = 0; i < NWORKERS; i++)
		pid[i] = spawn(worker, (void *)(long)i);
	ok = 1;
	for (i = 0; i < NWORKERS; i++)
		ok &= reap(pid[i]) == 0;
	ktap_diag("%d workers x %d writes+fsync in %.1fs", NWORKERS, NWRITES,
		  mono_s() - t0);
	ktap_result(&k, ok, "%d processes wrote and fsynced %d pieces each",
		    NWORKERS, NWRITES);

	ok = !umount(mnt) && !fs_check(fsdev, fstype);
	ktap_result(&k, ok, "clean unmount; %s on %s is clean (%s)", fstype,
		    fsdev, fs_checker(fstype));
	ok = !mount_fs(fsdev, mnt, fstype, 0);
	for (i = 0; ok && i < NWORKERS; i++)
		ok &= !verify(i);
	ktap_result(&k, ok, "every file reads back after mounting again");

	/* md passes a flush on as empty preflush writes: for information. */
	ktap_diag("%s itself: %lld flushes counted", md_name(fsdev),
		  flushes(md_name(fsdev)) - top0);

	moved = 1;
	for (i = 0; i < n; i++) {
		d = flushes(names[i]) - before[i];
		ktap_diag("member %s: %lld flushes", names[i], d);
		moved &= before[i] >= 0 && d > 0;
	}
	ktap_result(&k, moved, "every member disk's flush count moved");
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "fsync-storm",
	.what = "concurrent appends with fsync; the filesystem clean and every member flushed",
	.requires = {
		REQ_ENV("STACK_MNT"),
		REQ_ENV("STACK_FSDEV"),
	},
	.run = test_main,
);
