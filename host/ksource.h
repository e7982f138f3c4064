/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_KSOURCE_H
#define HOST_KSOURCE_H

#include <stdbool.h>
#include "util.h"

#define KSOURCE_DEFAULT "linux-source-6.1"

/*
 * The kernel under test (--kernel): a Debian linux-source-X.Y package,
 * installed and extracted by the runner, or the user's own tree (a git
 * tree or unpacked source), which is only ever read: builds patch and
 * build a copy of it.
 */
struct ksource {
	char *name;	/* linux-source-6.12, or the tree's absolute path */
	char *tarball;	/* a package's /usr/src tarball; NULL for a tree */
	char *tree;	/* a tree (absolute); NULL for a package */
	bool git;
	char *commit;	/* a git tree's HEAD, else NULL */
	char *dirty;	/* SHA-256 of a git tree's uncommitted changes, or NULL */
	char *release;	/* the kernel's version: 6.12.118, 6.13.0-rc1 */
	char *series;	/* VERSION.PATCHLEVEL: 6.12 */
	char *version;	/* one line naming all of it (build key, reports) */
};

/*
 * Resolve --kernel ARG (NULL: the default).  A package not installed is
 * installed with host/deps.sh; a path is checked to be a kernel tree.
 * Dies naming ARG on bad input.
 */
void ksource_resolve(const char *arg, const char *root, const char *build,
		     struct ksource *s);
/* "6.12.118" -> "6.12": a release's VERSION.PATCHLEVEL. */
char *release_series(const char *rel);
/* The kernel's extracted source to read (a package's: extracted once). */
char *ksource_tree(const struct ksource *s, const char *build);
/*
 * Copy the source into dest (absent) by hard links: a package's from its
 * extraction, a git tree's tracked and untracked-not-ignored files (so an
 * in-tree build's objects stay behind).  Patches break the links, and
 * kbuild writes only into dest/out, so the source is never written.
 */
void ksource_copy(const struct ksource *s, const char *build,
		  const char *dest, const char *log);
/* Parse a top Makefile's VERSION/PATCHLEVEL/SUBLEVEL/EXTRAVERSION. */
int ksource_makefile_release(const char *makefile, char *rel, size_t len);

#endif
