// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU guests: no host network, no display, the console on a pipe to us
 * and the KTAP results on a second pipe behind a virtio-serial port, a
 * host-side deadline, and -no-reboot so the guest's reboot ends QEMU.
 * Two guests of one topology (DRBD) share one private link: the two ends
 * of a socketpair, a socket netdev each, nothing else.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qemu.h"
#include "stacktest.h"
#include "util.h"

#define CON_FD 3
#define KTAP_FD 4
#define NET_FD 5
#define MON_FD 6
/* After the NMI at the deadline: time for the guest to print its panic. */
#define NMI_GRACE 10
/* After a panic: time to print it and reboot before QEMU is killed. */
#define PANIC_GRACE 15
#define LINE_MAX_LEN 4096

static char **qemu_argv(const struct guest *g)
{
	char **av = xcalloc(44 + 6 * g->ndisks, sizeof(char *));
	int i, n = 0;

	av[n++] = "qemu-system-x86_64";
	av[n++] = "-nodefaults";
	av[n++] = "-no-user-config";
	av[n++] = "-display";
	av[n++] = "none";
	av[n++] = "-no-reboot";
	av[n++] = "-accel";
	av[n++] = (char *)g->accel;
	/*
	 * qemu64 with AES-NI, PCLMULQDQ, SSSE3, SSE4.2 (TCG emulates each):
	 * dm-crypt's xts-aes-aesni and crc32c-intel in place of the generic
	 * C code, which TCG runs far slower.
	 */
	av[n++] = "-cpu";
	av[n++] = "qemu64,+ssse3,+sse4.1,+sse4.2,+popcnt,+aes,+pclmulqdq";
	av[n++] = "-m";
	av[n++] = xasprintf("%lldM", g->memory >> 20);
	av[n++] = "-smp";
	av[n++] = xasprintf("%d", g->smp);
	av[n++] = "-kernel";
	av[n++] = (char *)g->kernel;
	av[n++] = "-initrd";
	av[n++] = (char *)g->initrd;
	av[n++] = "-append";
	av[n++] = (char *)g->append;
	av[n++] = "-chardev";
	av[n++] = xasprintf("file,id=con,path=/dev/fd/%d", CON_FD);
	av[n++] = "-serial";
	av[n++] = "chardev:con";
	av[n++] = "-device";
	av[n++] = "virtio-serial-pci,id=vs";
	av[n++] = "-chardev";
	av[n++] = xasprintf("file,id=ktap,path=/dev/fd/%d", KTAP_FD);
	av[n++] = "-device";
	av[n++] = "virtserialport,bus=vs.0,chardev=ktap,name=ktap";
	av[n++] = "-chardev";
	av[n++] = xasprintf("socket,id=mon,fd=%d", MON_FD);
	av[n++] = "-mon";
	av[n++] = "chardev=mon,mode=readline";
	if (g->net_fd >= 0) {
		av[n++] = "-netdev";
		av[n++] = xasprintf("socket,id=link,fd=%d", NET_FD);
		av[n++] = "-device";
		av[n++] = xasprintf("virtio-net-pci,netdev=link,mac=%s", g->mac);
	}
	/*
	 * discard=unmap: a discard that reaches a disk punches a hole in its
	 * image, so it really removes data at the bottom of the stack (the
	 * discard test sees a discard that went past its range).
	 */
	for (i = 0; i < g->ndisks - g->nzoned; i++) {
		av[n++] = "-drive";
		av[n++] = xasprintf("file=%s,format=raw,if=virtio,cache=unsafe,discard=unmap",
				    g->disks[i]);
	}
	/* Zoned namespaces: one NVMe controller each, 16M zones, full capacity. */
	for (; i < g->ndisks; i++) {
		int z = i - (g->ndisks - g->nzoned);

		av[n++] = "-device";
		/*
		 * Slot 0x11+4z: off the INTx lines of the first virtio
		 * devices, should anything fall back from MSI-X to INTx.
		 */
		av[n++] = xasprintf("nvme,id=nvme%d,serial=zns%d,addr=0x%x", z, z,
				    0x11 + 4 * z);
		av[n++] = "-drive";
		av[n++] = xasprintf("file=%s,id=zns%d,format=raw,if=none,cache=unsafe",
				    g->disks[i], z);
		av[n++] = "-device";
		av[n++] = xasprintf("nvme-ns,drive=zns%d,bus=nvme%d,nsid=1,zoned=on,"
				    "zoned.zone_size=16M,zoned.zone_capacity=16M", z, z);
	}
	av[n] = NULL;
	return av;
}

static pid_t spawn_qemu(const struct guest *g, int con, int ktap, int mon)
{
	int log = open(g->qemu_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		       0644);
	char **av = qemu_argv(g);
	pid_t pid;
	int net;

	if (log < 0)
		die("cannot create %s: %s", g->qemu_log, strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		child_setup(NULL, log);
		/* Move them out of the way first: any may be 3, 4 or 5. */
		con = fcntl(con, F_DUPFD_CLOEXEC, 10);
		ktap = fcntl(ktap, F_DUPFD_CLOEXEC, 10);
		mon = fcntl(mon, F_DUPFD_CLOEXEC, 10);
		net = g->net_fd >= 0 ? fcntl(g->net_fd, F_DUPFD_CLOEXEC, 10) : -1;
		if (dup2(con, CON_FD) < 0 || dup2(ktap, KTAP_FD) < 0 ||
		    dup2(mon, MON_FD) < 0 ||
		    (net >= 0 && dup2(net, NET_FD) < 0))
			_exit(127);
		execvp(av[0], av);
		fprintf(stderr, "cannot run %s: %s\n", av[0], strerror(errno));
		_exit(127);
	}
	child_track(pid);
	close(log);
	return pid;
}

struct stream {
	int fd;
	FILE *log;
	struct strbuf line;
};

typedef void (*line_fn)(void *ctx, const char *line);

/* Read what is there; hand fn complete lines. */
static void drain(struct stream *s, line_fn fn, void *ctx)
{
	char buf[8192];
	ssize_t n = read(s->fd, buf, sizeof(buf));
	ssize_t i;

	if (n <= 0) {
		if (n == 0 || errno != EINTR) {
			close(s->fd);
			s->fd = -1;
		}
		return;
	}
	fwrite(buf, 1, n, s->log);
	fflush(s->log);
	for (i = 0; i < n; i++) {
		if (buf[i] == '\r')
			continue;
		/* A line without an end (a progress bar) is cut at 4 KiB. */
		if (buf[i] == '\n' || s->line.len >= LINE_MAX_LEN) {
			fn(ctx, s->line.buf ? s->line.buf : "");
			s->line.len = 0;
			if (s->line.buf)
				s->line.buf[0] = 0;
			if (buf[i] == '\n')
				continue;
		}
		sb_add(&s->line, buf + i, 1);
	}
}

static FILE *open_log(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		die("cannot create %s: %s", path, strerror(errno));
	return f;
}

struct running {
	const struct guest *g;
	struct stream s[2];	/* console, KTAP */
	int mon;		/* QEMU's human monitor */
	pid_t pid;
	double t0;
	double nmi_at;		/* when the deadline's NMI went in, or 0 */
	double hang_at;		/* when the console showed a hang report */
	double panic_at;	/* when it showed a panic of the guest's own */
	bool forensics_done;	/* PID 1 said its hang forensics are out */
	double ktap_at;		/* when the KTAP port last said anything */
	double bound;		/* how long it may be quiet now */
	char bound_what[96];	/* the step that declared it, or "" */
	bool in_dump;		/* inside PID 1's own dump of blocked tasks */
	bool killed;
	struct guest_result *r;
	guest_line_cb cb;
	void *ctx;
};

/*
 * The kernel's detectors: khungtaskd, RCU's stall warnings and the soft
 * lockup watchdog (where built in).  Only kernel lines count, which
 * printk stamps "[   12.345678] ".
 */
bool is_hang_report(const char *line)
{
	return kernel_says(line, hang_report_words);
}

int pid1_dump_marker(const char *line)
{
	if (strstr(line, "] init: end of the blocked tasks"))
		return -1;
	if (strstr(line, "] init: deadline near: blocked tasks") ||
	    strstr(line, "] init: hang seen: blocked tasks"))
		return 1;
	return 0;
}

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

/*
 * Each console line as it comes: which test runs, and whether the guest
 * reported a hang or panicked on its own (an oops panics: oops=panic).
 */
static void console_line(void *ctx, const char *line)
{
	struct running *x = ctx;
	const char *p = strstr(line, "] stacktest: begin ");

	if (p) {
		copy_str(x->r->test, sizeof(x->r->test), p + 19);
		x->r->test_ended = false;
	}
	if (strstr(line, "] stacktest: end "))
		x->r->test_ended = true;
	if (pid1_dump_marker(line))
		x->in_dump = pid1_dump_marker(line) > 0;
	if (strstr(line, "] init: end of the hang forensics"))
		x->forensics_done = true;
	if (!x->in_dump && !x->hang_at && is_hang_report(line)) {
		x->hang_at = now_s();
		x->r->hang_s = x->hang_at - x->t0;
		copy_str(x->r->hang, sizeof(x->r->hang), line);
	}
	if (!x->nmi_at && !x->panic_at && strstr(line, "Kernel panic - not syncing"))
		x->panic_at = now_s();
}

/*
 * Each KTAP line renews the quiet bound.  A step may declare its own
 * ("# progress: WHAT: quiet up to N s", lib/progress.c) until its result
 * line or "# progress: default bound".
 */
long progress_bound(const char *line, char *what, size_t len)
{
	const char *p = line + strspn(line, " "), *q;
	char *end;
	long n;

	if (!strncmp(p, "ok ", 3) || !strncmp(p, "not ok ", 7) ||
	    !strcmp(p, "# progress: default bound"))
		return -1;
	q = strstr(p, ": quiet up to ");
	if (strncmp(p, "# progress: ", 12) || !q || q < p + 12)
		return 0;
	n = strtol(q + 14, &end, 10);
	if (end == q + 14 || n <= 0 || strcmp(end, " s"))
		return 0;
	snprintf(what, len, "%.*s", (int)(q - p - 12), p + 12);
	return n;
}

static void progress_line(struct running *x, const char *line)
{
	long n = progress_bound(line, x->bound_what, sizeof(x->bound_what));

	x->ktap_at = now_s();
	if (n < 0) {
		x->bound = x->g->quiet;
		x->bound_what[0] = 0;
	} else if (n > 0) {
		x->bound = n;
	}
}

/* Each KTAP line: the last is the step a hang is named by. */
static void ktap_line(void *ctx, const char *line)
{
	struct running *x = ctx;
	const char *said = line + strspn(line, " ");

	progress_line(x, line);
	/* A hang is named by what the test last said, not by a bound. */
	if (*said && strncmp(said, "# progress: ", 12))
		copy_str(x->r->step, sizeof(x->r->step), said);
	x->cb(x->ctx, line);
}

static void kill_guest(struct running *x, bool *flag)
{
	*flag = true;
	if (x->killed)
		return;
	x->killed = true;
	kill(-x->pid, SIGKILL);
}

/* Monitor output up to its next "(qemu) " prompt, without escapes. */
static char *mon_read(int fd, double limit)
{
	struct strbuf sb = { 0 };
	struct pollfd p = { fd, POLLIN, 0 };
	char buf[4096];
	ssize_t n, i;

	sb_add(&sb, "", 0);
	while (now_s() < limit && poll(&p, 1, 100) >= 0) {
		if (!p.revents)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			if (buf[i] == 0x1b)	/* ESC [ params letter */
				while (i + 1 < n && !isalpha(buf[++i]))
					;
			else if (buf[i] != '\r')
				sb_add(&sb, buf + i, 1);
		if (sb.len >= 7 && !strcmp(sb.buf + sb.len - 7, "(qemu) ")) {
			sb.buf[sb.len -= 7] = 0;
			break;
		}
	}
	return sb.buf;
}

/*
 * One monitor command and its answer to f.  The monitor echoes what it
 * is sent (redrawn as typed): that line is dropped.
 */
static char *mon_cmd(int mon, FILE *f, const char *cmd)
{
	char *line = xasprintf("%s\n", cmd), *out;
	ssize_t n = send(mon, line, strlen(line), MSG_NOSIGNAL);
	size_t eol;

	free(line);
	if (n < 0)
		return NULL;
	out = mon_read(mon, now_s() + 2);
	eol = strcspn(out, "\n");
	fprintf(f, "(qemu) %s\n%s", cmd, out + eol + !!out[eol]);
	return out;
}

/*
 * Each virtio-blk device's queues: requests QEMU still holds ("inuse")
 * against what it has completed and signalled, which tells I/O stuck in
 * the host from a completion the guest never saw.
 */
static void virtio_queues(int mon, FILE *f, const char *devices)
{
	const char *p;
	char *cmd;
	int q;

	for (p = devices; (p = strstr(p, "/machine/")); p++) {
		size_t len = strcspn(p, " \n");

		if (strncmp(p + len, " [virtio-blk]", 13))
			continue;
		for (q = 0; q < 2; q++) {
			cmd = xasprintf("info virtio-queue-status %.*s %d",
					(int)len, p, q);
			free(mon_cmd(mon, f, cmd));
			free(cmd);
		}
	}
}

/*
 * The deadline: ask QEMU whether and where the vCPU runs (a guest whose
 * clock stopped cannot tell), then inject an NMI, which a guest booted
 * with unknown_nmi_panic answers with a panic and its stack.
 */
static void snapshot(struct running *x)
{
	static const char *const cmd[] = {
		"info status", "info registers", "info lapic", "info pic",
		"info virtio", "nmi", NULL,
	};
	FILE *f = fopen(x->g->state_log, "we");
	char *out;
	int i;

	if (!f)
		return;
	free(mon_read(x->mon, now_s() + 2));	/* the banner */
	for (i = 0; cmd[i]; i++) {
		out = mon_cmd(x->mon, f, cmd[i]);
		if (!out)
			break;
		if (!strcmp(cmd[i], "info virtio"))
			virtio_queues(x->mon, f, out);
		free(out);
	}
	fclose(f);
}

/* Past the deadline: snapshot and NMI first, kill after the grace. */
static void deadline(struct running *x)
{
	if (!x->g->state_log) {
		kill_guest(x, &x->r->timed_out);
		return;
	}
	if (!x->nmi_at) {
		x->r->timed_out = true;
		x->nmi_at = now_s();
		snapshot(x);
		return;
	}
	if (now_s() - x->nmi_at > NMI_GRACE)
		kill_guest(x, &x->r->timed_out);
}

/* No progress: quiet past the bound, the deadline comes now. */
static bool quiet_too_long(struct running *x, double t)
{
	/* Once only: without a monitor the kill comes without an NMI. */
	if (!x->g->quiet || x->r->quiet_s || x->nmi_at || x->hang_at ||
	    x->panic_at || t - x->ktap_at <= x->bound)
		return false;
	copy_str(x->r->quiet, sizeof(x->r->quiet), x->bound_what);
	x->r->quiet_bound = x->bound;
	x->r->quiet_s = t - x->t0;
	return true;
}

/*
 * The deadline comes early after a hang report, once PID 1's forensics
 * are out, or when the KTAP port is quiet past its bound; a panic that
 * does not end QEMU by itself ends it here.
 */
static void watch(struct running *x)
{
	double t = now_s();

	if (stop_requested)
		kill_guest(x, &x->r->interrupted);
	/* It ended (its peer may run on): nothing more to judge here. */
	if (x->s[0].fd < 0 && x->s[1].fd < 0)
		return;
	if (t - x->t0 > x->g->timeout || x->nmi_at || quiet_too_long(x, t) ||
	    (x->hang_at && (x->forensics_done || t - x->hang_at > HANG_GRACE)))
		deadline(x);
	if (x->panic_at && t - x->panic_at > PANIC_GRACE)
		kill_guest(x, &x->r->panic_killed);
}

/*
 * Of two nodes, one waits for the other: when one hung or crashed, the
 * other cannot finish and ends with it, not at its own deadline.
 */
static void end_peers(struct running *x, int n)
{
	bool ended = false;
	int i;

	for (i = 0; i < n; i++)
		ended |= x[i].r->timed_out || x[i].panic_at;
	for (i = 0; ended && i < n; i++)
		if (!x[i].r->timed_out && !x[i].panic_at && !x[i].killed &&
		    (x[i].s[0].fd >= 0 || x[i].s[1].fd >= 0)) {
			x[i].r->peer_ended = true;
			deadline(&x[i]);
		}
}

/* Until every guest's streams are closed: it ended, or we killed it. */
static void pump(struct running *x, int n, guest_line_cb cb, void **ctx)
{
	struct pollfd p[2 * n];
	double tick = now_s() + 5;
	int i, open;

	for (;;) {
		for (i = open = 0; i < 2 * n; i++) {
			p[i] = (struct pollfd){ x[i / 2].s[i % 2].fd, POLLIN, 0 };
			open += p[i].fd >= 0;
		}
		if (!open)
			break;
		if (poll(p, 2 * n, 200) > 0)
			for (i = 0; i < 2 * n; i++)
				if (p[i].revents)
					drain(&x[i / 2].s[i % 2],
					      i % 2 ? ktap_line : console_line,
					      &x[i / 2]);
		for (i = 0; i < n; i++)
			watch(&x[i]);
		end_peers(x, n);
		if (now_s() >= tick) {
			for (i = 0; i < n; i++)
				if (x[i].s[0].fd >= 0 || x[i].s[1].fd >= 0)
					cb(ctx[i], NULL);
			tick += 5;
		}
	}
}

static void start(struct running *x)
{
	int con[2], ktap[2], mon[2];

	memset(x->r, 0, sizeof(*x->r));
	if (pipe2(con, O_CLOEXEC) || pipe2(ktap, O_CLOEXEC) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, mon))
		die("pipe: %s", strerror(errno));
	x->s[0].log = open_log(x->g->console_log);
	x->s[1].log = open_log(x->g->ktap_log);
	x->t0 = now_s();
	x->ktap_at = x->t0;
	x->bound = x->g->quiet;
	x->pid = spawn_qemu(x->g, con[1], ktap[1], mon[1]);
	close(con[1]);
	close(ktap[1]);
	close(mon[1]);
	x->mon = mon[0];
	x->s[0].fd = con[0];
	x->s[1].fd = ktap[0];
}

static void finish(struct running *x, guest_line_cb cb, void *ctx)
{
	int st;

	while (waitpid(x->pid, &st, 0) < 0 && errno == EINTR)
		;
	child_untrack(x->pid);
	close(x->mon);
	x->r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	x->r->seconds = now_s() - x->t0;
	if (x->s[1].line.len)
		cb(ctx, x->s[1].line.buf);
	fclose(x->s[0].log);
	fclose(x->s[1].log);
	sb_free(&x->s[0].line);
	sb_free(&x->s[1].line);
}

int guests_run(const struct guest *g, int n, guest_line_cb cb, void **ctx,
	       struct guest_result *r)
{
	struct running *x = xcalloc(n, sizeof(*x));
	int i;

	for (i = 0; i < n; i++) {
		x[i] = (struct running){ .g = &g[i], .r = &r[i],
			.s = { { .fd = -1 }, { .fd = -1 } },
			.cb = cb, .ctx = ctx[i] };
		start(&x[i]);
	}
	pump(x, n, cb, ctx);
	for (i = 0; i < n; i++)
		finish(&x[i], cb, ctx[i]);
	free(x);
	return 0;
}

int guest_run(const struct guest *g, guest_line_cb cb, void *ctx,
	      struct guest_result *r)
{
	return guests_run(g, 1, cb, &ctx, r);
}
