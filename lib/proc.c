// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stacktest.h"

const char *const hang_report_words[] = {
	"blocked for more than", "self-detected stall",
	"detected stalls on CPUs", "BUG: soft lockup",
	"BUG: workqueue lockup", NULL,
};

static void log_argv(const char *const argv[])
{
	int i;

	fprintf(stderr, "+");
	for (i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fprintf(stderr, "\n");
}

int reap(pid_t pid)
{
	int st;

	if (pid < 0)
		return 127;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

int run(const char *const argv[])
{
	pid_t pid;

	log_argv(argv);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 127;
	if (!pid) {
		/* Tools write to the console, never into KTAP on stdout. */
		dup2(2, 1);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return reap(pid);
}

int run_out(const char *const argv[], char *out, size_t outlen)
{
	size_t len = 0;
	int pfd[2];
	ssize_t n;
	pid_t pid;

	log_argv(argv);
	if (pipe(pfd))
		return 127;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 127;
	if (!pid) {
		close(pfd[0]);
		dup2(pfd[1], 1);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	/* What does not fit is read and dropped, so the child never blocks. */
	for (;;) {
		char sink[512];
		size_t room = outlen - 1 - len;

		n = room ? read(pfd[0], out + len, room) :
			   read(pfd[0], sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (room)
			len += n;
	}
	close(pfd[0]);
	out[len] = 0;
	return reap(pid);
}

int dm_status(const char *name, char *out, size_t len)
{
	const char *argv[] = { "dmsetup", "status", name, NULL };

	if (run_out(argv, out, len))
		return -1;
	out[strcspn(out, "\n")] = 0;
	return 0;
}

int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

long long read_ll(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtoll(buf, NULL, 10);
}

long long vmstat(const char *name)
{
	char line[128];
	size_t nlen = strlen(name);
	long long v = -1;
	FILE *f = fopen("/proc/vmstat", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, nlen) && line[nlen] == ' ') {
			v = strtoll(line + nlen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

void drop_caches(void)
{
	sync();
	write_str("/proc/sys/vm/drop_caches", "3");
}

double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double scaled(double seconds)
{
	double f = atof(env_or("STACK_OPT_TIME_SCALE", "1"));

	return seconds * (f >= 1 ? f : 1);
}

int wait_path(const char *path, double seconds)
{
	double end = mono_s() + scaled(seconds);

	while (access(path, F_OK)) {
		if (mono_s() > end)
			return -1;
		usleep(10000);
	}
	return 0;
}

int mount_fs(const char *dev, const char *dir, const char *type,
	     unsigned long flags)
{
	fprintf(stderr, "+ mount -t %s %s %s\n", type, dev, dir);
	if (mount(dev, dir, type, flags, NULL)) {
		fprintf(stderr, "mount %s on %s: %s\n", dev, dir,
			strerror(errno));
		return -1;
	}
	return 0;
}

void ktap_begin(struct ktap_out *k, int plan)
{
	k->n = 0;
	k->failed = 0;
	k->last = mono_s();
	printf("KTAP version 1\n1..%d\n", plan);
	fflush(stdout);
}

void ktap_result(struct ktap_out *k, int ok, const char *fmt, ...)
{
	double now = mono_s();
	va_list ap;

	printf("# duration_ms: %.0f\n", (now - k->last) * 1000);
	k->last = now;
	printf("%sok %d ", ok ? "" : "not ", ++k->n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	progress_reset();
	if (!ok)
		k->failed++;
}

void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int ktap_skip(const char *fmt, ...)
{
	va_list ap;

	printf("KTAP version 1\n1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return GUEST_TEST_SKIP;
}

int ktap_end(struct ktap_out *k)
{
	return k->failed ? 1 : 0;
}

/* splitmix64: one multiply-xorshift round per word, cheap under TCG. */
uint64_t pattern_word(uint64_t seed, uint64_t stream, uint64_t i)
{
	uint64_t z = seed * 0x9e3779b97f4a7c15ULL ^ stream << 40 ^ i;

	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned char pattern_byte(uint64_t seed, uint64_t stream, uint64_t o)
{
	return pattern_word(seed, stream, o / 8) >> (8 * (o % 8));
}

void pattern_fill(void *buf, size_t len, uint64_t seed, uint64_t stream,
		  uint64_t off)
{
	unsigned char *p = buf;
	size_t i = 0;

	for (; i < len && (off + i) % 8; i++)
		p[i] = pattern_byte(seed, stream, off + i);
	for (; i + 8 <= len; i += 8) {
		uint64_t w = pattern_word(seed, stream, (off + i) / 8);

		memcpy(p + i, &w, 8);
	}
	for (; i < len; i++)
		p[i] = pattern_byte(seed, stream, off + i);
}

int pattern_write_fd(int fd, long long bytes, uint64_t seed, uint64_t stream)
{
	const long long chunk = 1 << 20;
	void *buf = NULL;
	long long off;
	int bad = fd < 0 || posix_memalign(&buf, 4096, chunk);

	for (off = 0; !bad && off < bytes; off += chunk) {
		size_t n = bytes - off < chunk ? bytes - off : chunk;

		progress_note("pattern: %lld of %lld MiB written", off >> 20,
			      bytes >> 20);
		pattern_fill(buf, n, seed, stream, off);
		bad = pwrite(fd, buf, n, off) != (ssize_t)n;
	}
	free(buf);
	return bad || fdatasync(fd) ? -1 : 0;
}

long long pattern_verify_fd(int fd, long long bytes, uint64_t seed,
			    block_stream stream_of, const char *label)
{
	const long long chunk = 1 << 20;
	char *buf = NULL;
	long long off, bad = 0;

	if (fd < 0 || posix_memalign((void **)&buf, 4096, chunk))
		return -1;
	for (off = 0; off < bytes; off += 4096) {
		size_t n = bytes - off < chunk ? bytes - off : chunk;

		if (off % chunk == 0)
			progress_note("%s: %lld of %lld MiB read back", label,
				      off >> 20, bytes >> 20);
		if (off % chunk == 0 && pread(fd, buf, n, off) != (ssize_t)n) {
			bad = -1;
			break;
		}
		if (pattern_check(buf + off % chunk, 4096, seed,
				  stream_of(off / 4096), off) >= 0 &&
		    bad++ < 4)
			ktap_diag("%s: block %lld differs", label, off / 4096);
	}
	free(buf);
	if (bad > 0)
		ktap_diag("%s: %lld blocks differ", label, bad);
	return bad;
}

long long pattern_check(const void *buf, size_t len, uint64_t seed,
			uint64_t stream, uint64_t off)
{
	const unsigned char *p = buf;
	size_t i = 0;

	for (; i < len && (off + i) % 8; i++)
		if (p[i] != pattern_byte(seed, stream, off + i))
			return i;
	for (; i + 8 <= len; i += 8) {
		uint64_t w = pattern_word(seed, stream, (off + i) / 8);

		if (memcmp(p + i, &w, 8))
			break;
	}
	for (; i < len; i++)
		if (p[i] != pattern_byte(seed, stream, off + i))
			return i;
	return -1;
}

uint64_t env_seed(void)
{
	const char *s = getenv("STACK_SEED");

	return s ? strtoull(s, NULL, 0) : 1;
}

const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

long long dev_sectors(const char *dev)
{
	unsigned long long bytes = 0;
	int fd = open(dev, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ioctl(fd, BLKGETSIZE64, &bytes))
		bytes = 0;
	close(fd);
	return bytes / 512;
}
