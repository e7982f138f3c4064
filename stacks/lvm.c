// SPDX-License-Identifier: GPL-2.0
/*
 * LVM with lvm2: a volume group over the device below (a stack of
 * stacks: LVM on md) or over free disks, and one LV in it: linear, a thin
 * volume in a thin pool (dm-thin; lvm runs thin_check on activation), or
 * a raid1 LV (dm-raid).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"

#define VG "vg0"
#define LV "lv0"
#define POOL "pool0"

/*
 * The PVs, given to every lvm command as --devices: lvm looks at nothing
 * else, so a PV seen twice (a disk and the log-writes device on it, both
 * with the PV label) is no duplicate to refuse.
 */
static char devices[STACK_MAX_DISKS * 40];

/* lvm COMMAND --devices PVS ARGS... */
static int lvm_run(const char *const argv[])
{
	const char *v[32];
	int i, a = 0;

	for (i = 0; argv[i] && a < 29; i++) {
		v[a++] = argv[i];
		if (i == 1 && devices[0]) {
			v[a++] = "--devices";
			v[a++] = devices;
		}
	}
	v[a] = NULL;
	return run(v);
}

/* pvcreate or vgcreate over the PVs: the top of the stack, or n disks. */
static int vg_create(struct stack *s, int n, char *desc, size_t dlen)
{
	const char *pv[STACK_MAX_DISKS + 5], *vg[STACK_MAX_DISKS + 5];
	int i, a = 0;

	/* One lvm binary in the guest: its commands as its first argument. */
	pv[a] = vg[a] = "lvm";
	a++;
	pv[a] = "pvcreate";
	vg[a++] = "vgcreate";
	pv[a] = "-q";
	vg[a++] = "-q";
	pv[a] = "-y";
	vg[a++] = VG;
	if (s->top[0]) {
		pv[a] = vg[a] = s->top;
		a++;
		snprintf(desc, dlen, "a VG on %s", s->top);
	} else {
		for (i = 0; i < n; i++, a++)
			pv[a] = vg[a] = stack_disk(s, i);
		snprintf(desc, dlen, "a VG of %d disks", n);
	}
	pv[a] = vg[a] = NULL;
	devices[0] = 0;
	for (i = 4; pv[i]; i++)
		snprintf(devices + strlen(devices), sizeof(devices) - strlen(devices),
			 "%s%s", i > 4 ? "," : "", pv[i]);
	return lvm_run(pv) || lvm_run(vg) ? -1 : 0;
}

static int lv_create(const char *type)
{
	const char *linear[] = { "lvm", "lvcreate", "-q", "-y", "-l", "100%FREE",
				 "-n", LV, VG, NULL };
	const char *pool[] = { "lvm", "lvcreate", "-q", "-y", "--type",
			       "thin-pool", "-l", "90%FREE", "-n", POOL, VG, NULL };
	/* Over-provisioned on purpose: thin allocation on demand. */
	const char *thin[] = { "lvm", "lvcreate", "-q", "-y", "--type", "thin",
			       "-V", "1G", "-n", LV, VG "/" POOL, NULL };
	const char *raid1[] = { "lvm", "lvcreate", "-q", "-y", "--type",
				"raid1", "-m", "1", "--nosync", "-l",
				"100%FREE", "-n", LV, VG, NULL };

	if (!strcmp(type, "thin"))
		return lvm_run(pool) || lvm_run(thin) ? -1 : 0;
	if (!strcmp(type, "raid1"))
		return lvm_run(raid1) ? -1 : 0;
	return lvm_run(linear) ? -1 : 0;
}

static int lvm_build(struct stack *s, const struct layer *l, char *msg,
		     size_t len)
{
	const char *type = layer_get(l, "type", "linear");
	char desc[96];

	if (vg_create(s, s->ntake, desc, sizeof(desc)) || lv_create(type)) {
		snprintf(msg, len, "pvcreate/vgcreate/lvcreate (%s) failed", type);
		return -1;
	}
	snprintf(s->top, sizeof(s->top), "/dev/%s/%s", VG, LV);
	if (wait_path(s->top, 10)) {
		snprintf(msg, len, "%s did not appear", s->top);
		return -1;
	}
	snprintf(msg, len, "%s: %s LV in %s", s->top, type, desc);
	return 0;
}

static int lvm_teardown(struct stack *s, const struct layer *l, char *msg,
			size_t len)
{
	const char *argv[] = { "lvm", "vgchange", "-q", "-a", "n", VG, NULL };

	if (lvm_run(argv)) {
		snprintf(msg, len, "vgchange -an %s failed", VG);
		return -1;
	}
	snprintf(msg, len, "%s deactivated", VG);
	return 0;
}

/* The device below as its one PV, else devices=N free disks (default 2). */
static int lvm_disks(const struct layer *l, bool below, int free, char *err,
		     size_t len)
{
	int n = atoi(layer_get(l, "devices", "2"));

	if (below)
		return 0;
	if (n > free) {
		snprintf(err, len, "lvm wants %d disks, %d are free", n, free);
		return -1;
	}
	return n;
}

static const struct layer_kind lvm = {
	.name = "lvm",
	.what = "LVM volume group over the device below or over disks, one LV: linear, thin (in a thin pool) or raid1 (lvm2)",
	.keys = {
		{ "devices", 'n', NULL },
		{ "type", 'e', "linear|thin|raid1" },
	},
	.tools = { "lvm", "thin_check" },
	.disks = lvm_disks,
	.build = lvm_build,
	.teardown = lvm_teardown,
};
LAYER_KIND(lvm);
