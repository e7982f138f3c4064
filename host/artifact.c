// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel artifacts: build once, test many (artifact.h).  The folder is
 * written beside its destination and renamed into place; reading it
 * checks every file's SHA-256, so a partial or damaged copy (a CI
 * engine's artifact transfer) is named rather than booted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <glob.h>
#include <signal.h>
#include <unistd.h>
#include <json.h>

#include "artifact.h"
#include "cli.h"
#include "covrun.h"
#include "report.h"

#define FORMAT "stacktest-kernel-artifact 1"

/* The files, in the order artifact.json lists them. */
static const char *const files[] = {
	"bzImage", "config", "System.map", "initramfs.cpio.gz",
	"unavailable", "coverage.list",
};
#define NFILES ARRAY_SIZE(files)

/* A folder being written: removed if we die before it is in place. */
static char *partial;

static void remove_partial(void)
{
	if (partial)
		rm_rf(partial);
}

static char *file_sha256(const char *path)
{
	char hex[65], *data;
	size_t len;

	data = read_file(path, &len);
	if (!data)
		return NULL;
	sha256_hex(data, len, hex);
	free(data);
	return xstrdup(hex);
}

/* The suite's commit, "-dirty" if tracked files changed; NULL outside git. */
static char *suite_commit(const char *root)
{
	char *head_argv[] = { "git", "-C", (char *)root, "rev-parse", "-q",
			      "--verify", "HEAD", NULL };
	char *st_argv[] = { "git", "-C", (char *)root, "status", "--porcelain",
			    "--untracked-files=no", NULL };
	char *head = NULL, *st = NULL, *r = NULL;
	char *git = xasprintf("%s/.git", root);
	bool repo = path_exists(git);

	free(git);
	if (!repo)
		return NULL;
	if (!run_capture(head_argv, NULL, &head) && *head &&
	    !run_capture(st_argv, NULL, &st)) {
		head[strcspn(head, "\n")] = 0;
		r = xasprintf("%s%s", head, *st ? "-dirty" : "");
	}
	free(head);
	free(st);
	return r;
}

/* Dir may be replaced: absent, empty, or an artifact already. */
void artifact_check_dest(const char *dir)
{
	char *meta = xasprintf("%s/artifact.json", dir);
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && !path_exists(meta) && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			die("%s: exists and is not a kernel artifact (no artifact.json): not replaced",
			    dir);
	if (!d && errno != ENOENT)
		die("%s: %s", dir, strerror(errno));
	if (d)
		closedir(d);
	free(meta);
}

static void copy_files(const struct kernel *k, const char *initramfs,
		       const char *tmp, json_object *sums)
{
	const char *from[NFILES] = { k->bzimage, k->config, k->sysmap,
				     initramfs, NULL, NULL };
	size_t i;

	for (i = 0; i < NFILES; i++) {
		char *to = xasprintf("%s/%s", tmp, files[i]);
		char *sum;

		if (from[i])
			copy_file(from[i], to);
		sum = file_sha256(to);
		if (!sum)
			die("%s: cannot read: %s", to, strerror(errno));
		json_object_object_add(sums, files[i], json_object_new_string(sum));
		free(sum);
		free(to);
	}
}

/* The series' changed functions, classified against k's tree. */
static void write_coverage(const struct kernel *k, const char *series,
			   const char *path)
{
	struct run_opts ro = { 0 };
	struct cov cov;

	cov_series(series, -1, k, &cov, &ro);
	if (cov_write_list(&cov, path))
		die("cannot write %s: %s", path, strerror(errno));
	free(ro.trace);
	cov_free(&cov);
}

static json_object *meta_json(const struct kernel *k, const char *series,
			      const char *profile, const char *root)
{
	json_object *o = json_object_new_object();
	char *suite = suite_commit(root);

	json_object_object_add(o, "format", json_object_new_string(FORMAT));
	json_object_object_add(o, "key", json_object_new_string(k->key));
	json_object_object_add(o, "series", json_object_new_string(base_name(series)));
	json_object_object_add(o, "series_path", json_object_new_string(series));
	json_object_object_add(o, "profile",
			       json_object_new_string(profile ? profile : "default"));
	json_object_object_add(o, "kernel", ksource_json(k->src));
	json_object_object_add(o, "suite", suite ? json_object_new_string(suite) : NULL);
	free(suite);
	return o;
}

/* Tmp (whole) in dir's place; an artifact dir had is removed after. */
static void put_in_place(const char *tmp, const char *dir)
{
	char *old = xasprintf("%s.old.%d", dir, getpid());
	bool had = path_exists(dir);
	int e;

	if (had && rename(dir, old))
		die("cannot move %s aside: %s", dir, strerror(errno));
	if (rename(tmp, dir)) {
		e = errno;
		if (had)
			rename(old, dir);
		die("cannot rename %s to %s: %s", tmp, dir, strerror(e));
	}
	rm_rf(old);
	free(old);
}

/*
 * What a writer of dir killed outright (a CI job's timeout) left beside
 * it: DIR.tmp.PID and DIR.old.PID of a process that is gone.
 */
static void remove_stale(const char *dir)
{
	char *pat = xasprintf("%s.*.*", dir);
	glob_t g;
	size_t i;

	if (glob(pat, 0, NULL, &g)) {
		free(pat);
		return;
	}
	for (i = 0; i < g.gl_pathc; i++) {
		const char *rest = g.gl_pathv[i] + strlen(dir);
		int pid;
		char c;

		if ((sscanf(rest, ".tmp.%d%c", &pid, &c) == 1 ||
		     sscanf(rest, ".old.%d%c", &pid, &c) == 1) &&
		    kill(pid, 0) && errno == ESRCH)
			rm_rf(g.gl_pathv[i]);
	}
	globfree(&g);
	free(pat);
}

void artifact_write(const char *dir, const struct kernel *k,
		    const char *series_path, const char *profile,
		    const char *initramfs, const char *root)
{
	json_object *o, *sums = json_object_new_object();
	char *tmp = xasprintf("%s.tmp.%d", dir, getpid()), *p;

	artifact_check_dest(dir);
	remove_stale(dir);
	partial = tmp;
	atexit(remove_partial);
	rm_rf(tmp);
	if (mkdir_p(tmp))
		die("cannot create %s: %s", tmp, strerror(errno));
	p = xasprintf("%s/unavailable", tmp);
	if (write_file_atomic(p, k->unavailable, strlen(k->unavailable)))
		die("cannot write %s: %s", p, strerror(errno));
	free(p);
	p = xasprintf("%s/coverage.list", tmp);
	write_coverage(k, series_path, p);
	free(p);
	copy_files(k, initramfs, tmp, sums);
	o = meta_json(k, series_path, profile, root);
	json_object_object_add(o, "files", sums);
	p = xasprintf("%s/artifact.json", tmp);
	if (json_write_put(o, p))
		die("cannot write %s: %s", p, strerror(errno));
	free(p);
	put_in_place(tmp, dir);
	partial = NULL;
	free(tmp);
}

static char *meta_str(json_object *o, const char *key, const char *path)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		die("%s: no \"%s\" (not a kernel artifact, or a damaged one)",
		    path, key);
	return xstrdup(json_object_get_string(v));
}

static void check_files(const char *dir, json_object *o, const char *path)
{
	json_object *sums, *v;
	size_t i;

	if (!json_object_object_get_ex(o, "files", &sums))
		die("%s: no \"files\" (a damaged kernel artifact)", path);
	for (i = 0; i < NFILES; i++) {
		char *f = xasprintf("%s/%s", dir, files[i]), *sum;

		if (!json_object_object_get_ex(sums, files[i], &v) ||
		    !json_object_is_type(v, json_type_string))
			die("%s: lists no SHA-256 for %s", path, files[i]);
		sum = file_sha256(f);
		if (!sum)
			die("%s: missing from the kernel artifact", f);
		if (strcmp(sum, json_object_get_string(v)))
			die("%s: its SHA-256 is not the one %s records (a damaged or partial copy)",
			    f, path);
		free(sum);
		free(f);
	}
}

static void check_suite(const struct artifact *a, const char *root)
{
	char *here = suite_commit(root);

	if (a->suite && here && strcmp(a->suite, here))
		printf("runner: note: the artifact was built by suite %.12s, this is %.12s%s; its guest programs are the builder's\n",
		       a->suite, here, strstr(here, "-dirty") ? " (dirty)" : "");
	free(here);
}

void artifact_load(const char *dir, const char *root, struct artifact *a)
{
	char *path = xasprintf("%s/artifact.json", dir);
	json_object *o, *v;

	memset(a, 0, sizeof(*a));
	if (!path_exists(dir))
		die("--kernel-artifact %s: no such folder", dir);
	if (!path_exists(path))
		die("--kernel-artifact %s: no artifact.json (not made by --build-only --artifact)",
		    dir);
	o = json_object_from_file(path);
	if (!o)
		die("%s: not JSON: %s", path, json_util_get_last_err());
	v = NULL;
	json_object_object_get_ex(o, "format", &v);
	if (!v || strcmp(json_object_get_string(v), FORMAT))
		die("%s: format \"%s\", this runner reads \"%s\"", path,
		    v ? json_object_get_string(v) : "", FORMAT);
	a->dir = abs_path(dir);
	a->key = meta_str(o, "key", path);
	a->series = meta_str(o, "series", path);
	a->series_path = meta_str(o, "series_path", path);
	a->profile = meta_str(o, "profile", path);
	if (json_object_object_get_ex(o, "suite", &v) && v)
		a->suite = xstrdup(json_object_get_string(v));
	if (!json_object_object_get_ex(o, "kernel", &v) || !v)
		die("%s: no \"kernel\"", path);
	a->kernel = ksource_from_json(v);
	if (strlen(a->key) != 16 || !a->kernel->version || !a->kernel->series)
		die("%s: a bad key or kernel (a damaged kernel artifact)", path);
	check_files(a->dir, o, path);
	a->initramfs = xasprintf("%s/initramfs.cpio.gz", a->dir);
	check_suite(a, root);
	json_object_put(o);
	free(path);
}

void artifact_kernel(const struct artifact *a, struct kernel *k)
{
	char *unav = xasprintf("%s/unavailable", a->dir);

	memset(k, 0, sizeof(*k));
	snprintf(k->key, sizeof(k->key), "%s", a->key);
	k->dir = a->dir;
	k->bzimage = xasprintf("%s/bzImage", a->dir);
	k->config = xasprintf("%s/config", a->dir);
	k->sysmap = xasprintf("%s/System.map", a->dir);
	k->coverage = xasprintf("%s/coverage.list", a->dir);
	k->source_version = a->kernel->version;
	k->src = a->kernel;
	k->unavailable = read_file(unav, NULL);
	if (!k->unavailable)
		die("%s: cannot read", unav);
	k->cached = true;
	free(unav);
}
