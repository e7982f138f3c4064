/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_ARTIFACT_H
#define HOST_ARTIFACT_H

#include "kbuild.h"

/*
 * A kernel artifact: one built kernel and everything a run needs from its
 * build, in one folder another machine can run from without the kernel
 * source (--build-only --artifact DIR, then --kernel-artifact DIR): the
 * bzImage, its config and System.map, the guest's initramfs, the layer
 * kinds it lacks, the series' changed functions classified against the
 * tree, and artifact.json with the build key, the kernel, the series,
 * the profile, the suite's commit and each file's SHA-256.
 */
struct artifact {
	char *dir;		/* absolute */
	char *key, *series, *series_path, *profile, *suite;
	struct ksource *kernel;
	char *initramfs;
};

/*
 * Dies, naming dir, unless it may become an artifact: absent, empty, or
 * an artifact (replaced).  Checked before a build, and again at writing.
 */
void artifact_check_dest(const char *dir);
/*
 * Write k (built from series_path with profile, NULL for the default)
 * and initramfs to dir: built beside it (DIR.tmp.PID) and renamed into
 * place, so dir is whole or untouched; what a killed writer left beside
 * it is removed.
 */
void artifact_write(const char *dir, const struct kernel *k,
		    const char *series_path, const char *profile,
		    const char *initramfs, const char *root);
/*
 * Read dir's artifact.json and check every file against its SHA-256;
 * dies naming the file at fault.  root: the suite running it (its
 * commit is compared with the one that built the artifact).
 */
void artifact_load(const char *dir, const char *root, struct artifact *a);
/* The artifact's kernel, as kbuild() gives a cached one. */
void artifact_kernel(const struct artifact *a, struct kernel *k);

#endif
