// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's PID 1: mount the pseudo filesystems, read the plan the
 * runner appended to the initramfs, build the stack bottom-up, run each
 * test program, tear the stack down, and report everything as KTAP v1 on
 * the virtio-serial port named "ktap": one result per test, each with its
 * steps as nested subtests.  Each test's start and end are marked in the
 * kernel log, so the host can name the test a splat came in.  Then power
 * off (reboot with QEMU's -no-reboot ends the guest).  A watcher process
 * beside it turns the kernel's hang reports into forensics at once.
 *
 * "init --describe" (on the host) lists the layer kinds built in, with
 * the tools each runs: the initramfs builder reads it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stack.h"

#define MAX_ITEMS 16
#define MAX_TRACE 2048	/* --mutate counts whole files */
#define TRACING "/sys/kernel/tracing"

struct plan {
	char name[64];
	char seed[32];
	int node;		/* -1: a single guest; else node0 or node1 */
	int deadline;		/* seconds of uptime: dump blocked tasks */
	int hang_timeout;	/* khungtaskd's threshold, seconds */
	bool write_through;	/* tell the kernel the disks have no cache */
	char above[128];	/* node0's layers above DRBD, for node1 */
	int nlayers, ntests;
	struct layer layers[MAX_ITEMS];
	char tests[MAX_ITEMS][64];
	char swap_pressure[16];	/* the topology's, or "" */
	int nskip;
	char skip[MAX_ITEMS][256];	/* "TEST why": a known issue here */
	int ntrace;
	char trace[MAX_TRACE][64];	/* functions to count calls of */
	bool traceable[MAX_TRACE];
};

static FILE *out;	/* the KTAP port */

static void setup_mounts(void)
{
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	mount("tmpfs", "/run", "tmpfs", 0, NULL);
	mkdir("/run/mdadm", 0755);
	mkdir("/run/lock", 0755);
	mkdir("/run/lvm", 0755);
	mkdir("/mnt", 0755);
}

/* The kernel found no /dev/console in the archive: open it ourselves. */
static void setup_console(void)
{
	int fd = open("/dev/console", O_RDWR);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static FILE *open_port(const char *want)
{
	const char *base = "/sys/class/virtio-ports";
	char path[300], name[64], dev[300];
	struct dirent *de;
	DIR *d = opendir(base);
	FILE *f = NULL;
	int fd;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/name", base, de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		name[0] = 0;
		if (read(fd, name, sizeof(name) - 1) > 0)
			name[strcspn(name, "\n")] = 0;
		close(fd);
		if (strcmp(name, want))
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", de->d_name);
		f = fopen(dev, "w");
		break;
	}
	if (d)
		closedir(d);
	if (!f) {
		fprintf(stderr, "init: no virtio port '%s'; KTAP on console\n",
			want);
		f = fdopen(dup(1), "w");
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

/* "name=value" from the topology: $STACK_OPT_NAME for every test. */
static void set_option(const char *opt)
{
	char name[64] = "STACK_OPT_";
	size_t i, n = strlen(name);
	const char *eq = strchr(opt, '=');

	if (!eq || eq - opt >= (long)(sizeof(name) - n))
		return;
	for (i = 0; opt + i < eq; i++)
		name[n + i] = opt[i] == '-' ? '_' : toupper((unsigned char)opt[i]);
	name[n + i] = 0;
	setenv(name, eq + 1, 1);
}

static void plan_line(struct plan *p, struct stack *s, char *line)
{
	char *val = strchr(line, ' '), err[200];

	if (!val)
		return;
	*val++ = 0;
	if (!strcmp(line, "name")) {
		snprintf(p->name, sizeof(p->name), "%s", val);
	} else if (!strcmp(line, "seed")) {
		snprintf(p->seed, sizeof(p->seed), "%s", val);
	} else if (!strcmp(line, "deadline")) {
		p->deadline = atoi(val);
	} else if (!strcmp(line, "write-cache")) {
		p->write_through = !strcmp(val, "off");
	} else if (!strcmp(line, "hang-timeout")) {
		p->hang_timeout = atoi(val);
	} else if (!strcmp(line, "node")) {
		p->node = atoi(val);
	} else if (!strcmp(line, "above")) {
		snprintf(p->above, sizeof(p->above), "%s", val);
	} else if (!strcmp(line, "disk") && s->ndisks < STACK_MAX_DISKS) {
		snprintf(s->disks[s->ndisks++], sizeof(s->disks[0]), "%s", val);
	} else if (!strcmp(line, "layer") && p->nlayers < MAX_ITEMS) {
		if (layer_parse(val, &p->layers[p->nlayers], err, sizeof(err)))
			fprintf(stderr, "init: plan: %s\n", err);
		else
			p->nlayers++;
	} else if (!strcmp(line, "trace") && p->ntrace < MAX_TRACE) {
		snprintf(p->trace[p->ntrace++], sizeof(p->trace[0]), "%s", val);
	} else if (!strcmp(line, "option")) {
		set_option(val);
	} else if (!strcmp(line, "swap-pressure")) {
		snprintf(p->swap_pressure, sizeof(p->swap_pressure), "%s", val);
	} else if (!strcmp(line, "skip") && p->nskip < MAX_ITEMS) {
		snprintf(p->skip[p->nskip++], sizeof(p->skip[0]), "%s", val);
	} else if (!strcmp(line, "test") && p->ntests < MAX_ITEMS) {
		snprintf(p->tests[p->ntests++], sizeof(p->tests[0]), "%s", val);
	}
}

static int read_plan(struct plan *p, struct stack *s)
{
	char line[512];
	FILE *f = fopen("/plan", "r");

	p->node = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		plan_line(p, s, line);
	}
	fclose(f);
	return 0;
}

static void result(int n, int ok, const char *name, double t0)
{
	fprintf(out, "# duration_ms: %.0f\n", (mono_s() - t0) * 1000);
	fprintf(out, "%sok %d %s\n", ok ? "" : "not ", n, name);
}

/*
 * write-cache = off: the disks have no volatile cache as the kernel sees
 * them, so a flush to them completes at once, inside submit_bio().
 */
static int write_through(const struct plan *p, const struct stack *s)
{
	char path[96];
	int i, bad = 0;

	if (!p->write_through)
		return 0;
	for (i = 0; i < s->ndisks; i++) {
		snprintf(path, sizeof(path), "/sys/block/%s/queue/write_cache",
			 strrchr(s->disks[i], '/') + 1);
		if (write_str(path, "write through")) {
			fprintf(out, "    # cannot set %s to write through\n",
				path);
			bad = 1;
		}
	}
	return bad;
}

static int build_stack(struct plan *p, struct stack *s, int *built)
{
	char msg[256];
	int i;

	fprintf(out, "    KTAP version 1\n    1..%d\n", p->nlayers);
	if (write_through(p, s))
		return -1;
	for (i = 0; i < p->nlayers; i++) {
		double t0 = mono_s();
		int ok;

		msg[0] = 0;
		ok = !stack_build_layer(s, &p->layers[i], msg, sizeof(msg));
		fprintf(out, "    # %s\n    # duration_ms: %.0f\n", msg,
			(mono_s() - t0) * 1000);
		fprintf(out, "    %sok %d %s\n", ok ? "" : "not ", i + 1,
			p->layers[i].kind);
		if (!ok)
			return -1;
		*built = i + 1;
	}
	return 0;
}

static int teardown_stack(struct plan *p, struct stack *s, int built)
{
	char msg[256];
	int i, bad = 0;

	fprintf(out, "    KTAP version 1\n    1..%d\n", built);
	for (i = built - 1; i >= 0; i--) {
		int ok;

		msg[0] = 0;
		ok = !stack_teardown_layer(s, &p->layers[i], msg, sizeof(msg));
		fprintf(out, "    # %s\n    %sok %d %s\n", msg,
			ok ? "" : "not ", built - i, p->layers[i].kind);
		bad |= !ok;
	}
	return bad ? -1 : 0;
}

/* A line in the kernel log (and on the console, at warning level). */
static void kmsg(const char *fmt, const char *name)
{
	char line[160];

	snprintf(line, sizeof(line), fmt, name);
	write_str("/dev/kmsg", line);
}

/*
 * Run /bin/NAME (a self-test: /bin/selftests/NAME); its KTAP (stdout)
 * goes to the port, nested.  Returns 0 when it passed, 1 when it
 * skipped itself (the reason in skip), -1 when it failed.  Its window in
 * the kernel log is marked "stacktest: begin/end NAME".
 */
static int run_test(const char *name, char *skip, size_t len)
{
	char path[128], line[1024];
	int pfd[2], st;
	FILE *f;
	pid_t pid;

	snprintf(path, sizeof(path), "/bin/%s", name);
	if (pipe(pfd))
		return -1;
	kmsg("<4>stacktest: begin %s\n", name);
	fflush(NULL);
	pid = fork();
	if (!pid) {
		close(pfd[0]);
		dup2(pfd[1], 1);
		execl(path, path, (char *)NULL);
		fprintf(stderr, "init: cannot run %s: %s\n", path,
			strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		fprintf(out, "    %s", line);
		if (!strncmp(line, "1..0 # SKIP ", 12))
			snprintf(skip, len, "%.*s", (int)strcspn(line + 12, "\n"),
				 line + 12);
	}
	if (f)
		fclose(f);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	kmsg("<4>stacktest: end %s\n", name);
	if (WIFSIGNALED(st))
		fprintf(out, "    # %s killed by signal %d\n", name,
			WTERMSIG(st));
	if (WIFEXITED(st) && WEXITSTATUS(st) == GUEST_TEST_SKIP && *skip)
		return 1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/*
 * Count calls of the series' changed functions with the ftrace function
 * profiler, from before the stack is built to after it is torn down.  A
 * name set_ftrace_filter refuses (inlined, notrace, absent) is reported as
 * not traceable.  With no name accepted the profiler stays off: an empty
 * filter would profile every function.
 */
static void trace_start(struct plan *p)
{
	char name[80];
	int i, fd, ok = 0;

	if (!p->ntrace)
		return;
	mount("nodev", TRACING, "tracefs", 0, NULL);
	for (i = 0; i < p->ntrace; i++) {
		/*
		 * With its newline, ftrace parses the name during write() and
		 * refuses an unknown one there; without, the error would only
		 * come at close() and be lost.
		 */
		snprintf(name, sizeof(name), "%s\n", p->trace[i]);
		fd = open(TRACING "/set_ftrace_filter", O_WRONLY | O_APPEND);
		p->traceable[i] = fd >= 0 && write(fd, name, strlen(name)) > 0;
		if (fd >= 0)
			close(fd);
		ok += p->traceable[i];
	}
	if (ok && write_str(TRACING "/function_profile_enabled", "1"))
		fprintf(stderr, "init: cannot enable the function profiler\n");
}

static void trace_report(const struct plan *p)
{
	int i;

	if (!p->ntrace)
		return;
	write_str(TRACING "/function_profile_enabled", "0");
	for (i = 0; i < p->ntrace; i++) {
		if (p->traceable[i])
			fprintf(out, "# coverage: %s %lld\n", p->trace[i],
				profile_hits(p->trace[i]));
		else
			fprintf(out, "# coverage: %s not-traceable\n",
				p->trace[i]);
	}
}

/*
 * What the tests run on: STACK_KINDS="md ext4 swapfile"; how the hog gets
 * its pages out, STACK_SWAP_PRESSURE: the topology's swap-pressure, else
 * the strongest any layer declares; STACK_SWAP_IN_RAM=1 when a layer
 * keeps its data in RAM (brd, zram).
 */
static void export_kinds(const struct plan *p)
{
	const char *pressure = p->swap_pressure[0] ? p->swap_pressure :
			       "reclaim";
	char kinds[256] = "";
	size_t off = 0;
	int i, ram = 0;

	for (i = 0; i < p->nlayers && off < sizeof(kinds); i++) {
		const struct layer_kind *k = layer_kind(p->layers[i].kind);

		off += snprintf(kinds + off, sizeof(kinds) - off, "%s%s",
				i ? " " : "", p->layers[i].kind);
		ram |= k->swap_in_ram;
		if (!p->swap_pressure[0] &&
		    swap_pressure_rank(k->swap_pressure) >
		    swap_pressure_rank(pressure))
			pressure = k->swap_pressure;
	}
	setenv("STACK_KINDS", kinds, 1);
	setenv("STACK_SWAP_PRESSURE", pressure, 1);
	setenv("STACK_SWAP_IN_RAM", ram ? "1" : "0", 1);
}

/*
 * Two-node topologies: hostname node0/node1 (DRBD's "on" sections) and a
 * static address on the one private link, eth0.
 */
static int setup_node(const struct plan *p)
{
	char host[16], addr[32], node[8];
	const char *lo[] = { "ip", "link", "set", "lo", "up", NULL };
	const char *add[] = { "ip", "addr", "add", addr, "dev", "eth0", NULL };
	const char *up[] = { "ip", "link", "set", "eth0", "up", NULL };

	if (p->node < 0)
		return 0;
	snprintf(host, sizeof(host), "node%d", p->node);
	snprintf(addr, sizeof(addr), "10.99.0.%d/24", p->node + 1);
	snprintf(node, sizeof(node), "%d", p->node);
	setenv("STACK_NODE", node, 1);
	setenv("STACK_ABOVE", p->above, 1);
	fprintf(out, "# node: %s address: %s\n", host, addr);
	if (sethostname(host, strlen(host)) || run(lo) || run(add) || run(up)) {
		fprintf(out, "# cannot set up %s's link (see the console)\n",
			host);
		return -1;
	}
	return 0;
}

/*
 * The watcher: a process of its own beside PID 1 (which may itself block
 * in reclaim when a swap stack hangs), locked in memory, that looks at
 * the kernel log every few seconds.  Nothing here touches the console's
 * tty: a task blocked in the middle of a console write (faulting on a
 * page that must come back from a hung swap device) would hold its lock.
 * Notes go through /dev/kmsg.
 */
#define WATCH_EVERY 5		/* seconds between two looks */

static int kmsg_fd = -1;	/* the kernel log, read from the watch's start */

/*
 * Opened once, before any hang: under a reclaim hang an open() (its path
 * name buffer) can block for good; a write or a read of an open file may
 * too (the kernel's buffers), but less often.
 */
enum { W_KMSG, W_SYSRQ, W_PRINTK, W_MDSTAT, W_DRBD, W_MAX };
static int wfd[W_MAX] = { -1, -1, -1, -1, -1 };

static void put(int which, const char *val)
{
	ssize_t n;

	if (wfd[which] < 0)
		return;
	n = write(wfd[which], val, strlen(val));
	(void)n;
}

static double boot_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What every blocked task waits for (sysrq-w), between PID 1's markers. */
static void dump_blocked(const char *why)
{
	char note[128];

	/* The task dumps are KERN_INFO: let them reach the console. */
	put(W_PRINTK, "7");
	snprintf(note, sizeof(note), "<4>init: %s: blocked tasks (sysrq-w) follow\n",
		 why);
	put(W_KMSG, note);
	put(W_SYSRQ, "w");
	/* The dump is ours, not a splat: the host skips it up to here. */
	put(W_KMSG, "<4>init: end of the blocked tasks\n");
}

/* Each line of a small file, as "init: hang seen: PATH: LINE". */
static void note_lines(int which, const char *path)
{
	char buf[2048], note[300], *line, *nl;
	ssize_t n;

	if (wfd[which] < 0)
		return;
	n = pread(wfd[which], buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	for (line = buf; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		else
			*nl = 0;
		if (*line) {
			snprintf(note, sizeof(note), "<4>init: hang seen: %s: %s\n",
				 path, line);
			put(W_KMSG, note);
		}
	}
}

/* One sysfs attribute, appended as " name=value" (or nothing). */
static void add_attr(char *line, size_t len, const char *dir,
		     const char *name)
{
	char path[128], val[96];
	size_t used = strlen(line);
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, val, sizeof(val) - 1);
	close(fd);
	val[n > 0 ? n : 0] = 0;
	val[strcspn(val, "\n")] = 0;
	snprintf(line + used, len - used, " %s=%s", name, val);
}

#define MD_PROBE 128		/* md0 to md127 */
#define DM_PROBE 32		/* dm-0 to dm-31 */

/* Every md array's and dm device's state, as the hang is seen. */
static void note_arrays(void)
{
	static const char *const md[] = {
		"array_state", "level", "degraded", "sync_action",
		"sync_completed", "reshape_position", "mismatch_cnt", NULL,
	};
	static const char *const dm[] = { "name", "suspended", NULL };
	char dir[64], line[512];
	int i, j;

	for (i = 0; i < MD_PROBE + DM_PROBE; i++) {
		bool is_md = i < MD_PROBE;
		const char *const *a = is_md ? md : dm;

		snprintf(dir, sizeof(dir), is_md ? "/sys/block/md%d/md" :
			 "/sys/block/dm-%d/dm", is_md ? i : i - MD_PROBE);
		snprintf(line, sizeof(line), "<4>init: hang seen: %s%d:",
			 is_md ? "md" : "dm-", is_md ? i : i - MD_PROBE);
		if (access(dir, F_OK))
			continue;
		for (j = 0; a[j]; j++)
			add_attr(line, sizeof(line) - 1, dir, a[j]);
		strcat(line, "\n");
		put(W_KMSG, line);
	}
}

/*
 * The kernel reported a hang: every blocked task, then what md, dm and
 * DRBD were doing (opening their files may block in reclaim), while the
 * host waits for "end of the hang forensics" (or a while) before it
 * takes QEMU's state and ends the run.
 */
static void hang_forensics(void)
{
	dump_blocked("hang seen");
	put(W_KMSG, "<4>init: hang seen: the stacks' state follows\n");
	note_lines(W_MDSTAT, "/proc/mdstat");
	note_arrays();
	note_lines(W_DRBD, "/proc/drbd");
	put(W_KMSG, "<4>init: end of the hang forensics\n");
}

/* A kernel log record from a detector: hung task, RCU stall, lockup. */
static bool hang_record(const char *rec)
{
	int i;

	for (i = 0; hang_report_words[i]; i++)
		if (strstr(rec, hang_report_words[i]))
			return true;
	return false;
}

/* The kernel log's new records: does one report a hang? */
static bool hang_in_kmsg(void)
{
	char rec[1024];
	ssize_t n;
	int i;

	for (i = 0; kmsg_fd >= 0 && i < 4096; i++) {
		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		if (hang_record(rec))
			return true;
	}
	return false;
}

/*
 * Every few seconds: a hang the kernel reported gets its forensics at
 * once; at two thirds of the host's deadline for a guest that has not
 * finished, every blocked task is shown anyway.
 */
static void watch_loop(double deadline)
{
	bool hang_seen = false;

	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("init: watcher: mlockall");
	write_str("/proc/self/oom_score_adj", "-1000");
	prctl(PR_SET_NAME, "stacktest-watch");
	wfd[W_KMSG] = open("/dev/kmsg", O_WRONLY);
	wfd[W_SYSRQ] = open("/proc/sysrq-trigger", O_WRONLY);
	wfd[W_PRINTK] = open("/proc/sys/kernel/printk", O_WRONLY);
	wfd[W_MDSTAT] = open("/proc/mdstat", O_RDONLY);
	wfd[W_DRBD] = open("/proc/drbd", O_RDONLY);
	for (;;) {
		sleep(WATCH_EVERY);
		if (!hang_seen && hang_in_kmsg()) {
			hang_seen = true;
			hang_forensics();
		}
		if (deadline && boot_s() >= deadline) {
			deadline = 0;
			dump_blocked("deadline near");
		}
	}
}

/*
 * The kernel's detectors: khungtaskd after the hung-task timeout, the
 * soft-lockup watchdog after twice watchdog_thresh, a third of it (20 s
 * on the default kernel; at most 60, the kernel's limit).
 */
static void setup_watchdog(const struct plan *p, double up)
{
	int hang = p->hang_timeout > 0 ? p->hang_timeout : 60;
	char val[16];
	pid_t pid;

	snprintf(val, sizeof(val), "%d", hang);
	write_str("/proc/sys/kernel/hung_task_timeout_secs", val);
	snprintf(val, sizeof(val), "%d", hang / 3 > 60 ? 60 : hang / 3);
	write_str("/proc/sys/kernel/watchdog_thresh", val);
	snprintf(val, sizeof(val), "%d", WATCH_EVERY);
	write_str("/proc/sys/kernel/hung_task_check_interval_secs", val);
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	fflush(NULL);
	pid = fork();
	if (!pid)
		watch_loop(p->deadline > up ? p->deadline : 0);
	if (pid < 0)
		perror("init: no watcher: fork");
	if (kmsg_fd >= 0)
		close(kmsg_fd);
}

static void power_off(void)
{
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

static double uptime(void)
{
	double up = -1;
	FILE *f = fopen("/proc/uptime", "r");

	if (f) {
		if (fscanf(f, "%lf", &up) != 1)
			up = -1;
		fclose(f);
	}
	return up;
}

/* The plan's reason to skip test name on this kernel, or NULL. */
static const char *known_issue(const struct plan *p, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < p->nskip; i++)
		if (!strncmp(p->skip[i], name, n) && p->skip[i][n] == ' ')
			return p->skip[i] + n + 1;
	return NULL;
}

static void run_one(const struct plan *p, const char *name, int n,
		    int stack_ok)
{
	const char *known = known_issue(p, name);
	double t0 = mono_s();
	char skip[256] = "";
	int rc;

	if (known) {
		fprintf(out, "# duration_ms: 0\n");
		fprintf(out, "ok %d %s # SKIP known issue of this kernel: %s\n",
			n, name, known);
		return;
	}
	if (!stack_ok) {
		fprintf(out, "    # not run: the stack was not built\n");
		result(n, 0, name, t0);
		return;
	}
	rc = run_test(name, skip, sizeof(skip));
	if (rc != 1) {
		result(n, !rc, name, t0);
		return;
	}
	fprintf(out, "# duration_ms: %.0f\n", (mono_s() - t0) * 1000);
	fprintf(out, "ok %d %s # SKIP %s\n", n, name, skip);
}

/* The layer kinds built in, one block each (read by mkinitramfs.sh). */
static int describe(void)
{
	const struct layer_kind *const *k;
	int i, j, n;

	k = layer_kinds(&n);
	for (i = 0; i < n; i++) {
		printf("layer %s\nwhat %s\n", k[i]->name, k[i]->what);
		for (j = 0; j < LAYER_MAX_TOOLS && k[i]->tools[j]; j++)
			printf("requires tool %s\n", k[i]->tools[j]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct plan p;
	static struct stack s;
	int n = 0, built = 0, stack_ok, i;
	double t0;

	if (argc > 1 && !strcmp(argv[1], "--describe"))
		return describe();

	/*
	 * Never swapped out: the tests push memory to swap, and a swap stack
	 * that hangs must not take PID 1 (its watchdog, its report) with it.
	 */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("init: mlockall");
	setup_mounts();
	setup_console();
	setenv("PATH", "/sbin:/bin:/usr/sbin:/usr/bin", 1);
	out = open_port("ktap");
	progress_to(out, "    ");
	fprintf(out, "KTAP version 1\n");
	if (read_plan(&p, &s)) {
		fprintf(out, "Bail out! no /plan in the initramfs\n");
		power_off();
	}
	setenv("STACK_SEED", p.seed, 1);
	export_kinds(&p);
	fprintf(out, "# topology: %s seed: %s uptime_at_init: %.2f\n", p.name,
		p.seed, uptime());
	fprintf(out, "1..%d\n", p.ntests + 2);
	setup_watchdog(&p, uptime());
	trace_start(&p);
	t0 = mono_s();
	kmsg("<4>stacktest: begin %s\n", "stack-build");
	stack_ok = !setup_node(&p) && !build_stack(&p, &s, &built);
	kmsg("<4>stacktest: end %s\n", "stack-build");
	result(++n, stack_ok, "stack-build", t0);
	stack_export(&s);
	for (i = 0; i < p.ntests; i++)
		run_one(&p, p.tests[i], ++n, stack_ok);
	t0 = mono_s();
	kmsg("<4>stacktest: begin %s\n", "stack-teardown");
	i = !teardown_stack(&p, &s, built);
	kmsg("<4>stacktest: end %s\n", "stack-teardown");
	trace_report(&p);
	result(++n, i, "stack-teardown", t0);
	fflush(NULL);
	power_off();
	return 0;
}
