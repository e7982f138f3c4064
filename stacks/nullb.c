// SPDX-License-Identifier: GPL-2.0
/*
 * null_blk, memory backed, made through configfs (the driver is built in;
 * its boot-time nullb0 stores nothing and is left alone): zoned=1 gives a
 * host-managed zoned device, a second zoned backend beside QEMU's NVMe
 * ZNS namespace, zoned by the kernel's own emulation (null_blk/zoned.c).
 * The device goes into the pool of free disks, after the disks already
 * there, for the next layer (dm-zoned) to take.  Its data lives in the
 * guest's RAM, outside any memory cgroup: swap above it is pushed out by
 * a memory cgroup's limit (the hog's), so that global memory, which the
 * device grows into, stays free.  Not MADV_PAGEOUT: a device that
 * completes writes later (dm-zoned's worker) leaves the pages in the
 * swap cache, and nothing would come back from the device.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stack.h"

#define CFS "/sys/kernel/config"
#define NAME "nullz0"
#define DIR CFS "/nullb/" NAME

static int attr(const char *name, const char *val, char *msg, size_t len)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), DIR "/%s", name);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%s\n", val) < 0 || fclose(f)) {
		snprintf(msg, len, "null_blk: cannot set %s=%s: %s", name, val,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static int nullb_build(struct stack *s, const struct layer *l, char *msg,
		       size_t len)
{
	char mib[24], zmib[24];

	if (s->ndisks == STACK_MAX_DISKS) {
		snprintf(msg, len, "null_blk: no room for another disk");
		return -1;
	}
	if (access(CFS "/nullb", F_OK) &&
	    mount("configfs", CFS, "configfs", 0, NULL)) {
		snprintf(msg, len, "mount configfs: %s", strerror(errno));
		return -1;
	}
	if (mkdir(DIR, 0755)) {
		snprintf(msg, len, "mkdir %s: %s", DIR, strerror(errno));
		return -1;
	}
	snprintf(mib, sizeof(mib), "%lld",
		 parse_size(layer_get(l, "size", "256M")) >> 20);
	snprintf(zmib, sizeof(zmib), "%lld",
		 parse_size(layer_get(l, "zone-size", "16M")) >> 20);
	if (attr("size", mib, msg, len) ||
	    attr("blocksize", "4096", msg, len) ||
	    attr("memory_backed", "1", msg, len) ||
	    attr("zoned", layer_get(l, "zoned", "1"), msg, len) ||
	    attr("zone_size", zmib, msg, len) ||
	    attr("zone_nr_conv", layer_get(l, "conv", "0"), msg, len) ||
	    attr("power", "1", msg, len))
		return -1;
	if (wait_path("/dev/" NAME, 5)) {
		snprintf(msg, len, "/dev/%s did not appear", NAME);
		return -1;
	}
	/* Into the pool after the free disks already there. */
	snprintf(s->disks[s->ndisks++], sizeof(s->disks[0]), "/dev/" NAME);
	snprintf(msg, len, "/dev/%s: null_blk, memory backed, %s MiB, zoned=%s (%s MiB zones, %s conventional)",
		 NAME, mib, layer_get(l, "zoned", "1"), zmib,
		 layer_get(l, "conv", "0"));
	return 0;
}

static int nullb_teardown(struct stack *s, const struct layer *l, char *msg,
			  size_t len)
{
	if (attr("power", "0", msg, len))
		return -1;
	if (rmdir(DIR)) {
		snprintf(msg, len, "rmdir %s: %s", DIR, strerror(errno));
		return -1;
	}
	snprintf(msg, len, "/dev/%s removed", NAME);
	return 0;
}

static const struct layer_kind nullb = {
	.name = "nullb",
	.what = "null_blk, memory backed, made through configfs (zoned by default): a disk put into the pool",
	.keys = {
		{ "size", 's', NULL },
		{ "zone-size", 's', NULL },
		{ "zoned", 'e', "0|1" },
		{ "conv", 'n', NULL },
	},
	.disks = layer_disks_none,
	.pool = true,
	.makes_disk = true,
	.swap_pressure = "memcg",
	.build = nullb_build,
	.teardown = nullb_teardown,
};
LAYER_KIND(nullb);
