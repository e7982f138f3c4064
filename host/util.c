// SPDX-License-Identifier: GPL-2.0
/* Small helpers for the host side: memory, files, processes, hashing. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <openssl/evp.h>

#include <ini.h>

#include "util.h"

volatile int stop_requested;

void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("runner: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("runner: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	return s;
}

char *read_file(const char *path, size_t *len)
{
	struct strbuf sb = { 0 };
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sb_add(&sb, buf, n);
	close(fd);
	if (n < 0) {
		sb_free(&sb);
		return NULL;
	}
	sb_add(&sb, "", 0);
	if (len)
		*len = sb.len;
	return sb.buf;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%d", path, getpid());
	int fd, err = 0;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	if (write_all(fd, data, len) || fsync(fd))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	if (!err && rename(tmp, path))
		err = errno;
	if (err)
		unlink(tmp);
	free(tmp);
	errno = err;
	return err ? -1 : 0;
}

void copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_file(from, &len);

	if (!data || write_file_atomic(to, data, len))
		die("cannot copy %s to %s: %s", from, to, strerror(errno));
	free(data);
}

int mkdir_p(const char *path)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

int rm_rf(const char *path)
{
	if (!path_exists(path))
		return 0;
	return nftw(path, rm_one, 64, FTW_DEPTH | FTW_PHYS);
}

bool path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int wait_child(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return 127;
	}
	child_untrack(pid);
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

void child_setup(const char *cwd, int outfd)
{
	int null = open("/dev/null", O_RDONLY);

	/* Own process group, so a stop ends the whole tree (make's gcc). */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (null >= 0)
		dup2(null, 0);
	if (outfd >= 0) {
		dup2(outfd, 1);
		dup2(outfd, 2);
	}
	if (cwd && chdir(cwd)) {
		perror(cwd);
		_exit(127);
	}
}

int run_argv(char *const argv[], const char *cwd, const char *logpath)
{
	int fd = -1;
	pid_t pid;

	if (logpath) {
		fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			  0644);
		if (fd < 0)
			die("cannot open %s: %s", logpath, strerror(errno));
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		child_setup(cwd, fd);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	child_track(pid);
	if (fd >= 0)
		close(fd);
	return wait_child(pid);
}

int run_capture(char *const argv[], const char *cwd, char **out)
{
	struct strbuf sb = { 0 };
	char buf[4096];
	int pfd[2];
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		child_setup(cwd, -1);
		dup2(pfd[1], 1);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	child_track(pid);
	close(pfd[1]);
	while ((n = read(pfd[0], buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		sb_add(&sb, buf, n);
	}
	close(pfd[0]);
	sb_add(&sb, "", 0);
	*out = sb.buf;
	return wait_child(pid);
}

void sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char md[32];
	unsigned int mdlen = sizeof(md);
	unsigned int i;

	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL))
		die("sha256 failed");
	for (i = 0; i < 32; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
	hex[64] = 0;
}

void sb_add(struct strbuf *sb, const void *data, size_t len)
{
	if (sb->len + len + 1 > sb->cap) {
		sb->cap = (sb->len + len + 1) * 2;
		sb->buf = xrealloc(sb->buf, sb->cap);
	}
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = 0;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	sb_add(sb, s, n);
	free(s);
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

#define MAX_CHILDREN 64
static pid_t children[MAX_CHILDREN];

void child_track(pid_t pid)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++) {
		if (!children[i]) {
			children[i] = pid;
			return;
		}
	}
}

void child_untrack(pid_t pid)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (children[i] == pid)
			children[i] = 0;
}

/* Async-signal-safe: only kill(2). */
void child_kill_all(void)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (children[i] > 0)
			kill(-children[i], SIGKILL);
}

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
	child_kill_all();
}

void install_stop_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* runner ... | head: stop, and take the children along. */
	sigaction(SIGPIPE, &sa, NULL);
}

void trim_end(char *s)
{
	char *e = s + strlen(s);

	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
}

/* Length of line LINE (from 1) of TEXT, 0 past its end. */
static size_t line_len(const char *text, int line)
{
	const char *p = text;

	for (; p && *p && line > 1; line--) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return p ? strcspn(p, "\n") : 0;
}

const char *ini_syntax_why(const char *path, int line)
{
	static char why[128];
	char *text = read_file(path, NULL);
	size_t n = 0;
	int l;

	/* inih cuts a long line and reads its tail as the next line. */
	for (l = line > 1 ? line - 1 : line; text && l <= line; l++) {
		n = line_len(text, l);
		if (n >= INI_MAX_LINE - 1)
			break;
	}
	free(text);
	if (n < INI_MAX_LINE - 1)
		return "syntax error (want [section] or key = value)";
	snprintf(why, sizeof(why),
		 "line %d has %zu characters; the INI reader (inih) takes at most %d",
		 l, n, INI_MAX_LINE - 2);
	return why;
}

/*
 * Only the kernel's lines count: printk stamps them "[   12.345678] "
 * (PRINTK_TIME), while the tools' own lines share the console.  A stamp
 * may follow a tool's unfinished line, so look anywhere.
 */
bool kernel_says(const char *line, const char *const *what)
{
	const char *p = line;
	int i, end;
	double t;

	while ((p = strchr(p, '['))) {
		end = 0;
		if (sscanf(p, "[%lf]%n", &t, &end) == 1 && end)
			for (i = 0; what[i]; i++)
				if (strstr(p + end, what[i]))
					return true;
		p++;
	}
	return false;
}
