/* SPDX-License-Identifier: GPL-2.0 */
/*
 * md helpers for the guest tests: sysfs attributes, bounded waits on md's
 * own state (never fixed sleeps), a state dump for failures, and seeded
 * pattern regions written to and checked on a block device.
 */
#ifndef MD_UTIL_H
#define MD_UTIL_H

#include <stddef.h>
#include <stdint.h>

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
/* Let resync run at full speed: the guest has nothing else to do. */
void md_speed_up(void);

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

/* Whether ftrace can count name's calls, as a diagnostic. */
void trace_diag(const char *name);

/* fork() a child that runs fn(arg) and exits with its return value. */
int spawn(int (*fn)(void *), void *arg);

#endif
