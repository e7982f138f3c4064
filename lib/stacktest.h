/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest test library: everything a guest test program, a layer
 * builder (stacks/) or PID 1 (guest-tests/init.c) uses, behind this one
 * header.  Plain libc, linked statically into the guest programs.
 *
 *   - a test descriptor (GUEST_TEST) with requirements checked before
 *     any work: a missing tool, driver, kernel option or stack piece is a
 *     KTAP SKIP with the reason;
 *   - KTAP output: a test reports one result per step (its subtests);
 *   - the real tools by argument vector, sysfs/procfs helpers;
 *   - seeded data patterns, the memory hog and the swap round trip;
 *   - md, DRBD and data-file helpers shared by several tests.
 *
 * The stack under test reaches a test through the environment PID 1
 * sets: STACK_TOP, STACK_FSDEV, STACK_FSTYPE, STACK_MNT, STACK_SWAPFILE,
 * STACK_SWAPDEV, STACK_FREE_DISKS, STACK_KINDS, STACK_SEED, STACK_NODE,
 * STACK_SWAP_PRESSURE, STACK_SWAP_IN_RAM, ...
 */
#ifndef STACKTEST_H
#define STACKTEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* ---- Test descriptors ---- */

struct ktap_out;

enum req_kind {
	REQ_NONE,
	REQ_TOOL_,	/* a program in PATH */
	REQ_LAYER_,	/* a layer kind in the stack (STACK_KINDS) */
	REQ_ENV_,	/* a stack piece: a non-empty STACK_* variable */
	REQ_KCONFIG_,	/* an option =y in the guest kernel's .config */
	REQ_PATH_,	/* a file or directory (a driver's sysfs, ...) */
};

struct requirement {
	enum req_kind kind;
	const char *what;
};

#define REQ_TOOL(x) { REQ_TOOL_, x }
#define REQ_LAYER(x) { REQ_LAYER_, x }
#define REQ_ENV(x) { REQ_ENV_, x }
#define REQ_KCONFIG(x) { REQ_KCONFIG_, x }
#define REQ_PATH(x) { REQ_PATH_, x }
#define GUEST_TEST_MAX_REQS 12

/*
 * One guest test program: its name (the file name under
 * guest-tests/tests/), a line saying what it proves, what it needs and
 * its body.  run() reports KTAP on stdout, one result per step (it
 * calls ktap_begin with its plan), and returns 0 when all passed.
 */
struct guest_test {
	const char *name;
	const char *what;
	struct requirement requires[GUEST_TEST_MAX_REQS];
	int (*run)(void);
};

/* Each test program defines exactly one: GUEST_TEST(.name = ..., ...). */
#define GUEST_TEST(...) \
	const struct guest_test guest_test = { __VA_ARGS__ }
extern const struct guest_test guest_test;

/* Is CONFIG_option =y or =m in the guest kernel's .config? */
int kconfig_on(const char *option);

/* Exit status of a test program whose requirements are not met. */
#define GUEST_TEST_SKIP 77

/*
 * Check one requirement; 0 when met, else -1 with the reason in why
 * ("no tool 'mdadm' in PATH").  The guest kernel's options are read from
 * /etc/kernel.config, which the runner puts into every guest.
 */
int requirement_met(const struct requirement *r, char *why, size_t len);

/* ---- Processes, sysfs, KTAP output, seeded patterns ---- */

/*
 * What the kernel's own detectors print when they see a hang: khungtaskd,
 * RCU's stall warnings, the soft lockup and workqueue watchdogs (NULL
 * ends it).  PID 1's watcher and the host's console reader both use it.
 */
extern const char *const hang_report_words[];

/* Wait for a child; its exit status, 128+signal, or 127. */
int reap(pid_t pid);
/* Run argv[0] (absolute path or found in PATH); returns exit status. */
int run(const char *const argv[]);
/* Same, with the child's stdout captured into out (NUL-terminated). */
int run_out(const char *const argv[], char *out, size_t outlen);
/* The first line of `dmsetup status NAME` in out; 0 on success. */
int dm_status(const char *name, char *out, size_t len);
int write_str(const char *path, const char *s);
/*
 * Size of a block device in 512-byte sectors: 0 when it cannot say, -1
 * when it cannot be opened.
 */
long long dev_sectors(const char *dev);
long long read_ll(const char *path);
/* A counter from /proc/vmstat, -1 when absent. */
long long vmstat(const char *name);
void drop_caches(void);
double mono_s(void);
/*
 * seconds times the kernel profile's slowdown ($STACK_OPT_TIME_SCALE: 1,
 * or the debug profile's factor): every in-guest time bound goes
 * through it, so a slow debug kernel is not a timeout.
 */
double scaled(double seconds);
/* Wait until path exists (devices appear asynchronously); 0 when it did. */
int wait_path(const char *path, double seconds);
/* Mount with mount(2); logs and returns -1 on failure. */
int mount_fs(const char *dev, const char *dir, const char *type,
	     unsigned long flags);

/*
 * KTAP, on stdout: a test program's own document, one result per step
 * (PID 1 nests it under the test's result), each with its duration.
 */
struct ktap_out {
	int n;
	int failed;
	double last;	/* when the previous step ended */
};
void ktap_begin(struct ktap_out *k, int plan);
void ktap_result(struct ktap_out *k, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ktap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Exit status for the parent: 0 if every result was ok. */
int ktap_end(struct ktap_out *k);
/*
 * The whole test skipped, for a reason found only by looking (a queue
 * limit): "1..0 # SKIP why", before any result; returns GUEST_TEST_SKIP.
 */
int ktap_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Progress (lib/progress.c): the host ends a run whose test prints no
 * KTAP line within its bound, as TIMEOUT naming the test and the step.
 * A step that may be quiet longer than the default, or knows it is
 * quicker, declares its bound (seconds, scaled here) until progress_end()
 * or its result; begin/end nest a few deep.  progress_note() says how far
 * a long step got, at most every few seconds (a line renews the bound).
 */
void progress_begin(const char *what, double seconds);
/*
 * A wait with a timeout of its own: the host's bound comes a little
 * after it, so the wait's own message (with its state) comes first.
 */
void progress_wait(const char *what, double timeout);
void progress_end(void);
/* The step ended (its result line ends a declared bound on the host). */
void progress_reset(void);
void progress_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where progress lines go (PID 1: its KTAP port, nested): stdout if NULL. */
void progress_to(FILE *f, const char *prefix);

/* Seeded patterns: word i of stream s is a pure function of (seed, s, i). */
uint64_t pattern_word(uint64_t seed, uint64_t stream, uint64_t i);
void pattern_fill(void *buf, size_t len, uint64_t seed, uint64_t stream,
		  uint64_t off);
/*
 * Write the pattern over [0, bytes) of fd a megabyte at a time, from an
 * aligned buffer (fd may be O_DIRECT), then fdatasync; 0 on success.
 */
int pattern_write_fd(int fd, long long bytes, uint64_t seed, uint64_t stream);
/* First byte offset in [0,len) where buf differs from the pattern, or -1. */
long long pattern_check(const void *buf, size_t len, uint64_t seed,
			uint64_t stream, uint64_t off);
/* Which pattern stream 4 KiB block b of a device should hold. */
typedef uint64_t (*block_stream)(long long b);
/*
 * Read [0, bytes) of fd a megabyte at a time into an aligned buffer (fd
 * may be O_DIRECT) and check every 4 KiB block against its stream; the
 * first four bad blocks are named (after label) in KTAP diagnostics.
 * Returns how many blocks differ, or -1 when a read fails.
 */
long long pattern_verify_fd(int fd, long long bytes, uint64_t seed,
			    block_stream stream_of, const char *label);
uint64_t env_seed(void);
const char *env_or(const char *name, const char *def);

/* ---- The memory hog and the swap round trip ---- */

/* swapon(path) with the stack's flags ($STACK_SWAP_FLAGS: its discard mode). */
int swap_on(const char *path);

long long meminfo_kb(const char *key);
/*
 * Fill anonymous memory with seeded, position-tagged pages in a child, get
 * them out to swap, then verify every page.  How they get out is
 * $STACK_SWAP_PRESSURE, which PID 1 sets from the topology's
 * swap-pressure or else from the stack's layer kinds: "reclaim" (global
 * memory pressure), "memcg" (the limit of a memory cgroup the hog runs
 * in) or "pageout" (madvise(MADV_PAGEOUT)); $STACK_SWAP_IN_RAM=1 when the
 * swap lives in RAM (brd, zram).  Prints KTAP diagnostics; returns 0 when
 * all pages came back intact.  With shared, the pages come back through
 * the hog and two forked children at once, two threads each, one child
 * with copy-on-write copies of every 16th page.
 */
int run_hog(uint64_t seed, long long *bytes, int shared);

/*
 * The swap round trip both swap tests share, as three KTAP results: the
 * hog's pages come back intact (only tried when ready), pages really went
 * out and came back (pswpout/pswpin moved), swapoff of swap succeeds.
 * Returns 0 when all three passed.
 */
int swap_round_trip(struct ktap_out *k, uint64_t seed, const char *swap,
		    int ready, int shared);

/* ---- fault injection (lib/fault.c) ---- */

/*
 * Set up injector name (fail_make_request, failslab, fail_page_alloc in
 * /sys/kernel/debug, mounted here if need be): an eligible call fails with
 * probability percent, silently, at most times times (-1: no limit);
 * probability 0 leaves only /proc/PID/task/TID/fail-nth.  0 on success.
 */
int fault_setup(const char *name, int probability, long long times);
/* Write val to /sys/kernel/debug/NAME/ATTR; says which on failure. */
int fault_attr(const char *name, const char *attr, const char *val);
/* Failures still allowed: times less the failures injected so far. */
long long fault_times_left(const char *name);
/* Every bio submitted to dev (/dev/vdb, a disk or partition) fails, or not. */
int fail_disk(const char *dev, int on);
/*
 * LKDTM's crash point (SOFTLOCKUP, HARDLOCKUP, ...) in this task, through
 * /sys/kernel/debug/provoke-crash/DIRECT: for the harness's self-tests.
 * A lockup never returns; -1 (said why) when LKDTM is not there.
 */
int lkdtm_provoke(const char *point);

/* ---- md: sysfs, bounded waits on md's own state, pattern regions ---- */

#define MD_MAX_MEMBERS 16

struct md_member {
	char name[32];		/* "vda" */
	char dev[40];		/* "/dev/vda" */
	int slot;		/* -1 for a spare or a faulty member */
	char state[64];		/* dev-NAME/state */
};

/* "/dev/md0" -> "md0" */
const char *md_name(const char *dev);
/* /sys/block/MD/md/ATTR into buf, newline stripped; -1 when unreadable. */
int md_attr(const char *md, const char *attr, char *buf, size_t len);
/* The attribute as a number; -1 when unreadable or not one ("none"). */
long long md_attr_ll(const char *md, const char *attr);
int md_attr_write(const char *md, const char *attr, const char *val);
/* Members from /sys/block/MD/md/dev-*, sorted by slot (spares last). */
int md_members(const char *md, struct md_member *m, int max);
/* /proc/mdstat and md's sysfs state as KTAP diagnostics. */
void md_dump(const char *md);
/* mdadm ARGS... (NULL-terminated); 0 on success. */
int mdadm(const char *arg, ...) __attribute__((sentinel));
/*
 * Wait until no resync, recovery, reshape or check is running or pending
 * and "degraded" equals want_degraded (-1: any).  On timeout, dumps the
 * state and returns -1.
 */
int md_wait_idle(const char *md, int want_degraded, double timeout);
/* The same condition, tested once: 1 when idle. */
int md_idle(const char *md, int want_degraded);
/* Wait until md reports a running sync action (or it already finished). */
int md_wait_started(const char *md, double timeout);
/* A "check" scrub, bounded; *mismatch from mismatch_cnt. */
int md_check(const char *md, double timeout, long long *mismatch);
/* md_check as a test step: 0 when mismatch_cnt is 0, else the state dumped. */
int md_scrub_clean(const char *md, double timeout);
/* Let resync run at full speed: the guest has nothing else to do. */
void md_speed_up(void);
/* Every sync at most kib_s KiB/s (speed_limit_max), to catch it mid-way. */
void md_speed_limit(int kib_s);
/* Why md or mdadm will not reshape this array, or NULL when it should. */
const char *md_no_reshape_reason(const char *md);
/*
 * mdadm --grow --raid-devices=ndisks; raid5/6 with no room to move the
 * data offset retry with MD_GROW_BACKUP as the backup file.  0 on success.
 */
#define MD_GROW_BACKUP "/tmp/md-grow.backup"
int md_grow_disks(const char *md, int ndisks);
/* The i-th word of $STACK_FREE_DISKS ("/dev/vdd") in out; -1 if none. */
int md_free_disk(int i, char *out, size_t len);
/*
 * sync_completed as "DONE / TOTAL" sectors: 0 with both set while a sync
 * runs, -1 when none does ("none").
 */
int md_sync_progress(const char *md, long long *done, long long *total);

/*
 * A region of a block device cut into chunks; chunk i holds pattern
 * stream gen[i] at byte offset (base + i * chunk).
 */
struct region {
	const char *dev;
	long long base;
	long long chunk;
	int nchunks;
	uint64_t seed;
	int gen[256];
};

/*
 * Write every chunk of r whose index is in [from, to) with stream gen,
 * in a seeded shuffled order, O_DIRECT or buffered (+fsync) alternating
 * and each chunk in seeded random-sized pieces.  0 on success.
 */
int region_write(struct region *r, int from, int to, int gen);
/* Record that [from, to) now holds gen (written by a child process). */
void region_write_gen(struct region *r, int from, int to, int gen);
/*
 * Read back and compare every chunk; O_DIRECT when direct, else buffered
 * after dropping caches.  Reports the first mismatch as a diagnostic and
 * returns the number of bad chunks (-1 on an I/O error).
 */
int region_verify(const struct region *r, int direct, const char *what);
/*
 * region_verify (O_DIRECT) over and over until md is idle with
 * want_degraded (-1: any), or a mismatch, or 300 s; *passes counts them.
 * Non-zero on a mismatch.
 */
int region_verify_while_syncing(const struct region *r, const char *md,
				int want_degraded, const char *what,
				int *passes);
/* Sectors written to block device dev (/sys/class/block/NAME/stat). */
long long dev_written_sectors(const char *dev);
/* Wait (60 s, scaled) until dev has sectors written; -1 if pid ended first. */
int wait_written(const char *dev, long long sectors, int pid);

/* Whether ftrace can count name's calls, as a diagnostic. */
void trace_diag(const char *name);
/* The function profiler's calls of name so far, summed over the CPUs. */
long long profile_hits(const char *name);
/* set_ftrace_filter's names, allocated into names; how many, -1 unread. */
int traced_names(char **names, int max);
/* profile_hits() of n names at once, into hits. */
void profile_hits_of(char *const *names, int n, long long *hits);
/*
 * The same, for a test to assert on a path it claims to reach: -1 when
 * name is not being counted (not a changed function of the series, or
 * not traceable in this kernel).
 */
long long trace_hits(const char *name);

/* fork() a child that runs fn(arg) and exits with its return value. */
int spawn(int (*fn)(void *), void *arg);

/* ---- DRBD 8.4 (in-tree): resource r0 on /dev/drbd0, state from /proc/drbd ---- */

#define DRBD_RES "r0"
#define DRBD_DEV "/dev/drbd0"

struct drbd_state {
	char cs[24];		/* connection: Connected, StandAlone, ... */
	char role[16], peer_role[16];
	char disk[16], peer_disk[16];
	bool suspended;		/* I/O suspended (no data accessible, fencing) */
	long long ns, nr, dw, dr, al, bm, oos;	/* KiB, or counts (al, bm) */
};

/* Read /proc/drbd's line for minor 0; -1 when the resource is not up. */
int drbd_state(struct drbd_state *st);
/* "cs:Connected ro:Primary/Secondary ds:UpToDate/UpToDate oos:0" */
void drbd_describe(char *buf, size_t len);

typedef bool (*drbd_cond)(const struct drbd_state *st);
bool drbd_connected_synced(const struct drbd_state *st);
bool drbd_peer_secondary_synced(const struct drbd_state *st);
bool drbd_link_up(const struct drbd_state *st);
bool drbd_link_down(const struct drbd_state *st);
bool drbd_connected(const struct drbd_state *st);
/*
 * Poll until cond holds, at most seconds.  On timeout, put "timeout after
 * N s waiting for WHAT: <state>" in msg and return -1.
 */
int drbd_wait(drbd_cond cond, const char *what, int seconds, char *msg,
	      size_t len);
/* drbdadm CMD r0 (and one option, or NULL); its exit status. */
int drbdadm(const char *cmd, const char *opt);
/* STACK_NODE: 0 for the node that goes primary first, 1 for its peer. */
int drbd_node(void);
/* r0's lower device ("/dev/vda"), from /etc/drbd.conf; -1 if none. */
int drbd_lower(char *out, size_t len);

/*
 * The peer's turn (node1): wait until node0 has demoted with both disks
 * UpToDate, then promote.  0 when this node is primary.  *drops (unless
 * NULL): the times the link went down meanwhile.
 */
int drbd_take_over(int seconds, int *drops, char *msg, size_t len);
/*
 * node1's part of a two-node test, four KTAP results: take over from
 * node0 (within seconds), read_back() (0: the data is right; reported as
 * what), an online verify with 0 out of sync, demote.
 */
void drbd_peer_part(struct ktap_out *k, int seconds, int (*read_back)(void),
		    const char *what);
/* Online verify of the whole device; its out-of-sync KiB in *oos. */
int drbd_online_verify(long long *oos, char *msg, size_t len);

/* ---- dm-log-writes logs: read, and replay up to a mark (logwrites.c) ---- */

#define LW_FLUSH (1 << 0)
#define LW_FUA (1 << 1)
#define LW_DISCARD (1 << 2)
#define LW_MARK (1 << 3)
#define LW_METADATA (1 << 4)

struct lw_log {
	int fd;
	uint64_t nr_entries;	/* from the super block */
	uint32_t sectorsize;	/* the logged device's logical block size */
	uint64_t index;		/* entries read so far */
	long long pos;		/* byte offset of the next entry */
	void *buf;
};

struct lw_entry {
	uint64_t index;
	uint64_t sector, nr_sectors;	/* in sectorsize units */
	uint64_t flags;			/* LW_* */
	long long data_off;		/* where its data is in the log */
	char mark[64];			/* a mark's text */
};

/* Open a log (a device or a file); -1 with errno when it is none. */
int lw_open(struct lw_log *l, const char *path);
/* The next entry: 1, 0 at the end, -1 on a read error. */
int lw_next(struct lw_log *l, struct lw_entry *e);
void lw_close(struct lw_log *l);
/*
 * Apply every write (and discard, as zeroes) logged before the mark
 * (NULL: all) onto target, in log order: the target, zeroed before,
 * then holds what survived a power cut at the mark.  Returns the number
 * of entries applied, or -1 with the reason in msg.
 */
long long lw_replay(const char *log, const char *target, const char *mark,
		    char *msg, size_t len);

/* ---- Seeded data files next to what a test exercises ---- */

#define DATAFILES_N 16
#define DATAFILES_SIZE (2LL << 20)
#define DATAFILES_DIR "swapfile-integrity"

/* Write DATAFILES_N files into MNT/DATAFILES_DIR; 0 on success. */
int datafiles_write(const char *mnt, uint64_t seed);
/* How many files are missing or differ (each one named as a KTAP diag). */
int datafiles_verify(const char *mnt, uint64_t seed);

/* The read-only checker for a filesystem type: "e2fsck -fn", ... */
const char *fs_checker(const char *fstype);
/* Run it on dev; 0 when clean, else its output's head as KTAP diags. */
int fs_check(const char *dev, const char *fstype);

#endif
