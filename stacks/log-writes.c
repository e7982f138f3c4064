// SPDX-License-Identifier: GPL-2.0
/*
 * log-writes under each member of what comes next: devices=N free disks
 * each become /dev/mapper/lwK, a dm-log-writes device logging every
 * write, flush, FUA and discard in the order it reached stable storage
 * onto a log disk of its own (the next N free disks).  The lwK go back
 * into the pool of free disks, so the next layer (md, lvm, drbd,
 * dm-crypt) takes them as its members.  STACK_LOG_WRITES tells the tests
 * "lw0=DATA:LOG lw1=DATA:LOG ..."; the durability test reads and replays
 * the logs (lib/logwrites.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"

#define MAX_LW 8

static int lw_build(struct stack *s, const struct layer *l, char *msg,
		    size_t len)
{
	int n = s->ntake, i;
	char data[MAX_LW][32], logs[MAX_LW][32], env[MAX_LW * 80] = "";
	char name[16], table[160];
	size_t off = 0;

	for (i = 0; i < n; i++) {
		snprintf(data[i], sizeof(data[i]), "%s", s->disks[s->next_disk + i]);
		snprintf(logs[i], sizeof(logs[i]), "%s",
			 s->disks[s->next_disk + n + i]);
		snprintf(name, sizeof(name), "lw%d", i);
		snprintf(table, sizeof(table), "0 %lld log-writes %s %s\n",
			 dev_sectors(data[i]), data[i], logs[i]);
		if (dm_create(s, name, table, msg, len))
			return -1;
		off += snprintf(env + off, sizeof(env) - off, "%s%s=%s:%s",
				i ? " " : "", name, data[i], logs[i]);
	}
	s->top[0] = 0;	/* the lwK stay in the pool: nothing on top yet */
	/* The logs are taken (the core moves past them), the lwK are free. */
	for (i = 0; i < n; i++) {
		memcpy(s->disks[s->next_disk + i], logs[i], sizeof(logs[i]));
		snprintf(s->disks[s->next_disk + n + i], sizeof(s->disks[0]),
			 "/dev/mapper/lw%d", i);
	}
	setenv("STACK_LOG_WRITES", env, 1);
	snprintf(msg, len, "%d dm-log-writes devices: %s", n, env);
	return 0;
}

static int lw_teardown(struct stack *s, const struct layer *l, char *msg,
		       size_t len)
{
	int n = atoi(layer_get(l, "devices", "2")), i;
	char name[16];

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "lw%d", i);
		if (dm_remove(name, msg, len))
			return -1;
	}
	snprintf(msg, len, "%d dm-log-writes devices removed", n);
	return 0;
}

/* devices=N disks to log, and N log disks after them; N come back. */
static int lw_disks(const struct layer *l, bool below, int free, char *err,
		    size_t len)
{
	int n = atoi(layer_get(l, "devices", "2"));

	if (below || n > MAX_LW || 2 * n > free) {
		snprintf(err, len, "log-writes wants %d free disks (devices=%d, each with a log disk)%s, %d are free",
			 2 * n, n, below ? " and nothing below it" : "", free);
		return -1;
	}
	return n;
}

static const struct layer_kind log_writes = {
	.name = "log-writes",
	.what = "dm-log-writes under each of devices=N free disks, each logged to a disk of its own; the logged devices stay free for the next layer (dmsetup)",
	.keys = {
		{ "devices", 'n', NULL },
	},
	.tools = { "dmsetup" },
	.disks = lw_disks,
	.pool = true,
	.build = lw_build,
	.teardown = lw_teardown,
};
LAYER_KIND(log_writes);
