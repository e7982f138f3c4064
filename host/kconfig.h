/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_KCONFIG_H
#define HOST_KCONFIG_H

#include <stdbool.h>
#include "util.h"

/* The fragments of one kernel profile, in merge order. */
struct fragments {
	int n;
	/* base.config, layers/A.config ..., kernels/X.Y.config, profile, extra */
	char **path;
	int nlayers;	/* path[1 .. nlayers] are layer kinds' */
};

/*
 * The fragments in folder dir (config/), the kernel series' (6.12:
 * kernels/6.12.config) if there is one, the profile's
 * (profiles/debug.config; profile NULL: none) and an extra one (or NULL).
 */
void kconfig_fragments(const char *dir, const char *series,
		       const char *profile, const char *extra,
		       struct fragments *f);
/* The layer kind whose fragment path[i] is, into buf; NULL if none. */
const char *fragment_kind(const struct fragments *f, int i, char *buf,
			  size_t len);
/* Every fragment's name and content, for the build key. */
void kconfig_key(const struct fragments *f, struct strbuf *kd);
/*
 * tinyconfig, merge_config.sh of the fragments, olddefconfig, in the
 * source tree src (objects in src/out).  Dies naming file:line when an
 * option of base.config or the extra did not take; a layer's that did
 * not take goes to unavailable as "KIND file:line: why" lines.
 */
void kconfig_make(const struct fragments *f, const char *src,
		  const char *log, struct strbuf *unavailable);
/*
 * Check that every option of the fragment took in .config.  Appends one
 * line per option that did not to report, naming frag_name:line; returns
 * how many.
 */
int kconfig_check(const char *frag_name, const char *frag, const char *config,
		  struct strbuf *report);
/* Is kind in the unavailable text?  The first reason into why. */
bool kconfig_lacks(const char *unavailable, const char *kind, char *why,
		   size_t len);

#endif
