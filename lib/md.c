// SPDX-License-Identifier: GPL-2.0
/* md helpers for the guest tests; see stacktest.h. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stacktest.h"

const char *md_name(const char *dev)
{
	const char *base = strrchr(dev, '/');

	return base ? base + 1 : dev;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok = f && fgets(buf, len, f);

	if (f)
		fclose(f);
	if (!ok) {
		buf[0] = 0;
		return -1;
	}
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int md_attr(const char *md, const char *attr, char *buf, size_t len)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/block/%s/md/%s", md_name(md), attr);
	return read_line(path, buf, len);
}

long long md_attr_ll(const char *md, const char *attr)
{
	char buf[64], *end;
	long long v;

	if (md_attr(md, attr, buf, sizeof(buf)))
		return -1;
	v = strtoll(buf, &end, 10);
	return end == buf ? -1 : v;
}

int md_attr_write(const char *md, const char *attr, const char *val)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/block/%s/md/%s", md_name(md), attr);
	if (write_str(path, val)) {
		ktap_diag("write '%s' to %s: %s", val, path, strerror(errno));
		return -1;
	}
	return 0;
}

static int cmp_member(const void *a, const void *b)
{
	const struct md_member *x = a, *y = b;
	int sx = x->slot < 0 ? 1 << 20 : x->slot;
	int sy = y->slot < 0 ? 1 << 20 : y->slot;

	return sx != sy ? sx - sy : strcmp(x->name, y->name);
}

int md_members(const char *md, struct md_member *m, int max)
{
	char path[160], buf[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/block/%s/md", md_name(md));
	d = opendir(path);
	while (d && (de = readdir(d)) && n < max) {
		if (strncmp(de->d_name, "dev-", 4))
			continue;
		snprintf(m[n].name, sizeof(m[n].name), "%s", de->d_name + 4);
		snprintf(m[n].dev, sizeof(m[n].dev), "/dev/%s", m[n].name);
		snprintf(path, sizeof(path), "dev-%.31s/slot", m[n].name);
		md_attr(md, path, buf, sizeof(buf));
		m[n].slot = strcmp(buf, "none") ? atoi(buf) : -1;
		snprintf(path, sizeof(path), "dev-%.31s/state", m[n].name);
		md_attr(md, path, m[n].state, sizeof(m[n].state));
		n++;
	}
	if (d)
		closedir(d);
	qsort(m, n, sizeof(*m), cmp_member);
	return n;
}

void md_dump(const char *md)
{
	static const char *const attrs[] = {
		"array_state", "level", "layout", "raid_disks", "degraded",
		"sync_action", "sync_completed", "reshape_position",
		"mismatch_cnt", "bitmap/max_backlog_used", NULL,
	};
	struct md_member m[MD_MAX_MEMBERS];
	char line[256];
	FILE *f = fopen("/proc/mdstat", "re");
	int i, n;

	ktap_diag("--- /proc/mdstat ---");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		ktap_diag("%s", line);
	}
	if (f)
		fclose(f);
	for (i = 0; attrs[i]; i++)
		if (!md_attr(md, attrs[i], line, sizeof(line)))
			ktap_diag("%s/md/%s: %s", md_name(md), attrs[i], line);
	n = md_members(md, m, MD_MAX_MEMBERS);
	for (i = 0; i < n; i++)
		ktap_diag("member %s slot %d state %s", m[i].name, m[i].slot,
			  m[i].state);
}

int mdadm(const char *arg, ...)
{
	const char *argv[24];
	va_list ap;
	int n = 0;

	argv[n++] = "mdadm";
	argv[n++] = arg;
	va_start(ap, arg);
	while (n < 23 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run(argv);
}

/* Is a sync of any kind running or queued, by /proc/mdstat? */
static int mdstat_busy(const char *md)
{
	char line[256];
	size_t nlen = strlen(md_name(md));
	FILE *f = fopen("/proc/mdstat", "re");
	int in = 0, busy = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, md_name(md), nlen) && line[nlen] == ' ')
			in = 1;
		else if (line[0] != ' ' && line[0] != '\t')
			in = 0;
		if (in && (strstr(line, "recovery") || strstr(line, "resync") ||
			   strstr(line, "reshape") || strstr(line, "check")))
			busy = 1;
	}
	if (f)
		fclose(f);
	return busy;
}

int md_idle(const char *md, int want_degraded)
{
	char action[32], completed[64], reshape[64];

	if (md_attr(md, "sync_action", action, sizeof(action)) ||
	    strcmp(action, "idle"))
		return 0;
	md_attr(md, "sync_completed", completed, sizeof(completed));
	if (strcmp(completed, "none"))
		return 0;
	if (!md_attr(md, "reshape_position", reshape, sizeof(reshape)) &&
	    strcmp(reshape, "none"))
		return 0;
	if (mdstat_busy(md))
		return 0;
	return want_degraded < 0 ||
	       md_attr_ll(md, "degraded") == want_degraded;
}

/* Seconds (scaled) md may go without moving while a wait expects it to. */
#define MD_STALL_S 60

/*
 * How far md got, as a string that changes while it works: the array's
 * sync_action, sync_completed and degraded, and every "(done/total)" of
 * /proc/mdstat (which moves every second, where sync_completed may wait
 * for a sixteenth of the array).
 */
static void md_progress(const char *md, char *out, size_t len)
{
	char line[256], val[64], *p;
	size_t used;
	FILE *f;

	md_attr(md, "sync_action", val, sizeof(val));
	snprintf(out, len, "%s", val);
	md_attr(md, "sync_completed", val, sizeof(val));
	used = strlen(out);
	snprintf(out + used, len - used, " %s degraded=%lld", val,
		 md_attr_ll(md, "degraded"));
	f = fopen("/proc/mdstat", "re");
	while (f && fgets(line, sizeof(line), f)) {
		for (p = line; (p = strchr(p, '(')); p++) {
			used = strlen(out);
			if (isdigit((unsigned char)p[1]) && strchr(p, ')'))
				snprintf(out + used, len - used, " %.*s",
					 (int)(strchr(p, ')') - p + 1), p);
		}
	}
	if (f)
		fclose(f);
}

/*
 * Idle (and degraded as wanted) within timeout, making progress all the
 * while: md that moves nothing for MD_STALL_S is a stalled resync,
 * rebuild or reshape, reported at once, not at the timeout.
 */
int md_wait_idle(const char *md, int want_degraded, double timeout)
{
	double t0 = mono_s(), moved = t0, looked = 0;
	char what[96], seen[512] = "", now[512];

	timeout = scaled(timeout);
	snprintf(what, sizeof(what), "waiting for %s to go idle", md_name(md));
	/*
	 * The host's bound comes well after ours (a note may trail a change
	 * by 5 s): this wait says what stalled, with md's state.
	 */
	progress_begin(what, MD_STALL_S + 30);
	while (!md_idle(md, want_degraded)) {
		if (mono_s() - looked >= 1) {
			looked = mono_s();
			md_progress(md, now, sizeof(now));
			if (strcmp(now, seen)) {
				snprintf(seen, sizeof(seen), "%s", now);
				moved = looked;
				progress_note("%s: %s", md_name(md), now);
			}
		}
		if (mono_s() - moved > scaled(MD_STALL_S) ||
		    mono_s() - t0 > timeout) {
			ktap_diag("%s not idle with degraded=%d after %.0fs (the last change %.0fs ago): %s",
				  md_name(md), want_degraded, mono_s() - t0,
				  mono_s() - moved, seen);
			md_dump(md);
			progress_end();
			return -1;
		}
		usleep(50000);
	}
	progress_end();
	ktap_diag("%s idle, degraded %lld, after %.1fs", md_name(md),
		  md_attr_ll(md, "degraded"), mono_s() - t0);
	return 0;
}

int md_wait_started(const char *md, double timeout)
{
	double t0 = mono_s();
	char action[32];

	timeout = scaled(timeout);
	for (;;) {
		md_attr(md, "sync_action", action, sizeof(action));
		if (strcmp(action, "idle") || mdstat_busy(md))
			return 0;
		if (mono_s() - t0 > timeout) {
			ktap_diag("%s: no sync action started in %.0fs",
				  md_name(md), timeout);
			md_dump(md);
			return -1;
		}
		usleep(20000);
	}
}

int md_check(const char *md, double timeout, long long *mismatch)
{
	*mismatch = -1;
	if (md_wait_idle(md, -1, timeout))
		return -1;
	if (md_attr_write(md, "sync_action", "check"))
		return -1;
	/* Either we see it run, or it already finished: both end idle. */
	if (md_wait_idle(md, -1, timeout))
		return -1;
	*mismatch = md_attr_ll(md, "mismatch_cnt");
	return 0;
}

/* Why md or mdadm will not reshape this array, or NULL when it should. */
const char *md_no_reshape_reason(const char *md)
{
	char level[32];
	long long layout = md_attr_ll(md, "layout");

	md_attr(md, "level", level, sizeof(level));
	if (!strcmp(level, "raid10") && ((layout >> 8) & 0xff) > 1 &&
	    !(layout & 0x10000))
		return "raid10 far layout (mdadm: Cannot reshape RAID10 in far-mode; md's raid10_check_reshape() rejects far copies too)";
	return NULL;
}

int md_grow_disks(const char *md, int ndisks)
{
	char arg[32];
	char level[32];

	snprintf(arg, sizeof(arg), "--raid-devices=%d", ndisks);
	if (!mdadm("--grow", md, arg, NULL))
		return 0;
	md_attr(md, "level", level, sizeof(level));
	if (strcmp(level, "raid5") && strcmp(level, "raid6"))
		return -1;
	/* No room to move the data offset: raid5/6 take a backup file. */
	ktap_diag("retrying the grow with a backup file");
	return mdadm("--grow", md, arg, "--backup-file=" MD_GROW_BACKUP,
		     NULL);
}

int md_free_disk(int i, char *out, size_t len)
{
	const char *s = env_or("STACK_FREE_DISKS", "");
	int n = 0;

	while (*s) {
		size_t w = strcspn(s, " ");

		if (n++ == i && w < len) {
			memcpy(out, s, w);
			out[w] = 0;
			return 0;
		}
		s += w;
		s += strspn(s, " ");
	}
	return -1;
}

int md_scrub_clean(const char *md, double timeout)
{
	long long mismatch;
	int ok = !md_check(md, timeout, &mismatch) && mismatch == 0;

	ktap_diag("mismatch_cnt %lld after check", mismatch);
	if (!ok)
		md_dump(md);
	return ok ? 0 : -1;
}

void md_speed_up(void)
{
	write_str("/proc/sys/dev/raid/speed_limit_min", "200000");
	write_str("/proc/sys/dev/raid/speed_limit_max", "2000000");
}

void md_speed_limit(int kib_s)
{
	char v[24];

	snprintf(v, sizeof(v), "%d", kib_s);
	write_str("/proc/sys/dev/raid/speed_limit_min", "1");
	write_str("/proc/sys/dev/raid/speed_limit_max", v);
}

int md_sync_progress(const char *md, long long *done, long long *total)
{
	char buf[64];

	if (md_attr(md, "sync_completed", buf, sizeof(buf)) ||
	    sscanf(buf, "%lld / %lld", done, total) != 2 || *total <= 0)
		return -1;
	return 0;
}

static uint64_t rnd(const struct region *r, uint64_t *state)
{
	return pattern_word(r->seed, 0xfffe, (*state)++);
}

static long long chunk_off(const struct region *r, int i)
{
	return r->base + i * r->chunk;
}

/* Pattern offset: the chunk's place in the device, so chunks differ. */
static int write_chunk(const struct region *r, int i, int direct,
		       uint64_t *state, char *buf)
{
	int fd = open(r->dev, O_WRONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
	long long o = 0;

	if (fd < 0) {
		ktap_diag("open %s: %s", r->dev, strerror(errno));
		return -1;
	}
	while (o < r->chunk) {
		long long len = 1 + rnd(r, state) % r->chunk;

		if (direct)
			len = (len + 4095) & ~4095LL;
		if (len > r->chunk - o)
			len = r->chunk - o;
		pattern_fill(buf, len, r->seed, r->gen[i],
			     chunk_off(r, i) + o);
		if (pwrite(fd, buf, len, chunk_off(r, i) + o) != len) {
			ktap_diag("write %s at %lld+%lld: %s", r->dev,
				  chunk_off(r, i) + o, len, strerror(errno));
			close(fd);
			return -1;
		}
		o += len;
	}
	if (!direct && fdatasync(fd)) {
		ktap_diag("fdatasync %s: %s", r->dev, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

void region_write_gen(struct region *r, int from, int to, int gen)
{
	int i;

	for (i = from; i < to; i++)
		r->gen[i] = gen;
}

int region_write(struct region *r, int from, int to, int gen)
{
	uint64_t state = (uint64_t)gen << 32 | (uint64_t)from << 16 | to;
	int order[256], i, j, t, ret = 0;
	char *buf;

	if (posix_memalign((void **)&buf, 4096, r->chunk))
		return -1;
	for (i = from; i < to; i++) {
		order[i - from] = i;
		r->gen[i] = gen;
	}
	for (i = to - from - 1; i > 0; i--) {
		j = rnd(r, &state) % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < to - from && !ret; i++)
		ret = write_chunk(r, order[i], rnd(r, &state) & 1, &state,
				  buf);
	free(buf);
	return ret;
}

int region_verify(const struct region *r, int direct, const char *what)
{
	int fd, i, bad = 0;
	long long at;
	char *buf;

	if (!direct)
		drop_caches();
	if (posix_memalign((void **)&buf, 4096, r->chunk))
		return -1;
	fd = open(r->dev, O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
	if (fd < 0) {
		ktap_diag("open %s: %s", r->dev, strerror(errno));
		free(buf);
		return -1;
	}
	for (i = 0; i < r->nchunks; i++) {
		if (pread(fd, buf, r->chunk, chunk_off(r, i)) != r->chunk) {
			ktap_diag("%s: read %s at %lld: %s", what, r->dev,
				  chunk_off(r, i), strerror(errno));
			bad = -1;
			break;
		}
		at = pattern_check(buf, r->chunk, r->seed, r->gen[i],
				   chunk_off(r, i));
		if (at < 0)
			continue;
		if (!bad++) {
			unsigned char want;

			pattern_fill(&want, 1, r->seed, r->gen[i],
				     chunk_off(r, i) + at);
			ktap_diag("%s: %s byte %lld (chunk %d, gen %d): expected 0x%02x, got 0x%02x",
				  what, r->dev, chunk_off(r, i) + at, i,
				  r->gen[i], want, (unsigned char)buf[at]);
		}
	}
	if (bad > 0)
		ktap_diag("%s: %d of %d chunks differ", what, bad, r->nchunks);
	close(fd);
	free(buf);
	return bad;
}

int spawn(int (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (!pid) {
		fflush(NULL);
		_exit(fn(arg) ? 1 : 0);
	}
	return pid;
}

/* Is name in tracefs file (a function per line, maybe with " [mod]")? */
static int traced_in(const char *file, const char *name)
{
	char path[96], line[256];
	size_t n = strlen(name);
	FILE *f;
	int hit = 0;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/%s", file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!hit && fgets(line, sizeof(line), f))
		hit = !strncmp(line, name, n) &&
		      (line[n] == '\n' || line[n] == ' ');
	fclose(f);
	return hit;
}

/*
 * trace_stat/function<cpu> prints a name cut to 30 characters ("%-30.30s",
 * kernel/trace/ftrace.c function_stat_show): jbd2_journal_commit_transaction
 * is listed as jbd2_journal_commit_transactio.  The filter holds only the
 * plan's names, none two sharing their first 30.
 */
#define STAT_NAME_MAX 30

static bool stat_name_is(const char *fn, const char *name)
{
	size_t n = strlen(name);

	if (n > STAT_NAME_MAX)
		n = STAT_NAME_MAX;
	return strlen(fn) == n && !strncmp(fn, name, n);
}

long long profile_hits(const char *name)
{
	char *names[] = { (char *)name };
	long long sum;

	profile_hits_of(names, 1, &sum);
	return sum;
}

/*
 * The names in tracefs' set_ftrace_filter (up to max, "name [mod]" cut to
 * the name, each once: two static functions of one name are listed
 * twice), newly allocated into names; how many, or -1 when unreadable.
 */
int traced_names(char **names, int max)
{
	char line[256];
	FILE *f = fopen("/sys/kernel/tracing/set_ftrace_filter", "re");
	int n = 0, i;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\t\n ")] = 0;
		for (i = 0; i < n && strcmp(names[i], line); i++)
			;
		if (!line[0] || line[0] == '#' || i < n)
			continue;
		names[n] = strdup(line);
		n += names[n] != NULL;
	}
	fclose(f);
	return n;
}

/* profile_hits() of n names at once: one read of each CPU's table. */
void profile_hits_of(char *const *names, int n, long long *hits)
{
	char path[128], line[256], fn[128];
	long long h;
	int cpu, i;

	memset(hits, 0, n * sizeof(*hits));
	for (cpu = 0;; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path),
			 "/sys/kernel/tracing/trace_stat/function%d", cpu);
		f = fopen(path, "re");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, " %127s %lld", fn, &h) != 2)
				continue;
			for (i = 0; i < n; i++)
				if (stat_name_is(fn, names[i]))
					hits[i] += h;
		}
		fclose(f);
	}
}

long long trace_hits(const char *name)
{
	if (traced_in("set_ftrace_filter", name) != 1)
		return -1;
	return profile_hits(name);
}

void trace_diag(const char *name)
{
	ktap_diag("ftrace: %s available %d, in set_ftrace_filter %d", name,
		  traced_in("available_filter_functions", name),
		  traced_in("set_ftrace_filter", name));
}

long long dev_written_sectors(const char *dev)
{
	char path[96];
	long long f[8] = { 0 };
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/class/block/%s/stat", md_name(dev));
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	if (fscanf(fp, "%lld %lld %lld %lld %lld %lld %lld", &f[0], &f[1],
		   &f[2], &f[3], &f[4], &f[5], &f[6]) != 7)
		f[6] = -1;
	fclose(fp);
	return f[6];
}

int wait_written(const char *dev, long long sectors, int pid)
{
	double t0 = mono_s();

	while (dev_written_sectors(dev) < sectors) {
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			ktap_diag("writer ended before %s had %lld sectors written",
				  dev, sectors);
			return -1;
		}
		if (mono_s() - t0 > scaled(60)) {
			ktap_diag("writer did not get going in 60s");
			return -1;
		}
		usleep(5000);
	}
	return 0;
}

int region_verify_while_syncing(const struct region *r, const char *md,
				int want_degraded, const char *what,
				int *passes)
{
	double t0 = mono_s();
	int bad = 0;

	*passes = 0;
	do {
		bad |= region_verify(r, 1, what) != 0;
		++*passes;
		progress_note("%s: %d verify passes while it syncs",
			      md_name(md), *passes);
		if (mono_s() - t0 > scaled(300)) {
			ktap_diag("%s: still syncing after %.0fs; stopped reading",
				  md_name(md), scaled(300));
			break;
		}
	} while (!bad && !md_idle(md, want_degraded));
	return bad;
}
