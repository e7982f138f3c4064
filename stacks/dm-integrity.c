// SPDX-License-Identifier: GPL-2.0
/*
 * dm-integrity under each of devices=N free disks: formatted and opened
 * with integritysetup (crc32c tags, journal), each becomes
 * /dev/mapper/intK and goes back into the pool of free disks for the
 * next layer (md) to take as its members: the bit-rot stack, where a
 * sector that no longer matches its tag reads as an error and md
 * rewrites it from a mirror.  The format wipes the device, so every
 * sector has a valid tag before md's resync reads it.  journal=no
 * (--integrity-no-journal) writes data in place: a block the tests look
 * for on the raw disk is then there once.  STACK_INTEGRITY tells the
 * tests "int0=/dev/vda int1=/dev/vdb".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"

#define MAX_INT 8

static int integritysetup(const char *op, const char *dev, const char *name,
			  bool journal)
{
	const char *nj = journal ? NULL : "--integrity-no-journal";
	const char *fmt[] = { "integritysetup", "format", "--batch-mode", dev,
			      nj, NULL };
	const char *opn[] = { "integritysetup", "open", dev, name, nj, NULL };
	const char *cls[] = { "integritysetup", "close", name, NULL };
	int rc;

	/* No udev in the guest: libdevmapper must not wait for it. */
	setenv("DM_DISABLE_UDEV", "1", 1);
	rc = run(op[0] == 'f' ? fmt : op[0] == 'o' ? opn : cls);
	unsetenv("DM_DISABLE_UDEV");
	return rc;
}

static int int_build(struct stack *s, const struct layer *l, char *msg,
		     size_t len)
{
	int n = atoi(layer_get(l, "devices", "2")), i;
	bool journal = strcmp(layer_get(l, "journal", "yes"), "no");
	char name[16], node[32], env[MAX_INT * 48] = "";
	size_t off = 0;

	for (i = 0; i < n; i++) {
		const char *dev = s->disks[s->next_disk + i];

		snprintf(name, sizeof(name), "int%d", i);
		snprintf(node, sizeof(node), "/dev/mapper/%s", name);
		if (integritysetup("format", dev, NULL, journal) ||
		    integritysetup("open", dev, name, journal) ||
		    wait_path(node, 10)) {
			snprintf(msg, len, "integritysetup format/open %s as %s failed",
				 dev, name);
			return -1;
		}
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
		if (integritysetup("close", NULL, name, true)) {
			snprintf(msg, len, "integritysetup close %s failed", name);
			return -1;
		}
	}
	snprintf(msg, len, "%d dm-integrity devices closed", n);
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
	.what = "dm-integrity under each of devices=N free disks (integritysetup, crc32c); the devices stay free for the next layer",
	.keys = {
		{ "devices", 'n', NULL },
		{ "journal", 'e', "yes|no" },
	},
	.tools = { "integritysetup" },
	.disks = int_disks,
	.pool = true,
	.build = int_build,
	.teardown = int_teardown,
};
LAYER_KIND(dm_integrity);
