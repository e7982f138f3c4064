// SPDX-License-Identifier: GPL-2.0
/* device-mapper with dmsetup: what every dm layer kind uses. */
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "stack.h"

long long dev_sectors(const char *dev)
{
	unsigned long long bytes = 0;
	int fd = open(dev, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ioctl(fd, BLKGETSIZE64, &bytes))
		bytes = 0;
	close(fd);
	return bytes / 512;
}

/* dmsetup create NAME TABLE_FILE; the node is /dev/mapper/NAME. */
int dm_create(struct stack *s, const char *name, const char *table,
	      char *msg, size_t len)
{
	char path[64], node[64];
	const char *argv[] = { "dmsetup", "create", "--noudevsync", name, path,
			       NULL };
	const char *mk[] = { "dmsetup", "mknodes", name, NULL };
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/%s.table", name);
	snprintf(node, sizeof(node), "/dev/mapper/%s", name);
	f = fopen(path, "w");
	if (!f || fputs(table, f) < 0 || fclose(f)) {
		snprintf(msg, len, "cannot write %s", path);
		return -1;
	}
	fprintf(stderr, "dm table %s:\n%s", name, table);
	if (run(argv)) {
		snprintf(msg, len, "dmsetup create %s failed", name);
		return -1;
	}
	if (access(node, F_OK))
		run(mk);
	if (wait_path(node, 10)) {
		snprintf(msg, len, "%s did not appear", node);
		return -1;
	}
	snprintf(s->top, sizeof(s->top), "%s", node);
	return 0;
}

int dm_remove(const char *name, char *msg, size_t len)
{
	const char *argv[] = { "dmsetup", "remove", "--noudevsync", name, NULL };

	if (run(argv)) {
		snprintf(msg, len, "dmsetup remove %s failed", name);
		return -1;
	}
	snprintf(msg, len, "%s removed", name);
	return 0;
}
