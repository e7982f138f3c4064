// SPDX-License-Identifier: GPL-2.0
/*
 * --explore SEED and --replay TRACE: the guest's walker
 * (guest-tests/tests/explore.c) in place of a topology's tests, its trace
 * kept in the results, and a failing walk shrunk to the shortest trace
 * that still fails, by running the guest again on smaller traces.
 *
 * A trace file:
 *   # stacktest explore trace: runner --replay FILE runs it again
 *   topology raid10
 *   kernel 6.1.158
 *   seed 7
 *   failed-step 12            (or "passed")
 *   step 1 W 0 8192 d 2 ; R 4096 65536 b ; + md fail md0 vdb
 *   ...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "util.h"

#define TRACE_HEAD "# stacktest explore trace: runner --replay FILE runs it again\n"

struct trace {
	char *topology, *kernel;
	unsigned long long seed;
	int nsteps;
	char **steps;		/* "step N ..." without the newline */
	int *lines;		/* each step's line in its file */
};

static void trace_free(struct trace *t)
{
	int i;

	for (i = 0; i < t->nsteps; i++)
		free(t->steps[i]);
	free(t->steps);
	free(t->lines);
	free(t->topology);
	free(t->kernel);
	memset(t, 0, sizeof(*t));
}

static void trace_add(struct trace *t, const char *step, int line)
{
	t->steps = xrealloc(t->steps, (t->nsteps + 1) * sizeof(char *));
	t->lines = xrealloc(t->lines, (t->nsteps + 1) * sizeof(int));
	t->lines[t->nsteps] = line;
	t->steps[t->nsteps++] = xstrdup(step);
}

/* The steps as the guest reads them (/etc/explore.trace), renumbered. */
static char *trace_steps(const struct trace *t)
{
	struct strbuf sb = { 0 };
	int i;

	for (i = 0; i < t->nsteps; i++) {
		const char *rest = strchr(t->steps[i] + 5, ' ');

		sb_printf(&sb, "step %d%s\n", i + 1, rest ? rest : "");
	}
	return sb.buf ? sb.buf : xstrdup("");
}

static int trace_save(const struct trace *t, int failed, const char *path)
{
	struct strbuf sb = { 0 };
	char *steps = trace_steps(t);
	int r;

	sb_printf(&sb, TRACE_HEAD "topology %s\nkernel %s\nseed %llu\n",
		  t->topology, t->kernel, t->seed);
	if (failed)
		sb_printf(&sb, "failed-step %d\n", failed);
	else
		sb_printf(&sb, "passed\n");
	sb_printf(&sb, "%s", steps);
	r = write_file_atomic(path, sb.buf, sb.len);
	sb_free(&sb);
	free(steps);
	return r;
}

/* A layer operation of a step ("+ md fail md0 vdb") that the stack has. */
static void check_op(const char *path, int line, const char *tok,
		     const struct topology *topo)
{
	char kind[24], op[24];
	const struct layer_kind *k;
	int i;

	if (sscanf(tok, "+ %23s %23s", kind, op) != 2)
		die("%s:%d: '%s': want '+ KIND OPERATION ARGS'", path, line, tok);
	for (i = 0; i < topo->nlayers; i++)
		if (!strcmp(topo->layers[i].kind, kind))
			break;
	if (i == topo->nlayers)
		die("%s:%d: layer kind '%s' is not in topology %s", path, line,
		    kind, topo->name);
	k = layer_kind(kind);
	for (i = 0; k && i < LAYER_MAX_OPS && k->ops[i].name; i++)
		if (!strcmp(k->ops[i].name, op))
			return;
	die("%s:%d: %s has no operation '%s' (see --layers)", path, line, kind,
	    op);
}

/* One I/O operation of a step, as the guest's walker parses it. */
static bool io_ok(const char *tok)
{
	long long off, len;
	char mode = 'd', junk;
	int id, n;

	if (*tok == 'W')
		n = sscanf(tok, "W %lld %lld %c %d%c", &off, &len, &mode, &id,
			   &junk) == 4;
	else if (*tok == 'R')
		n = sscanf(tok, "R %lld %lld %c%c", &off, &len, &mode,
			   &junk) == 3;
	else if (*tok == 'D' || *tok == 'Z')
		n = sscanf(tok + 1, " %lld %lld%c", &off, &len, &junk) == 2;
	else
		n = 0;
	return n && off >= 0 && len > 0 && !(off % 4096) && !(len % 4096) &&
	       (mode == 'd' || mode == 'b');
}

/*
 * Each step: "step N" then I/O ("W off len d|b id", "R off len d|b", "S",
 * "D off len", "Z off len") and layer operations, ';'-separated.
 */
static void check_step(const char *path, int line, const char *text,
		       const struct topology *topo)
{
	char *copy = xstrdup(text), *save = NULL, *tok;
	int n;
	char junk;

	if (sscanf(copy, "step %d%c", &n, &junk) < 1)
		die("%s:%d: want 'step N ...'", path, line);
	tok = strchr(copy + 5, ' ');
	for (tok = tok ? strtok_r(tok + 1, ";", &save) : NULL; tok;
	     tok = strtok_r(NULL, ";", &save)) {
		while (*tok == ' ')
			tok++;
		trim_end(tok);
		if (*tok == '+')
			check_op(path, line, tok, topo);
		else if (!strcmp(tok, "S"))
			continue;
		else if (!io_ok(tok))
			die("%s:%d: unknown or malformed operation '%s' (offsets and lengths are 4 KiB multiples, modes d or b)",
			    path, line, tok);
	}
	free(copy);
}

static void trace_load(const char *path, struct trace *t)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, word[64], junk;
	size_t cap = 0;
	int ln = 0, seed = 0;

	if (!f)
		die("--replay %s: %s", path, strerror(errno));
	memset(t, 0, sizeof(*t));
	while (getline(&line, &cap, f) > 0) {
		ln++;
		line[strcspn(line, "\r\n")] = 0;
		if (*line == '#' || !*line || !strcmp(line, "passed") ||
		    !strncmp(line, "failed-step ", 12))
			continue;
		if (sscanf(line, "topology %63s", word) == 1)
			t->topology = xstrdup(word);
		else if (sscanf(line, "kernel %63s", word) == 1)
			t->kernel = xstrdup(word);
		else if (!strncmp(line, "seed ", 5)) {
			if (sscanf(line, "seed %llu%c", &t->seed, &junk) != 1)
				die("%s:%d: seed '%s' is not a number", path,
				    ln, line + 5);
			seed = 1;
		} else if (!strncmp(line, "step ", 5))
			trace_add(t, line, ln);
		else
			die("%s:%d: not a trace line: '%s'", path, ln, line);
	}
	free(line);
	fclose(f);
	if (!t->topology || !t->kernel || !seed || !t->nsteps)
		die("%s: not an explore trace (it wants topology, kernel, seed and steps)",
		    path);
}

/*
 * Before anything is built: --replay names its topology; a walk needs
 * one guest and something to write on.
 */
void explore_options(struct options *o)
{
	struct trace t;

	if (!o->replay)
		return;
	if (o->all)
		die("--replay %s runs the trace's own topology: not with --all",
		    o->replay);
	trace_load(o->replay, &t);
	if (o->topologies && strcmp(o->topologies, t.topology))
		die("%s was recorded on topology %s, not %s", o->replay,
		    t.topology, o->topologies);
	o->topologies = t.topology;
	t.topology = NULL;
	o->explore_seed = t.seed;
	trace_free(&t);
}

static bool walkable(const struct topology *t, char *why, size_t len)
{
	const struct layer_kind *top;
	int i;

	if (t->nodes > 1) {
		snprintf(why, len, "it has two nodes (a walk drives one guest)");
		return false;
	}
	for (i = 0; i < t->nlayers; i++)
		if (layer_kind(t->layers[i].kind)->fs)
			return true;
	top = t->nlayers ? layer_kind(t->layers[t->nlayers - 1].kind) : NULL;
	if (top && !strcmp(top->name, "swapdev")) {
		snprintf(why, len, "its top is swap, with no filesystem or device for data");
		return false;
	}
	return true;
}

/* "6.1.192" -> "6.1": a trace replays on any release of its series. */
static const char *kernel_series(const char *release)
{
	static char buf[2][32];
	static int k;
	const char *dot = strchr(release, '.');
	size_t n = dot ? strcspn(dot + 1, ".-") + (dot + 1 - release) :
		   strlen(release);

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%.*s", (int)n, release);
	return buf[k];
}

/*
 * The topologies' tests become the walk, with its seed, its budget and
 * a timeout that holds it; a replayed trace is checked against the
 * topology's layers and the kernel it was recorded on.
 */
void explore_prepare(struct ctx *c)
{
	char why[160];
	int i;

	if (!c->o.explore && !c->o.replay)
		return;
	if (c->o.replay) {
		struct trace t;

		trace_load(c->o.replay, &t);
		if (strcmp(kernel_series(t.kernel), kernel_series(c->ksrc.release)))
			die("%s was recorded on kernel %s; this one is %s (--kernel)",
			    c->o.replay, t.kernel, c->ksrc.release);
		for (i = 0; i < t.nsteps; i++)
			check_step(c->o.replay, t.lines[i], t.steps[i],
				   &c->topo[0]);
		c->ro.explore_trace = trace_steps(&t);
		c->o.explore_steps = t.nsteps;	/* for the timeout */
		trace_free(&t);
	}
	for (i = 0; i < c->n; i++) {
		struct topology *t = &c->topo[i];

		if (!walkable(t, why, sizeof(why)) && !c->o.all)
			die("topology %s cannot be walked: %s", t->name, why);
		/* --all walks what can be walked and says what it leaves. */
		if (!walkable(t, why, sizeof(why))) {
			printf("runner: not walking %s: %s\n", t->name, why);
			memmove(t, t + 1, (c->n - i - 1) * sizeof(*t));
			c->n--;
			i--;
			continue;
		}
		if (t->noptions + 4 > TOPO_MAX_OPTIONS)
			die("topology %s: too many options for a walk", t->name);
		t->ntests = 1;
		t->tests[0] = "explore";
		t->nknown = 0;
		t->options[t->noptions++] = xasprintf("explore-seed=%llu",
						      c->o.explore_seed);
		t->options[t->noptions++] = xasprintf("explore-steps=%d",
						      c->o.explore_steps);
		if (c->o.explore_time)
			t->options[t->noptions++] =
				xasprintf("explore-time=%d", c->o.explore_time);
		if (c->o.guided)
			t->options[t->noptions++] = xstrdup("explore-guided=1");
		/* Boot and build, the walk's budget, the settle and the checks. */
		t->timeout += c->o.explore_time ? c->o.explore_time :
			      c->o.explore_steps * 5;
	}
	if (!c->n)
		die("none of the topologies chosen can be walked");
}

/* The walk's steps and its failing step, from a guest's ktap.log. */
static int read_walk(const char *dir, struct trace *t)
{
	char *path = xasprintf("%s/ktap.log", dir);
	char *data = read_file(path, NULL), *save = NULL, *line;
	int failed = 0;

	free(path);
	for (line = data ? strtok_r(data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *step = strstr(line, "# trace step ");
		const char *fail = strstr(line, "# explore-failed-step ");

		if (step)
			trace_add(t, step + 8, 0);
		else if (fail)
			failed = atoi(fail + 22);
	}
	free(data);
	return failed;
}

static bool failed(const struct topo_result *r)
{
	return strcmp(r->verdict, "PASS") && strcmp(r->verdict, "SKIP");
}

/*
 * The walk itself failed (a read, a layer operation, the settle, the
 * final scan or fsck): its result is there and FAIL, and the guest
 * neither timed out nor panicked, which a shrinker must not take for
 * the bug it shrinks.
 */
static bool walk_failed(const struct topo_result *r)
{
	int i;

	if (!strcmp(r->verdict, "TIMEOUT") || !strcmp(r->verdict, "CRASH"))
		return false;
	for (i = 0; i < r->ntests; i++)
		if (!strcmp(r->tests[i].name, "explore"))
			return r->tests[i].result == KTAP_FAIL;
	return false;
}

/* Run trace t on topology; whether it failed, and its failing step. */
static bool try_trace(struct ctx *c, const struct kernel *k,
		      const struct topology *topo, const struct trace *t,
		      int n, int *step)
{
	struct run_opts ro = c->ro;
	struct topo_result r;
	struct trace got = { 0 };
	bool bad;

	ro.results = xasprintf("%s/shrink/%d", c->ro.results, n);
	ro.explore_trace = trace_steps(t);
	printf("[%s] shrink run %d: %d steps\n", topo->name, n, t->nsteps);
	run_topology(topo, k, &ro, &r);
	*step = read_walk(ro.results, &got);
	if (!*step)
		*step = got.nsteps;
	bad = walk_failed(&r);
	trace_free(&got);
	free((char *)ro.explore_trace);
	return bad;
}

/* t without steps [from, from + n). */
static void trace_without(const struct trace *t, int from, int n,
			  struct trace *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	out->topology = xstrdup(t->topology);
	out->kernel = xstrdup(t->kernel);
	out->seed = t->seed;
	for (i = 0; i < t->nsteps; i++)
		if (i < from || i >= from + n)
			trace_add(out, t->steps[i], 0);
}

/*
 * Delta debugging over the steps: drop a chunk, run the guest again,
 * keep the smaller trace if it still fails (cut after the step it fails
 * at); halve the chunks when none can go.  At most max runs.
 */
static int shrink(struct ctx *c, const struct kernel *k,
		  const struct topology *topo, struct trace *t, int *fstep,
		  int max)
{
	int chunk = t->nsteps / 2, runs = 0, from, step;
	double t0 = now_s();

	while (chunk >= 1 && runs < max && !stop_requested) {
		bool cut = false;

		for (from = 0; from < t->nsteps && runs < max; from += chunk) {
			struct trace cand;

			trace_without(t, from, chunk, &cand);
			if (!cand.nsteps) {
				trace_free(&cand);
				continue;
			}
			if (try_trace(c, k, topo, &cand, ++runs, &step)) {
				while (step > 0 && cand.nsteps > step)
					free(cand.steps[--cand.nsteps]);
				trace_free(t);
				*t = cand;
				*fstep = step;
				cut = true;
				from -= chunk;
			} else {
				trace_free(&cand);
			}
		}
		if (!cut)
			chunk /= 2;
	}
	printf("[%s] shrunk to %d steps in %d runs, %.0f s\n", topo->name,
	       t->nsteps, runs, now_s() - t0);
	return runs;
}

/*
 * After a walk: its trace into the results (explore.trace); a failing
 * one shrunk into explore-shrunk.trace.
 */
void explore_after(struct ctx *c, const struct kernel *k,
		   const struct topology *topo, const struct topo_result *r)
{
	struct trace t = { 0 };
	char *path;
	int step;

	if (!c->o.explore && !c->o.replay)
		return;
	t.topology = xstrdup(topo->name);
	t.kernel = xstrdup(c->ksrc.release);
	t.seed = c->o.explore_seed;
	step = read_walk(c->ro.results, &t);
	path = xasprintf("%s/explore.trace", c->ro.results);
	if (trace_save(&t, failed(r) ? (step ? step : t.nsteps) : 0, path))
		die("cannot write %s: %s", path, strerror(errno));
	printf("[%s] walk of %d steps %s; trace in %s\n", topo->name, t.nsteps,
	       failed(r) ? "FAILED" : "passed", path);
	free(path);
	if (failed(r) && !walk_failed(r))
		printf("[%s] not shrunk: the guest failed (%s), not the walk\n",
		       topo->name, r->verdict);
	if (walk_failed(r) && t.nsteps && c->o.shrink_runs > 0 &&
	    !stop_requested) {
		while (step && t.nsteps > step)
			free(t.steps[--t.nsteps]);
		if (!step)
			step = t.nsteps;
		shrink(c, k, topo, &t, &step, c->o.shrink_runs);
		path = xasprintf("%s/explore-shrunk.trace", c->ro.results);
		if (trace_save(&t, step, path))
			die("cannot write %s: %s", path, strerror(errno));
		printf("[%s] shrunk trace: %s (runner --replay %s)\n",
		       topo->name, path, path);
		free(path);
	}
	trace_free(&t);
}
