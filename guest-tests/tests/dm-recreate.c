// SPDX-License-Identifier: GPL-2.0
/*
 * dm-recreate: what a device-mapper target keeps on disk survives its
 * removal.  With seeded data files written on the filesystem, swap off
 * and the filesystem unmounted, the dm device under it (/dev/mapper/NAME)
 * is removed and created again from its own table; the filesystem must be
 * clean for its checker and the files must read back.  For dm-zoned this
 * is its metadata: the chunk mapping, written back when the target goes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/swap.h>
#include <unistd.h>

#include "stacktest.h"


static int recreate(const char *name, const char *node)
{
	const char *table[] = { "dmsetup", "table", "--showkeys", name, NULL };
	const char *rm[] = { "dmsetup", "remove", "--noudevsync", name, NULL };
	char text[4096], path[96];
	const char *create[] = { "dmsetup", "create", "--noudevsync", name,
				 path, NULL };
	const char *mk[] = { "dmsetup", "mknodes", name, NULL };
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/%s.recreate", name);
	if (run_out(table, text, sizeof(text)) || !*text)
		return -1;
	ktap_diag("table: %.*s", (int)strcspn(text, "\n"), text);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || run(rm) || run(create))
		return -1;
	if (access(node, F_OK))
		run(mk);
	return access(node, F_OK);
}

static void status(const char *name, const char *when)
{
	char out[512];

	if (!dm_status(name, out, sizeof(out)))
		ktap_diag("%s: %s", when, out);
}

static int test_main(void)
{
	const char *mnt = env_or("STACK_MNT", ""), *dev = env_or("STACK_FSDEV", "");
	const char *type = env_or("STACK_FSTYPE", ""), *swap = env_or("STACK_SWAPFILE", "");
	const char *name = strrchr(dev, '/');
	uint64_t seed = env_seed();
	struct ktap_out k;
	int ok;

	ktap_begin(&k, 4);
	if (!*mnt || strncmp(dev, "/dev/mapper/", 12)) {
		ktap_diag("needs a filesystem straight on a dm device (have '%s')", dev);
		ktap_result(&k, 0, "filesystem on /dev/mapper/NAME");
		return ktap_end(&k);
	}
	name++;
	ktap_result(&k, !datafiles_write(mnt, seed), "%d data files written on %s",
		    DATAFILES_N, dev);
	if (*swap && swapoff(swap))
		ktap_diag("swapoff %s: %s", swap, strerror(errno));
	status(name, "before removal");
	ok = !umount(mnt) && !recreate(name, dev);
	status(name, "created again");
	ktap_result(&k, ok, "%s removed and created again from its table", name);
	ktap_result(&k, ok && !fs_check(dev, type), "%s is clean (%s)", type,
		    fs_checker(type));
	ok = ok && !mount_fs(dev, mnt, type, 0) && !datafiles_verify(mnt, seed);
	ktap_result(&k, ok, "the data files read back");
	/* Leave the stack as it was built. */
	if (*swap && swap_on(swap))
		ktap_diag("swapon %s: %s", swap, strerror(errno));
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "dm-recreate",
	.what = "the dm device under a filesystem removed and created again from its table",
	.requires = {
		REQ_ENV("STACK_MNT"),
		REQ_TOOL("dmsetup"),
	},
	.run = test_main,
);
