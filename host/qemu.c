// SPDX-License-Identifier: GPL-2.0
/*
 * One QEMU guest: no network, no display, the console on a pipe to us and
 * the KTAP results on a second pipe behind a virtio-serial port, a
 * host-side deadline, and -no-reboot so the guest's reboot ends QEMU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qemu.h"
#include "util.h"

#define CON_FD 3
#define KTAP_FD 4

static char **qemu_argv(const struct guest *g)
{
	char **av = xcalloc(40 + 6 * g->ndisks, sizeof(char *));
	int i, n = 0;

	av[n++] = "qemu-system-x86_64";
	av[n++] = "-nodefaults";
	av[n++] = "-no-user-config";
	av[n++] = "-display";
	av[n++] = "none";
	av[n++] = "-no-reboot";
	av[n++] = "-accel";
	av[n++] = (char *)g->accel;
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
	for (i = 0; i < g->ndisks - g->nzoned; i++) {
		av[n++] = "-drive";
		av[n++] = xasprintf("file=%s,format=raw,if=virtio,cache=unsafe",
				    g->disks[i]);
	}
	/* Zoned namespaces: one NVMe controller each, 16M zones, full capacity. */
	for (; i < g->ndisks; i++) {
		int z = i - (g->ndisks - g->nzoned);

		av[n++] = "-device";
		/*
		 * No CONFIG_PCI_MSI: NVMe interrupts by INTx.  Slot 0x11+4z
		 * routes to IRQ 10 on piix (link A), off the line of the
		 * first virtio disks (slots 3, 4: IRQ 11).
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

static pid_t spawn(const struct guest *g, int con, int ktap)
{
	int log = open(g->qemu_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		       0644);
	char **av = qemu_argv(g);
	pid_t pid;

	if (log < 0)
		die("cannot create %s: %s", g->qemu_log, strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		child_setup(NULL, log);
		/* Move both out of the way first: either may be 3 or 4. */
		con = fcntl(con, F_DUPFD, 10);
		ktap = fcntl(ktap, F_DUPFD, 10);
		if (dup2(con, CON_FD) < 0 || dup2(ktap, KTAP_FD) < 0)
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

/* Read what is there; for KTAP, hand over complete lines. */
static void drain(struct stream *s, guest_line_cb cb, void *ctx)
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
	if (!cb)
		return;
	for (i = 0; i < n; i++) {
		if (buf[i] == '\r')
			continue;
		if (buf[i] != '\n') {
			sb_add(&s->line, buf + i, 1);
			continue;
		}
		cb(ctx, s->line.buf ? s->line.buf : "");
		s->line.len = 0;
		if (s->line.buf)
			s->line.buf[0] = 0;
	}
}

static FILE *open_log(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		die("cannot create %s: %s", path, strerror(errno));
	return f;
}

static void pump(struct stream *s, pid_t pid, const struct guest *g,
		 guest_line_cb cb, void *ctx, struct guest_result *r)
{
	double t0 = now_s(), tick = t0 + 5;

	while (s[0].fd >= 0 || s[1].fd >= 0) {
		struct pollfd p[2] = { { s[0].fd, POLLIN, 0 },
				       { s[1].fd, POLLIN, 0 } };

		if (poll(p, 2, 200) > 0) {
			if (p[0].revents)
				drain(&s[0], NULL, NULL);
			if (p[1].revents)
				drain(&s[1], cb, ctx);
		}
		if (stop_requested && !r->interrupted) {
			r->interrupted = true;
			kill(-pid, SIGKILL);
		}
		if (now_s() - t0 > g->timeout && !r->timed_out) {
			r->timed_out = true;
			kill(-pid, SIGKILL);
		}
		if (now_s() >= tick) {
			cb(ctx, NULL);
			tick += 5;
		}
	}
}

int guest_run(const struct guest *g, guest_line_cb cb, void *ctx,
	      struct guest_result *r)
{
	struct stream s[2] = { { .fd = -1 }, { .fd = -1 } };
	int con[2], ktap[2], st;
	double t0 = now_s();
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe2(con, O_CLOEXEC) || pipe2(ktap, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	s[0].log = open_log(g->console_log);
	s[1].log = open_log(g->ktap_log);
	pid = spawn(g, con[1], ktap[1]);
	close(con[1]);
	close(ktap[1]);
	s[0].fd = con[0];
	s[1].fd = ktap[0];
	pump(s, pid, g, cb, ctx, r);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	child_untrack(pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->seconds = now_s() - t0;
	if (s[1].line.len)
		cb(ctx, s[1].line.buf);
	fclose(s[0].log);
	fclose(s[1].log);
	sb_free(&s[1].line);
	return 0;
}
