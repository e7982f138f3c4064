// SPDX-License-Identifier: GPL-2.0
/*
 * explore: a seeded random walk over a live stack (runner --explore),
 * every read checked against an exact model.
 *
 * The walk's target is a file in the stack's filesystem, or the top
 * block device when there is none.  Each step is a batch of up to four
 * I/O operations run at once from threads (writes and reads of 4 KiB to
 * 6 MiB, O_DIRECT or buffered, fdatasync, discard or punch-hole,
 * write-zeroes), often with one operation on a layer beside them: what
 * the stack's layer kinds declare (stacks/: fail or fault an md member,
 * re-add it, freeze a resync, dm suspend or reload, ...).
 *
 * The model keeps, for every 4 KiB block, the set of contents it may hold:
 * the last acknowledged write, plus what an operation of the same batch
 * may have put there (a read racing a write may see either; a discard may
 * leave the old data or zeroes).  Content is named by the write that put
 * it there: write k fills byte o with pattern stream k at o, 0 is zeroes.
 * Every read is checked sector by sector; a full scan follows each layer
 * operation and the end.  After the walk every layer settles (members
 * back and in sync, md check mismatch_cnt 0), then the final scan and a
 * filesystem check.
 *
 * Each step is printed as a trace line ("# trace step 3 W 0 8192 d 7 ;
 * + md fail md0 vdb"); given /etc/explore.trace the walk replays those
 * steps instead of drawing them, which is how the runner shrinks a
 * failing walk and how a trace is kept as a regression test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/swap.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "layer.h"
#include "stacktest.h"

#define BLK 4096LL
#define SECT 512
#define MAXSET 6
#define MAXIO 4
#define MAX_KINDS 16	/* layer kinds in one stack */
#define MAX_TARGET (32LL << 20)
#define TRACE_PATH "/etc/explore.trace"

/* The write ids a block may hold (0: zeroes). */
struct bset {
	uint32_t v[MAXSET];
	int n;
};

struct io {
	char kind;		/* W, R, S (fdatasync), D (discard), Z (zeroes) */
	long long off, len;	/* bytes, 4 KiB aligned */
	char mode;		/* d: O_DIRECT, b: buffered */
	uint32_t id;		/* a write's id */
	struct bset *allow;	/* a read's allowed sets, per block */
	char err[256];		/* empty when it went right */
};

struct lop {
	const struct layer_kind *k;
	const struct layer_op *op;
	char args[96];
	char msg[256];
	int rc;
};

struct step {
	int n;
	struct io io[MAXIO];
	bool has_op;
	struct lop op;
};

static struct {
	uint64_t seed, rng;
	int fd_d, fd_b;
	bool file, can_discard, can_zero;
	char path[128];
	long long size, nblocks;
	struct bset *model;
	uint32_t next_id;
	const struct layer_kind *kinds[MAX_KINDS];
	int nkinds;
	long long ios, ops, skipped;
} w;

static uint64_t rnd(void)
{
	uint64_t z = (w.rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void set_add(struct bset *s, uint32_t id)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->v[i] == id)
			return;
	if (s->n < MAXSET)
		s->v[s->n++] = id;
}

/* ---- the target ---- */

static int open_target(const char *path, int flags)
{
	int fd = open(path, flags | O_RDWR | O_CLOEXEC, 0644);

	if (fd < 0)
		ktap_diag("open %s: %s", path, strerror(errno));
	return fd;
}

/* A file of the filesystem on top, else the top device; its size. */
static int pick_target(char *msg, size_t len)
{
	const char *mnt = getenv("STACK_MNT"), *top = getenv("STACK_TOP");
	const char *swapdev = getenv("STACK_SWAPDEV");
	struct statvfs sv;

	if (mnt && *mnt) {
		if (statvfs(mnt, &sv)) {
			snprintf(msg, len, "statvfs %s: %s", mnt, strerror(errno));
			return -1;
		}
		w.file = true;
		w.size = (long long)sv.f_bavail * sv.f_frsize / 3;
		snprintf(w.path, sizeof(w.path), "%s/explore.dat", mnt);
	} else if (top && *top && !(swapdev && !strcmp(top, swapdev))) {
		snprintf(w.path, sizeof(w.path), "%s", top);
		w.fd_d = open_target(w.path, O_DIRECT);
		if (w.fd_d < 0 || ioctl(w.fd_d, BLKGETSIZE64, &w.size))
			w.size = 0;
		if (w.fd_d >= 0)
			close(w.fd_d);
	} else {
		snprintf(msg, len, "the stack has no filesystem and no block device for data on top (swap is all there is)");
		return -1;
	}
	if (w.size > MAX_TARGET)
		w.size = MAX_TARGET;
	w.size &= ~((1LL << 20) - 1);
	if (w.size < (4LL << 20)) {
		snprintf(msg, len, "%s: room for %lld MiB, want at least 4",
			 w.path, w.size >> 20);
		return -1;
	}
	w.nblocks = w.size / BLK;
	return 0;
}

/* Does the target take discards (or punch-hole) and write-zeroes? */
static void probe_ops(void)
{
	char path[128];
	struct stat st;

	w.can_zero = true;
	if (w.file) {
		w.can_discard = !fallocate(w.fd_b, FALLOC_FL_PUNCH_HOLE |
					   FALLOC_FL_KEEP_SIZE, 0, BLK);
		w.can_zero = !fallocate(w.fd_b, FALLOC_FL_ZERO_RANGE, 0, BLK);
		return;
	}
	if (stat(w.path, &st))
		return;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/discard_max_bytes",
		 major(st.st_rdev), minor(st.st_rdev));
	w.can_discard = read_ll(path) > 0;
}

/* ---- contents ---- */

static void *xalign(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, BLK, len ? len : BLK))
		abort();
	return p;
}

static void fill(void *buf, long long len, uint32_t id, long long off)
{
	if (id)
		pattern_fill(buf, len, w.seed, id, off);
	else
		memset(buf, 0, len);
}

/* Does sector s (bytes at off) hold the content of write id? */
static bool sector_is(const unsigned char *s, long long off, uint32_t id)
{
	unsigned char want[SECT];

	fill(want, SECT, id, off);
	return !memcmp(s, want, SECT);
}

/* What a bad sector holds: "write 12", "zeroes" or "none of the walk's". */
static void name_sector(const unsigned char *s, long long off, char *buf,
			size_t len)
{
	uint32_t id;

	for (id = 0; id < w.next_id; id++)
		if (sector_is(s, off, id)) {
			snprintf(buf, len, id ? "write %u" : "zeroes", id);
			return;
		}
	snprintf(buf, len, "none of the walk's writes");
}

static void describe_set(const struct bset *a, char *buf, size_t len)
{
	size_t o = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < a->n && o < len; i++) {
		o += snprintf(buf + o, len - o, "%s", i ? " or " : "");
		if (o < len)
			o += snprintf(buf + o, len - o, a->v[i] ? "write %u" :
				      "zeroes", a->v[i]);
	}
}

/*
 * A sector that a racing operation may have torn (a read beside a write
 * can see part of each, down to QEMU's copy): every 8-byte word holds
 * one of the allowed contents.
 */
static bool sector_mixed(const unsigned char *s, long long off,
			 const struct bset *a)
{
	unsigned char want[MAXSET][SECT];
	int i, k;

	if (a->n < 2)
		return false;
	for (k = 0; k < a->n; k++)
		fill(want[k], SECT, a->v[k], off);
	for (i = 0; i < SECT; i += 8) {
		for (k = 0; k < a->n; k++)
			if (!memcmp(s + i, want[k] + i, 8))
				break;
		if (k == a->n)
			return false;
	}
	return true;
}

/*
 * Check buf (bytes [off, off+len)) sector by sector against the allowed
 * sets of its blocks; the first bad sector described in err.
 */
static int check_buf(const unsigned char *buf, long long off, long long len,
		     const struct bset *allow, char *err, size_t elen)
{
	long long o;
	int i;

	for (o = 0; o < len; o += SECT) {
		const struct bset *a = &allow[o / BLK];
		char got[48], want[160];

		for (i = 0; i < a->n; i++)
			if (sector_is(buf + o, off + o, a->v[i]))
				break;
		if (i < a->n || sector_mixed(buf + o, off + o, a))
			continue;
		name_sector(buf + o, off + o, got, sizeof(got));
		describe_set(a, want, sizeof(want));
		snprintf(err, elen, "byte %lld (block %lld) holds %s, the model allows %s",
			 off + o, (off + o) / BLK, got, want);
		return -1;
	}
	return 0;
}

/* ---- one I/O operation, in its own thread ---- */

static int full_rw(bool wr, int fd, void *buf, long long len, long long off)
{
	long long done = 0, n;

	while (done < len) {
		n = wr ? pwrite(fd, (char *)buf + done, len - done, off + done) :
			 pread(fd, (char *)buf + done, len - done, off + done);
		if (n <= 0)
			return n ? -1 : (errno = EIO, -1);
		done += n;
	}
	return 0;
}

static void do_write(struct io *o)
{
	void *buf = xalign(o->len);
	int fd = o->mode == 'd' ? w.fd_d : w.fd_b;

	fill(buf, o->len, o->id, o->off);
	if (full_rw(true, fd, buf, o->len, o->off))
		snprintf(o->err, sizeof(o->err), "write: %s", strerror(errno));
	else if (o->mode == 'b' && fdatasync(fd))
		snprintf(o->err, sizeof(o->err), "fdatasync: %s",
			 strerror(errno));
	free(buf);
}

static void do_read(struct io *o)
{
	unsigned char *buf = xalign(o->len);
	int fd = o->mode == 'd' ? w.fd_d : w.fd_b;
	char why[200];

	if (full_rw(false, fd, buf, o->len, o->off))
		snprintf(o->err, sizeof(o->err), "read: %s", strerror(errno));
	else if (check_buf(buf, o->off, o->len, o->allow, why, sizeof(why)))
		snprintf(o->err, sizeof(o->err), "%s read: %s",
			 o->mode == 'd' ? "O_DIRECT" : "buffered", why);
	free(buf);
}

static void do_trim(struct io *o, bool zero)
{
	uint64_t range[2] = { o->off, o->len };
	int r;

	if (w.file)
		r = fallocate(w.fd_b, zero ? FALLOC_FL_ZERO_RANGE :
			      FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      o->off, o->len);
	else
		r = ioctl(w.fd_d, zero ? BLKZEROOUT : BLKDISCARD, range);
	if (r)
		snprintf(o->err, sizeof(o->err), "%s: %s", zero ?
			 "write-zeroes" : "discard", strerror(errno));
}

static void *io_thread(void *arg)
{
	struct io *o = arg;

	switch (o->kind) {
	case 'W':
		do_write(o);
		break;
	case 'R':
		do_read(o);
		break;
	case 'S':
		if (fdatasync(w.fd_b))
			snprintf(o->err, sizeof(o->err), "fdatasync: %s",
				 strerror(errno));
		break;
	default:
		do_trim(o, o->kind == 'Z');
	}
	return NULL;
}

static void *op_thread(void *arg)
{
	struct lop *l = arg;

	l->rc = l->op->apply(l->k->name, l->args, l->msg, sizeof(l->msg));
	return NULL;
}

static int target_down(char *err, size_t len);
static int target_up(char *err, size_t len);

/*
 * An offline operation, after the step's I/O: the target closed around
 * it.  0 when the target is back (the operation's own verdict in l->rc),
 * -1 when it is not (why in l->msg).
 */
static int run_offline(struct lop *l)
{
	char err[200];
	size_t o;

	if (target_down(err, sizeof(err))) {
		snprintf(l->msg, sizeof(l->msg), "before it: %s", err);
		return -1;
	}
	op_thread(l);
	if (target_up(err, sizeof(err))) {
		o = strlen(l->msg);
		snprintf(l->msg + o, sizeof(l->msg) - o, "%safter it: %s",
			 o ? "; " : "", err);
		return -1;
	}
	return 0;
}

/* ---- the model ---- */

static bool mutates(const struct io *o)
{
	return o->kind == 'W' || o->kind == 'D' || o->kind == 'Z';
}

/* What a mutating operation leaves in block b, given what was there. */
static void after(const struct io *o, const struct bset *old, struct bset *s)
{
	s->n = 0;
	if (o->kind == 'D' && !w.file)
		*s = *old;	/* a device may keep the data it discarded */
	set_add(s, o->kind == 'W' ? o->id : 0);
}

/* A read may see the model's set, or what a racing operation leaves. */
static void plan_reads(struct step *st)
{
	int i, j;
	long long b;

	for (i = 0; i < st->n; i++) {
		struct io *r = &st->io[i];

		if (r->kind != 'R')
			continue;
		r->allow = calloc(r->len / BLK, sizeof(struct bset));
		for (b = 0; b < r->len / BLK; b++) {
			long long blk = r->off / BLK + b;

			r->allow[b] = w.model[blk];
			for (j = 0; j < st->n; j++) {
				struct io *m = &st->io[j];
				struct bset s;
				int k;

				if (!mutates(m) || blk < m->off / BLK ||
				    blk >= (m->off + m->len) / BLK)
					continue;
				after(m, &w.model[blk], &s);
				for (k = 0; k < s.n; k++)
					set_add(&r->allow[b], s.v[k]);
			}
		}
	}
}

static void commit(const struct step *st)
{
	long long b;
	int i;

	for (i = 0; i < st->n; i++) {
		const struct io *m = &st->io[i];

		if (!mutates(m))
			continue;
		for (b = m->off / BLK; b < (m->off + m->len) / BLK; b++) {
			struct bset s;

			after(m, &w.model[b], &s);
			w.model[b] = s;
		}
	}
}

/* Read everything back (O_DIRECT, a MiB at a time) against the model. */
static int full_scan(char *err, size_t len)
{
	long long off, chunk = 1LL << 20;
	unsigned char *buf = xalign(chunk);
	int r = 0;

	for (off = 0; off < w.size && !r; off += chunk) {
		if (full_rw(false, w.fd_d, buf, chunk, off)) {
			snprintf(err, len, "read at %lld: %s", off,
				 strerror(errno));
			r = -1;
		} else {
			r = check_buf(buf, off, chunk, &w.model[off / BLK],
				      err, len);
		}
	}
	free(buf);
	return r;
}

/* ---- coverage guidance (runner --explore SEED --guided) ---- */

/*
 * Every walk watches the function profiler's counts of what the run
 * traces (the series' changed functions, the topology's layer paths) and
 * says which step counted each first.  Guided, such a step credits what
 * it drew (its layer operation, the kinds of its I/O), and a credit
 * multiplies how often that is drawn again, halved every GUIDE_DECAY
 * steps so that an old find fades.  The steps, not the seed, then fix a
 * guided walk (a count depends on timing): its trace replays it.
 */
#define GUIDE_MAX_FN 256
#define GUIDE_CAP 8
#define GUIDE_DECAY 25
#define IO_KINDS "WRSDZ"

static struct {
	bool on, steer;		/* counting; steering the draws by it */
	int nfn, reached;
	char *fn[GUIDE_MAX_FN];
	long long hits[GUIDE_MAX_FN];
	int first[GUIDE_MAX_FN];	/* the step first counting it; -1: before */
	int op_credit[MAX_KINDS][LAYER_MAX_OPS];
	int io_credit[sizeof(IO_KINDS) - 1];
} g;

static void guide_start(void)
{
	bool guided = !strcmp(env_or("STACK_OPT_EXPLORE_GUIDED", "0"), "1");
	int i;

	g.nfn = traced_names(g.fn, GUIDE_MAX_FN);
	if (g.nfn <= 0) {
		if (guided)
			ktap_diag("guided: nothing traced, so nothing to guide by");
		return;
	}
	g.on = true;
	g.steer = guided;
	profile_hits_of(g.fn, g.nfn, g.hits);
	for (i = 0; i < g.nfn; i++) {
		g.first[i] = g.hits[i] ? -1 : 0;
		g.reached += !!g.hits[i];
	}
	ktap_diag("walk coverage: %d of %d traced functions counted before the walk%s",
		  g.reached, g.nfn, g.steer ? "; guided by them" : "");
}

static void credit(int *c, int by)
{
	*c = *c + by > GUIDE_CAP ? GUIDE_CAP : *c + by;
}

/* The step's draws credited with the functions it counted first. */
static void guide_credit(const struct step *st, int new, char *by,
			 size_t len)
{
	size_t o = 0;
	int i, k;

	by[0] = 0;
	for (i = 0; i < w.nkinds && st->has_op; i++) {
		if (w.kinds[i] != st->op.k)
			continue;
		credit(&g.op_credit[i][st->op.op - st->op.k->ops], new);
		if (o < len)
			o += snprintf(by + o, len - o, "%s%s %s", o ? ", " : "",
				      st->op.k->name, st->op.op->name);
	}
	for (k = 0; IO_KINDS[k]; k++) {
		for (i = 0; i < st->n && st->io[i].kind != IO_KINDS[k]; i++)
			;
		if (i == st->n)
			continue;
		credit(&g.io_credit[k], new);
		if (o < len)
			o += snprintf(by + o, len - o, "%s%c", o ? ", " : "",
				      IO_KINDS[k]);
	}
}

static void guide_after(int n, const struct step *st)
{
	char names[512] = "", by[160];
	size_t o = 0;
	int i, k, new = 0;

	if (!g.on)
		return;
	if (g.steer && n % GUIDE_DECAY == 0) {
		for (i = 0; i < MAX_KINDS; i++)
			for (k = 0; k < LAYER_MAX_OPS; k++)
				g.op_credit[i][k] /= 2;
		for (k = 0; IO_KINDS[k]; k++)
			g.io_credit[k] /= 2;
	}
	profile_hits_of(g.fn, g.nfn, g.hits);
	for (i = 0; i < g.nfn; i++) {
		if (g.first[i] || !g.hits[i])
			continue;
		g.first[i] = n;
		new++;
		if (o < sizeof(names))
			o += snprintf(names + o, sizeof(names) - o, "%s%s",
				      o ? " " : "", g.fn[i]);
	}
	if (!new)
		return;
	g.reached += new;
	if (!g.steer) {
		ktap_diag("walk coverage: step %d counted %s first", n, names);
		return;
	}
	guide_credit(st, new, by, sizeof(by));
	ktap_diag("walk coverage: step %d counted %s first (credit: %s)", n, names,
		  by[0] ? by : "none");
}

static void guide_end(void)
{
	char line[1024];
	size_t o = 0;
	int i, walk = 0;

	if (!g.on)
		return;
	for (i = 0; i < g.nfn; i++) {
		if (g.first[i] <= 0)
			continue;
		walk++;
		if (o < sizeof(line))
			o += snprintf(line + o, sizeof(line) - o, " %s@%d",
				      g.fn[i], g.first[i]);
	}
	ktap_diag("walk coverage: %d of %d traced functions counted, %d of them first by the walk:%s",
		  g.reached, g.nfn, walk, walk ? line : " none");
}

/* Operation i of kind k's weight, with its credit when guided. */
static int op_weight_of(int k, int i)
{
	int base = w.kinds[k]->ops[i].weight ? w.kinds[k]->ops[i].weight : 4;

	return g.steer ? base * (1 + g.op_credit[k][i]) : base;
}

/* Guided: an I/O kind by its share times its credit. */
static char guided_io_kind(void)
{
	static const int share[] = { 40, 35, 8, 9, 8 };
	int k, sum = 0, x;

	for (k = 0; IO_KINDS[k]; k++)
		sum += share[k] * (1 + g.io_credit[k]);
	x = rnd() % sum;
	for (k = 0; x >= share[k] * (1 + g.io_credit[k]); k++)
		x -= share[k] * (1 + g.io_credit[k]);
	return IO_KINDS[k];
}

/* ---- drawing a step ---- */

static long long draw_len(void)
{
	uint64_t r = rnd() % 10;
	long long blocks;

	if (r < 6)
		blocks = 1 + rnd() % 16;
	else if (r < 9)
		blocks = 16 + rnd() % 240;	/* up to a MiB: BIO_MAX_VECS */
	else
		blocks = 256 + rnd() % 1280;	/* past it: split requests */
	if (blocks > w.nblocks)
		blocks = w.nblocks;
	return blocks * BLK;
}

static bool overlaps(const struct io *a, const struct io *b)
{
	return a->off < b->off + b->len && b->off < a->off + a->len;
}

static bool draw_io(struct step *st, struct io *o)
{
	uint64_t r = rnd() % 100;
	int i;

	memset(o, 0, sizeof(*o));
	o->kind = r < 40 ? 'W' : r < 75 ? 'R' : r < 83 ? 'S' : r < 92 ? 'D' : 'Z';
	if (g.steer)
		o->kind = guided_io_kind();
	if ((o->kind == 'D' && !w.can_discard) || (o->kind == 'Z' && !w.can_zero))
		o->kind = 'R';
	o->mode = rnd() % 2 ? 'd' : 'b';
	if (o->kind == 'S')
		return true;
	o->len = draw_len();
	o->off = rnd() % (w.nblocks - o->len / BLK + 1) * BLK;
	if (o->kind == 'W')
		o->id = w.next_id++;
	for (i = 0; i < st->n; i++) {
		/* Mutations of one batch never overlap each other. */
		if (mutates(o) && mutates(&st->io[i]) && overlaps(o, &st->io[i]))
			return false;
		/* A read racing one is O_DIRECT: see the README, "explore". */
		if (o->kind == 'R' && mutates(&st->io[i]) && overlaps(o, &st->io[i]))
			o->mode = 'd';
		if (mutates(o) && st->io[i].kind == 'R' && overlaps(o, &st->io[i]))
			st->io[i].mode = 'd';
	}
	return true;
}

/* A kind of the stack, then one of its operations by weight, picked. */
static bool draw_op(struct lop *l)
{
	int tries, i, sum, x, ki;

	for (tries = 0; tries < 8 && w.nkinds; tries++) {
		const struct layer_kind *k = w.kinds[ki = rnd() % w.nkinds];

		for (i = sum = 0; i < LAYER_MAX_OPS && k->ops[i].name; i++)
			sum += op_weight_of(ki, i);
		if (!sum)
			continue;
		x = rnd() % sum;
		for (i = 0; x >= op_weight_of(ki, i); i++)
			x -= op_weight_of(ki, i);
		l->k = k;
		l->op = &k->ops[i];
		if (!l->op->pick(k->name, rnd(), l->args, sizeof(l->args)))
			return true;
	}
	return false;
}

static void draw_step(struct step *st)
{
	int want = 1 + rnd() % MAXIO, i;

	memset(st, 0, sizeof(*st));
	st->has_op = rnd() % 2 == 0 && draw_op(&st->op);
	if (st->has_op && (st->op.op->alone || st->op.op->offline))
		return;
	for (i = 0; i < want; i++)
		if (draw_io(st, &st->io[st->n]))
			st->n++;
}

/* ---- trace lines ---- */

static void trace_line(int n, const struct step *st, char *buf, size_t len)
{
	size_t o = snprintf(buf, len, "step %d", n);
	int i;

	for (i = 0; i < st->n; i++) {
		const struct io *x = &st->io[i];

		o += snprintf(buf + o, len - o, "%s%c", i ? " ; " : " ", x->kind);
		if (x->kind == 'S')
			continue;
		o += snprintf(buf + o, len - o, " %lld %lld", x->off, x->len);
		if (x->kind == 'W' || x->kind == 'R')
			o += snprintf(buf + o, len - o, " %c", x->mode);
		if (x->kind == 'W')
			o += snprintf(buf + o, len - o, " %u", x->id);
	}
	if (st->has_op)
		snprintf(buf + o, len - o, "%s+ %s %s %s", st->n ? " ; " : " ",
			 st->op.k->name, st->op.op->name, st->op.args);
}

static const struct layer_kind *stack_kind(const char *name)
{
	int i;

	for (i = 0; i < w.nkinds; i++)
		if (!strcmp(w.kinds[i]->name, name))
			return w.kinds[i];
	return NULL;
}

static int parse_op(struct lop *l, const char *text, char *err, size_t len)
{
	char kind[24], name[24];
	int n = 0, i;

	if (sscanf(text, "+ %23s %23s %n", kind, name, &n) != 2) {
		snprintf(err, len, "bad layer operation '%s'", text);
		return -1;
	}
	l->k = stack_kind(kind);
	if (!l->k) {
		snprintf(err, len, "layer kind '%s' is not in this stack", kind);
		return -1;
	}
	for (i = 0; i < LAYER_MAX_OPS && l->k->ops[i].name; i++)
		if (!strcmp(l->k->ops[i].name, name))
			break;
	if (i == LAYER_MAX_OPS || !l->k->ops[i].name) {
		snprintf(err, len, "%s has no operation '%s'", kind, name);
		return -1;
	}
	l->op = &l->k->ops[i];
	snprintf(l->args, sizeof(l->args), "%s", text + n);
	return 0;
}

static int parse_io(struct io *o, const char *t, char *err, size_t len)
{
	int n;

	memset(o, 0, sizeof(*o));
	o->kind = *t;
	o->mode = 'd';
	if (o->kind == 'S')
		return 0;
	n = sscanf(t + 1, " %lld %lld %c %u", &o->off, &o->len, &o->mode, &o->id);
	if (!strchr("WRDZ", o->kind) || n < 2 || (o->kind == 'W' && n != 4) ||
	    o->off % BLK || o->len % BLK || o->len <= 0 ||
	    o->off + o->len > w.size || !strchr("db", o->mode)) {
		snprintf(err, len, "bad operation '%s' (or it falls outside the %lld-byte target)",
			 t, w.size);
		return -1;
	}
	if (o->id >= w.next_id)
		w.next_id = o->id + 1;
	return 0;
}

/* "step N A ; B ; + kind op args" into st. */
static int parse_step(char *line, struct step *st, char *err, size_t len)
{
	char *p = strchr(line + 5, ' '), *save = NULL, *tok;

	memset(st, 0, sizeof(*st));
	for (tok = p ? strtok_r(p + 1, ";", &save) : NULL; tok;
	     tok = strtok_r(NULL, ";", &save)) {
		while (*tok == ' ')
			tok++;
		tok[strcspn(tok, "\n")] = 0;
		if (*tok == '+') {
			if (parse_op(&st->op, tok, err, len))
				return -1;
			st->has_op = true;
		} else if (st->n == MAXIO) {
			snprintf(err, len, "more than %d I/O operations", MAXIO);
			return -1;
		} else if (parse_io(&st->io[st->n++], tok, err, len)) {
			return -1;
		}
	}
	return 0;
}

/* ---- running a step ---- */

/* Step n's operation failed: it, and why, into err. */
static void op_error(int n, const struct step *st, char *err, size_t len)
{
	snprintf(err, len, "step %d, %s %s %s: %s", n, st->op.k->name,
		 st->op.op->name, st->op.args, st->op.msg);
}

static int run_step(int n, struct step *st, char *err, size_t len)
{
	pthread_t t[MAXIO + 1];
	bool started[MAXIO + 1] = { false };
	int i, bad = 0;

	plan_reads(st);
	/* A thread that cannot start runs here instead: the step still runs. */
	if (st->has_op && !st->op.op->offline)
		started[MAXIO] = !pthread_create(&t[MAXIO], NULL, op_thread,
						 &st->op);
	for (i = 0; i < st->n; i++)
		started[i] = !pthread_create(&t[i], NULL, io_thread, &st->io[i]);
	for (i = 0; i < st->n; i++) {
		if (started[i])
			pthread_join(t[i], NULL);
		else
			io_thread(&st->io[i]);
	}
	if (st->has_op && started[MAXIO])
		pthread_join(t[MAXIO], NULL);
	else if (st->has_op && !st->op.op->offline)
		op_thread(&st->op);
	else if (st->has_op && run_offline(&st->op))
		bad = 2;
	w.ios += st->n;
	if (bad) {
		op_error(n, st, err, len);
		w.ops++;
	}
	for (i = 0; i < st->n && !bad; i++) {
		if (st->io[i].err[0]) {
			snprintf(err, len, "step %d, %c at %lld+%lld: %s", n,
				 st->io[i].kind, st->io[i].off, st->io[i].len,
				 st->io[i].err);
			bad = 1;
		}
	}
	for (i = 0; i < st->n; i++)
		free(st->io[i].allow);
	if (bad)
		return -1;
	commit(st);
	if (!st->has_op)
		return 0;
	if (st->op.rc > 0) {
		w.skipped++;
		ktap_diag("step %d: %s %s %s: not applicable now%s%s", n,
			  st->op.k->name, st->op.op->name, st->op.args,
			  *st->op.msg ? ": " : "", st->op.msg);
		return 0;
	}
	w.ops++;
	if (st->op.rc < 0) {
		op_error(n, st, err, len);
		return -1;
	}
	if (full_scan(err, len)) {
		char tmp[320];

		snprintf(tmp, sizeof(tmp), "step %d, scan after %s %s: %s", n,
			 st->op.k->name, st->op.op->name, err);
		snprintf(err, len, "%s", tmp);
		return -1;
	}
	return 0;
}

/* ---- the walk ---- */

static void stack_kinds(void)
{
	char kinds[256], *save = NULL, *k;

	snprintf(kinds, sizeof(kinds), "%s", env_or("STACK_KINDS", ""));
	for (k = strtok_r(kinds, " ", &save); k && w.nkinds < MAX_KINDS;
	     k = strtok_r(NULL, " ", &save))
		if (layer_kind(k))
			w.kinds[w.nkinds++] = layer_kind(k);
}

static int setup(char *err, size_t len)
{
	const char *s = env_or("STACK_OPT_EXPLORE_SEED", NULL);
	char *end;
	long long b;
	void *buf;

	w.seed = s ? strtoull(s, &end, 10) : env_seed();
	if (s && (*end || !*s)) {
		snprintf(err, len, "explore-seed '%s' is not a number", s);
		return -1;
	}
	w.rng = w.seed;
	w.next_id = 1;
	stack_kinds();
	if (pick_target(err, len))
		return -1;
	w.fd_b = open_target(w.path, O_CREAT);
	w.fd_d = open_target(w.path, O_DIRECT);
	if (w.fd_b < 0 || w.fd_d < 0) {
		snprintf(err, len, "cannot open %s", w.path);
		return -1;
	}
	/* Before the fill: the probes punch and zero the first block. */
	probe_ops();
	w.model = calloc(w.nblocks, sizeof(*w.model));
	/* Write 1 fills the target: the model starts exact. */
	buf = xalign(1 << 20);
	for (b = 0; b < w.size; b += 1 << 20) {
		fill(buf, 1 << 20, 1, b);
		if (full_rw(true, w.fd_d, buf, 1 << 20, b)) {
			snprintf(err, len, "filling %s: %s", w.path, strerror(errno));
			free(buf);
			return -1;
		}
	}
	free(buf);
	fsync(w.fd_d);
	for (b = 0; b < w.nblocks; b++)
		set_add(&w.model[b], 1);
	w.next_id = 2;
	return 0;
}

/* Draw steps (or replay the trace) until the budget or a failure. */
static int walk(FILE *trace, int steps, double seconds, int *failed,
		char *err, size_t len)
{
	double t0 = mono_s();
	char line[1024];
	struct step st;
	int n = 0;

	for (;;) {
		if (trace) {
			if (!fgets(line, sizeof(line), trace))
				break;
			if (strncmp(line, "step ", 5))
				continue;
			if (parse_step(line, &st, err, len))
				return -2;
		} else {
			if (n >= steps || (seconds > 0 && mono_s() - t0 > seconds))
				break;
			draw_step(&st);
		}
		n++;
		trace_line(n, &st, line, sizeof(line));
		ktap_diag("trace %s", line);
		if (run_step(n, &st, err, len)) {
			*failed = n;
			return -1;
		}
		guide_after(n, &st);
		if (n % 20 == 0)
			ktap_diag("explore: %d steps, %lld I/Os, %lld layer operations, %.0f s",
				  n, w.ios, w.ops, mono_s() - t0);
	}
	return n;
}

/* md back whole, dm resumed: every layer kind's settle(). */
static int settle(char *err, size_t len)
{
	char msg[256];
	int i;

	for (i = w.nkinds - 1; i >= 0; i--) {
		if (!w.kinds[i]->settle)
			continue;
		if (w.kinds[i]->settle(w.kinds[i]->name, msg, sizeof(msg))) {
			snprintf(err, len, "%s: %s", w.kinds[i]->name, msg);
			return -1;
		}
		ktap_diag("%s: %s", w.kinds[i]->name, msg);
	}
	return 0;
}

/*
 * The target closed and, on a filesystem, that unmounted (swap on it off
 * first): nothing holds the stack's top, which can then be stopped.
 */
static int target_down(char *err, size_t len)
{
	const char *mnt = getenv("STACK_MNT"), *sw = getenv("STACK_SWAPFILE");

	close(w.fd_b);
	close(w.fd_d);
	w.fd_b = w.fd_d = -1;
	if (!w.file)
		return 0;
	if (sw && *sw && swapoff(sw)) {
		snprintf(err, len, "swapoff %s: %s", sw, strerror(errno));
		return -1;
	}
	if (umount(mnt)) {
		snprintf(err, len, "umount %s: %s", mnt, strerror(errno));
		return -1;
	}
	return 0;
}

/* What target_down() undid, done again. */
static int target_up(char *err, size_t len)
{
	const char *dev = getenv("STACK_FSDEV"), *type = getenv("STACK_FSTYPE");
	const char *mnt = getenv("STACK_MNT"), *sw = getenv("STACK_SWAPFILE");

	if (w.file && (mount_fs(dev, mnt, type, 0) ||
		       (sw && *sw && swap_on(sw)))) {
		snprintf(err, len, "cannot mount %s on %s again", dev, mnt);
		return -1;
	}
	w.fd_b = open_target(w.path, 0);
	w.fd_d = open_target(w.path, O_DIRECT);
	if (w.fd_b < 0 || w.fd_d < 0) {
		snprintf(err, len, "cannot open %s again", w.path);
		return -1;
	}
	return 0;
}

/* The filesystem under the target, unmounted, checked, mounted again. */
static int check_fs(char *err, size_t len)
{
	const char *dev = getenv("STACK_FSDEV"), *type = getenv("STACK_FSTYPE");
	int r;

	if (target_down(err, len))
		return -1;
	r = fs_check(dev, type);
	if (target_up(err, len)) {
		if (r) {
			char tmp[200];

			snprintf(tmp, sizeof(tmp), "%s", err);
			snprintf(err, len, "%s on %s is not clean; %s", type,
				 dev, tmp);
		}
		return -1;
	}
	if (r)
		snprintf(err, len, "%s on %s is not clean", type, dev);
	return r;
}

static int explore(void)
{
	struct ktap_out k;
	char err[512] = "";
	int steps = atoi(env_or("STACK_OPT_EXPLORE_STEPS", "40"));
	double seconds = atof(env_or("STACK_OPT_EXPLORE_TIME", "0"));
	FILE *trace = fopen(TRACE_PATH, "r");
	int n, failed = 0;

	if (setup(err, sizeof(err))) {
		printf("KTAP version 1\n1..1\n");
		ktap_diag("explore: %s", err);
		printf("not ok 1 walk: %s\n", err);
		return 1;
	}
	ktap_begin(&k, 4);
	ktap_diag("explore v1 seed=%llu size=%lld target=%s%s discard=%d zeroes=%d",
		  (unsigned long long)w.seed, w.size, w.file ? "file" : "device",
		  trace ? " replay" : "", w.can_discard, w.can_zero);
	guide_start();
	n = walk(trace, steps, seconds, &failed, err, sizeof(err));
	guide_end();
	if (trace)
		fclose(trace);
	if (n < 0) {
		if (failed)
			ktap_diag("explore-failed-step %d", failed);
		ktap_result(&k, 0, "walk: %s", err);
		return ktap_end(&k);
	}
	ktap_result(&k, 1, "walk: %d steps, %lld I/Os, %lld layer operations (%lld not applicable)",
		    n, w.ios, w.ops, w.skipped);
	err[0] = 0;
	n = settle(err, sizeof(err));
	ktap_result(&k, !n, "settle: layers whole%s%s", *err ? ": " : "", err);
	err[0] = 0;
	n = full_scan(err, sizeof(err));
	ktap_result(&k, !n, "final scan of %lld MiB against the model%s%s",
		    w.size >> 20, *err ? ": " : "", err);
	err[0] = 0;
	if (!w.file)
		ktap_result(&k, 1, "filesystem check # SKIP no filesystem");
	else if (check_fs(err, sizeof(err)))
		ktap_result(&k, 0, "filesystem check: %s", err);
	else
		ktap_result(&k, 1, "filesystem check: %s clean", env_or("STACK_FSTYPE", ""));
	close(w.fd_b);
	close(w.fd_d);
	return ktap_end(&k);
}

GUEST_TEST(.name = "explore",
	   .what = "a seeded random walk of I/O and layer operations, every read checked against an exact model",
	   .run = explore);
