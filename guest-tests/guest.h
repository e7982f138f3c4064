/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest's PID 1, the stack builders and the guest
 * tests: running the real tools by argument vector, KTAP output, seeded
 * data patterns.
 */
#ifndef GUEST_H
#define GUEST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Wait for a child; its exit status, 128+signal, or 127. */
int reap(pid_t pid);
/* Run argv[0] (absolute path or found in PATH); returns exit status. */
int run(const char *const argv[]);
/* Same, with the child's stdout captured into out (NUL-terminated). */
int run_out(const char *const argv[], char *out, size_t outlen);
/* The first line of `dmsetup status NAME` in out; 0 on success. */
int dm_status(const char *name, char *out, size_t len);
int write_str(const char *path, const char *s);
long long read_ll(const char *path);
/* A counter from /proc/vmstat, -1 when absent. */
long long vmstat(const char *name);
void drop_caches(void);
double mono_s(void);
/* Mount with mount(2); logs and returns -1 on failure. */
int mount_fs(const char *dev, const char *dir, const char *type,
	     unsigned long flags);

/* KTAP, on stdout: a test program's own (nested) document. */
struct ktap {
	int n;
	int failed;
};
void ktap_begin(struct ktap *k, int plan);
void ktap_result(struct ktap *k, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ktap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Exit status for the parent: 0 if every result was ok. */
int ktap_end(struct ktap *k);

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

#endif
