/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_COVERAGE_H
#define HOST_COVERAGE_H

#include "util.h"

/* A function a series changed, and what the guests saw of it. */
struct cov_fn {
	char name[64];
	char file[128];
	bool removed;		/* the series deleted it: nothing to trace */
	bool absent;		/* a listed name this tree does not have */
	bool untraceable;	/* the kernel refused it (inline, notrace) */
	bool unreachable;	/* listed so: no guest of ours can call it */
	char why[40];		/* why it may not be traceable (host's view) */
	long long hits;		/* summed over topologies */
	char where[256];	/* topologies that reached it */
};

struct cov {
	int n;
	struct cov_fn *fn;
};

/*
 * The functions whose bodies contain lines the patch text changes.  Each
 * hunk is found in the patched source tree (src) and every changed line
 * is mapped to its enclosing function there; a hunk no longer found there
 * (a later patch rewrote it) falls back to the hunk's own text and its
 * function context.  A function whose definition only appears on '-'
 * lines and not in src is marked removed.
 */
void cov_from_patch(struct cov *c, const char *patch_text, const char *src);
/*
 * Read "name file [state]" lines (a committed list; '#' comments); state
 * "absent" (not in this tree), "removed", or "unreachable" (traced, but
 * no stack of ours can call it; the list says why): 0 calls of an
 * unreachable function are not a coverage failure.  State "-" is none;
 * " # WHY" after the state sets why.
 */
int cov_from_list(struct cov *c, const char *path, char *err, size_t len);
/*
 * The same list with every state and, after " # ", why each function may
 * not be traceable (cov_classify()'s view): what a kernel artifact carries
 * in place of the tree.  0 or -1.
 */
int cov_write_list(const struct cov *c, const char *path);
struct cov_fn *cov_find(struct cov *c, const char *name);
/*
 * Not counted in "N of M executed" nor by --require-coverage: removed,
 * not traceable, or listed unreachable and indeed never called.
 */
bool cov_uncounted(const struct cov_fn *f);
/* How many counted functions were executed; *counted: of how many. */
int cov_executed(const struct cov *c, int *counted);
void cov_free(struct cov *c);
/*
 * From the kernel build (src/out): note for each function whether its
 * file was built at all and whether System.map has it (else inlined).
 */
void cov_classify(struct cov *c, const char *src);

/*
 * Each line a patch adds (a '+' line) that is still in the patched tree
 * src: its file, the file's lines, its 1-based line number there and its
 * enclosing function ("" outside one).  Found where its hunk is, else
 * where the line alone occurs once (a later patch changed the hunk).
 */
typedef void (*added_line_fn)(void *arg, const char *file, char **lines,
			      int nlines, int line, const char *function);
void patch_added_lines(const char *patch_text, const char *src,
		       added_line_fn fn, void *arg);

/* The enclosing function of 1-based line ln in a C source, "" if none. */
void enclosing_function(char **lines, int nlines, int ln, char *name,
			size_t len);

#endif
