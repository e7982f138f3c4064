// SPDX-License-Identifier: GPL-2.0
/*
 * durability: every write a durability call acknowledged must be on
 * stable storage of every member that got it, checked on a record of
 * what each member received (the log-writes layer: dm-log-writes under
 * each member logs writes in the order they reached stable storage; a
 * write is logged only once a flush covering it completed, FUA writes at
 * once).
 *
 * A seeded workload of durability calls on the top of the stack: on a
 * filesystem, writes to files then fsync, fdatasync, sync_file_range +
 * fsync, O_DSYNC writes, O_DIRECT writes + fsync; on a raw stacked
 * device (no journal, so no FUA: md must forward the flush itself) the
 * same calls on the device.  After each call returns, each member's log
 * gets a mark "call-N" (by ioctl, at once), then the member alone is
 * flushed (fsync of its log-writes device).  Nothing else writes meanwhile (periodic writeback
 * is off), so:
 *
 * Oracle 1 (ordering): a write logged between a member's mark "call-N"
 * and the flush after it completed before call N returned and was not on
 * stable storage when it returned: a violation, named by member, sectors
 * and call.
 *
 * Oracle 2 (power cut): at seeded calls, each member's log is replayed up
 * to that call's mark onto a zeroed spare disk (our replay, lib/
 * logwrites.c): what a power cut right after the call leaves.  The stack
 * is assembled again from the replayed members (md, dm-crypt, LVM, the
 * DRBD backing disk), the filesystem mounted (journal recovery) and
 * checked with its checker, md's mirrors and parity scrubbed, and every
 * byte the workload was told is durable compared; missing data names
 * the call, the file or device and the offset.
 *
 * Oracle 3 (md's super block): on a member of an md array, md's own
 * writes of its super block during the workload reach the member, each
 * FUA and right after a flush (md_super_write(): REQ_PREFLUSH |
 * REQ_FUA).  After a power cut md trusts the super block's events count
 * and state: it must be stable when written, and not before the writes
 * it follows.  (A super block md never wrote, or wrote without the flush
 * or FUA, passes oracles 1 and 2: they judge the workload's bytes.)
 * dm-log-writes logs a plain write only just before the flush that
 * covers it, so "after a flush" holds for any FUA write here: what this
 * oracle can see is a super block written without FUA, or never.
 *
 * Oracle 3 can see a missing flush only where writes are left unflushed
 * when md writes its super block; the workload flushes after every call.
 * So on md, after call 0: a mark "unflushed" (no flush), UNFLUSHED
 * O_DIRECT writes with no fsync beside the workload's region (the array
 * goes active), the array marked clean, and once every member's super
 * block on disk says so, a mark "clean" and a flush.  Oracle 4: md
 * writes a super block saying active (resync_offset 0) before a write
 * goes on, and flushes before one saying clean (not 0), so no plain write
 * is logged while the latest super block logged says clean; one that is
 * (at the flush after mark "clean") was still volatile when the super
 * block called the array clean, and a power cut there leaves mirrors
 * that differ with no resync to mend them.  (The arrays have no journal:
 * with one, an active super block says MaxSector too.)
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "stacktest.h"

#define BLK 4096
#define NCALLS 16
#define NFILES 4
#define FILE_BLOCKS 64		/* 256 KiB a file */
#define RAW_BLOCKS 4096		/* the first 16 MiB of a raw device */
#define MAX_PIECE 32		/* blocks a call writes, at most */
#define MAX_MEMBERS 8
#define NPOINTS 3
#define REPLICA_MNT "/mnt/replica"
#define MD_SB_MAGIC 0xa92b4efc	/* md's v1.x super block */
#define MD_SB_BYTE 4096		/* v1.2: 4 KiB into the member */
#define MD_SB_RESYNC 208	/* struct mdp_superblock_1's resync_offset */
#define UNFLUSHED 8		/* oracle 4's writes, of a block each */

enum op { OP_FSYNC, OP_FDATASYNC, OP_DSYNC, OP_RANGE, OP_DIRECT, NOPS };

static const char *const op_name[] = {
	"write + fsync", "write + fdatasync", "O_DSYNC write",
	"sync_file_range + fsync", "O_DIRECT write + fsync",
};

struct member {
	char name[16], data[32], log[32], replay[32];
};

struct call {
	enum op op;
	int file;		/* fs: which file; raw: -1 */
	long long blk, nblk;	/* blocks of the file or the device */
};

static struct member mem[MAX_MEMBERS];
static int nmem;
static struct call calls[NCALLS + 1];	/* [0]: the files' first write */
static uint64_t seed, rng;
static const char *mnt, *top, *fstype;

static uint64_t rnd(void)
{
	return pattern_word(seed, 0xd0d0, rng++);
}

/* Pattern stream and offset of block b of the file or device. */
static uint64_t stream_of(int c, int file)
{
	return 0x1000 + (uint64_t)c * 16 + (file < 0 ? 15 : file);
}

static int parse_members(void)
{
	char lw[MAX_MEMBERS * 80], spare[MAX_MEMBERS * 40], *w, *save;
	int n;

	snprintf(lw, sizeof(lw), "%s", env_or("STACK_LOG_WRITES", ""));
	snprintf(spare, sizeof(spare), "%s", env_or("STACK_FREE_DISKS", ""));
	for (w = strtok_r(lw, " ", &save); w && nmem < MAX_MEMBERS;
	     w = strtok_r(NULL, " ", &save)) {
		struct member *m = &mem[nmem++];

		if (sscanf(w, "%15[^=]=%31[^:]:%31s", m->name, m->data,
			   m->log) != 3)
			return -1;
	}
	for (n = 0, w = strtok_r(spare, " ", &save); w && n < nmem;
	     w = strtok_r(NULL, " ", &save), n++)
		snprintf(mem[n].replay, sizeof(mem[n].replay), "%s", w);
	if (!nmem || n < nmem) {
		ktap_diag("%d logged members, %d spare disks to replay onto",
			  nmem, n);
		return -1;
	}
	return 0;
}

/* Each member alone flushed (fsync of its log-writes device). */
static int flush_all(void)
{
	char dev[48];
	int i, fd, bad = 0;

	for (i = 0; i < nmem; i++) {
		snprintf(dev, sizeof(dev), "/dev/mapper/%.15s", mem[i].name);
		fd = open(dev, O_RDONLY | O_CLOEXEC);
		bad |= fd < 0 || fsync(fd);
		if (fd >= 0)
			close(fd);
	}
	return bad ? -1 : 0;
}

/*
 * "mark LABEL" to a member's dm-log-writes target, by the device-mapper
 * ioctl dmsetup itself uses (DM_TARGET_MSG): no fork and exec between a
 * call's return and its mark, so nothing else gets to write in between.
 */
static int dm_mark(const char *name, const char *label)
{
	struct {
		struct dm_ioctl io;
		struct dm_target_msg msg;
		char text[96];
	} m;
	int fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.io.version[0] = DM_VERSION_MAJOR;
	m.io.data_size = sizeof(m);
	m.io.data_start = offsetof(typeof(m), msg);
	snprintf(m.io.name, sizeof(m.io.name), "%s", name);
	snprintf(m.text, sizeof(m.text), "mark %s", label);
	rc = ioctl(fd, DM_TARGET_MSG, &m);
	if (rc)
		ktap_diag("%s: mark %s: %s", name, label, strerror(errno));
	close(fd);
	return rc ? -1 : 0;
}

/* A mark in every member's log, then each member flushed. */
static int mark_all(const char *label)
{
	int i, bad = 0;

	for (i = 0; i < nmem; i++)
		bad |= dm_mark(mem[i].name, label);
	return bad || flush_all() ? -1 : 0;
}

static void file_path(char *p, size_t n, const char *root, int f)
{
	snprintf(p, n, "%.100s/durability/f%d", root, f);
}

/* Write a call's blocks and make them durable its way; 0 when it returned. */
static int do_call(int c, char *buf)
{
	const struct call *k = &calls[c];
	int flags = O_WRONLY | O_CLOEXEC, fd, rc = 0;
	long long off = k->blk * BLK, len = k->nblk * BLK;
	char path[160];

	if (k->op == OP_DSYNC)
		flags |= O_DSYNC;
	if (k->op == OP_DIRECT)
		flags |= O_DIRECT;
	if (k->file >= 0)
		file_path(path, sizeof(path), mnt, k->file);
	else
		snprintf(path, sizeof(path), "%s", top);
	fd = open(path, flags | (c ? 0 : O_CREAT), 0644);
	if (fd < 0) {
		ktap_diag("call %d: open %s: %s", c, path, strerror(errno));
		return -1;
	}
	pattern_fill(buf, len, seed, stream_of(c, k->file), off);
	if (pwrite(fd, buf, len, off) != len)
		rc = -1;
	else if (k->op == OP_FDATASYNC)
		rc = fdatasync(fd);
	else if (k->op == OP_RANGE)
		rc = sync_file_range(fd, off, len, SYNC_FILE_RANGE_WAIT_BEFORE |
				     SYNC_FILE_RANGE_WRITE |
				     SYNC_FILE_RANGE_WAIT_AFTER) || fsync(fd);
	else if (k->op != OP_DSYNC)
		rc = fsync(fd);
	if (rc)
		ktap_diag("call %d (%s) on %s: %s", c, op_name[k->op], path,
			  strerror(errno));
	close(fd);
	return rc ? -1 : 0;
}

/* The files, written whole and made durable with their directory. */
static int setup_files(char *buf)
{
	char dir[160];
	int f, fd, bad = 0;

	snprintf(dir, sizeof(dir), "%s/durability", mnt);
	mkdir(dir, 0755);
	for (f = 0; f < NFILES && !bad; f++) {
		calls[0] = (struct call){ OP_FSYNC, f, 0, FILE_BLOCKS };
		bad = do_call(0, buf);
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bad |= fd < 0 || fsync(fd);
	if (fd >= 0)
		close(fd);
	calls[0].file = -2;	/* every file, whole */
	return bad ? -1 : 0;
}

static void plan_calls(void)
{
	int c;

	for (c = 1; c <= NCALLS; c++) {
		struct call *k = &calls[c];
		long long span = mnt ? FILE_BLOCKS : RAW_BLOCKS;

		k->op = rnd() % NOPS;
		k->file = mnt ? (int)(rnd() % NFILES) : -1;
		k->nblk = 1 + rnd() % MAX_PIECE;
		k->blk = rnd() % (span - k->nblk + 1);
	}
}

/* The call that last wrote block b of file f (-1: the device) by call p. */
static int owner(int f, long long b, int p)
{
	int c, who = -1;

	for (c = 0; c <= p; c++)
		if ((calls[c].file == f || (c == 0 && calls[0].file == -2 &&
					    f >= 0)) &&
		    b >= calls[c].blk && b < calls[c].blk + calls[c].nblk)
			who = c;
	return who;
}

/* Compare every block acknowledged by call p; how many differ. */
static int verify_target(const char *path, int f, long long nblk, int p)
{
	char *buf = NULL;
	long long b;
	int fd = open(path, O_RDONLY | O_CLOEXEC), bad = 0, who;

	if (fd < 0 || posix_memalign((void **)&buf, BLK, BLK)) {
		ktap_diag("open %s: %s", path, strerror(errno));
		return 1;
	}
	for (b = 0; b < nblk; b++) {
		who = owner(f, b, p);
		if (who < 0)
			continue;
		if (pread(fd, buf, BLK, b * BLK) == BLK &&
		    pattern_check(buf, BLK, seed, stream_of(who, f),
				  b * BLK) < 0)
			continue;
		if (bad++ < 4)
			ktap_diag("%s: block %lld (byte %lld) lacks what call %d (%s) made durable",
				  path, b, b * BLK, who, op_name[calls[who].op]);
	}
	if (bad)
		ktap_diag("%s: %d acknowledged blocks missing", path, bad);
	free(buf);
	close(fd);
	return bad;
}

/* The logs are complete once each holds its "end" mark (the super moved). */
static int wait_logs(void)
{
	double end = mono_s() + scaled(30);
	int i, found = 0;

	while (!found && mono_s() < end) {
		for (i = 0, found = 1; i < nmem && found; i++) {
			struct lw_log l;
			struct lw_entry e;
			int rc, seen = 0;

			if (lw_open(&l, mem[i].log)) {
				found = 0;
				break;
			}
			while ((rc = lw_next(&l, &e)) > 0)
				seen |= (e.flags & LW_MARK) && !strcmp(e.mark, "end");
			lw_close(&l);
			found = seen;
		}
		if (!found)
			usleep(100000);
	}
	return found ? 0 : -1;
}

/*
 * Oracle 1: writes a member logged after the mark of a returned call and
 * before the next flush were not stable when the call returned.
 */
static int check_order(const struct member *m)
{
	struct lw_log l;
	struct lw_entry e;
	int call = -1, bad = 0, rc;

	if (lw_open(&l, m->log)) {
		ktap_diag("%s: cannot read its log %s", m->name, m->log);
		return 1;
	}
	while ((rc = lw_next(&l, &e)) > 0) {
		if (e.flags & LW_MARK) {
			call = !strncmp(e.mark, "call-", 5) ? atoi(e.mark + 5) : -1;
		} else if (e.flags & LW_FLUSH) {
			call = -1;
		} else if (call >= 0 && !(e.flags & (LW_FUA | LW_DISCARD)) &&
			   e.nr_sectors) {
			if (bad++ < 4)
				ktap_diag("%s (%s): sectors %llu-%llu written before call %d (%s) returned, not flushed by then",
					  m->name, m->data,
					  (unsigned long long)e.sector,
					  (unsigned long long)(e.sector + e.nr_sectors - 1),
					  call, op_name[calls[call].op]);
		}
	}
	lw_close(&l);
	if (bad)
		ktap_diag("%s: %d writes not flushed when their call returned",
			  m->name, bad);
	return bad || rc < 0;
}

/* Whether the member holds an md v1.2 super block (its magic at 4 KiB). */
static bool md_member(const struct member *m)
{
	uint32_t magic = 0;
	int fd = open(m->data, O_RDONLY | O_CLOEXEC);
	bool yes;

	if (fd < 0)
		return false;
	yes = pread(fd, &magic, sizeof(magic), MD_SB_BYTE) == sizeof(magic) &&
	      le32toh(magic) == MD_SB_MAGIC;
	close(fd);
	return yes;
}

/*
 * Oracle 3: each write of md's super block on member m after mark
 * "call-0" (before it, mdadm wrote it from user space) is FUA and comes
 * after a flush with no other write but FUA ones between (dm-log-writes
 * logs a plain write only with the flush that covers it); *n counts
 * them.  It is REQ_META too: blk-cgroup's iolatency and iocost issue a
 * metadata bio as the root group's (bio_issue_as_root_blkg()), so md's
 * super block write is never throttled behind the task that caused it.
 */
static int check_md_sb(const struct member *m, int *n)
{
	struct lw_log l;
	struct lw_entry e;
	bool started = false, flushed = false;
	uint64_t sb;
	int bad = 0, rc;

	*n = 0;
	if (lw_open(&l, m->log)) {
		ktap_diag("%s: cannot read its log %s", m->name, m->log);
		return 1;
	}
	sb = MD_SB_BYTE / l.sectorsize;
	while ((rc = lw_next(&l, &e)) > 0) {
		if (e.flags & LW_MARK) {
			started |= !strcmp(e.mark, "call-0");
			continue;
		}
		if (!e.nr_sectors) {
			flushed = started && (e.flags & LW_FLUSH);
			continue;
		}
		if (started && e.sector <= sb && sb < e.sector + e.nr_sectors) {
			++*n;
			if (!(e.flags & LW_FUA) || !(e.flags & LW_METADATA) ||
			    !(flushed || (e.flags & LW_FLUSH))) {
				if (bad++ < 4)
					ktap_diag("%s (%s): md's super block write (log entry %llu)%s%s%s",
						  m->name, m->data,
						  (unsigned long long)e.index,
						  e.flags & LW_FUA ? "" : " not FUA",
						  e.flags & LW_METADATA ? "" :
						  " not REQ_META",
						  flushed || (e.flags & LW_FLUSH) ?
						  "" : " not after a flush");
			}
		}
		/*
		 * A FUA write (md's bitmap super block, say, sent with it)
		 * leaves nothing unflushed; any other write does.
		 */
		if (!(e.flags & LW_FUA))
			flushed = false;
	}
	lw_close(&l);
	if (started && !*n)
		ktap_diag("%s (%s): md never wrote its super block during the workload",
			  m->name, m->data);
	return bad || !*n || rc < 0;
}

/* A little-endian 64-bit field of md's super block at buf + off. */
static uint64_t le64_at(const unsigned char *buf, size_t off)
{
	uint64_t v;

	memcpy(&v, buf + off, sizeof(v));
	return le64toh(v);
}

/* Whether md's super block on member m says the array is clean. */
static bool md_sb_clean(const struct member *m)
{
	unsigned char *b = NULL;
	int fd = open(m->data, O_RDONLY | O_DIRECT | O_CLOEXEC);
	bool yes = false;

	if (fd >= 0 && !posix_memalign((void **)&b, BLK, BLK) &&
	    pread(fd, b, BLK, MD_SB_BYTE) == BLK)
		yes = le64_at(b, MD_SB_RESYNC) != 0;
	free(b);
	if (fd >= 0)
		close(fd);
	return yes;
}

/* Where oracle 4 writes: past the workload's blocks of the raw device. */
static void unflushed_path(char *p, size_t n, long long *off)
{
	if (mnt) {
		snprintf(p, n, "%.100s/durability/unflushed", mnt);
		*off = 0;
	} else {
		snprintf(p, n, "%s", top);
		*off = RAW_BLOCKS * BLK;
	}
}

/* On a filesystem, oracle 4's file, written and durable before call 0. */
static int unflushed_file(char *buf)
{
	char path[160];
	long long off;
	int fd, bad;

	unflushed_path(path, sizeof(path), &off);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	memset(buf, 0, UNFLUSHED * BLK);
	bad = fd < 0 || pwrite(fd, buf, UNFLUSHED * BLK, 0) != UNFLUSHED * BLK ||
	      fsync(fd);
	if (fd >= 0)
		close(fd);
	return bad ? -1 : 0;
}

static int md_clean(void);

/*
 * Oracle 4's writes: mark "unflushed" in every member's log, UNFLUSHED
 * O_DIRECT block writes and no flush, the array marked clean, and once
 * each md member's super block says so, mark "clean" and a flush.
 */
static int unflushed_then_clean(char *buf)
{
	char path[160];
	long long off;
	double end;
	int i, fd, bad = 0;

	for (i = 0; i < nmem; i++)
		bad |= dm_mark(mem[i].name, "unflushed");
	unflushed_path(path, sizeof(path), &off);
	fd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	for (i = 0; fd >= 0 && !bad && i < UNFLUSHED; i++) {
		pattern_fill(buf, BLK, seed, 0x4f4f, off + i * BLK);
		bad = pwrite(fd, buf, BLK, off + i * BLK) != BLK;
	}
	if (fd < 0 || bad) {
		ktap_diag("unflushed writes to %s: %s", path, strerror(errno));
		bad = 1;
	}
	bad = bad || md_clean();
	end = mono_s() + scaled(10);
	for (i = 0; !bad && i < nmem; i++) {
		while (md_member(&mem[i]) && !md_sb_clean(&mem[i]) &&
		       mono_s() < end)
			usleep(10000);
		if (md_member(&mem[i]) && !md_sb_clean(&mem[i])) {
			ktap_diag("%s: md's super block does not say clean",
				  mem[i].data);
			bad = 1;
		}
	}
	/*
	 * Flushed either way, so the calls' oracles judge only their own
	 * writes; on a filesystem the file's new mtime made durable too,
	 * not left to a journal commit in the middle of a call.
	 */
	bad |= mark_all("clean") || (fd >= 0 && mnt && fsync(fd));
	if (fd >= 0)
		close(fd);
	return bad ? -1 : 0;
}

/*
 * resync_offset of the md super block written by logged entry e (it
 * covers MD_SB_BYTE); -1 when the entry does not hold that field.
 */
static int logged_resync(struct lw_log *l, const struct lw_entry *e,
			 uint64_t *v)
{
	long long at = MD_SB_BYTE + MD_SB_RESYNC -
		       (long long)(e->sector * l->sectorsize);
	long long sec = at / l->sectorsize * l->sectorsize;

	/* The log may be O_DIRECT: its sector holding the field, aligned. */
	if (at + 8 > (long long)(e->nr_sectors * l->sectorsize) ||
	    pread(l->fd, l->buf, l->sectorsize, e->data_off + sec) !=
	    (ssize_t)l->sectorsize)
		return -1;
	*v = le64_at(l->buf, at - sec);
	return 0;
}

/*
 * Oracle 4 on member m: from mark "unflushed" to the flush after mark
 * "clean", no plain write is logged while the latest super block logged
 * says clean (md marks the array active, in a super block write, before
 * a write goes on, and flushes before it says clean again); *n counts
 * the writes logged while it said active (a member that holds none of
 * the blocks written gets none).
 */
static int check_md_clean(const struct member *m, int *n)
{
	struct lw_log l;
	struct lw_entry e;
	bool in = false, clean = false, ever = false, ending = false;
	uint64_t sb, resync;
	int late = 0, rc;

	*n = 0;
	if (lw_open(&l, m->log)) {
		ktap_diag("%s: cannot read its log %s", m->name, m->log);
		return 1;
	}
	sb = MD_SB_BYTE / l.sectorsize;
	while ((rc = lw_next(&l, &e)) > 0) {
		if (e.flags & LW_MARK) {
			in |= !strcmp(e.mark, "unflushed");
			ending |= in && !strcmp(e.mark, "clean");
			continue;
		}
		if (!in)
			continue;
		if (!e.nr_sectors) {
			if (ending && (e.flags & LW_FLUSH))
				break;
			continue;
		}
		if (e.sector <= sb && sb < e.sector + e.nr_sectors) {
			rc = logged_resync(&l, &e, &resync);
			if (rc)
				break;
			/* The latest super block rules: active writes 0. */
			clean = resync != 0;
			ever |= clean;
			continue;
		}
		if (e.flags & (LW_FUA | LW_DISCARD))
			continue;
		if (clean && late++ < 4)
			ktap_diag("%s (%s): sectors %llu-%llu logged after the super block write that marked the array clean (log entry %llu)",
				  m->name, m->data,
				  (unsigned long long)e.sector,
				  (unsigned long long)(e.sector + e.nr_sectors - 1),
				  (unsigned long long)e.index);
		*n += !clean;
	}
	lw_close(&l);
	if (rc < 0)
		ktap_diag("%s: cannot read a super block write in its log",
			  m->name);
	else if (!ever)
		ktap_diag("%s (%s): no super block write marked the array clean",
			  m->name, m->data);
	if (late)
		ktap_diag("%s: %d writes still volatile when md's super block called the array clean",
			  m->name, late);
	return late || !ever || rc < 0;
}

/*
 * Every active md array marked clean (array_state "clean"; md then writes
 * its super block, REQ_PREFLUSH | REQ_FUA), right after mark "call-0": so
 * oracle 3 judges at least one super block write on each member, this one
 * or, if the array was clean already, the one that marks it active at the
 * workload's first write.  "clean" is refused (EBUSY) while writes are in
 * flight: tried again, within a bound.
 */
static int md_clean(void)
{
	char md[8], state[32];
	double end = mono_s() + 10;
	int i, bad = 0;

	for (i = 0; i < 16; i++) {
		snprintf(md, sizeof(md), "md%d", i);
		while (!md_attr(md, "array_state", state, sizeof(state)) &&
		       !strcmp(state, "active") &&
		       md_attr_write(md, "array_state", "clean")) {
			if (mono_s() > end) {
				ktap_diag("%s: array_state stays active: %s", md,
					  strerror(errno));
				bad = -1;
				break;
			}
			usleep(10000);
		}
	}
	return bad;
}

/* An oracle's check over every md member; -1: none is one. */
static int md_oracle(int (*check)(const struct member *, int *),
		     int *members, int *writes)
{
	int i, n, bad = 0;

	*members = *writes = 0;
	for (i = 0; i < nmem; i++) {
		if (!md_member(&mem[i]))
			continue;
		++*members;
		bad += check(&mem[i], &n);
		*writes += n;
	}
	return *members ? bad : -1;
}

static int zero_disk(const char *dev)
{
	unsigned long long range[2] = { 0, 0 };
	int fd = open(dev, O_WRONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = ioctl(fd, BLKGETSIZE64, &range[1]) || ioctl(fd, BLKZEROOUT, range);
	close(fd);
	return rc ? -1 : 0;
}

/*
 * md9 from the replayed members, through md's own sysfs (metadata 1.2,
 * new_dev, array_state): mdadm refuses to assemble a second array with
 * the live array's uuid, the kernel does not.
 */
static int md_replica(void)
{
	const char *md = "/sys/block/md9/md/";
	char path[64], dev[32];
	struct stat st;
	int i;

	if (write_str("/sys/module/md_mod/parameters/new_array", "md9") ||
	    wait_path("/sys/block/md9/md", 10))
		return -1;
	snprintf(path, sizeof(path), "%smetadata_version", md);
	if (write_str(path, "1.2"))
		return -1;
	snprintf(path, sizeof(path), "%snew_dev", md);
	for (i = 0; i < nmem; i++) {
		if (stat(mem[i].replay, &st))
			return -1;
		snprintf(dev, sizeof(dev), "%u:%u", major(st.st_rdev),
			 minor(st.st_rdev));
		if (write_str(path, dev)) {
			ktap_diag("md9: new_dev %s (%s): %s", dev, mem[i].replay,
				  strerror(errno));
			return -1;
		}
	}
	snprintf(path, sizeof(path), "%sarray_state", md);
	if (write_str(path, "active")) {
		ktap_diag("md9: array_state active: %s", strerror(errno));
		return -1;
	}
	return wait_path("/dev/md9", 10);
}

static void md_replica_stop(void)
{
	write_str("/sys/block/md9/md/array_state", "clear");
}

/* A dm device like live's, with its device replaced by dev. */
static int dm_clone_table(const char *live, const char *name, char *dev,
			  size_t len)
{
	const char *show[] = { "dmsetup", "table", "--showkeys", live, NULL };
	char table[1024], f[8][160], out[1200], path[64];
	FILE *t;

	if (run_out(show, table, sizeof(table)) ||
	    sscanf(table, "%159s %159s %159s %159s %159s %159s %159s %159s",
		   f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]) != 8)
		return -1;
	snprintf(out, sizeof(out), "%s %s %s %s %s %s %s %s\n", f[0], f[1],
		 f[2], f[3], f[4], f[5], dev, f[7]);
	snprintf(path, sizeof(path), "/tmp/%s.table", name);
	t = fopen(path, "w");
	if (!t || fputs(out, t) < 0 || fclose(t))
		return -1;
	{
		const char *create[] = { "dmsetup", "create", "--noudevsync",
					 name, path, NULL };
		const char *mk[] = { "dmsetup", "mknodes", name, NULL };

		if (run(create))
			return -1;
		run(mk);
	}
	snprintf(dev, len, "/dev/mapper/%s", name);
	return wait_path(dev, 10);
}

/*
 * The replica's VG, imported under another name with new uuids
 * (vgimportclone, made for copies of PVs), only its PVs looked at.
 */
static char lvm_pvs[MAX_MEMBERS * 40];

static int lvm_replica(char *dev, size_t len, int on_dev)
{
	const char *argv[MAX_MEMBERS + 6] = { "lvm", "vgimportclone",
		"--basevgname", "vgr" };
	const char *on[] = { "lvm", "vgchange", "--devices", lvm_pvs, "-ay",
			     "vgr", NULL };
	int i;

	lvm_pvs[0] = 0;
	if (on_dev) {
		argv[4] = dev;
		argv[5] = NULL;
		snprintf(lvm_pvs, sizeof(lvm_pvs), "%s", dev);
	} else {
		for (i = 0; i < nmem; i++) {
			argv[4 + i] = mem[i].replay;
			snprintf(lvm_pvs + strlen(lvm_pvs),
				 sizeof(lvm_pvs) - strlen(lvm_pvs), "%s%s",
				 i ? "," : "", mem[i].replay);
		}
		argv[4 + nmem] = NULL;
	}
	if (run(argv) || run(on))
		return -1;
	snprintf(dev, len, "/dev/vgr/lv0");
	return wait_path(dev, 10);
}

/*
 * The stack above the members, again, on the replayed members: its top
 * device into dev.  STACK_KINDS names the layers in order.
 */
static int replica_up(char *dev, size_t len, int *md)
{
	char kinds[256], *k, *save;
	int after = 0;

	snprintf(kinds, sizeof(kinds), "%s", env_or("STACK_KINDS", ""));
	snprintf(dev, len, "%s", mem[0].replay);
	*md = 0;
	for (k = strtok_r(kinds, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
		if (!strcmp(k, "log-writes")) {
			after = 1;
		} else if (after && !strcmp(k, "md")) {
			*md = 1;
			if (md_replica())
				return -1;
			snprintf(dev, len, "/dev/md9");
		} else if (after && !strcmp(k, "dm-crypt")) {
			if (dm_clone_table("crypt0", "crypt9", dev, len))
				return -1;
		} else if (after && !strcmp(k, "lvm")) {
			if (lvm_replica(dev, len, *md))
				return -1;
		}
		/* drbd: its backing disk holds the data from byte 0. */
	}
	return 0;
}

static void replica_down(int md)
{
	const char *off[] = { "lvm", "vgchange", "--devices", lvm_pvs, "-an",
			      "vgr", NULL };
	const char *rm[] = { "dmsetup", "remove", "--noudevsync", "crypt9", NULL };

	if (strstr(env_or("STACK_KINDS", ""), "lvm"))
		run(off);
	if (!access("/dev/mapper/crypt9", F_OK))
		run(rm);
	if (md)
		md_replica_stop();
}

/* The filesystem on the replica: recovered, every durable byte, clean. */
static int verify_fs(const char *dev, int p)
{
	char path[160];
	int f, bad = 0;

	mkdir(REPLICA_MNT, 0755);
	/* xfs refuses a second filesystem with the live one's uuid. */
	if (mount(dev, REPLICA_MNT, fstype, 0,
		  strcmp(fstype, "xfs") ? NULL : "nouuid")) {
		ktap_diag("the replica's %s on %s does not mount: %s", fstype,
			  dev, strerror(errno));
		return 1;
	}
	for (f = 0; f < NFILES; f++) {
		file_path(path, sizeof(path), REPLICA_MNT, f);
		bad += verify_target(path, f, FILE_BLOCKS, p);
	}
	if (umount(REPLICA_MNT)) {
		ktap_diag("umount %s: %s", REPLICA_MNT, strerror(errno));
		bad++;
	}
	bad += fs_check(dev, fstype) != 0;
	return bad;
}

/* Oracle 2: a power cut right after call p. */
static int power_cut(int p)
{
	char mark[16], msg[256], dev[64], action[32];
	long long mismatch = 0;
	int i, bad = 0, md = 0;

	snprintf(mark, sizeof(mark), "call-%d", p);
	for (i = 0; i < nmem; i++) {
		long long n;

		if (zero_disk(mem[i].replay)) {
			ktap_diag("cannot zero %s", mem[i].replay);
			return 1;
		}
		n = lw_replay(mem[i].log, mem[i].replay, mark, msg, sizeof(msg));
		if (n < 0) {
			ktap_diag("%s", msg);
			return 1;
		}
		ktap_diag("%s: %lld logged writes up to %s replayed onto %s",
			  mem[i].name, n, mark, mem[i].replay);
	}
	if (replica_up(dev, sizeof(dev), &md)) {
		ktap_diag("cannot assemble the stack from the replayed members");
		replica_down(md);
		return 1;
	}
	if (fstype)
		bad += verify_fs(dev, p);
	else
		bad += verify_target(dev, -1, RAW_BLOCKS, p);
	if (md && !md_attr("/dev/md9", "sync_action", action, sizeof(action))) {
		bad += md_check("/dev/md9", 120, &mismatch) || mismatch;
		ktap_diag("replica /dev/md9: mismatch_cnt %lld after check",
			  mismatch);
	}
	replica_down(md);
	return bad;
}

static void pick_points(int *pt)
{
	int i, j;

	pt[NPOINTS - 1] = NCALLS;
	for (i = 0; i < NPOINTS - 1; i++) {
		do {
			pt[i] = 1 + rnd() % (NCALLS - 1);
			for (j = 0; j < i && pt[j] != pt[i]; j++)
				;
		} while (j < i);
	}
	for (i = 0; i < NPOINTS; i++)
		for (j = i + 1; j < NPOINTS; j++)
			if (pt[j] < pt[i]) {
				int t = pt[i];

				pt[i] = pt[j];
				pt[j] = t;
			}
}

static int test_main(void)
{
	struct ktap_out k;
	char *buf = NULL, label[16];
	int c, i, ok, ok4, bad, pt[NPOINTS], mds = 0, sbw = 0;

	seed = env_seed();
	mnt = *env_or("STACK_MNT", "") ? env_or("STACK_MNT", "") : NULL;
	fstype = mnt ? env_or("STACK_FSTYPE", "") : NULL;
	top = env_or("STACK_TOP", "");
	ktap_begin(&k, 4 + NPOINTS);
	if (parse_members() || posix_memalign((void **)&buf, BLK, MAX_PIECE * BLK +
					       FILE_BLOCKS * BLK)) {
		ktap_result(&k, 0, "logged members and spare disks to replay onto");
		return ktap_end(&k);
	}
	/* Nothing but the workload writes: no periodic writeback. */
	write_str("/proc/sys/vm/dirty_writeback_centisecs", "0");
	plan_calls();
	/*
	 * What building the stack left in the members' caches is flushed
	 * first (lvm2 writes its metadata without a flush): only the
	 * workload's writes are judged.
	 */
	for (i = 0; i < nmem; i++)
		mds += md_member(&mem[i]);
	ok = !flush_all() && !(mnt && setup_files(buf)) &&
	     !(mds && mnt && unflushed_file(buf)) && !mark_all("call-0") &&
	     !md_clean();
	ok4 = ok && mds && !unflushed_then_clean(buf);
	for (c = 1; ok && c <= NCALLS; c++) {
		snprintf(label, sizeof(label), "call-%d", c);
		ok = !do_call(c, buf) && !mark_all(label);
	}
	ok = ok && !mark_all("end") && !wait_logs();
	ktap_diag("%d durability calls on %s (%s), %d member%s logged", NCALLS,
		  mnt ? mnt : top, mnt ? fstype : "raw device", nmem,
		  nmem > 1 ? "s" : "");
	ktap_result(&k, ok, "%d durability calls returned, each marked in every member's log",
		    NCALLS);
	for (i = 0, bad = 0; ok && i < nmem; i++)
		bad += check_order(&mem[i]);
	ktap_result(&k, ok && !bad, "every write a member got was flushed before the call returned");
	bad = ok ? md_oracle(check_md_sb, &mds, &sbw) : 1;
	if (bad < 0)
		ktap_result(&k, 1, "md's super block written FUA after a flush # SKIP no member holds an md super block");
	else
		ktap_result(&k, !bad, "md's super block written FUA after a flush on each of its %d members (%d writes)",
			    mds, sbw);
	bad = ok && ok4 ? md_oracle(check_md_clean, &mds, &sbw) : !mds ? -1 : 1;
	/* Some member got the unflushed writes, or oracle 4 proved nothing. */
	if (!bad && !sbw) {
		ktap_diag("no member logged the unflushed writes before its clean super block");
		bad = 1;
	}
	if (bad < 0)
		ktap_result(&k, 1, "md flushed what it acknowledged before its super block said clean # SKIP no member holds an md super block");
	else
		ktap_result(&k, !bad, "md flushed what it acknowledged before its super block said clean, on each of its %d members (%d writes)",
			    mds, sbw);
	pick_points(pt);
	for (i = 0; i < NPOINTS; i++) {
		bad = !ok || power_cut(pt[i]);
		ktap_result(&k, !bad, "power cut after call %d (%s): every acknowledged byte there%s",
			    pt[i], op_name[calls[pt[i]].op],
			    mnt ? ", filesystem clean" : "");
	}
	write_str("/proc/sys/vm/dirty_writeback_centisecs", "500");
	free(buf);
	return ktap_end(&k);
}

GUEST_TEST(
	.name = "durability",
	.what = "acknowledged writes flushed on every member in time, and there after a power cut (dm-log-writes replay)",
	.requires = {
		REQ_LAYER("log-writes"),
		REQ_ENV("STACK_LOG_WRITES"),
		REQ_ENV("STACK_FREE_DISKS"),
		REQ_TOOL("dmsetup"),
		REQ_KCONFIG("CONFIG_DM_LOG_WRITES"),
	},
	.run = test_main,
);
