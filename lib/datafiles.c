// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stacktest.h"

static void data_path(char *p, size_t n, const char *mnt, int i)
{
	snprintf(p, n, "%s/" DATAFILES_DIR "/d%02d", mnt, i);
}

int datafiles_write(const char *mnt, uint64_t seed)
{
	char p[160], *buf = malloc(DATAFILES_SIZE);
	int i, fd, bad = !buf;

	snprintf(p, sizeof(p), "%s/" DATAFILES_DIR, mnt);
	mkdir(p, 0755);
	for (i = 0; i < DATAFILES_N && !bad; i++) {
		data_path(p, sizeof(p), mnt, i);
		pattern_fill(buf, DATAFILES_SIZE, seed, 100 + i, 0);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, buf, DATAFILES_SIZE) != DATAFILES_SIZE ||
		    fsync(fd)) {
			ktap_diag("writing %s: %s", p, strerror(errno));
			bad = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	free(buf);
	return bad;
}

int datafiles_verify(const char *mnt, uint64_t seed)
{
	char p[160], *buf = malloc(DATAFILES_SIZE);
	long long m;
	int i, fd, bad = 0;

	for (i = 0; buf && i < DATAFILES_N; i++) {
		data_path(p, sizeof(p), mnt, i);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, buf, DATAFILES_SIZE) != DATAFILES_SIZE) {
			ktap_diag("reading %s: %s", p, strerror(errno));
			bad++;
		} else {
			m = pattern_check(buf, DATAFILES_SIZE, seed, 100 + i, 0);
			if (m >= 0) {
				ktap_diag("%s changed: first difference at offset %lld",
					  p, m);
				bad++;
			}
		}
		if (fd >= 0)
			close(fd);
	}
	if (bad)
		ktap_diag("%d of %d data files changed or unreadable", bad,
			  DATAFILES_N);
	free(buf);
	return buf ? bad : DATAFILES_N;
}

const char *fs_checker(const char *fstype)
{
	return !strcmp(fstype, "ext4") ? "e2fsck -fn" :
	       !strcmp(fstype, "xfs") ? "xfs_repair -n" :
	       !strcmp(fstype, "f2fs") ? "fsck.f2fs -f --dry-run" :
	       !strcmp(fstype, "btrfs") ? "btrfs check --readonly" : "no checker";
}

int fs_check(const char *dev, const char *fstype)
{
	const char *e2[] = { "e2fsck", "-fn", dev, NULL };
	const char *xfs[] = { "xfs_repair", "-n", dev, NULL };
	const char *f2fs[] = { "fsck.f2fs", "-f", "--dry-run", dev, NULL };
	const char *btrfs[] = { "btrfs", "check", "--readonly", dev, NULL };
	const char **argv = !strcmp(fstype, "ext4") ? e2 :
			    !strcmp(fstype, "xfs") ? xfs :
			    !strcmp(fstype, "f2fs") ? f2fs :
			    !strcmp(fstype, "btrfs") ? btrfs : NULL;
	char out[8192], *line, *save;
	int rc, shown = 0;

	if (!argv) {
		ktap_diag("no checker for %s", fstype);
		return -1;
	}
	rc = run_out(argv, out, sizeof(out));
	if (!rc)
		return 0;
	ktap_diag("%s %s exited %d:", fs_checker(fstype), dev, rc);
	for (line = strtok_r(out, "\n", &save); line && shown < 12;
	     line = strtok_r(NULL, "\n", &save), shown++)
		ktap_diag("  %s", line);
	return -1;
}
