// SPDX-License-Identifier: GPL-2.0
/* LVM: a volume group over several disks and one linear LV, with lvm2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"
#include "../guest-tests/guest.h"

#define VG "vg0"
#define LV "lv0"

static int lvm_build(struct stack *s, const struct layer *l, char *msg,
		     size_t len)
{
	int n = atoi(layer_get(l, "devices", "2")), i, a = 0;
	const char *pv[STACK_MAX_DISKS + 5], *vg[STACK_MAX_DISKS + 5];
	const char *lv[] = { "lvm", "lvcreate", "-q", "-y", "-l", "100%FREE",
			     "-n", LV, VG, NULL };

	if (n > s->ndisks - s->next_disk) {
		snprintf(msg, len, "lvm wants %d disks, %d are free", n,
			 s->ndisks - s->next_disk);
		return -1;
	}
	/* One lvm binary in the guest: its commands as its first argument. */
	pv[a] = vg[a] = "lvm";
	a++;
	pv[a] = "pvcreate";
	vg[a++] = "vgcreate";
	pv[a] = "-q";
	vg[a++] = "-q";
	pv[a] = "-y";
	vg[a++] = VG;
	for (i = 0; i < n; i++, a++)
		pv[a] = vg[a] = s->disks[s->next_disk + i];
	pv[a] = vg[a] = NULL;
	if (run(pv) || run(vg) || run(lv)) {
		snprintf(msg, len, "pvcreate/vgcreate/lvcreate failed");
		return -1;
	}
	snprintf(s->top, sizeof(s->top), "/dev/%s/%s", VG, LV);
	if (wait_path(s->top, 10)) {
		snprintf(msg, len, "%s did not appear", s->top);
		return -1;
	}
	s->next_disk += n;
	snprintf(msg, len, "%s: linear LV over a VG of %d disks", s->top, n);
	return 0;
}

static int lvm_teardown(struct stack *s, const struct layer *l, char *msg,
			size_t len)
{
	const char *argv[] = { "lvm", "vgchange", "-q", "-a", "n", VG, NULL };

	if (run(argv)) {
		snprintf(msg, len, "vgchange -an %s failed", VG);
		return -1;
	}
	snprintf(msg, len, "%s deactivated", VG);
	return 0;
}

const struct layer_ops lvm_ops = { "lvm", lvm_build, lvm_teardown };
