/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_MUTANT_H
#define HOST_MUTANT_H

#include "util.h"

/*
 * One mutant: one line the series added, still in the patched tree,
 * changed by one operator:
 *   cmp    a comparison flipped (== and !=, < and >=, > and <=)
 *   cond   an if or while condition negated
 *   arith  + and -, += and -= exchanged
 *   const  a decimal constant off by one
 *   call   a call statement dropped
 *   swap   two neighbouring simple arguments of a call exchanged
 *   flag   an upper-case flag dropped from an | expression, or a
 *          "x |= FLAG;" / "x &= ~FLAG;" statement dropped
 * Its id is a hash of file, function, old and new line: it stays the same
 * when lines above it move.
 */
struct mutant {
	char id[9];
	char op[8];
	char file[128];
	char func[64];
	int line;		/* 1-based, in the patched tree */
	int order;		/* generation order */
	char *old, *new;
};

struct mutants {
	int n;
	struct mutant *m;
};

struct variant {
	const char *op;
	char *text;
};

/* The mutated versions of one line of C (none for a comment). */
int mutate_line(const char *line, struct variant **v);
void variants_free(struct variant *v, int n);
/* Add the mutants of the .c lines a patch adds, found in the tree src. */
void mutants_from_patch(struct mutants *ms, const char *patch_text,
			const char *src);
/* Keep max of them (<= 0: all), a seeded choice, in generation order. */
void mutants_sample(struct mutants *ms, int max, unsigned long long seed);
/*
 * The mutant as a git format-patch file against the tree src; NULL if
 * its file no longer holds the old line there.
 */
char *mutant_patch(const struct mutant *m, const char *src);
void mutants_free(struct mutants *ms);

#endif
