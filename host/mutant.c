// SPDX-License-Identifier: GPL-2.0
/*
 * Mutants of a series: small wrong versions of the lines it adds.  Each
 * operator works on one line's code (strings, character constants and
 * comments masked out), so a mutant is one line of one file; the
 * compiler decides whether it is C (a swap of two pointers of different
 * types does not build, and is reported so).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "mutant.h"

/*
 * Name prefixes of calls whose lines no test can see wrong: logging,
 * assertions, tracing.
 */
static const char *const quiet_calls[] = {
	"pr_", "printk", "dev_err", "dev_warn", "dev_info", "dev_dbg",
	"dev_notice", "DMERR", "DMWARN", "DMINFO", "DMDEBUG", "DMCRIT",
	"drbd_err", "drbd_warn", "drbd_info", "drbd_dbg", "drbd_alert",
	"drbd_emerg", "WARN", "BUG", "trace_", "lockdep_", "might_sleep",
	"dmz_dev_", NULL
};

/* Calls whose first arguments may be swapped without a change. */
static const char *const symmetric_calls[] = {
	"min", "max", "min_t", "max_t", "min3", "max3", "swap", "kcalloc",
	"kmalloc_array", "kvcalloc", "kvmalloc_array", "array_size",
	"array3_size", NULL
};

static const char *const keywords[] = {
	"if", "while", "for", "switch", "return", "sizeof", "do", "else",
	"case", "goto", "break", "continue", "typeof", "__typeof__", NULL
};

static bool in_list(const char *name, size_t len, const char *const *l,
		    bool prefix)
{
	for (; *l; l++)
		if (prefix ? !strncmp(name, *l, strlen(*l)) :
		    strlen(*l) == len && !strncmp(name, *l, len))
			return true;
	return false;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The line with strings, character constants and comments blanked. */
static char *code_mask(const char *l)
{
	char *m = xstrdup(l), q = 0, *end;
	size_t i, n = strlen(l), j;

	for (i = 0; i < n; i++) {
		if (q) {
			if (l[i] == '\\' && i + 1 < n) {
				m[i] = m[i + 1] = ' ';
				i++;
			} else if (l[i] == q) {
				q = 0;
			} else {
				m[i] = ' ';
			}
		} else if (l[i] == '"' || l[i] == '\'') {
			q = l[i];
		} else if (l[i] == '/' && l[i + 1] == '*') {
			end = strstr(l + i + 2, "*/");
			j = end ? (size_t)(end - l) + 2 : n;
			memset(m + i, ' ', j - i);
			i = j - 1;
		} else if (l[i] == '/' && l[i + 1] == '/') {
			memset(m + i, ' ', n - i);
			break;
		}
	}
	return m;
}

struct vlist {
	const char *line;
	struct variant *v;
	int n;
};

/* line with [pos, pos + len) replaced by repl, unless already there. */
static void add(struct vlist *vl, const char *op, size_t pos, size_t len,
		const char *repl)
{
	char *t = xasprintf("%.*s%s%s", (int)pos, vl->line, repl,
			    vl->line + pos + len);
	int i;

	for (i = 0; i < vl->n; i++)
		if (!strcmp(vl->v[i].text, t)) {
			free(t);
			return;
		}
	if (!strcmp(t, vl->line)) {
		free(t);
		return;
	}
	vl->v = xrealloc(vl->v, (vl->n + 1) * sizeof(*vl->v));
	vl->v[vl->n].op = op;
	vl->v[vl->n++].text = t;
}

/* The ')' matching the '(' at open, or -1 on this line. */
static int closing(const char *m, int open)
{
	int depth = 0, i;

	for (i = open; m[i]; i++) {
		depth += m[i] == '(';
		depth -= m[i] == ')';
		if (!depth)
			return i;
	}
	return -1;
}

static void op_cmp(struct vlist *vl, const char *m)
{
	size_t i;

	for (i = 0; m[i]; i++) {
		char a = m[i], b = m[i + 1], prev = i ? m[i - 1] : ' ';

		if ((a == '=' || a == '!') && b == '=' && prev != '=' &&
		    !strchr("<>!+-*/%&|^", prev)) {
			add(vl, "cmp", i, 2, a == '=' ? "!=" : "==");
			i++;
		} else if ((a == '<' || a == '>') && prev != a && b == '=') {
			add(vl, "cmp", i, 2, a == '<' ? ">" : "<");
			i++;
		} else if ((a == '<' || a == '>') && prev != a && b != a &&
			   prev != '-') {
			add(vl, "cmp", i, 1, a == '<' ? ">=" : "<=");
		}
	}
}

/*
 * Whether the condition (open, close) is one comparison at its top
 * level, with no && or ||: op_cmp's flip of it is already its negation.
 */
static bool one_comparison(const char *m, int open, int close)
{
	int depth = 0, i, cmp = 0;

	for (i = open + 1; i < close; i++) {
		char a = m[i], b = m[i + 1], prev = m[i - 1];

		depth += a == '(';
		depth -= a == ')';
		if (depth)
			continue;
		if ((a == '&' && b == '&') || (a == '|' && b == '|'))
			return false;
		if ((a == '=' || a == '!') && b == '=')
			cmp++;
		else if ((a == '<' || a == '>') && prev != a && b != a &&
			 prev != '-')
			cmp++;
	}
	return cmp == 1;
}

/* if (C) and while (C) as the line's statement: if (!(C)). */
static void op_cond(struct vlist *vl, const char *m)
{
	const char *s = m + strspn(m, " \t"), *kw;
	int open, close;

	if (!strncmp(s, "} else ", 7))
		s += 7;
	if (!strncmp(s, "if (", 4))
		kw = s + 3;
	else if (!strncmp(s, "while (", 7))
		kw = s + 6;
	else
		return;
	open = kw - m;
	close = closing(m, open);
	if (close < 0 || one_comparison(m, open, close))
		return;
	{
		char *inner = xasprintf("(!(%.*s))", close - open - 1,
					vl->line + open + 1);

		add(vl, "cond", open, close - open + 1, inner);
		free(inner);
	}
}

static void op_arith(struct vlist *vl, const char *m)
{
	size_t i;

	for (i = 1; m[i]; i++) {
		if (m[i - 1] == ' ' && m[i + 1] == ' ' &&
		    (m[i] == '+' || m[i] == '-'))
			add(vl, "arith", i, 1, m[i] == '+' ? "-" : "+");
		else if ((m[i] == '+' || m[i] == '-') && m[i + 1] == '=' &&
			 m[i - 1] == ' ')
			add(vl, "arith", i, 1, m[i] == '+' ? "-" : "+");
	}
}

static void op_const(struct vlist *vl, const char *m)
{
	size_t i, j;

	for (i = 0; m[i]; i++) {
		char repl[32];
		unsigned long long v;

		if (!isdigit((unsigned char)m[i]) ||
		    (i && (ident_char(m[i - 1]) || m[i - 1] == '.')))
			continue;
		for (j = i; isdigit((unsigned char)m[j]); j++)
			;
		/* Hex, octal, floats and odd suffixes are left alone. */
		if (ident_char(m[j]) && !strchr("uUlL", m[j])) {
			i = j;
			continue;
		}
		if ((m[i] == '0' && j - i > 1) || m[j] == '.') {
			i = j;
			continue;
		}
		v = strtoull(vl->line + i, NULL, 10);
		snprintf(repl, sizeof(repl), "%llu", v + 1);
		add(vl, "const", i, j - i, repl);
		i = j;
	}
}

/* The callee name ending just before position open, as [*s, open). */
static size_t callee(const char *m, size_t open, size_t *s)
{
	size_t e = open;

	while (e && m[e - 1] == ' ')
		e--;
	*s = e;
	while (*s && ident_char(m[*s - 1]))
		(*s)--;
	return e - *s;
}

/* "f(...);", "p->ops->f(...);" alone on the line: dropped. */
static void op_call(struct vlist *vl, const char *m)
{
	size_t lead = strspn(m, " \t"), s, len;
	const char *open = strchr(m + lead, '(');
	size_t n = strlen(m);
	int close;

	while (n && isspace((unsigned char)m[n - 1]))
		n--;
	if (!open || n < 3 || m[n - 1] != ';')
		return;
	for (s = lead; m + s < open; s++)
		if (!ident_char(m[s]) && m[s] != '.' && m[s] != '>' &&
		    !(m[s] == '-' && m[s + 1] == '>'))
			return;
	close = closing(m, open - m);
	if (close < 0 || (size_t)close + 2 != n)
		return;
	len = callee(m, open - m, &s);
	if (!len || in_list(m + s, len, keywords, false) ||
	    in_list(m + s, 0, quiet_calls, true))
		return;
	add(vl, "call", lead, n - lead, ";");
}

static bool simple_arg(const char *a, size_t len);

/* x |= FLAG; and x &= ~FLAG; alone on the line: dropped. */
static void op_flag_stmt(struct vlist *vl, const char *m)
{
	size_t lead = strspn(m, " \t"), n = strlen(m);
	const char *op = strstr(m, "|= ");

	if (!op)
		op = strstr(m, "&= ~");
	while (n && isspace((unsigned char)m[n - 1]))
		n--;
	if (!op || m[n - 1] != ';')
		return;
	/* Only "LVALUE |= FLAG;": not an if, not a return. */
	if (!simple_arg(m + lead, op - m - lead))
		return;
	op += op[0] == '|' ? 3 : 4;
	if (!isupper((unsigned char)*op))
		return;
	add(vl, "flag", lead, n - lead, ";");
}

static bool upper_ident(const char *m, size_t s, size_t e)
{
	size_t i;

	if (e - s < 3 || !isupper((unsigned char)m[s]))
		return false;
	for (i = s; i < e; i++)
		if (!isupper((unsigned char)m[i]) &&
		    !isdigit((unsigned char)m[i]) && m[i] != '_')
			return false;
	return true;
}

/* "A | FLAG" loses FLAG, "FLAG | B" loses FLAG. */
static void op_flag(struct vlist *vl, const char *m)
{
	size_t i, s, e, n = strlen(m);

	for (i = 2; i + 2 < n; i++) {
		if (m[i] != '|' || m[i - 1] != ' ' || m[i + 1] != ' ')
			continue;
		for (s = i - 1; s && ident_char(m[s - 1]); s--)
			;
		/* A whole operand: not x.FLAG, p->FLAG, ~FLAG, F(x) << 2. */
		if (upper_ident(m, s, i - 1) && (!s || strchr(" \t(", m[s - 1])))
			add(vl, "flag", s, i + 2 - s, "");
		for (e = i + 2; ident_char(m[e]); e++)
			;
		if (upper_ident(m, i + 2, e) && (!m[e] || strchr(" \t),;", m[e])) &&
		    strncmp(m + e, " <<", 3) && strncmp(m + e, " >>", 3))
			add(vl, "flag", i - 1, e - i + 1, "");
	}
}

static bool simple_arg(const char *a, size_t len)
{
	size_t i = 0;

	while (i < len && a[i] == ' ')
		i++;
	while (len > i && a[len - 1] == ' ')
		len--;
	if (i < len && a[i] == '&')
		i++;
	if (i == len || !(isalpha((unsigned char)a[i]) || a[i] == '_'))
		return false;
	for (; i < len; i++)
		if (!ident_char(a[i]) && a[i] != '.' &&
		    !(a[i] == '-' && a[i + 1] == '>') &&
		    !(a[i] == '>' && a[i - 1] == '-'))
			return false;
	return true;
}

/* Exchange the arguments [a0, a1) and [b0, b1) of one call. */
static void swap_pair(struct vlist *vl, size_t a0, size_t a1, size_t b0,
		      size_t b1)
{
	const char *l = vl->line;
	char *t;

	while (l[a0] == ' ')
		a0++;
	while (l[b0] == ' ')
		b0++;
	while (a1 > a0 && l[a1 - 1] == ' ')
		a1--;
	while (b1 > b0 && l[b1 - 1] == ' ')
		b1--;
	if (a1 - a0 == b1 - b0 && !strncmp(l + a0, l + b0, a1 - a0))
		return;
	t = xasprintf("%.*s%.*s%.*s", (int)(b1 - b0), l + b0,
		      (int)(b0 - a1), l + a1, (int)(a1 - a0), l + a0);
	add(vl, "swap", a0, b1 - a0, t);
	free(t);
}

static void op_swap(struct vlist *vl, const char *m)
{
	size_t i, s, len, cut[16];
	int close, depth, j, nc;

	for (i = 1; m[i]; i++) {
		if (m[i] != '(')
			continue;
		len = callee(m, i, &s);
		if (!len || in_list(m + s, len, keywords, false) ||
		    in_list(m + s, len, symmetric_calls, false))
			continue;
		close = closing(m, i);
		if (close < 0)
			continue;
		nc = 0;
		cut[nc++] = i;
		for (depth = 0, j = i + 1; j < close && nc < 15; j++) {
			depth += m[j] == '(' || m[j] == '[' || m[j] == '{';
			depth -= m[j] == ')' || m[j] == ']' || m[j] == '}';
			if (!depth && m[j] == ',')
				cut[nc++] = j;
		}
		cut[nc] = close;
		for (j = 0; j + 1 < nc; j++)
			if (simple_arg(m + cut[j] + 1, cut[j + 1] - cut[j] - 1) &&
			    simple_arg(m + cut[j + 1] + 1,
				       cut[j + 2] - cut[j + 1] - 1))
				swap_pair(vl, cut[j] + 1, cut[j + 1],
					  cut[j + 1] + 1, cut[j + 2]);
	}
}

int mutate_line(const char *line, struct variant **v)
{
	struct vlist vl = { .line = line };
	const char *s = line + strspn(line, " \t");
	char *m;

	*v = NULL;
	/* A comment line starts with a star and a blank or a slash. */
	if (!*s || *s == '#' || !strncmp(s, "/*", 2) || !strncmp(s, "//", 2) ||
	    (*s == '*' && (!s[1] || strchr(" \t/", s[1]))) || strlen(s) < 2)
		return 0;
	if (in_list(s, 0, quiet_calls, true))
		return 0;	/* a logging or assertion statement */
	m = code_mask(line);
	op_cmp(&vl, m);
	op_cond(&vl, m);
	op_arith(&vl, m);
	op_const(&vl, m);
	op_call(&vl, m);
	op_flag_stmt(&vl, m);
	op_flag(&vl, m);
	op_swap(&vl, m);
	free(m);
	*v = vl.v;
	return vl.n;
}

void variants_free(struct variant *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

static void mutant_id(struct mutant *m, int salt)
{
	struct strbuf sb = { 0 };
	char hex[65];

	sb_printf(&sb, "%s\n%s\n%s\n%s\n", m->file, m->func, m->old, m->new);
	if (salt)
		sb_printf(&sb, "%d\n", salt);
	sha256_hex(sb.buf, sb.len, hex);
	memcpy(m->id, hex, 8);
	m->id[8] = 0;
	sb_free(&sb);
}

static bool known(struct mutants *ms, const struct mutant *m)
{
	int i;

	for (i = 0; i < ms->n; i++)
		if (!strcmp(ms->m[i].file, m->file) &&
		    ms->m[i].line == m->line && !strcmp(ms->m[i].new, m->new))
			return true;
	return false;
}

static bool id_taken(struct mutants *ms, const char *id)
{
	int i;

	for (i = 0; i < ms->n; i++)
		if (!strcmp(ms->m[i].id, id))
			return true;
	return false;
}

/*
 * Whether line (1-based) continues a statement that began as a logging
 * or assertion call on an earlier line ("pr_err(...,\n a - b);").
 */
static bool quiet_statement(char **lines, int line)
{
	const char *s;
	int i;

	for (i = line - 1; i > 0 && line - i < 12; i--) {
		const char *p = lines[i - 1];
		size_t n = strlen(p);

		while (n && isspace((unsigned char)p[n - 1]))
			n--;
		if (!n || strchr(";{}:", p[n - 1]) || p[0] == '#')
			break;
	}
	s = lines[i] + strspn(lines[i], " \t");
	return i < line - 1 && in_list(s, 0, quiet_calls, true);
}

static void on_added(void *arg, const char *file, char **lines, int nlines,
		     int line, const char *function)
{
	struct mutants *ms = arg;
	size_t len = strlen(file);
	struct variant *v;
	int n, i;

	/* A header's change rebuilds much of the tree: .c files only. */
	if (!*function || len < 3 || strcmp(file + len - 2, ".c") ||
	    quiet_statement(lines, line))
		return;
	n = mutate_line(lines[line - 1], &v);
	for (i = 0; i < n; i++) {
		struct mutant m = { .line = line, .order = ms->n };

		snprintf(m.op, sizeof(m.op), "%s", v[i].op);
		snprintf(m.file, sizeof(m.file), "%s", file);
		snprintf(m.func, sizeof(m.func), "%s", function);
		m.old = xstrdup(lines[line - 1]);
		m.new = xstrdup(v[i].text);
		if (known(ms, &m)) {
			free(m.old);
			free(m.new);
			continue;
		}
		mutant_id(&m, 0);
		if (id_taken(ms, m.id))
			mutant_id(&m, line);
		ms->m = xrealloc(ms->m, (ms->n + 1) * sizeof(m));
		ms->m[ms->n++] = m;
	}
	variants_free(v, n);
}

void mutants_from_patch(struct mutants *ms, const char *patch_text,
			const char *src)
{
	patch_added_lines(patch_text, src, on_added, ms);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int by_order(const void *a, const void *b)
{
	return ((const struct mutant *)a)->order -
	       ((const struct mutant *)b)->order;
}

void mutants_sample(struct mutants *ms, int max, unsigned long long seed)
{
	uint64_t s = seed;
	int i;

	if (max <= 0 || max >= ms->n)
		return;
	for (i = ms->n - 1; i > 0; i--) {
		int j = splitmix(&s) % (i + 1);
		struct mutant t = ms->m[i];

		ms->m[i] = ms->m[j];
		ms->m[j] = t;
	}
	for (i = max; i < ms->n; i++) {
		free(ms->m[i].old);
		free(ms->m[i].new);
	}
	ms->n = max;
	qsort(ms->m, ms->n, sizeof(*ms->m), by_order);
}

char *mutant_patch(const struct mutant *m, const char *src)
{
	char *path = xasprintf("%s/%s", src, m->file), *text, *p;
	struct strbuf sb = { 0 };
	char **l = NULL;
	int n = 0, s, e, i;

	text = read_file(path, NULL);
	free(path);
	for (p = text; p && *p; n++) {
		char *nl = strchr(p, '\n');

		l = xrealloc(l, (n + 1) * sizeof(char *));
		l[n] = p;
		if (nl)
			*nl = 0;
		p = nl ? nl + 1 : p + strlen(p);
	}
	if (m->line > n || strcmp(l[m->line - 1], m->old)) {
		free(l);
		free(text);
		return NULL;
	}
	s = m->line > 3 ? m->line - 3 : 1;
	e = m->line + 3 <= n ? m->line + 3 : n;
	sb_printf(&sb, "From: stacktest --mutate <stacktest@localhost>\n"
		  "Subject: [PATCH] mutant %s: %s in %s()\n\n"
		  "%s:%d, operator %s.\n---\n"
		  "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n"
		  "@@ -%d,%d +%d,%d @@\n", m->id, m->op, m->func, m->file,
		  m->line, m->op, m->file, m->file, m->file, m->file, s,
		  e - s + 1, s, e - s + 1);
	for (i = s; i <= e; i++)
		if (i == m->line)
			sb_printf(&sb, "-%s\n+%s\n", m->old, m->new);
		else
			sb_printf(&sb, " %s\n", l[i - 1]);
	sb_printf(&sb, "-- \nstacktest\n");
	free(l);
	free(text);
	return sb.buf;
}

void mutants_free(struct mutants *ms)
{
	int i;

	for (i = 0; i < ms->n; i++) {
		free(ms->m[i].old);
		free(ms->m[i].new);
	}
	free(ms->m);
	ms->m = NULL;
	ms->n = 0;
}
