/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_KBUILD_H
#define HOST_KBUILD_H

#include <stdbool.h>
#include "ksource.h"
#include "util.h"

struct kbuild_opts {
	const char *build;	/* the build folder (absolute) */
	const char *series;	/* a patches/NAME folder with a series file */
	int prefix;		/* only its first N patches; -1: all */
	const char *config_dir;	/* config/: base.config, layers/ */
	const char *profile;	/* "debug": config/profiles/debug.config */
	const char *fragment;	/* an extra fragment, or NULL */
	const struct ksource *ksrc;	/* the kernel source (--kernel) */
	int jobs;
	/* A built key whose series is this one's first parent_patches. */
	const char *parent;
	int parent_patches;
};

struct kernel {
	char key[17];		/* first 16 hex digits of the build key */
	char *dir;		/* build/kernels/KEY */
	char *bzimage;
	char *config;
	char *sysmap;		/* its System.map */
	/* A kernel artifact's changed functions (cov_write_list()), or NULL. */
	char *coverage;
	char *source_version;
	const struct ksource *src;
	char *unavailable;	/* "KIND why" lines: layers this kernel lacks */
	bool cached;
	double seconds;
};

/* Build (or find cached) the kernel; dies with a clear message on error. */
void kbuild(const struct kbuild_opts *o, struct kernel *k);

/* The folder kbuild() builds o's kernel in (build/kernels/KEY). */
char *kbuild_dir(const struct kbuild_opts *o);

/*
 * The series file of folder dir for kernel series kseries (6.12): its
 * own DIR/series-6.12 if the folder has one (the series ported to that
 * kernel), else DIR/series.
 */
char *series_file(const char *dir, const char *kseries);
/*
 * Read DIR's series file (series_file(); quilt style: one patch path per
 * line, relative to DIR, so a series may reuse another's patches as
 * ../other/NAME.patch; '#' comments).  Returns the patch names and, in keydata, every name and
 * patch content for the build key; limit >= 0 reads only that many
 * patches (a prefix of the series).  -1 with err on a bad series.
 */
int series_read(const char *dir, const char *kseries, int limit,
		char ***names, int *n, struct strbuf *keydata, char *err,
		size_t errlen);

/*
 * The tree path a patch line names, into buf, or NULL: "--- P" and
 * "+++ P" (up to a tab; the first component dropped, as patch -p1 does;
 * not /dev/null), git's "rename from P", "rename to P", "copy from P",
 * "copy to P" (no prefix).
 */
const char *patch_path(const char *line, char *buf, size_t len);

/* From patch(1) output, the files whose hunks failed, one per line. */
void patch_failed_files(const char *output, struct strbuf *files);

#endif
