// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel source (--kernel): a Debian linux-source-X.Y package (the
 * default is linux-source-6.1), or a path to the user's own kernel tree.
 * A package is installed with host/deps.sh when missing and extracted
 * once into build/src/NAME.  A tree is never written: each build
 * hard-links its files into build/kernels/KEY/src (a git tree: tracked
 * and untracked-but-not-ignored files, so the user's in-tree objects and
 * .config stay behind), where the series is applied and kbuild builds
 * out of tree.  The build key covers a git tree's commit and a hash of
 * its uncommitted changes, or an unpacked tree's file list with sizes
 * and times.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksource.h"

static char *field(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p;

	for (p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v = p + kl;

		if (strncmp(p, key, kl))
			continue;
		v += strspn(v, " \t");
		if (*v != '=')
			continue;
		v++;
		v += strspn(v, " \t");
		return strndup(v, strcspn(v, " \t\r\n#"));
	}
	return NULL;
}

int ksource_makefile_release(const char *makefile, char *rel, size_t len)
{
	char *text = read_file(makefile, NULL);
	char *v, *p, *s, *e;
	int ret = -1;

	if (!text)
		return -1;
	v = field(text, "VERSION");
	p = field(text, "PATCHLEVEL");
	s = field(text, "SUBLEVEL");
	e = field(text, "EXTRAVERSION");
	if (v && p && *v && *p && strspn(v, "0123456789") == strlen(v) &&
	    strspn(p, "0123456789") == strlen(p)) {
		snprintf(rel, len, "%s.%s.%s%s", v, p, s && *s ? s : "0",
			 e ? e : "");
		ret = 0;
	}
	free(v);
	free(p);
	free(s);
	free(e);
	free(text);
	return ret;
}

char *release_series(const char *rel)
{
	const char *dot = strchr(rel, '.');
	size_t n = dot ? dot + 1 - rel + strspn(dot + 1, "0123456789") :
		   strlen(rel);

	return strndup(rel, n);
}

static void package_resolve(const char *arg, const char *root,
			    struct ksource *s)
{
	int maj, min, end = 0;
	char *query[] = { "dpkg-query", "-W", "-f=${Version}", (char *)arg,
			  NULL };
	char *deps = xasprintf("%s/host/deps.sh", root);
	char *install[] = { deps, (char *)arg, NULL };
	char *out = NULL;

	if (sscanf(arg, "linux-source-%d.%d%n", &maj, &min, &end) != 2 ||
	    arg[end])
		die("--kernel %s: want linux-source-X.Y (a Debian package) or a path to a kernel tree",
		    arg);
	s->name = xstrdup(arg);
	s->tarball = xasprintf("/usr/src/%s.tar.xz", arg);
	if (!path_exists(s->tarball)) {
		printf("kernel: %s is not installed; installing the Debian package %s\n",
		       s->tarball, arg);
		if (run_argv(install, NULL, NULL) || !path_exists(s->tarball))
			die("--kernel %s: could not install the Debian package %s (no %s)",
			    arg, arg, s->tarball);
	}
	if (run_capture(query, NULL, &out) || !out[0])
		die("--kernel %s: dpkg-query knows no installed package %s (%s exists)",
		    arg, arg, s->tarball);
	/* Debian's version: upstream-revision (6.12.118-1~deb12u1). */
	s->release = strndup(out, strcspn(out, "-"));
	s->series = xasprintf("%d.%d", maj, min);
	s->version = xasprintf("%s %s", arg, out);
	free(out);
	free(deps);
}

/* The copy's own build folder: never taken from the user's tree. */
static bool is_out(const char *rel)
{
	return !strncmp(rel, "out/", 4) || !strcmp(rel, "out");
}

/*
 * git in the user's tree, read-only: no optional locks, no index refresh
 * (hard-linking the files changed their ctime, which git must not take
 * for a change and rewrite the index over), and safe.directory for a
 * tree another user owns (the runner runs as root).
 */
static char *git(const struct ksource *s, const char *a1, const char *a2,
		 const char *a3, const char *a4, const char *a5)
{
	char *safe = xasprintf("safe.directory=%s", s->tree), *out;
	char *argv[] = { "git", "-c", safe, "-c", "core.trustctime=false",
			 "-c", "diff.autoRefreshIndex=false", (char *)a1,
			 (char *)a2, (char *)a3, (char *)a4, (char *)a5, NULL };

	setenv("GIT_OPTIONAL_LOCKS", "0", 1);
	if (run_capture(argv, s->tree, &out)) {
		free(out);
		die("--kernel %s: 'git %s %s' failed in the tree (no commit yet? not a git work tree?)",
		    s->name, a1, a2 ? a2 : "");
	}
	free(safe);
	return out;
}

/* A git tree's uncommitted changes: the diff and untracked files. */
static char *git_dirty(const struct ksource *s)
{
	char *d = git(s, "diff", "HEAD", "--binary", "--no-ext-diff",
		      "--no-textconv");
	char *u = git(s, "ls-files", "-z", "--others", "--exclude-standard",
		      NULL);
	struct strbuf sb = { 0 };
	char hex[65], *p, *ret = NULL;

	sb_printf(&sb, "%s", d);
	for (p = u; *p; p += strlen(p) + 1) {
		char *path = xasprintf("%s/%s", s->tree, p);
		size_t len = 0;
		char *c;

		if (is_out(p)) {
			free(path);
			continue;
		}
		c = read_file(path, &len);
		sb_printf(&sb, "untracked %s %zu\n", p, len);
		if (c)
			sb_add(&sb, c, len);
		free(c);
		free(path);
	}
	if (sb.len) {
		sha256_hex(sb.buf, sb.len, hex);
		ret = strndup(hex, 16);
	}
	free(d);
	free(u);
	sb_free(&sb);
	return ret;
}

static struct strbuf *walk_sb;
static size_t walk_skip;

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	const char *rel = path + walk_skip;

	if (ftw->level == 1 && type == FTW_D && !strcmp(rel, "out"))
		return FTW_SKIP_SUBTREE;
	if (type != FTW_F && type != FTW_SL)
		return FTW_CONTINUE;
	sb_add(walk_sb, rel, strlen(rel) + 1);
	sb_printf(walk_sb, "%lld %lld.%09ld %llu %o", (long long)st->st_size,
		  (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
		  (unsigned long long)st->st_ino, st->st_mode);
	sb_add(walk_sb, "", 1);
	return FTW_CONTINUE;
}

/*
 * An unpacked tree's files but a top out/: "path\0size mtime inode
 * mode\0" each.  Not ctime: hard-linking them changes it.
 */
static void tree_files(const char *tree, struct strbuf *sb)
{
	walk_sb = sb;
	walk_skip = strlen(tree) + 1;
	if (nftw(tree, walk_one, 32, FTW_PHYS | FTW_ACTIONRETVAL))
		die("--kernel %s: cannot list its files: %s", tree,
		    strerror(errno));
}

/* Where kbuild looks for an in-tree build it refuses to build O= from. */
static const char *in_tree_build(const char *tree)
{
	static const char *const marks[] = { ".config", "include/config",
		"arch/x86/include/generated" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(marks); i++) {
		char *p = xasprintf("%s/%s", tree, marks[i]);
		bool there = path_exists(p);

		free(p);
		if (there)
			return marks[i];
	}
	return NULL;
}

/*
 * The tree's state as the build key sees it, into s->version; an
 * unpacked tree's file listing into files, if given (what to copy).
 */
static void tree_version(struct ksource *s, struct strbuf *files)
{
	struct strbuf own = { 0 };
	char hex[65];

	if (s->git) {
		s->commit = git(s, "rev-parse", "--verify", "-q", "HEAD", NULL);
		s->commit[strcspn(s->commit, "\n")] = 0;
		s->dirty = git_dirty(s);
		s->version = xasprintf("%s %s commit %.12s%s%s", s->tree,
				       s->release, s->commit,
				       s->dirty ? " uncommitted " : "",
				       s->dirty ? s->dirty : "");
	} else {
		if (!files)
			files = &own;
		tree_files(s->tree, files);
		sha256_hex(files->buf, files->len, hex);
		sb_free(&own);
		s->version = xasprintf("%s %s files %.16s", s->tree, s->release,
				       hex);
	}
}

static void tree_resolve(const char *arg, struct ksource *s)
{
	char buf[PATH_MAX], rel[128];
	char *mk, *kc, *x86, *dotgit;
	const char *built;

	if (!realpath(arg, buf))
		die("--kernel %s: %s (want linux-source-X.Y, a Debian package, or a path to a kernel tree)",
		    arg, strerror(errno));
	s->tree = xstrdup(buf);
	s->name = s->tree;
	mk = xasprintf("%s/Makefile", buf);
	kc = xasprintf("%s/Kconfig", buf);
	x86 = xasprintf("%s/arch/x86/Kconfig", buf);
	dotgit = xasprintf("%s/.git", buf);
	if (ksource_makefile_release(mk, rel, sizeof(rel)) ||
	    !path_exists(kc) || !path_exists(x86))
		die("--kernel %s: not a kernel source tree (want a top Makefile with VERSION and PATCHLEVEL, Kconfig and arch/x86/Kconfig)",
		    arg);
	s->release = xstrdup(rel);
	s->series = release_series(rel);
	s->git = path_exists(dotgit);
	built = s->git ? NULL : in_tree_build(buf);
	if (built)
		die("--kernel %s: the tree holds an in-tree build (%s), which kbuild refuses to build out of tree from: run 'make mrproper' there, or give a git tree",
		    arg, built);
	tree_version(s, NULL);
	free(mk);
	free(kc);
	free(x86);
	free(dotgit);
}

void ksource_resolve(const char *arg, const char *root, const char *build,
		     struct ksource *s)
{
	memset(s, 0, sizeof(*s));
	if (!arg || !*arg)
		arg = KSOURCE_DEFAULT;
	if (!strchr(arg, '/') && !strncmp(arg, "linux-source-", 13))
		package_resolve(arg, root, s);
	else
		tree_resolve(arg, s);
}

/* build/src/NAME, extracted once per package version. */
static char *pristine_tree(const struct ksource *s, const char *build)
{
	char *dir = xasprintf("%s/src/%s", build, s->name);
	char *stamp = xasprintf("%s/src/%s.ok", build, s->name);
	char *have = read_file(stamp, NULL);
	char *tmp, *argv[6];

	if (have && !strcmp(have, s->version) && path_exists(dir)) {
		free(have);
		free(stamp);
		return dir;
	}
	free(have);
	tmp = xasprintf("%s/src/.extract.%d", build, getpid());
	printf("kernel: extracting %s\n", s->tarball);
	rm_rf(tmp);
	if (mkdir_p(tmp))
		die("cannot create %s: %s", tmp, strerror(errno));
	argv[0] = "tar";
	argv[1] = "-xf";
	argv[2] = s->tarball;
	argv[3] = "-C";
	argv[4] = tmp;
	argv[5] = NULL;
	if (run_argv(argv, NULL, NULL)) {
		rm_rf(tmp);
		die("cannot extract %s", s->tarball);
	}
	rm_rf(dir);
	free(tmp);
	tmp = xasprintf("%s/src/.extract.%d/%s", build, getpid(), s->name);
	if (rename(tmp, dir))
		die("%s: no %s inside (%s)", s->tarball, s->name,
		    strerror(errno));
	*strrchr(tmp, '/') = 0;
	rm_rf(tmp);
	if (write_file_atomic(stamp, s->version, strlen(s->version)))
		die("cannot write %s: %s", stamp, strerror(errno));
	free(tmp);
	free(stamp);
	return dir;
}

char *ksource_tree(const struct ksource *s, const char *build)
{
	return s->tree ? xstrdup(s->tree) : pristine_tree(s, build);
}

/*
 * The files to copy from a tree, NUL-separated, into path: a git tree's
 * from git, an unpacked one's from all (tree_version()'s listing).
 */
static void file_list(const struct ksource *s, struct strbuf *all,
		      const char *path)
{
	struct strbuf keep = { 0 };
	char *out = NULL, *p;
	struct stat st;

	if (s->git) {
		out = git(s, "ls-files", "-z", "--cached", "--others",
			  "--exclude-standard");
	} else {
		sb_add(all, "", 1);
		out = all->buf;
		all->buf = NULL;
	}
	for (p = out; *p; p += strlen(p) + 1) {
		char *full = xasprintf("%s/%s", s->tree, p);

		/*
		 * A file deleted in the work tree, a submodule, a top out/
		 * (the copy's build folder): not copied.
		 */
		if (!is_out(p) && !lstat(full, &st) && !S_ISDIR(st.st_mode))
			sb_add(&keep, p, strlen(p) + 1);
		free(full);
		if (!s->git)
			p += strlen(p) + 1;	/* the size and time */
	}
	if (write_file_atomic(path, keep.buf ? keep.buf : "", keep.len))
		die("cannot write %s: %s", path, strerror(errno));
	free(out);
	sb_free(&keep);
}

void ksource_copy(const struct ksource *s, const char *build,
		  const char *dest, const char *log)
{
	char *cp[] = { "cp", "-al", NULL, (char *)dest, NULL };
	char *cpio[] = { "sh", "-c",
			 "cd \"$1\" && exec cpio -0pdlm --quiet \"$2\" < \"$3\"",
			 "sh", s->tree, (char *)dest, NULL, NULL };
	struct strbuf files = { 0 };
	struct ksource now;
	char *src, *list;

	if (!s->tree) {
		src = pristine_tree(s, build);
		cp[2] = src;
		if (run_argv(cp, NULL, log))
			die("cannot copy %s to %s (see %s)", src, dest, log);
		free(src);
		return;
	}
	/* The key was taken at the start: the tree must be as it was then. */
	now = *s;
	tree_version(&now, &files);
	if (strcmp(now.version, s->version))
		die("--kernel %s: the tree changed since this run began (was %s, now %s): run again",
		    s->name, s->version, now.version);
	list = xasprintf("%s.files", dest);
	file_list(s, &files, list);
	cpio[6] = list;
	if (mkdir_p(dest) || run_argv(cpio, NULL, log)) {
		unlink(list);
		die("cannot copy %s to %s (see %s)", s->tree, dest, log);
	}
	unlink(list);
	free(list);
}
