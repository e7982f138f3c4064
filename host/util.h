/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_UTIL_H
#define HOST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Read a whole file; NULL (errno set) when it cannot be read. */
char *read_file(const char *path, size_t *len);
/* Write via a temporary and rename, so no half-written file is left. */
int write_file_atomic(const char *path, const void *data, size_t len);
/* From's content into to, atomically; dies naming both on error. */
void copy_file(const char *from, const char *to);
int mkdir_p(const char *path);
/*
 * Why ini_parse() stopped at LINE of PATH when the handler left no
 * message: inih's own errors, a line too long for its buffer or a line
 * that is neither a section nor a key.
 */
const char *ini_syntax_why(const char *path, int line);
/* Cut trailing blanks and a CR off s, in place. */
void trim_end(char *s);
int rm_rf(const char *path);
bool path_exists(const char *path);
/* Whether a console line is the kernel's and says one of what (NULL-ended). */
bool kernel_says(const char *line, const char *const *what);
double now_s(void);

/*
 * Run argv (argv[0] looked up in PATH) in cwd (NULL: ours), output to
 * logpath (NULL: inherit; appended).  Returns the exit status, or 128+sig.
 */
int run_argv(char *const argv[], const char *cwd, const char *logpath);
/* Same, but the child's stdout is returned in *out (NUL-terminated). */
int run_capture(char *const argv[], const char *cwd, char **out);

/* Hex SHA-256 of a buffer, into hex[65]. */
void sha256_hex(const void *data, size_t len, char hex[65]);

/* A growable string. */
struct strbuf {
	char *buf;
	size_t len, cap;
};
void sb_add(struct strbuf *sb, const void *data, size_t len);
void sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(struct strbuf *sb);

/* Children the runner must end on any exit path (QEMU, make). */
void child_track(pid_t pid);
void child_untrack(pid_t pid);
void child_kill_all(void);
/* In a forked child: own process group, die with the parent, stdin null. */
void child_setup(const char *cwd, int outfd);
/* Install SIGINT/SIGTERM/SIGHUP handlers that set the stop flag. */
void install_stop_handlers(void);
extern volatile int stop_requested;

#endif
