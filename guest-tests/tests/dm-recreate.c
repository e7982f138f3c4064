// SPDX-License-Identifier: GPL-2.0
/*
 * dm-recreate: what a device-mapper target keeps on disk survives its
 * removal.  With seeded data files written on the filesystem, swap off
 * and the filesystem unmounted, the dm device under it (/dev/mapper/NAME)
 * is removed and created again from its own table; the filesystem must be
 * clean for its checker and the files must read back.  For dm-zoned this
 * is its metadata: the chunk mapping, written back when the target goes.
 *
 * option = recreate-break=primary-sb (dm-zoned with a regular device):
 * between removal and creation one byte of the primary super block (block
 * 0 of the regular device) is changed, so its crc fails.  dm-zoned must
 * find the secondary set, recover the primary from it and load; the
 * primary must hold a valid super block again afterwards.
 *
 * dm-writecache: before the removal its dirty blocks are written back
 * ("dmsetup message NAME 0 flush"; its status must have held blocks in
 * the cache, and none left to write back after), and with the device
 * removed the origin disk alone must hold the filesystem: clean for its
 * checker, every data file read back from it, mounted read-only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dmz-format.h"
#include "stacktest.h"

static const char meta_node[] = "/tmp/dmz-meta";

/*
 * The metadata device of a dm-zoned table "0 SIZE zoned MAJ:MIN MAJ:MIN"
 * (the regular device first) as a node of our own; -1 if the table is
 * not dm-zoned over two devices.
 */
static int zoned_meta_node(const char *table)
{
	unsigned int maj, min, zmaj, zmin;
	const char *p = strstr(table, " zoned ");

	if (!p || sscanf(p, " zoned %u:%u %u:%u", &maj, &min, &zmaj, &zmin) != 4)
		return -1;
	unlink(meta_node);
	return mknod(meta_node, S_IFBLK | 0600, makedev(maj, min));
}

/*
 * The primary super block (block 0 of the metadata device), with one byte
 * of its reserved area changed first if brk: 1 if its crc holds as read
 * back from the device, 0 if not, -1 on error.
 */
static int primary_sb(bool brk)
{
	int fd = open(meta_node, (brk ? O_RDWR : O_RDONLY) | O_DIRECT | O_CLOEXEC);
	unsigned char *blk = NULL;
	int ok = -1;

	if (fd < 0 || posix_memalign((void **)&blk, DMZ_BLOCK_SIZE, DMZ_BLOCK_SIZE) ||
	    pread(fd, blk, DMZ_BLOCK_SIZE, 0) != DMZ_BLOCK_SIZE)
		goto out;
	if (brk) {
		blk[300] ^= 0x5a;
		if (pwrite(fd, blk, DMZ_BLOCK_SIZE, 0) != DMZ_BLOCK_SIZE ||
		    fsync(fd) || pread(fd, blk, DMZ_BLOCK_SIZE, 0) != DMZ_BLOCK_SIZE)
			goto out;
	}
	ok = dmz_sb_crc_ok(blk);
out:
	free(blk);
	if (fd >= 0)
		close(fd);
	return ok;
}

static const char origin_node[] = "/tmp/wc-origin";
#define ORIGIN_MNT "/tmp/wc-origin-mnt"

/* The origin of "0 SIZE writecache s|p MAJ:MIN MAJ:MIN ..." as our node. */
static int wc_origin_node(const char *table)
{
	unsigned int maj, min;
	const char *p = strstr(table, " writecache ");

	if (!p || sscanf(p, " writecache %*c %u:%u", &maj, &min) != 2)
		return -1;
	unlink(origin_node);
	return mknod(origin_node, S_IFBLK | 0600, makedev(maj, min));
}

/* dm-writecache's status: its error flag, blocks, free blocks, writeback. */
static int wc_counts(const char *name, int *err, long long *n,
		     long long *free, long long *wb)
{
	char out[512];

	return dm_status(name, out, sizeof(out)) ||
	       sscanf(out, "%*d %*d writecache %d %lld %lld %lld", err, n, free,
		      wb) != 4 ? -1 : 0;
}

/*
 * Write back every dirty block ("flush" waits for it): the cache must
 * have held at least the data files' blocks, and must hold none after,
 * with no error.
 */
static int wc_flush(const char *name)
{
	const char *msg[] = { "dmsetup", "message", name, "0", "flush", NULL };
	long long n, free0, wb, free1, files = DATAFILES_N * DATAFILES_SIZE / 4096;
	int err;

	if (wc_counts(name, &err, &n, &free0, &wb) || run(msg) ||
	    wc_counts(name, &err, &n, &free1, &wb))
		return -1;
	ktap_diag("writecache: %lld of %lld blocks in use before the flush (the data files: %lld), %lld after, %lld under writeback, error %d",
		  n - free0, n, files, n - free1, wb, err);
	return n - free0 >= files && free1 == n && !wb && !err ? 0 : -1;
}

/* With the writecache removed, the origin disk alone holds every file. */
static int origin_alone(const char *type, uint64_t seed)
{
	int ok;

	mkdir(ORIGIN_MNT, 0755);
	ok = !fs_check(origin_node, type) &&
	     !mount_fs(origin_node, ORIGIN_MNT, type, MS_RDONLY);
	ok = ok && !datafiles_verify(ORIGIN_MNT, seed);
	if (umount(ORIGIN_MNT) && ok)
		ok = 0;
	return ok ? 0 : -1;
}

/* *broken: whether brk broke the primary super block while it was down. */
static int recreate(const char *name, const char *node, int brk, int *broken,
		    int *origin, const char *type, uint64_t seed)
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
	if (!f || fputs(text, f) < 0 || fclose(f))
		return -1;
	if (*origin >= 0)	/* a dm-writecache */
		*origin = !wc_origin_node(text) && !wc_flush(name);
	if (run(rm))
		return -1;
	if (*origin > 0)
		*origin = !origin_alone(type, seed);
	if (brk)
		*broken = !zoned_meta_node(text) && primary_sb(false) == 1 &&
			  primary_sb(true) == 0;
	if (run(create))
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
	int brk = !strcmp(env_or("STACK_OPT_RECREATE_BREAK", ""), "primary-sb");
	struct ktap_out k;
	char st[256] = "";
	int ok, broken = 0, origin, wc;

	dm_status(name ? name + 1 : "", st, sizeof(st));
	wc = strstr(st, " writecache ") != NULL;
	origin = wc ? 0 : -1;
	ktap_begin(&k, 4 + 2 * brk + wc);
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
	ok = !umount(mnt) &&
	     !recreate(name, dev, brk, &broken, &origin, type, seed);
	if (wc)
		ktap_result(&k, ok && origin > 0,
			    "written back and removed: the origin alone holds every file");
	if (brk)
		ktap_result(&k, broken, "primary super block broken (its crc fails) while %s was down",
			    name);
	status(name, "created again");
	ktap_result(&k, ok, "%s removed and created again from its table", name);
	if (brk)
		ktap_result(&k, ok && primary_sb(false) == 1,
			    "dm-zoned recovered the primary super block from the secondary set");
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
