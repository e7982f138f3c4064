// SPDX-License-Identifier: GPL-2.0
/*
 * dm-integrity under each of devices=N free disks, with dmsetup: crc32c
 * tags of 4 bytes, "0 SIZE integrity DISK 0 4 J|D 1 internal_hash:crc32c"
 * (dm-integrity.c dm_integrity_ctr).  Each disk becomes /dev/mapper/intK
 * and goes back into the pool of free disks for the next layer (md) to
 * take as its members: the bit-rot stack, where a sector that no longer
 * matches its tag reads as an error and md rewrites it from a mirror.
 *
 * The kernel writes the super block itself on a zeroed disk; a first
 * table of 8 sectors does that and reports the data sectors the disk
 * provides (dmsetup status), the second is that size.  Then every sector
 * is written once (zeroes, as integritysetup format wipes), so that each
 * has a valid tag before md's resync reads it.  journal=no (mode D)
 * writes data in place: a block the tests look for on the raw disk is
 * then there once.  STACK_INTEGRITY tells the tests "int0=/dev/vda ...".
 * Not integritysetup: it would bring libcryptsetup and OpenSSL's
 * libcrypto (7 MB) into every guest's RAM.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stack.h"

#define MAX_INT 8
#define WIPE (1 << 20)

static int table(struct stack *s, const char *name, const char *dev,
		 long long sectors, bool journal, char *msg, size_t len)
{
	char t[192];

	snprintf(t, sizeof(t), "0 %lld integrity %s 0 4 %c 1 internal_hash:crc32c\n",
		 sectors, dev, journal ? 'J' : 'D');
	return dm_create(s, name, t, msg, len);
}

/* The data sectors dm-integrity provides on dev: "0 8 integrity 0 N -". */
static long long provided(const char *name)
{
	const char *argv[] = { "dmsetup", "status", name, NULL };
	char out[256];
	long long n;

	if (run_out(argv, out, sizeof(out)) ||
	    sscanf(out, "%*d %*d integrity %*d %lld", &n) != 1)
		return -1;
	return n;
}

/* Write zeroes over the first sectors of node, once, synced. */
static int wipe(const char *node, long long sectors)
{
	void *buf = NULL;
	long long off, size = sectors * 512;
	int fd = open(node, O_WRONLY | O_DIRECT | O_CLOEXEC), ok = fd >= 0;

	ok = ok && !posix_memalign(&buf, 4096, WIPE);
	if (ok)
		memset(buf, 0, WIPE);
	for (off = 0; ok && off < size; off += WIPE) {
		long long n = size - off < WIPE ? size - off : WIPE;

		progress_note("dm-integrity: %s: %lld of %lld MiB written",
			      node, off >> 20, size >> 20);
		ok = pwrite(fd, buf, n, off) == n;
	}
	ok = ok && !fsync(fd);
	free(buf);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int make_one(struct stack *s, const char *dev, const char *name,
		    bool journal, char *msg, size_t len)
{
	char node[32];
	long long n;

	snprintf(node, sizeof(node), "/dev/mapper/%s", name);
	/* A zeroed first 4 KiB: the kernel writes its super block there. */
	if (wipe(dev, 8)) {
		snprintf(msg, len, "zeroing %s's first 4 KiB: failed", dev);
		return -1;
	}
	if (table(s, name, dev, 8, journal, msg, len))
		return -1;
	n = provided(name);
	if (dm_remove(name, msg, len))
		return -1;
	if (n <= 0) {
		snprintf(msg, len, "dm-integrity on %s: no data size in dmsetup status",
			 dev);
		return -1;
	}
	if (table(s, name, dev, n, journal, msg, len))
		return -1;
	/* Every sector written once, so each gets its tag. */
	if (wipe(node, n)) {
		snprintf(msg, len, "writing %s once: failed", node);
		return -1;
	}
	return 0;
}

static int int_build(struct stack *s, const struct layer *l, char *msg,
		     size_t len)
{
	int n = atoi(layer_get(l, "devices", "2")), i;
	bool journal = strcmp(layer_get(l, "journal", "yes"), "no");
	char name[16], env[MAX_INT * 48] = "";
	size_t off = 0;

	for (i = 0; i < n; i++) {
		const char *dev = s->disks[s->next_disk + i];

		snprintf(name, sizeof(name), "int%d", i);
		if (make_one(s, dev, name, journal, msg, len))
			return -1;
		off += snprintf(env + off, sizeof(env) - off, "%s%s=%s",
				i ? " " : "", name, dev);
	}
	setenv("STACK_INTEGRITY", env, 1);
	s->top[0] = 0;	/* the intK stay in the pool: nothing on top yet */
	/* Each disk's place in the pool goes to its intK. */
	for (i = 0; i < n; i++)
		snprintf(s->disks[s->next_disk + i], sizeof(s->disks[0]),
			 "/dev/mapper/int%d", i);
	snprintf(msg, len, "%d dm-integrity devices (crc32c, %s): %s", n,
		 journal ? "journal" : "no journal", env);
	return 0;
}

static int int_teardown(struct stack *s, const struct layer *l, char *msg,
			size_t len)
{
	int n = atoi(layer_get(l, "devices", "2")), i;
	char name[16];

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "int%d", i);
		if (dm_remove(name, msg, len))
			return -1;
	}
	snprintf(msg, len, "%d dm-integrity devices removed", n);
	return 0;
}

static int int_disks(const struct layer *l, bool below, int free, char *err,
		     size_t len)
{
	int n = atoi(layer_get(l, "devices", "2"));

	if (below || n < 1 || n > MAX_INT || n > free) {
		snprintf(err, len, "dm-integrity wants %d free disks (devices=%d)%s, %d are free",
			 n, n, below ? " and nothing below it" : "", free);
		return -1;
	}
	return 0;	/* none taken: each is replaced by its intK */
}

static const struct layer_kind dm_integrity = {
	.name = "dm-integrity",
	.what = "dm-integrity (crc32c) under each of devices=N free disks; the devices stay free for the next layer (dmsetup)",
	.keys = {
		{ "devices", 'n', NULL },
		{ "journal", 'e', "yes|no" },
	},
	.tools = { "dmsetup" },
	.disks = int_disks,
	.pool = true,
	.build = int_build,
	.teardown = int_teardown,
};
LAYER_KIND(dm_integrity);
