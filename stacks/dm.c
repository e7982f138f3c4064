// SPDX-License-Identifier: GPL-2.0
/* device-mapper layers built with dmsetup: dm-linear and dm-crypt. */
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "stack.h"
#include "../guest-tests/guest.h"

/*
 * dm-crypt's fixed test key (AES-256-XTS wants 64 bytes): a test suite's
 * key, not a secret.
 */
#define TEST_KEY "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" \
		 "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"

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

static int linear_build(struct stack *s, const struct layer *l, char *msg,
			size_t len)
{
	int n = atoi(layer_get(l, "devices", "2")), i;
	char table[1024];
	long long start = 0;
	size_t off = 0;

	if (n > s->ndisks - s->next_disk) {
		snprintf(msg, len, "dm-linear wants %d disks, %d are free", n,
			 s->ndisks - s->next_disk);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *d = s->disks[s->next_disk + i];
		long long sz = dev_sectors(d);

		off += snprintf(table + off, sizeof(table) - off,
				"%lld %lld linear %s 0\n", start, sz, d);
		start += sz;
	}
	if (dm_create(s, "linear0", table, msg, len))
		return -1;
	s->next_disk += n;
	snprintf(msg, len, "%s: dm-linear over %d disks, %lld MiB", s->top, n,
		 start >> 11);
	return 0;
}

static int linear_teardown(struct stack *s, const struct layer *l, char *msg,
			   size_t len)
{
	return dm_remove("linear0", msg, len);
}

static int crypt_build(struct stack *s, const struct layer *l, char *msg,
		       size_t len)
{
	char table[512], lower[64];
	long long sz;

	if (stack_lower(s, lower, sizeof(lower), msg, len))
		return -1;
	sz = dev_sectors(lower);
	snprintf(table, sizeof(table), "0 %lld crypt aes-xts-plain64 %s 0 %s 0\n",
		 sz, TEST_KEY, lower);
	if (dm_create(s, "crypt0", table, msg, len))
		return -1;
	snprintf(msg, len, "%s: dm-crypt aes-xts-plain64 on %s", s->top, lower);
	return 0;
}

static int crypt_teardown(struct stack *s, const struct layer *l, char *msg,
			  size_t len)
{
	return dm_remove("crypt0", msg, len);
}

const struct layer_ops dm_linear_ops = {
	"dm-linear", linear_build, linear_teardown
};
const struct layer_ops dm_crypt_ops = {
	"dm-crypt", crypt_build, crypt_teardown
};
