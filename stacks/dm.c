// SPDX-License-Identifier: GPL-2.0
/* device-mapper with dmsetup: what every dm layer kind uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stack.h"

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

/* "dm-crypt" -> "crypt": the target a dm layer kind's devices have. */
static const char *dm_target(const char *kind)
{
	return strncmp(kind, "dm-", 3) ? "linear" : kind + 3;
}

/*
 * The dm devices whose (first) target is kind's, from `dmsetup table`:
 * "crypt0: 0 393216 crypt ...".  Their names in names; how many.
 */
static int dm_devices(const char *kind, char names[][32], int max)
{
	const char *argv[] = { "dmsetup", "table", NULL };
	static char out[16384];
	char *line, *save = NULL, name[32], target[32];
	int n = 0;

	if (run_out(argv, out, sizeof(out)))
		return 0;
	for (line = strtok_r(out, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%31[^:]: %*s %*s %31s", name, target) != 2 ||
		    strcmp(target, dm_target(kind)))
			continue;
		if (n && !strcmp(names[n - 1], name))
			continue;
		snprintf(names[n++], 32, "%s", name);
	}
	return n;
}

/* One of kind's devices and a hold time (ms): "crypt0 120". */
int dm_op_pick(const char *kind, uint64_t r, char *args, size_t len)
{
	char names[8][32];
	int n = dm_devices(kind, names, 8);

	if (!n)
		return -1;
	snprintf(args, len, "%s %d", names[r % n], (int)((r >> 8) % 200));
	return 0;
}

static int dmsetup(const char *cmd, const char *name, const char *arg,
		   char *msg, size_t len)
{
	const char *argv[] = { "dmsetup", cmd, "--noudevsync", name, arg, NULL };
	int tries = strcmp(cmd, "resume") ? 1 : 3;

	/* A resume that fails would leave the walk's I/O blocked for good. */
	while (tries--)
		if (!run(argv))
			return 0;
	snprintf(msg, len, "dmsetup %s %s failed", cmd, name);
	return -1;
}

/* Suspend (I/O queues, a filesystem above freezes), hold, resume. */
int dm_op_suspend(const char *kind, const char *args, char *msg, size_t len)
{
	char name[32];
	int ms;

	if (sscanf(args, "%31s %d", name, &ms) != 2 || ms < 0 || ms > 1000)
		return 1;
	if (dmsetup("suspend", name, NULL, msg, len))
		return -1;
	usleep(ms * 1000);	/* the hold is the operation, not a wait */
	return dmsetup("resume", name, NULL, msg, len);
}

/*
 * Load the live table again (with its key, for dm-crypt) and switch to
 * it: the target is constructed anew under whatever I/O is running.
 */
int dm_op_reload(const char *kind, const char *args, char *msg, size_t len)
{
	const char *show[] = { "dmsetup", "table", "--showkeys", NULL, NULL };
	char name[32], path[64], table[4096];
	FILE *f;
	int ms;

	if (sscanf(args, "%31s %d", name, &ms) != 2 || ms < 0 || ms > 1000)
		return 1;
	show[3] = name;
	if (run_out(show, table, sizeof(table))) {
		snprintf(msg, len, "dmsetup table %s failed", name);
		return 1;
	}
	snprintf(path, sizeof(path), "/tmp/%s.reload", name);
	f = fopen(path, "w");
	if (!f || fputs(table, f) < 0 || fclose(f)) {
		snprintf(msg, len, "cannot write %s", path);
		return -1;
	}
	if (dmsetup("reload", name, path, msg, len))
		return -1;
	usleep(ms * 1000);	/* the inactive table waits, on purpose */
	return dmsetup("resume", name, NULL, msg, len);
}

/* Every device of the kind resumed (a walk cut short may leave one suspended). */
int dm_settle(const char *kind, char *msg, size_t len)
{
	char names[8][32];
	int n = dm_devices(kind, names, 8), i;

	for (i = 0; i < n; i++)
		if (dmsetup("resume", names[i], NULL, msg, len))
			return -1;
	snprintf(msg, len, "%d %s device(s) live", n, kind);
	return 0;
}
