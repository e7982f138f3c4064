// SPDX-License-Identifier: GPL-2.0
/*
 * Series coverage: which functions a patch series changed.  Kernel style
 * makes a function definition easy to see: its signature starts in column
 * 0 and its body opens with '{' in column 0 and closes with '}' there.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"

bool cov_uncounted(const struct cov_fn *f)
{
	return f->removed || f->untraceable || (f->unreachable && !f->hits);
}

int cov_executed(const struct cov *c, int *counted)
{
	int i, run = 0;

	*counted = 0;
	for (i = 0; i < c->n; i++) {
		if (cov_uncounted(&c->fn[i]))
			continue;
		++*counted;
		run += c->fn[i].hits > 0;
	}
	return run;
}

struct cov_fn *cov_find(struct cov *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->fn[i].name, name))
			return &c->fn[i];
	return NULL;
}

static void cov_add(struct cov *c, const char *name, const char *file,
		    bool removed)
{
	struct cov_fn *f;

	if (!*name)
		return;
	f = cov_find(c, name);
	if (f) {
		/* Patches come in series order: the last word stands. */
		f->removed = removed;
		return;
	}
	c->fn = xrealloc(c->fn, (c->n + 1) * sizeof(*f));
	f = &c->fn[c->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->file, sizeof(f->file), "%s", file);
	f->removed = removed;
}

void cov_free(struct cov *c)
{
	free(c->fn);
	c->fn = NULL;
	c->n = 0;
}

/* The identifier just before the first '(' of a signature. */
static void sig_name(const char *sig, char *name, size_t len)
{
	const char *p = strchr(sig, '('), *e;

	name[0] = 0;
	if (!p)
		return;
	while (p > sig && isspace((unsigned char)p[-1]))
		p--;
	e = p;
	while (p > sig && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
		p--;
	if (e > p && (size_t)(e - p) < len) {
		memcpy(name, p, e - p);
		name[e - p] = 0;
	}
}

/* A column-0 line that begins a function signature (not a declaration). */
static bool sig_start(const char *l)
{
	const char *paren = strchr(l, '('), *eq = strchr(l, '=');
	size_t n = strlen(l);

	if (!isalpha((unsigned char)l[0]) && l[0] != '_')
		return false;
	return paren && (!eq || eq > paren) && l[n - 1] != ';';
}

void enclosing_function(char **lines, int nlines, int ln, char *name,
			size_t len)
{
	struct strbuf sig = { 0 };
	int i, open = -1, s;

	name[0] = 0;
	for (i = ln - 1; i >= 0 && i < nlines; i--) {
		if (lines[i][0] == '}' && i != ln - 1)
			return;		/* between functions */
		if (lines[i][0] == '{') {
			open = i;
			break;
		}
	}
	if (open < 1)
		return;
	/* The signature: column-0 start, indented continuation lines. */
	for (s = open - 1; s > 0 && lines[s][0] && isspace((unsigned char)lines[s][0]); s--)
		;
	if (!sig_start(lines[s]))
		return;
	for (i = s; i < open; i++)
		sb_printf(&sig, "%s ", lines[i]);
	sig_name(sig.buf, name, len);
	sb_free(&sig);
}

static char **split_lines(char *text, int *n)
{
	char **v = NULL, *p = text, *nl;

	*n = 0;
	while (p && *p) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		v = xrealloc(v, (*n + 1) * sizeof(char *));
		v[(*n)++] = p;
		p = nl ? nl + 1 : NULL;
	}
	return v;
}

/* What a walk over a patch does: map functions, or report added lines. */
struct patch_walk {
	struct cov *cov;
	added_line_fn added;
	void *arg;
};

struct hunk {
	char file[128];
	char context[160];	/* text after the second "@@" */
	char **text;		/* new-side lines (context and '+') */
	int *changed;		/* per new-side index: a change at/before it */
	bool *added;		/* per new-side index: a '+' line */
	int n;
	char **removed_sigs;	/* '-' lines that start a definition */
	int nremoved;
};

/* Where the hunk's new-side lines start in the source, -1 if not found. */
static int locate(struct hunk *h, char **src, int nsrc)
{
	int i, j;

	for (i = 0; i + h->n <= nsrc; i++) {
		for (j = 0; j < h->n && !strcmp(src[i + j], h->text[j]); j++)
			;
		if (j == h->n)
			return i;
	}
	return -1;
}

static void hunk_functions(struct cov *c, struct hunk *h, char **src,
			   int nsrc)
{
	int at = src ? locate(h, src, nsrc) : -1, j, k;
	char name[64], last[64] = "";

	/* The hunk's function context, if it is a definition at all. */
	if (sig_start(h->context + strspn(h->context, " ")))
		sig_name(h->context, last, sizeof(last));
	for (j = 0; j < h->n; j++) {
		if (j < h->n && sig_start(h->text[j]))
			sig_name(h->text[j], last, sizeof(last));
		if (!h->changed[j])
			continue;
		if (at >= 0)
			enclosing_function(src, nsrc, at + j + 1, name,
					   sizeof(name));
		else
			snprintf(name, sizeof(name), "%s", last);
		cov_add(c, name, h->file, false);
	}
	for (k = 0; k < h->nremoved; k++) {
		bool found = false;

		sig_name(h->removed_sigs[k], name, sizeof(name));
		for (j = 0; src && j < nsrc && !found; j++)
			if (sig_start(src[j]) && strstr(src[j], name)) {
				char other[64];

				sig_name(src[j], other, sizeof(other));
				found = !strcmp(other, name);
			}
		cov_add(c, name, h->file, !found);
	}
}

/* Where a lone line is in the source: its only occurrence, else -1. */
static int locate_line(const char *l, char **src, int nsrc)
{
	int i, at = -1;

	if (strlen(l + strspn(l, " \t")) < 4)
		return -1;	/* a brace or a blank: not worth a guess */
	for (i = 0; i < nsrc; i++) {
		if (strcmp(src[i], l))
			continue;
		if (at >= 0)
			return -1;
		at = i;
	}
	return at;
}

/*
 * Each '+' line of the hunk found in the source: where the whole hunk is,
 * else where the line alone is (a later patch changed the hunk around it).
 */
static void hunk_added(struct hunk *h, char **src, int nsrc,
		       struct patch_walk *w)
{
	int at = locate(h, src, nsrc), j, ln;
	char name[64], last[64] = "";

	if (sig_start(h->context + strspn(h->context, " ")))
		sig_name(h->context, last, sizeof(last));
	for (j = 0; j < h->n; j++) {
		if (sig_start(h->text[j]))
			sig_name(h->text[j], last, sizeof(last));
		if (!h->added[j])
			continue;
		ln = at >= 0 ? at + j : locate_line(h->text[j], src, nsrc);
		if (ln < 0)
			continue;
		enclosing_function(src, nsrc, ln + 1, name, sizeof(name));
		/* A lone line counts only in the function its hunk was in. */
		if (at < 0 && strcmp(name, last))
			continue;
		w->added(w->arg, h->file, src, nsrc, ln + 1, name);
	}
}

static void hunk_reset(struct hunk *h)
{
	free(h->text);
	free(h->changed);
	free(h->added);
	free(h->removed_sigs);
	h->text = NULL;
	h->changed = NULL;
	h->added = NULL;
	h->removed_sigs = NULL;
	h->n = h->nremoved = 0;
}

static void hunk_line(struct hunk *h, char *l, bool *pending)
{
	if (l[0] == '-') {
		*pending = true;
		if (sig_start(l + 1) && strchr(l + 1, '(')) {
			h->removed_sigs = xrealloc(h->removed_sigs,
				(h->nremoved + 1) * sizeof(char *));
			h->removed_sigs[h->nremoved++] = l + 1;
		}
		return;
	}
	h->text = xrealloc(h->text, (h->n + 1) * sizeof(char *));
	h->changed = xrealloc(h->changed, (h->n + 1) * sizeof(int));
	h->added = xrealloc(h->added, (h->n + 1) * sizeof(bool));
	h->text[h->n] = l + 1;
	h->added[h->n] = l[0] == '+';
	/* A deletion counts at the line that follows it. */
	h->changed[h->n++] = l[0] == '+' || *pending;
	*pending = false;
}

static char **load_source(const char *src, const char *file, int *n,
			  char **buf)
{
	char *path = xasprintf("%s/%s", src, file);

	*buf = src ? read_file(path, NULL) : NULL;
	free(path);
	*n = 0;
	return *buf ? split_lines(*buf, n) : NULL;
}

static void flush(struct patch_walk *w, struct hunk *h, const char *src,
		  bool pending)
{
	char *buf, **lines;
	int n;

	if (pending) {	/* deletion at the hunk's end */
		h->text = xrealloc(h->text, (h->n + 1) * sizeof(char *));
		h->changed = xrealloc(h->changed, (h->n + 1) * sizeof(int));
		h->added = xrealloc(h->added, (h->n + 1) * sizeof(bool));
		h->text[h->n] = "";
		h->added[h->n] = false;
		h->changed[h->n++] = 1;
	}
	if (h->n || h->nremoved) {
		lines = load_source(src, h->file, &n, &buf);
		if (pending && lines)
			h->n--;	/* the sentinel cannot be located */
		if (w->cov)
			hunk_functions(w->cov, h, lines, n);
		else if (lines)
			hunk_added(h, lines, n, w);
		free(lines);
		free(buf);
	}
	hunk_reset(h);
}

static void walk_patch(struct patch_walk *w, const char *patch_text,
		       const char *src)
{
	char *text = xstrdup(patch_text), **lines;
	struct hunk h = { 0 };
	bool in_hunk = false, pending = false, cfile = false;
	int n, i;

	lines = split_lines(text, &n);
	for (i = 0; i < n; i++) {
		char *l = lines[i];

		if (!strncmp(l, "diff ", 5) || !strncmp(l, "--- ", 4) ||
		    !strncmp(l, "@@ ", 3) || !strncmp(l, "+++ ", 4)) {
			if (in_hunk)
				flush(w, &h, src, pending);
			in_hunk = pending = false;
		}
		if (!strncmp(l, "+++ b/", 6)) {
			snprintf(h.file, sizeof(h.file), "%s", l + 6);
			cfile = strlen(h.file) > 2 &&
				(!strcmp(h.file + strlen(h.file) - 2, ".c") ||
				 !strcmp(h.file + strlen(h.file) - 2, ".h"));
		} else if (!strncmp(l, "@@ ", 3) && cfile) {
			char *ctx = strstr(l + 3, "@@");

			snprintf(h.context, sizeof(h.context), "%s",
				 ctx ? ctx + 2 : "");
			in_hunk = true;
		} else if (in_hunk && (l[0] == ' ' || l[0] == '+' ||
				       l[0] == '-' || !l[0])) {
			if (!l[0])
				l = " ";	/* an empty context line */
			hunk_line(&h, l, &pending);
		} else if (in_hunk) {
			flush(w, &h, src, pending);
			in_hunk = pending = false;
		}
	}
	if (in_hunk)
		flush(w, &h, src, pending);
	free(lines);
	free(text);
}

void cov_from_patch(struct cov *c, const char *patch_text, const char *src)
{
	struct patch_walk w = { .cov = c };

	walk_patch(&w, patch_text, src);
}

void patch_added_lines(const char *patch_text, const char *src,
		       added_line_fn fn, void *arg)
{
	struct patch_walk w = { .added = fn, .arg = arg };

	walk_patch(&w, patch_text, src);
}

int cov_from_list(struct cov *c, const char *path, char *err, size_t len)
{
	char *text = read_file(path, NULL), **lines, *why;
	struct cov_fn *f;
	int n, i;

	if (!text) {
		snprintf(err, len, "%s: cannot read", path);
		return -1;
	}
	lines = split_lines(text, &n);
	for (i = 0; i < n; i++) {
		char name[64] = "", file[128] = "", state[16] = "";

		if (lines[i][0] == '#' || !lines[i][0])
			continue;
		if (sscanf(lines[i], "%63s %127s %15s", name, file, state) < 1) {
			snprintf(err, len, "%s:%d: want 'function file [removed]'",
				 path, i + 1);
			free(lines);
			free(text);
			return -1;
		}
		cov_add(c, name, file, !strcmp(state, "removed") ||
				       !strcmp(state, "absent"));
		f = cov_find(c, name);
		f->absent |= !strcmp(state, "absent");
		f->unreachable |= !strcmp(state, "unreachable");
		why = strstr(lines[i], " # ");
		if (why)
			snprintf(f->why, sizeof(f->why), "%s", why + 3);
	}
	free(lines);
	free(text);
	return 0;
}

int cov_write_list(const struct cov *c, const char *path)
{
	struct strbuf sb = { 0 };
	int i, rc;

	sb_printf(&sb, "# function file state # why it may not be traceable\n");
	for (i = 0; i < c->n; i++) {
		const struct cov_fn *f = &c->fn[i];

		sb_printf(&sb, "%s %s %s # %s\n", f->name, f->file,
			  f->absent ? "absent" : f->removed ? "removed" :
			  f->unreachable ? "unreachable" : "-", f->why);
	}
	rc = write_file_atomic(path, sb.buf, sb.len);
	sb_free(&sb);
	return rc;
}

static bool in_system_map(const char *map, const char *name)
{
	size_t n = strlen(name);
	const char *p = map;

	/* Lines are "ADDRESS TYPE NAME". */
	while (p && (p = strstr(p, name))) {
		if (p > map && p[-1] == ' ' && (p[n] == '\n' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

void cov_classify(struct cov *c, const char *src)
{
	char *mp = xasprintf("%s/out/System.map", src);
	char *map = read_file(mp, NULL);
	int i;

	for (i = 0; i < c->n; i++) {
		struct cov_fn *f = &c->fn[i];
		size_t len = strlen(f->file);
		char *obj;

		if (len > 2 && !strcmp(f->file + len - 2, ".h")) {
			snprintf(f->why, sizeof(f->why), "inline in a header");
			continue;
		}
		obj = xasprintf("%s/out/%.*s.o", src, (int)len - 2, f->file);
		if (len > 2 && !path_exists(obj))
			snprintf(f->why, sizeof(f->why), "not built in this config");
		else if (map && !in_system_map(map, f->name))
			snprintf(f->why, sizeof(f->why), "inlined by the compiler");
		else
			snprintf(f->why, sizeof(f->why), "notrace");
		free(obj);
	}
	free(map);
	free(mp);
}
