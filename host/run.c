// SPDX-License-Identifier: GPL-2.0
/*
 * One topology, one guest (or two joined by one link, for DRBD): sparse
 * disk images in a temporary folder, the plan appended to the cached
 * initramfs, QEMU, then the verdict from KTAP and the console log.  The
 * temporary folder is removed on every path (unless --keep); results stay
 * under the results folder.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "cpio.h"
#include "qemu.h"
#include "run.h"
#include "verdict.h"

static char *tmp_dir;		/* removed at exit, whatever happens */

static void remove_tmp(void)
{
	if (tmp_dir)
		rm_rf(tmp_dir);
}

static void make_disks(const struct topology *t, const char *dir,
		       const char *node, char **disks)
{
	int i, fd;

	for (i = 0; i < t->ndisks + t->nzoned; i++) {
		long long size = i < t->ndisks ? t->disk_size : t->zoned_size;

		disks[i] = i < t->ndisks ?
			xasprintf("%s/%sdisk%d.img", dir, node, i) :
			xasprintf("%s/%szns%d.img", dir, node, i - t->ndisks);
		fd = open(disks[i], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  0600);
		if (fd < 0 || ftruncate(fd, size)) {
			int err = errno;

			if (fd >= 0)
				close(fd);
			die("cannot create disk image %s (%lld bytes): %s",
			    disks[i], size, strerror(err));
		}
		close(fd);
	}
}

/* Seconds a task may stay blocked before the guest's kernel calls it hung. */
#define HANG_TIMEOUT 30

/*
 * Seconds a guest may print nothing on its KTAP port (scaled): every
 * test step is quicker here or declares a bound of its own, as the
 * memory hog, the walks and the waits for md, DRBD and the peer do.
 */
#define QUIET_S 90

/* --timeout as given, else the topology's times the profile's slowdown. */
static int guest_timeout(const struct topology *t, const struct run_opts *o)
{
	return o->timeout ? o->timeout : t->timeout * o->time_scale;
}

/* Whether the series' list already counts name. */
static bool traced(const struct run_opts *o, const char *name)
{
	int i;

	for (i = 0; i < o->ntrace; i++)
		if (!strcmp(o->trace[i], name))
			return true;
	return false;
}

/*
 * node -1: the only guest.  Of two nodes, node1 builds the layers up to
 * the one joining them, DRBD (the ones above are node0's: "above" names
 * them) and runs the peer tests.
 */
static char *plan_text(const struct topology *t, const struct run_opts *o,
		       int node, const char *kseries)
{
	int timeout = guest_timeout(t, o);
	int nl = node == 1 ? t->join_layer + 1 : t->nlayers;
	struct strbuf sb = { 0 };
	int i;

	sb_printf(&sb, "name %s\nseed %llu\n", t->name, o->seed);
	/*
	 * Guest uptime at which PID 1 dumps blocked tasks: well before we
	 * kill it, as a loaded TCG guest's clock can lag the host's.
	 */
	sb_printf(&sb, "deadline %d\n", timeout * 2 / 3);
	/*
	 * khungtaskd's threshold: a task blocked this long is a hang (the
	 * host ends the run when the console says so), scaled like the
	 * deadline for a slow profile.
	 */
	sb_printf(&sb, "hang-timeout %d\n", HANG_TIMEOUT * o->time_scale);
	if (node >= 0)
		sb_printf(&sb, "node %d\n", node);
	if (node == 1) {
		sb_printf(&sb, "above");
		for (i = nl; i < t->nlayers; i++)
			sb_printf(&sb, " %s", t->layers[i].kind);
		sb_printf(&sb, "\n");
	}
	for (i = 0; i < t->ndisks; i++)
		sb_printf(&sb, "disk /dev/vd%c\n", 'a' + i);
	if (t->write_through)
		sb_printf(&sb, "write-cache off\n");
	for (i = 0; i < t->nzoned; i++)
		sb_printf(&sb, "disk /dev/nvme%dn1\n", i);
	for (i = 0; i < nl; i++)
		sb_printf(&sb, "layer %s\n", t->layer_text[i]);
	for (i = 0; i < (node == 1 ? t->npeer : t->ntests); i++)
		sb_printf(&sb, "test %s\n", node == 1 ? t->peer_tests[i] :
			  t->tests[i]);
	/* PID 1 counts at most 2048 (guest-tests/init.c MAX_TRACE). */
	for (i = 0; i < o->ntrace && i < 2048; i++)
		sb_printf(&sb, "trace %s\n", o->trace[i]);
	for (i = 0; i < t->ntrace && o->ntrace + i < 2048; i++)
		if (!traced(o, t->trace[i]))
			sb_printf(&sb, "trace %s\n", t->trace[i]);
	if (*t->swap_pressure)
		sb_printf(&sb, "swap-pressure %s\n", t->swap_pressure);
	for (i = 0; i < t->noptions; i++)
		sb_printf(&sb, "option %s\n", t->options[i]);
	if (o->time_scale > 1)
		sb_printf(&sb, "option time-scale=%d\n", o->time_scale);
	/* A known issue of this kernel series: "skip TEST why". */
	for (i = 0; i < t->nknown; i++) {
		size_t n = strcspn(t->known[i], " ");

		if (kseries && strlen(kseries) == n &&
		    !strncmp(t->known[i], kseries, n))
			sb_printf(&sb, "skip %s\n", t->known[i] + n + 1);
	}
	return sb.buf;
}

/*
 * The cached base archive, then a small uncompressed one with /plan and
 * the kernel's .config as /etc/kernel.config (tests' REQ_KCONFIG).
 */
static void make_initrd(const char *base, const char *plan,
			const char *config, const char *trace, const char *out)
{
	char *cfg = config ? read_file(config, NULL) : NULL;
	struct strbuf sb = { 0 };
	size_t len;
	char *data = read_file(base, &len);

	if (!data)
		die("%s: %s (run make)", base, strerror(errno));
	sb_add(&sb, data, len);
	free(data);
	/* The kernel wants each further archive 4-byte aligned. */
	sb_add(&sb, "\0\0\0", (4 - sb.len % 4) % 4);
	cpio_add_file(&sb, "plan", plan, strlen(plan), 0644);
	if (cfg)
		cpio_add_file(&sb, "etc/kernel.config", cfg, strlen(cfg), 0644);
	if (trace)
		cpio_add_file(&sb, "etc/explore.trace", trace, strlen(trace),
			      0644);
	free(cfg);
	cpio_finish(&sb);
	if (write_file_atomic(out, sb.buf, sb.len))
		die("cannot write %s: %s", out, strerror(errno));
	sb_free(&sb);
}

struct live {
	const char *label;	/* "raid10", or "drbd/node1" */
	struct ktap k;
	double t0, last_print, first_line;
	bool verbose;
};

static const char *result_word(enum ktap_result r)
{
	return r == KTAP_PASS ? "ok" : r == KTAP_SKIP ? "skip" : "FAIL";
}

static void on_line(void *ctx, const char *line)
{
	struct live *l = ctx;
	const struct ktap_test *t;

	if (!line) {
		if (now_s() - l->last_print >= 15) {
			printf("[%s] %.0fs: running test %d\n", l->label,
			       now_s() - l->t0, l->k.ntests + 1);
			fflush(stdout);
			l->last_print = now_s();
		}
		return;
	}
	if (l->first_line < 0)
		l->first_line = now_s() - l->t0;
	if (l->verbose)
		printf("[%s] | %s\n", l->label, line);
	t = ktap_feed(&l->k, line);
	if (!t)
		return;
	printf("[%s] %-4s %-28s %7.2fs  (%.0fs elapsed)\n", l->label,
	       result_word(t->result), t->name, t->duration, now_s() - l->t0);
	fflush(stdout);
	l->last_print = now_s();
}

static struct cov_hit *cov_slot(struct topo_result *r, const char *name)
{
	struct cov_hit *h;
	int i;

	for (i = 0; i < r->ncov; i++)
		if (!strcmp(r->cov[i].name, name))
			return &r->cov[i];
	r->cov = xrealloc(r->cov, (r->ncov + 1) * sizeof(*h));
	h = &r->cov[r->ncov++];
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->hits = 0;
	return h;
}

/* "# coverage: NAME HITS|not-traceable" lines, wherever they came. */
static void collect_coverage(struct topo_result *r)
{
	int i;

	for (i = 0; i < r->ntests; i++) {
		const char *p = r->tests[i].detail;

		while ((p = strstr(p, "# coverage: "))) {
			struct cov_hit *h;
			char name[64], hits[32];

			p += 12;
			if (sscanf(p, "%63s %31s", name, hits) != 2)
				continue;
			h = cov_slot(r, name);
			if (strcmp(hits, "not-traceable"))	/* summed over nodes */
				h->hits = (h->hits < 0 ? 0 : h->hits) + atoll(hits);
			else if (!h->hits)
				h->hits = -1;
		}
	}
}

static double parse_uptime(const struct ktap *k)
{
	const char *p = k->ntests ? strstr(k->tests[0].detail,
					   "uptime_at_init: ") : NULL;

	return p ? atof(p + 16) : -1;
}

/*
 * The host's TSC rate, measured once against CLOCK_MONOTONIC_RAW over
 * 50 ms; 0 if this is no x86 host.
 */
static long host_tsc_khz(void)
{
	static long khz = -1;
#if defined(__x86_64__)
	struct timespec a, b;
	unsigned long long t0, t1;
	double ns;

	if (khz >= 0)
		return khz;
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	t0 = __rdtsc();
	do {
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		ns = (b.tv_sec - a.tv_sec) * 1e9 + b.tv_nsec - a.tv_nsec;
	} while (ns < 5e7);
	t1 = __rdtsc();
	khz = (long)((t1 - t0) / ns * 1e6 + 0.5);
#else
	khz = 0;
#endif
	return khz;
}

/* The kernel command line, with what each layer kind asks for there. */
static char *cmdline(const struct topology *t, const struct run_opts *o)
{
	struct strbuf sb = { 0 };
	int i;

	sb_printf(&sb, "console=ttyS0 panic=-1 loglevel=5 rdinit=/init");
	/*
	 * At the deadline the host injects an NMI: the guest panics with
	 * its stack, every task's (0x1), memory (0x2) and timers (0x4).
	 */
	sb_printf(&sb, " unknown_nmi_panic panic_print=0x7");
	/*
	 * An oops ends the run at once, with its trace: the guest panics
	 * and reboots, which ends QEMU (-no-reboot), whatever the tests
	 * would have done next.
	 */
	sb_printf(&sb, " oops=panic");
	/*
	 * PID 1's watcher writes its forensics through one /dev/kmsg file:
	 * the kernel would let 10 lines through every 5 s and drop the rest.
	 */
	sb_printf(&sb, " printk.devkmsg=on");
	/*
	 * TCG's TSC is the host's.  Calibrating it against the emulated PIT
	 * fails on a busy host, and the clocksource watchdog compares it
	 * with jiffies, which lose ticks there: either leaves the guest on
	 * a jiffies clock that runs slow.  Tell it the rate instead.
	 */
	if (!strcmp(o->accel, "tcg") && host_tsc_khz() > 0)
		sb_printf(&sb, " tsc_early_khz=%ld tsc=reliable",
			  host_tsc_khz());
	for (i = 0; i < t->nlayers; i++) {
		const struct layer_kind *k = layer_kind(t->layers[i].kind);
		char words[256] = "";

		if (k->cmdline)
			k->cmdline(&t->layers[i], words, sizeof(words));
		if (*words)
			sb_printf(&sb, " %s", words);
	}
	if (o->kargs)
		sb_printf(&sb, " %s", o->kargs);
	return sb.buf;
}

char *node_file(const char *dir, const char *name, const char *ext,
		int nodes, int n)
{
	if (nodes > 1)
		return xasprintf("%s/%s-node%d%s", dir, name, n, ext);
	return xasprintf("%s/%s%s", dir, name, ext);
}

/* Node n of t->nodes: its disks, logs ("console-node1.log") and link. */
static struct guest guest_for(const struct topology *t,
			      const struct kernel *k, const struct run_opts *o,
			      const char *dir, int n, int net_fd)
{
	char *pre = t->nodes > 1 ? xasprintf("node%d-", n) : xstrdup("");
	char **disks = xcalloc(t->ndisks + t->nzoned + 1, sizeof(char *));
	struct guest g = {
		.kernel = k->bzimage,
		.initrd = xasprintf("%s/%sinitrd", dir, pre),
		.append = cmdline(t, o),
		.accel = o->accel,
		.memory = t->memory + o->memory_extra,
		.smp = 2,
		.ndisks = t->ndisks + t->nzoned,
		.disks = disks,
		.nzoned = t->nzoned,
		.console_log = node_file(o->results, "console", ".log", t->nodes, n),
		.ktap_log = node_file(o->results, "ktap", ".log", t->nodes, n),
		.qemu_log = node_file(o->results, "qemu", ".log", t->nodes, n),
		.state_log = node_file(o->results, "qemu-state", ".log",
				       t->nodes, n),
		.timeout = guest_timeout(t, o),
		.quiet = QUIET_S * o->time_scale,
		.net_fd = net_fd,
		.mac = xasprintf("52:54:00:99:00:%02x", n + 1),
	};
	char *plan = plan_text(t, o, t->nodes > 1 ? n : -1,
			       k->src ? k->src->series : NULL);
	char *path = node_file(o->results, "plan", "", t->nodes, n);

	make_disks(t, dir, pre, disks);
	write_file_atomic(path, plan, strlen(plan));
	free(path);
	path = node_file(o->results, "cmdline", "", t->nodes, n);
	write_file_atomic(path, g.append, strlen(g.append));
	make_initrd(o->initramfs, plan, k->config, o->explore_trace, g.initrd);
	free(plan);
	free(path);
	free(pre);
	return g;
}

static void announce(const struct topology *t, const struct run_opts *o,
		     int timeout)
{
	printf("[%s] booting: ", t->name);
	if (t->nodes > 1)
		printf("%d guests joined by one link, each ", t->nodes);
	printf("%d disks x %lld MiB, ", t->ndisks, t->disk_size >> 20);
	if (t->nzoned)
		printf("%d zoned NVMe x %lld MiB, ", t->nzoned,
		       t->zoned_size >> 20);
	printf("%lld MiB RAM, accel %s, timeout %ds\n",
	       (t->memory + o->memory_extra) >> 20,
	       o->accel, timeout);
	fflush(stdout);
}

/* Two nodes: the two ends of one stream socketpair, one each. */
static void make_link(const struct topology *t, int *fd)
{
	fd[0] = fd[1] = -1;
	if (t->nodes > 1 &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd))
		die("socketpair: %s", strerror(errno));
}

void run_topology(const struct topology *t, const struct kernel *k,
		  const struct run_opts *o, struct topo_result *r)
{
	struct live l[2];
	struct guest g[2];
	struct guest_result gr[2];
	void *ctx[2] = { &l[0], &l[1] };
	int i, n = t->nodes, link[2], v = 0;
	const char *sysmap = k->sysmap;
	char *dir;

	memset(r, 0, sizeof(*r));
	r->name = xstrdup(t->name);
	r->dir = xstrdup(o->results);
	r->nodes = n;
	dir = xasprintf("%s/%s.%d", o->tmp, t->name, getpid());
	rm_rf(dir);
	if (mkdir_p(dir) || mkdir_p(o->results))
		die("cannot create %s or %s: %s", dir, o->results,
		    strerror(errno));
	tmp_dir = dir;
	atexit(remove_tmp);
	make_link(t, link);
	for (i = 0; i < n; i++) {
		g[i] = guest_for(t, k, o, dir, i, link[i]);
		l[i] = (struct live){ .verbose = o->verbose, .first_line = -1,
			.label = n > 1 ? xasprintf("%s/node%d", t->name, i) :
				 xstrdup(t->name) };
		ktap_init(&l[i].k);
		l[i].t0 = l[i].last_print = now_s();
	}
	announce(t, o, g[0].timeout);
	guests_run(g, n, on_line, ctx, gr);
	for (i = 0; i < n; i++) {
		char *prefix = n > 1 ? xasprintf("node%d/", i) : xstrdup("");

		if (link[i] >= 0)
			close(link[i]);
		r->wall = gr[i].seconds > r->wall ? gr[i].seconds : r->wall;
		if (!i || (l[i].first_line >= 0 && l[i].first_line < r->first_ktap))
			r->first_ktap = l[i].first_line;
		v |= guest_verdict(r, &l[i].k, &gr[i], &g[i], sysmap, prefix);
		if (!i)
			r->uptime = parse_uptime(&l[i].k);
		ktap_free(&l[i].k);
		free((char *)l[i].label);
		free(prefix);
	}
	r->verdict = (char *)topo_verdict(r, v);
	collect_coverage(r);
	if (o->keep)
		printf("[%s] kept disk images in %s\n", t->name, dir);
	else
		rm_rf(dir);
	tmp_dir = NULL;
}

static void count_line(void *ctx, const char *line)
{
	if (line)
		ktap_feed(ctx, line);
}

/*
 * KVM is used only if a guest under it reaches PID 1 and reports a
 * complete (empty) plan within a few seconds: /dev/kvm can exist and
 * still run guests far slower than TCG.  The verdict is cached per host
 * boot.
 */
const char *probe_accel(const struct kernel *k, const struct run_opts *o)
{
	char *cache = xasprintf("%s/accel-probe", o->build);
	char *boot = read_file("/proc/sys/kernel/random/boot_id", NULL);
	char *want, *have = read_file(cache, NULL);
	char *dir = xasprintf("%s/kvm-probe.%d", o->tmp, getpid());
	const char *accel = "tcg";
	struct guest_result gr;
	struct ktap kt;
	struct guest g = {
		.kernel = k->bzimage, .append = "console=ttyS0 panic=-1 loglevel=5 rdinit=/init",
		.accel = "kvm", .memory = 192LL << 20, .smp = 1, .timeout = 8,
		.net_fd = -1,
	};

	if (boot)
		boot[strcspn(boot, "\n")] = 0;
	want = xstrdup(boot ? boot : "?");
	have = read_file(cache, NULL);
	if (access("/dev/kvm", R_OK | W_OK))
		goto out;
	if (have && !strncmp(have, want, strlen(want))) {
		accel = strstr(have, " kvm\n") ? "kvm" : "tcg";
		goto out;
	}
	printf("runner: probing KVM (a guest must finish in %ds)\n", g.timeout);
	mkdir_p(dir);
	tmp_dir = dir;
	g.initrd = xasprintf("%s/initrd", dir);
	g.console_log = xasprintf("%s/console.log", dir);
	g.ktap_log = xasprintf("%s/ktap.log", dir);
	g.qemu_log = xasprintf("%s/qemu.log", dir);
	make_initrd(o->initramfs, "name kvm-probe\nseed 1\n", NULL, NULL,
		    g.initrd);
	ktap_init(&kt);
	guest_run(&g, count_line, &kt, &gr);
	if (!gr.timed_out && !gr.status && !ktap_finish(&kt))
		accel = "kvm";
	printf("runner: KVM probe: %s in %.1fs -> %s\n",
	       gr.timed_out ? "timed out" : "finished", gr.seconds, accel);
	ktap_free(&kt);
	rm_rf(dir);
	tmp_dir = NULL;
	free(have);
	have = xasprintf("%s %s\n", want, accel);
	write_file_atomic(cache, have, strlen(have));
out:
	free(cache);
	free(boot);
	free(want);
	free(have);
	free(dir);
	return accel;
}
