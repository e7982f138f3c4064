// SPDX-License-Identifier: GPL-2.0
/*
 * --mutate: would the tests notice if the series' code were wrong?
 *
 * The series runs first as it is, with coverage: the baseline.  A
 * topology that does not pass there cannot judge a mutant and is left out,
 * named.  Then each mutant (mutant.c: one line the series added, changed
 * by one operator) is built as the series plus one patch (seeded from the
 * unpatched kernel's objects, so a build takes seconds) and run on the
 * baseline topologies whose guests executed its function (every one when
 * the function cannot be traced), the quickest first, until one kills it:
 *   killed       a test failed (the kernel log's check among them: a
 *                splat), or the kernel crashed during one
 *   timeout      a guest did not finish by its deadline, or hung
 *   error        only the harness's "guest" check failed (QEMU's exit,
 *                the KTAP stream) on every topology that ran it: no verdict
 *   survived     every topology that executed it passed
 *   equivalent   survived, and the series' mutants.equivalent says why
 *                no test can tell (a line "ID reason")
 *   not built    it does not compile: not a kill
 *   not reached  no baseline topology executed its function
 * Only a test's failure kills: never a build failure or a harness error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <json.h>
#include <libxml/xmlwriter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mutant.h"
#include "mutate.h"
#include "report.h"

struct outcome {
	const char *status;
	char *detail;		/* the failing tests, the error, or why */
	char *ran;		/* topologies that ran it */
	double seconds;
};

/* A mutated file's traceable functions, counted by the baseline. */
struct file_syms {
	const char *file;
	int n;
	char **name;
};

struct mrun {
	struct ctx *c;
	const char *series, *name;
	struct series_report base;
	bool *judges;		/* per topology: passed on the baseline */
	char *equivalent;	/* the series' mutants.equivalent text */
	struct file_syms *files;	/* the mutated files' functions */
	int nfiles;
	struct mutants ms;
	const char *key;	/* the series' kernel: each mutant's parent */
	struct outcome *out;
	int total;		/* mutants before --mutate-max */
	double t0;
};

/* Calls of fn in r: -1 not traceable or not traced, else the count. */
static long long hits_of(const struct topo_result *r, const char *fn)
{
	int i;

	for (i = 0; i < r->ncov; i++)
		if (!strcmp(r->cov[i].name, fn))
			return r->cov[i].hits;
	return -1;
}

/* The reason the equivalent list gives for mutant id, or NULL. */
static char *equivalent_why(const char *text, const char *id)
{
	const char *p = text;
	size_t n = strlen(id);

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (*p != '#' && len > n && !strncmp(p, id, n) &&
		    (p[n] == ' ' || p[n] == '\t'))
			return xasprintf("%.*s", (int)(len - n - 1), p + n + 1);
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/*
 * The first compiler error in the mutant's build log, which is kept in
 * the results folder (its kernel's folder is removed).
 */
static char *first_error(const char *dir, const char *results,
			 const char *id)
{
	char *log = xasprintf("%s/build.log", dir), *text, *p, *e, *r;
	char *keep = xasprintf("%s/mutant-%s/build.log", results, id);
	size_t len = 0;

	text = read_file(log, &len);
	if (text) {
		*strrchr(keep, '/') = 0;
		mkdir_p(keep);
		keep[strlen(keep)] = '/';
		write_file_atomic(keep, text, len);
	}
	p = text ? strstr(text, "error:") : NULL;
	if (!p) {
		r = xasprintf("the build failed; see %s", keep);
	} else {
		while (p > text && p[-1] != '\n')
			p--;
		e = strchr(p, '\n');
		r = xasprintf("%.*s", e ? (int)(e - p) : (int)strlen(p), p);
	}
	free(text);
	free(log);
	free(keep);
	return r;
}

/*
 * Build in a child: kbuild() dies on a compile error, the run must not.
 * build_start() forks it, build_wait() reaps it: true when it built.
 * (Only waitpid() on this pid reaps it: a mutant's judge runs one
 * topology at a time, never sched.c's wait() for any worker.)
 */
static pid_t build_start(const struct kbuild_opts *ko)
{
	struct kernel k;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		/* A group of its own, as a worker: a stop kills it there. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		kbuild(ko, &k);
		printf("mutate: kernel %s built in %.1fs\n", k.key, k.seconds);
		_exit(0);
	}
	/* Its group made here too, so a stop from now on reaches it. */
	setpgid(pid, pid);
	child_track(pid);
	if (stop_requested)
		kill(-pid, SIGKILL);
	return pid;
}

static bool build_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	child_untrack(pid);
	return WIFEXITED(st) && !WEXITSTATUS(st);
}

/* DIR: "series" (the series' patches through a link, then the mutant). */
static char *mutant_series(struct mrun *mr, const struct mutant *m,
			   const char *src, char **names, int n)
{
	char *dir = xasprintf("%s/mutants/%d-%s", mr->c->o.build, getpid(),
			      m->id);
	char *link = xasprintf("%s/series-dir", dir), *patch, *p;
	struct strbuf sb = { 0 };
	int i;

	rm_rf(dir);
	if (mkdir_p(dir) || symlink(mr->series, link))
		die("cannot make %s: %s", dir, strerror(errno));
	for (i = 0; i < n; i++)
		sb_printf(&sb, "series-dir/%s\n", names[i]);
	sb_printf(&sb, "mutant.patch\n");
	p = xasprintf("%s/series", dir);
	patch = mutant_patch(m, src);
	if (!patch)
		die("%s:%d changed under the run: cannot make mutant %s",
		    m->file, m->line, m->id);
	if (write_file_atomic(p, sb.buf, sb.len))
		die("cannot write %s: %s", p, strerror(errno));
	free(p);
	p = xasprintf("%s/mutant.patch", dir);
	if (write_file_atomic(p, patch, strlen(patch)))
		die("cannot write %s: %s", p, strerror(errno));
	free(p);
	free(patch);
	free(link);
	sb_free(&sb);
	return dir;
}

/*
 * Whether topology r can have executed m: its function ran there; or, the
 * function being inlined (not traceable), some function of its file ran
 * there; or nothing of the file can be traced (no evidence either way).
 */
static bool reached(struct mrun *mr, const struct topo_result *r,
		    const struct mutant *m)
{
	long long h = hits_of(r, m->func);
	bool traced = false;
	int i, j;

	if (h >= 0)
		return h > 0;
	for (i = 0; i < mr->nfiles; i++) {
		if (strcmp(mr->files[i].file, m->file))
			continue;
		for (j = 0; j < mr->files[i].n; j++) {
			h = hits_of(r, mr->files[i].name[j]);
			if (h > 0)
				return true;
			traced |= h == 0;
		}
	}
	return !traced;
}

/* The baseline topologies that executed m's code, quickest first. */
static int judges_of(struct mrun *mr, const struct mutant *m, int *order)
{
	struct topo_result *res = mr->base.res;
	int i, j, n = 0;

	for (i = 0; i < mr->base.ntopo; i++) {
		if (!mr->judges[i] || !reached(mr, &res[i], m))
			continue;
		for (j = n; j > 0 && res[order[j - 1]].wall > res[i].wall; j--)
			order[j] = order[j - 1];
		order[j] = i;
		n++;
	}
	return n;
}

/* A test of ours failed: not only the harness's "guest" check. */
static bool test_failed(const struct topo_result *r)
{
	int i;

	for (i = 0; i < r->ntests; i++) {
		const char *n = r->tests[i].name;
		size_t len = strlen(n);

		if (r->tests[i].result == KTAP_FAIL &&
		    !(len >= 5 && !strcmp(n + len - 5, "guest")))
			return true;
	}
	return false;
}

static char *failed_tests(const struct topo_result *r)
{
	struct strbuf sb = { 0 };
	int i;

	sb_printf(&sb, "%s %s:", r->name, r->verdict);
	for (i = 0; i < r->ntests; i++)
		if (r->tests[i].result == KTAP_FAIL)
			sb_printf(&sb, " %s", r->tests[i].name);
	return sb.buf;
}

/* Run the mutant's topologies one at a time until one tells. */
static void judge(struct mrun *mr, const struct mutant *m, const char *dir,
		  const int *order, int n, struct outcome *o)
{
	struct strbuf ran = { 0 };
	char *label = xasprintf("mutant-%s", m->id);
	int i;

	const char *none = "survived";

	o->status = NULL;
	for (i = 0; i < n && !o->status; i++) {
		struct ctx one = *mr->c;
		struct series_report sr;
		struct topo_result *r;

		one.topo = &mr->c->topo[order[i]];
		one.n = 1;
		/* A mutant's kernel, built: never kept in the kernel store. */
		one.ko.parent = mr->key;
		if (!run_series(&one, dir, -1, label, &sr)) {
			o->status = "interrupted";
			break;
		}
		r = &sr.res[0];
		sb_printf(&ran, "%s%s", ran.len ? " " : "", r->name);
		if (!strcmp(r->verdict, "TIMEOUT")) {
			o->status = "timeout";
			o->detail = failed_tests(r);
		} else if (test_failed(r)) {
			o->status = "killed";
			o->detail = failed_tests(r);
		} else if (strcmp(r->verdict, "PASS") &&
			   strcmp(r->verdict, "SKIP")) {
			none = "error";
			free(o->detail);
			o->detail = failed_tests(r);
		}
	}
	if (!o->status)
		o->status = none;
	o->ran = ran.buf ? ran.buf : xstrdup("");
	free(label);
}

/* A mutant from the start of its build to its verdict. */
struct inflight {
	int idx;
	pid_t build;		/* its build, 0 when none was started */
	int *order, nj;		/* the topologies to judge it, quickest first */
	char *dir, *kdir;
	double t0;
};

/*
 * Mutant idx's series made and its build started (when anything ran it);
 * beside: the mutant whose guests run meanwhile, or NULL.
 */
static void mutant_start(struct mrun *mr, struct inflight *f, int idx,
			 const char *src, char **names, int n,
			 const char *beside)
{
	struct mutant *m = &mr->ms.m[idx];
	struct kbuild_opts ko = mr->c->ko;

	memset(f, 0, sizeof(*f));
	f->idx = idx;
	f->t0 = now_s();
	printf("\nmutate: [%d/%d, %.0fs] %s %s in %s() at %s:%d%s%s%s\n  -%s\n  +%s\n",
	       idx + 1, mr->ms.n, now_s() - mr->t0, m->id, m->op, m->func,
	       m->file, m->line, beside ? " (built while " : "",
	       beside ? beside : "", beside ? "'s guests run)" : "",
	       m->old, m->new);
	f->order = xcalloc(mr->base.ntopo + 1, sizeof(int));
	f->nj = judges_of(mr, m, f->order);
	if (!f->nj)
		return;
	f->dir = mutant_series(mr, m, src, names, n);
	ko.series = f->dir;
	ko.prefix = -1;
	ko.parent = mr->key;
	ko.parent_patches = n;
	f->kdir = kbuild_dir(&ko);
	f->build = build_start(&ko);
}

/* Its build, folders and memory gone; true when the build succeeded. */
static bool mutant_drop(struct mrun *mr, struct inflight *f)
{
	bool built = f->build && build_wait(f->build);

	f->build = 0;
	if (f->dir && !mr->c->o.keep) {
		rm_rf(f->kdir);
		rm_rf(f->dir);
	}
	free(f->kdir);
	free(f->dir);
	free(f->order);
	f->kdir = f->dir = NULL;
	f->order = NULL;
	return built;
}

/* Mutant f's verdict, once its build ended. */
static void mutant_judge(struct mrun *mr, struct inflight *f, bool built)
{
	struct mutant *m = &mr->ms.m[f->idx];
	struct outcome *o = &mr->out[f->idx];
	char *why;

	if (!f->nj) {
		o->status = "not reached";
		o->detail = xasprintf("no passing topology executed %s()%s",
				      m->func, hits_of(&mr->base.res[0], m->func) < 0 ?
				      " (inlined) nor any function of its file" : "");
	} else if (!built) {
		o->status = stop_requested ? "interrupted" : "not built";
		o->detail = first_error(f->kdir, mr->c->results, m->id);
	} else {
		judge(mr, m, f->dir, f->order, f->nj, o);
	}
	why = equivalent_why(mr->equivalent, m->id);
	if (why && !strcmp(o->status, "survived")) {
		o->status = "equivalent";
		o->detail = why;
	}
}

/* Its folders gone, its time (from its build's start) and verdict. */
static void mutant_done(struct mrun *mr, struct inflight *f)
{
	struct mutant *m = &mr->ms.m[f->idx];
	struct outcome *o = &mr->out[f->idx];

	mutant_drop(mr, f);
	if (!o->status)
		o->status = "interrupted";
	o->seconds = now_s() - f->t0;
	printf("mutate: %s %s%s%s (%.0fs)\n", m->id, o->status,
	       o->detail ? ": " : "", o->detail ? o->detail : "", o->seconds);
}

/*
 * Every mutant, one after another; with --jobs 3 or more, the next one's
 * kernel builds while this one's guests run (one build and one mutant's
 * guests at a time).  Not at 2: on two cores the build's make jobs and
 * a TCG guest share them, and overlapping gained nothing (3 mutants: 201
 * s against 204 s one after another).
 */
static void run_mutants(struct mrun *mr, const char *src, char **names,
			int n)
{
	bool ahead = mr->c->o.jobs > 2;
	struct inflight cur = { .idx = -1 }, next = { .idx = -1 };
	bool built;
	int i;

	if (!stop_requested)
		mutant_start(mr, &cur, 0, src, names, n, NULL);
	for (i = 0; i < mr->ms.n && !stop_requested; i++) {
		const char *id = mr->ms.m[i].id;

		built = cur.build && build_wait(cur.build);
		cur.build = 0;
		if (ahead && i + 1 < mr->ms.n && !stop_requested)
			mutant_start(mr, &next, i + 1, src, names, n, id);
		if (ahead)
			printf("mutate: [%d/%d, %.0fs] judging %s\n", i + 1,
			       mr->ms.n, now_s() - mr->t0, id);
		mutant_judge(mr, &cur, built);
		mutant_done(mr, &cur);
		if (!ahead && i + 1 < mr->ms.n && !stop_requested)
			mutant_start(mr, &next, i + 1, src, names, n, NULL);
		cur = next;
		next = (struct inflight){ .idx = -1 };
	}
	/* Stopped: a mutant started and not judged is interrupted. */
	if (cur.idx >= 0)
		mutant_done(mr, &cur);
}

/* --mutate-only ID,...: those mutants, each of them one of the series'. */
static void only(struct mrun *mr)
{
	char *copy = xstrdup(mr->c->o.mutate_only), *tok, *save;
	bool *keep = xcalloc(mr->ms.n + 1, sizeof(bool));
	int i, n = 0;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < mr->ms.n && strcmp(mr->ms.m[i].id, tok); i++)
			;
		if (i == mr->ms.n)
			die("--mutate-only: %s is not a mutant of series %s on %s (it has %d)",
			    tok, mr->name, mr->c->ksrc.version, mr->ms.n);
		keep[i] = true;
	}
	for (i = 0; i < mr->ms.n; i++) {
		if (keep[i]) {
			mr->ms.m[n++] = mr->ms.m[i];
			continue;
		}
		free(mr->ms.m[i].old);
		free(mr->ms.m[i].new);
	}
	mr->ms.n = n;
	free(keep);
	free(copy);
}

/* Every mutant of the series' patches, in the patched tree src. */
static void generate(struct mrun *mr, const char *src, char ***names,
		     int *n)
{
	struct strbuf kd = { 0 };
	char err[512];
	int i;

	if (series_read(mr->series, mr->c->ksrc.series, -1, names, n, &kd,
			err, sizeof(err)))
		die("%s", err);
	sb_free(&kd);
	for (i = 0; i < *n; i++) {
		char *pp = xasprintf("%s/%s", mr->series, (*names)[i]);
		char *text = read_file(pp, NULL);

		if (!text)
			die("%s: cannot read", pp);
		mutants_from_patch(&mr->ms, text, src);
		free(text);
		free(pp);
	}
	mr->total = mr->ms.n;
	if (mr->c->o.mutate_only)
		only(mr);
	else
		mutants_sample(&mr->ms, mr->c->o.mutate_max, mr->c->o.seed);
}

/* The text symbols of out/FILE.o that System.map has (not inlined). */
static void file_syms(struct file_syms *fs, const char *src, const char *map)
{
	char *obj = xasprintf("%s/out/%.*s.o", src,
			      (int)strlen(fs->file) - 2, fs->file);
	char *argv[] = { "nm", "--defined-only", obj, NULL }, *out = NULL;
	char *line, *save, addr[32], type[4], name[128];

	if (!run_capture(argv, NULL, &out) && out)
		for (line = strtok_r(out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *key;

			if (sscanf(line, "%31s %3s %127s", addr, type, name) != 3 ||
			    (strcmp(type, "t") && strcmp(type, "T")))
				continue;
			key = xasprintf(" %s\n", name);
			if (map && strstr(map, key)) {
				fs->name = xrealloc(fs->name,
						    (fs->n + 1) * sizeof(char *));
				fs->name[fs->n++] = xstrdup(name);
			}
			free(key);
		}
	free(out);
	free(obj);
}

/*
 * Every function of each mutated file is counted in the baseline too, so
 * a mutant of an inlined function is judged where its file's code ran.
 */
static void count_files(struct mrun *mr, const char *src)
{
	char *mp = xasprintf("%s/out/System.map", src);
	char *map = read_file(mp, NULL);
	struct run_opts *ro = &mr->c->ro;
	struct file_syms *f;
	int i, j, k;

	for (i = 0; i < mr->ms.n; i++) {
		for (j = 0; j < mr->nfiles &&
		     strcmp(mr->files[j].file, mr->ms.m[i].file); j++)
			;
		if (j < mr->nfiles)
			continue;
		mr->files = xrealloc(mr->files, (j + 1) * sizeof(*f));
		f = &mr->files[mr->nfiles++];
		memset(f, 0, sizeof(*f));
		f->file = mr->ms.m[i].file;
		file_syms(f, src, map);
		ro->extra = xrealloc(ro->extra,
				     (ro->nextra + f->n) * sizeof(char *));
		for (k = 0; k < f->n; k++)
			ro->extra[ro->nextra++] = f->name[k];
	}
	free(map);
	free(mp);
}

/* The baseline: the series as it is; who can judge a mutant. */
static bool baseline(struct mrun *mr)
{
	int i, n = 0;

	printf("mutate: baseline: series %s as it is, on %d topologies\n",
	       mr->name, mr->c->n);
	if (!run_series(mr->c, mr->series, -1, mr->name, &mr->base))
		return false;
	mr->judges = xcalloc(mr->base.ntopo, sizeof(bool));
	for (i = 0; i < mr->base.ntopo; i++) {
		mr->judges[i] = !strcmp(mr->base.res[i].verdict, "PASS");
		n += mr->judges[i];
		if (!mr->judges[i])
			printf("mutate: %s is %s on the series itself: it judges no mutant\n",
			       mr->base.res[i].name, mr->base.res[i].verdict);
	}
	if (!n)
		die("--mutate: no topology passes with series %s itself; nothing can judge a mutant",
		    mr->name);
	return true;
}

struct tally {
	char key[128];
	int killed, timeout, survived, equivalent, unbuilt, unreached, error;
};

static void count(struct tally *t, const char *status)
{
	if (!strcmp(status, "killed"))
		t->killed++;
	else if (!strcmp(status, "timeout"))
		t->timeout++;
	else if (!strcmp(status, "survived"))
		t->survived++;
	else if (!strcmp(status, "equivalent"))
		t->equivalent++;
	else if (!strcmp(status, "not built"))
		t->unbuilt++;
	else if (!strcmp(status, "not reached"))
		t->unreached++;
	else if (!strcmp(status, "error"))
		t->error++;
}

/* Per function (by_file false) or per file: one tally each. */
static struct tally *tallies(struct mrun *mr, bool by_file, int *nt)
{
	struct tally *t = NULL;
	int i, j;

	*nt = 0;
	for (i = 0; i < mr->ms.n; i++) {
		const struct mutant *m = &mr->ms.m[i];
		char key[128];

		snprintf(key, sizeof(key), "%s", by_file ? m->file : m->func);
		for (j = 0; j < *nt && strcmp(t[j].key, key); j++)
			;
		if (j == *nt) {
			t = xrealloc(t, (*nt + 1) * sizeof(*t));
			memset(&t[j], 0, sizeof(*t));
			snprintf(t[j].key, sizeof(t[j].key), "%s", key);
			(*nt)++;
		}
		count(&t[j], mr->out[i].status ? mr->out[i].status : "");
	}
	return t;
}

static void print_tallies(struct mrun *mr, bool by_file)
{
	int nt, i;
	struct tally *t = tallies(mr, by_file, &nt);

	printf("\n  %-34s %6s %7s %8s %5s %5s %7s %9s\n",
	       by_file ? "file" : "function", "killed", "timeout", "survived",
	       "equiv", "built", "reached", "score");
	for (i = 0; i < nt; i++) {
		int judged = t[i].killed + t[i].timeout + t[i].survived;

		printf("  %-34s %6d %7d %8d %5d %5s %7s ", t[i].key,
		       t[i].killed, t[i].timeout, t[i].survived, t[i].equivalent,
		       t[i].unbuilt ? xasprintf("-%d", t[i].unbuilt) : "",
		       t[i].unreached ? xasprintf("-%d", t[i].unreached) : "");
		if (judged)
			printf("%3d%% of %d\n", 100 * t[i].killed / judged,
			       judged);
		else
			printf("%9s\n", "-");
	}
	free(t);
}

static void print_report(struct mrun *mr, struct tally *all)
{
	int i, judged;

	printf("\nmutants of %s: %d made, %d run (%s, seed %llu)\n",
	       mr->name, mr->total, mr->ms.n,
	       mr->c->o.mutate_only ? "--mutate-only" :
	       mr->c->o.mutate_max ? "--mutate-max, a seeded choice" : "all",
	       mr->c->o.seed);
	for (i = 0; i < mr->ms.n; i++) {
		const struct mutant *m = &mr->ms.m[i];
		const struct outcome *o = &mr->out[i];

		if (!o->status)
			continue;
		printf("  %s %-11s %-5s %s:%d %s()%s%s\n", m->id, o->status,
		       m->op, m->file, m->line, m->func, o->detail ? ": " : "",
		       o->detail ? o->detail : "");
		count(all, o->status);
	}
	for (i = 0; i < mr->ms.n; i++) {
		const struct mutant *m = &mr->ms.m[i];
		const struct outcome *o = &mr->out[i];

		if (!o->status || strcmp(o->status, "survived"))
			continue;
		printf("\nsurvived %s: %s() ran on %s and no test saw it wrong\n"
		       "--- a/%s\n+++ b/%s\n@@ %d @@\n-%s\n+%s\n", m->id, m->func,
		       o->ran, m->file, m->file, m->line, m->old, m->new);
	}
	print_tallies(mr, false);
	print_tallies(mr, true);
	judged = all->killed + all->timeout + all->survived;
	printf("\nmutation score: %d of %d judged mutants killed by a failing test (%d%%); %d timed out, %d survived, %d equivalent, %d not built, %d not reached, %d harness errors\n",
	       all->killed, judged, judged ? 100 * all->killed / judged : 0,
	       all->timeout, all->survived, all->equivalent, all->unbuilt,
	       all->unreached, all->error);
}

static json_object *jstr(const char *s)
{
	return json_object_new_string(s ? s : "");
}

static int write_json(struct mrun *mr, const char *path)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	const char *text;
	int i, rc;

	json_object_object_add(o, "series", jstr(mr->name));
	json_object_object_add(o, "kernel", jstr(mr->c->ksrc.version));
	json_object_object_add(o, "kernel_key", jstr(mr->base.kernel_key));
	json_object_object_add(o, "seed", json_object_new_uint64(mr->c->o.seed));
	json_object_object_add(o, "mutants_made", json_object_new_int(mr->total));
	for (i = 0; i < mr->ms.n; i++) {
		const struct mutant *m = &mr->ms.m[i];
		const struct outcome *r = &mr->out[i];
		json_object *e = json_object_new_object();

		json_object_object_add(e, "id", jstr(m->id));
		json_object_object_add(e, "operator", jstr(m->op));
		json_object_object_add(e, "file", jstr(m->file));
		json_object_object_add(e, "line", json_object_new_int(m->line));
		json_object_object_add(e, "function", jstr(m->func));
		json_object_object_add(e, "old", jstr(m->old));
		json_object_object_add(e, "new", jstr(m->new));
		json_object_object_add(e, "status",
				       jstr(r->status ? r->status : "not run"));
		json_object_object_add(e, "detail", jstr(r->detail));
		json_object_object_add(e, "topologies_run", jstr(r->ran));
		json_object_object_add(e, "seconds",
				       json_object_new_double(r->seconds));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "mutants", a);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
	rc = write_file_atomic(path, text, strlen(text));
	json_object_put(o);
	return rc;
}

static void junit_case(xmlTextWriterPtr w, const struct mutant *m,
		       const struct outcome *r)
{
	const char *st = r->status ? r->status : "not run";
	char *name = xasprintf("%s %s %s:%d", m->id, m->op, m->func, m->line);
	char *body = xasprintf("--- a/%s\n+++ b/%s\n-%s\n+%s\n%s\n", m->file,
			       m->file, m->old, m->new,
			       r->detail ? r->detail : "");
	char *cls = xasprintf("mutate.%s", m->file);
	const char *el = !strcmp(st, "survived") ? "failure" :
			 !strcmp(st, "timeout") || !strcmp(st, "error") ?
			 "error" :
			 !strcmp(st, "killed") ? NULL : "skipped";

	xmlTextWriterStartElement(w, BAD_CAST "testcase");
	xmlTextWriterWriteAttribute(w, BAD_CAST "classname", BAD_CAST cls);
	xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST name);
	xmlTextWriterWriteFormatAttribute(w, BAD_CAST "time", "%.3f",
					  r->seconds);
	if (el) {
		xmlTextWriterStartElement(w, BAD_CAST el);
		xmlTextWriterWriteAttribute(w, BAD_CAST "message", BAD_CAST st);
		xmlTextWriterWriteString(w, BAD_CAST body);
		xmlTextWriterEndElement(w);
	} else {
		xmlTextWriterWriteElement(w, BAD_CAST "system-out",
					  BAD_CAST body);
	}
	xmlTextWriterEndElement(w);
	free(name);
	free(body);
	free(cls);
}

static int write_junit(struct mrun *mr, const char *path)
{
	char *tmp;
	xmlTextWriterPtr w = junit_open(path, &tmp);
	int i;

	if (!w)
		return -1;
	xmlTextWriterStartElement(w, BAD_CAST "testsuite");
	xmlTextWriterWriteFormatAttribute(w, BAD_CAST "name", "mutate.%s",
					  mr->name);
	xmlTextWriterWriteFormatAttribute(w, BAD_CAST "tests", "%d", mr->ms.n);
	for (i = 0; i < mr->ms.n; i++)
		junit_case(w, &mr->ms.m[i], &mr->out[i]);
	xmlTextWriterEndElement(w);
	return junit_close(w, tmp, path);
}

static void write_reports_m(struct mrun *mr)
{
	const struct options *o = &mr->c->o;
	char *j = xasprintf("%s/mutate.json", mr->c->results);
	char *x = xasprintf("%s/mutate.xml", mr->c->results);

	if (mkdir_p(mr->c->results) || write_json(mr, j) || write_junit(mr, x))
		warnx_("cannot write the reports in %s", mr->c->results);
	if (o->json && write_json(mr, o->json))
		die("cannot write %s: %s", o->json, strerror(errno));
	if (o->junit && write_junit(mr, o->junit))
		die("cannot write %s: %s", o->junit, strerror(errno));
	printf("mutate: reports in %s (mutate.json, mutate.xml)\n",
	       mr->c->results);
	free(j);
	free(x);
}

int mutate_main(struct ctx *c)
{
	struct mrun mr = { .c = c, .t0 = now_s() };
	struct tally all = { 0 };
	struct kernel k;
	char **names, *src, *eq;
	int n, i, ns;

	mr.series = series_list(&c->o, &ns)[0];
	mr.name = base_name(mr.series);
	c->ko.series = mr.series;
	c->ko.prefix = -1;
	kbuild(&c->ko, &k);
	mr.key = k.key;
	src = xasprintf("%s/src", k.dir);
	generate(&mr, src, &names, &n);
	eq = xasprintf("%s/mutants.equivalent", mr.series);
	mr.equivalent = read_file(eq, NULL);
	free(eq);
	printf("mutate: %d mutants of the lines series %s adds; running %d (seed %llu)\n",
	       mr.total, mr.name, mr.ms.n, c->o.seed);
	if (c->o.list) {
		for (i = 0; i < mr.ms.n; i++)
			printf("%s %-5s %s:%d %s()\n  -%s\n  +%s\n",
			       mr.ms.m[i].id, mr.ms.m[i].op, mr.ms.m[i].file,
			       mr.ms.m[i].line, mr.ms.m[i].func, mr.ms.m[i].old,
			       mr.ms.m[i].new);
		return 0;
	}
	if (!mr.ms.n) {
		printf("mutate: the series adds no line a mutant can change (in a function of a .c file)\n0 passed, 0 failed\n");
		return 0;
	}
	count_files(&mr, src);
	if (!baseline(&mr)) {
		printf("runner: interrupted during the baseline\n0 passed, 1 failed\n");
		return 1;
	}
	c->ro.nextra = 0;	/* a mutant's run counts only the series' */
	mr.out = xcalloc(mr.ms.n + 1, sizeof(*mr.out));
	run_mutants(&mr, src, names, n);
	print_report(&mr, &all);
	write_reports_m(&mr);
	if (stop_requested)
		printf("runner: interrupted: this report is incomplete\n");
	printf("%d passed, %d failed\n", all.killed + all.timeout,
	       all.survived + all.error + (stop_requested ? 1 : 0));
	return all.survived || all.error || stop_requested ? 1 : 0;
}
