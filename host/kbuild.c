// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel: from its source (ksource.c: a Debian linux-source package or
 * the user's tree), per build key (source version, series content, config
 * fragments) a hard-linked copy with the series applied, configured from config/ (kconfig.c), built out of
 * tree with ccache.  The object folder is src/out: an O= folder directly
 * inside the source tree makes kbuild use relative paths (srctree=..),
 * so compiler command lines and preprocessed output are the same for
 * every build key and ccache hits across series.  A finished build leaves an "ok" stamp; nothing is
 * rebuilt while the key is unchanged.  One runner builds a key at a time:
 * it holds a lock on the key's folder, which the make it starts inherits,
 * so a second runner waits even for a build its dead runner left behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kbuild.h"
#include "kconfig.h"
#include "ksource.h"
#include "kstore.h"

char *series_file(const char *dir, const char *kseries)
{
	char *own = kseries ? xasprintf("%s/series-%s", dir, kseries) : NULL;

	if (own && path_exists(own))
		return own;
	free(own);
	return xasprintf("%s/series", dir);
}

int series_read(const char *dir, const char *kseries, int limit,
		char ***names, int *n, struct strbuf *keydata, char *err,
		size_t errlen)
{
	char *path = series_file(dir, kseries);
	char *text = read_file(path, NULL), *line, *save, *content, *pp;
	int lineno = 0;

	*names = NULL;
	*n = 0;
	if (!text) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		line += strspn(line, " \t");
		trim_end(line);
		if (!*line || *line == '#')
			continue;
		if (limit >= 0 && *n == limit)
			break;
		/* Quilt style: a path relative to the series' folder. */
		if (strpbrk(line, " \t") || line[0] == '/') {
			snprintf(err, errlen, "%s:%d: want one relative patch path, got '%s'",
				 path, lineno, line);
			goto fail;
		}
		pp = xasprintf("%s/%s", dir, line);
		content = read_file(pp, NULL);
		if (!content) {
			snprintf(err, errlen, "%s:%d: patch %s: %s", path,
				 lineno, pp, strerror(errno));
			free(pp);
			goto fail;
		}
		sb_printf(keydata, "patch %s\n%s\n", line, content);
		free(content);
		free(pp);
		*names = xrealloc(*names, (*n + 1) * sizeof(char *));
		(*names)[(*n)++] = xstrdup(line);
	}
	free(text);
	free(path);
	return 0;
fail:
	free(text);
	free(path);
	return -1;
}

void patch_failed_files(const char *output, struct strbuf *files)
{
	const char *p = output, *nl;
	char cur[512] = "";

	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (!strncmp(p, "patching file ", 14) ||
		    !strncmp(p, "checking file ", 14)) {
			snprintf(cur, sizeof(cur), "%.*s", (int)(nl - p - 14),
				 p + 14);
		} else if (strstr(p, "saving rejects to file ") &&
			   strstr(p, "saving rejects to file ") < nl) {
			/* patch -s prints only "... saving rejects to file X.rej" */
			const char *f = strstr(p, "saving rejects to file ") + 23;
			int len = nl - f;

			if (len > 4 && !strncmp(nl - 4, ".rej", 4))
				len -= 4;
			snprintf(cur, sizeof(cur), "%.*s", len, f);
			if (!strstr(files->buf ? files->buf : "", cur))
				sb_printf(files, "%s\n", cur);
		} else if (strstr(p, "FAILED") && strstr(p, "FAILED") < nl) {
			if (cur[0] && !strstr(files->buf ? files->buf : "", cur))
				sb_printf(files, "%s\n", cur);
		} else if (!strncmp(p, "can't find file to patch", 24)) {
			sb_printf(files, "(a file the patch names does not exist)\n");
		}
		if (!*nl)
			break;
	}
}

static void apply_series(const struct kbuild_opts *o, char **names, int n,
			 const char *tree, const char *log)
{
	int i;

	for (i = 0; i < n; i++) {
		char *pp = xasprintf("%s/%s", o->series, names[i]);
		char *argv[] = { "patch", "-p1", "-N", "--batch", "-s", "-d",
				 (char *)tree, "-i", pp, NULL };
		char *out = NULL;
		struct strbuf files = { 0 };

		printf("kernel: applying %s\n", pp);
		if (run_capture(argv, NULL, &out)) {
			FILE *f = fopen(log, "a");

			if (f) {
				fputs(out, f);
				fclose(f);
			}
			patch_failed_files(out, &files);
			rm_rf(tree);
			die("patch %s does not apply to %s (%d of %d in %s); failed in:\n%s%s",
			    pp, o->ksrc->version, i + 1, n,
			    series_file(o->series, o->ksrc->series),
			    files.buf ? files.buf : "", out);
		}
		free(out);
		free(pp);
	}
}

static void show_progress(const char *log, double t0)
{
	char buf[4096], *last, *nl;
	int fd = open(log, O_RDONLY);
	off_t end;
	ssize_t n;

	if (fd < 0)
		return;
	end = lseek(fd, 0, SEEK_END);
	n = pread(fd, buf, sizeof(buf) - 1, end > 4095 ? end - 4095 : 0);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	/* The last kbuild step line ("  CC      mm/page_io.o"). */
	for (;;) {
		while (n && buf[n - 1] == '\n')
			buf[--n] = 0;
		last = strrchr(buf, '\n');
		last = last ? last + 1 : buf;
		if (last == buf || (last[0] == ' ' && last[2] >= 'A' &&
				    last[2] <= 'Z'))
			break;
		n = last - buf;
	}
	nl = last + strspn(last, " ");
	printf("kernel: building, %.0fs elapsed, at: %.70s\n", now_s() - t0, nl);
	fflush(stdout);
}

/* make bzImage, printing where it is every 15 s. */
static void compile(const struct kbuild_opts *o, const char *dir,
		    const char *log)
{
	char *src = xasprintf("%s/src", dir);
	char *jobs = xasprintf("-j%d", o->jobs);
	char *argv[] = { "make", "O=out", jobs, "CC=ccache gcc",
			 "bzImage", NULL };
	int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	double t0 = now_s(), next = t0 + 15;
	pid_t pid;
	int st;

	setenv("CCACHE_BASEDIR", o->build, 1);
	setenv("KBUILD_BUILD_TIMESTAMP", "@0", 1);
	setenv("KBUILD_BUILD_USER", "stacktest", 1);
	setenv("KBUILD_BUILD_HOST", "stacktest", 1);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		child_setup(src, fd);
		execvp(argv[0], argv);
		_exit(127);
	}
	child_track(pid);
	close(fd);
	while (waitpid(pid, &st, WNOHANG) == 0) {
		usleep(200000);
		if (now_s() >= next) {
			show_progress(log, t0);
			next += 15;
		}
	}
	child_untrack(pid);
	if (stop_requested)
		die("interrupted while building the kernel");
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		die("kernel build failed; see %s", log);
	free(src);
	free(jobs);
}

/*
 * The build key, and in pristine the key of the same source and config
 * with no patches (the key's seed, see seed_objects()).
 */
static void build_key(const struct kbuild_opts *o, struct kernel *k,
		      const struct fragments *f, char ***names, int *n,
		      char pristine[17])
{
	struct strbuf kd = { 0 }, pd = { 0 };
	char err[1024], hex[65];

	k->source_version = xstrdup(o->ksrc->version);
	sb_printf(&kd, "source %s\n", k->source_version);
	sb_printf(&pd, "source %s\n", k->source_version);
	if (series_read(o->series, o->ksrc->series, o->prefix, names, n, &kd,
			err, sizeof(err)))
		die("%s", err);
	kconfig_key(f, &kd);
	kconfig_key(f, &pd);
	sha256_hex(kd.buf, kd.len, hex);
	memcpy(k->key, hex, 16);
	k->key[16] = 0;
	sha256_hex(pd.buf, pd.len, hex);
	memcpy(pristine, hex, 16);
	pristine[16] = 0;
	sb_free(&kd);
	sb_free(&pd);
}

/*
 * A path whose change a seeded build could miss: tools/ (objtool's build
 * records absolute paths), scripts/ and arch/ARCH/tools/ (host programs
 * such as kallsyms, sorttable and relocs: kbuild remakes them but does not
 * relink vmlinux for them).
 */
static bool unseedable_path(const char *path)
{
	return !strncmp(path, "tools/", 6) || !strncmp(path, "scripts/", 8) ||
	       (!strncmp(path, "arch/", 5) && strstr(path, "/tools/"));
}

/* A path that can change what kconfig makes of the same fragments. */
static bool kconfig_path(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "Kconfig", 7) ||
	       !strncmp(path, "kernel/configs/", 15) ||
	       (!strncmp(path, "arch/", 5) && strstr(path, "/configs/"));
}

const char *patch_path(const char *line, char *buf, size_t len)
{
	static const char *const git[] = { "rename from ", "rename to ",
					   "copy from ", "copy to " };
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(git); i++) {
		n = strlen(git[i]);
		if (!strncmp(line, git[i], n)) {
			snprintf(buf, len, "%s", line + n);
			return buf;
		}
	}
	if (strncmp(line, "--- ", 4) && strncmp(line, "+++ ", 4))
		return NULL;
	line += 4;
	n = strcspn(line, "\t");
	if (n == 9 && !strncmp(line, "/dev/null", 9))
		return NULL;
	snprintf(buf, len, "%.*s", (int)n, line);
	trim_end(buf);
	return strchr(buf, '/') ? strchr(buf, '/') + 1 : buf;
}

/* Does a patch of the series name a file that is? (A patch unread: yes.) */
static bool series_touches(const struct kbuild_opts *o, char **names, int n,
			   bool (*is)(const char *path))
{
	bool touches = false;
	char *text, *line, *save, buf[1024];
	const char *path;
	int i;

	for (i = 0; i < n && !touches; i++) {
		char *pp = xasprintf("%s/%s", o->series, names[i]);

		text = read_file(pp, NULL);
		touches = !text;
		for (line = text ? strtok_r(text, "\n", &save) : NULL;
		     line && !touches; line = strtok_r(NULL, "\n", &save)) {
			path = patch_path(line, buf, sizeof(buf));
			touches = path && is(path);
		}
		free(text);
		free(pp);
	}
	return touches;
}

/* The seed's absolute tree path, and this key's, for rebase_one(). */
static const char *rebase_from, *rebase_to;

static int rebase_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	const char *base = path + ftw->base;
	size_t flen = strlen(rebase_from), len, n;
	struct strbuf out = { 0 };
	char *text, *p, *hit;

	(void)st;
	if (type != FTW_F || base[0] != '.' ||
	    (!strstr(base, ".cmd") && !strstr(base, ".d")))
		return 0;
	text = read_file(path, &len);
	if (!text || !strstr(text, rebase_from)) {
		free(text);
		return 0;
	}
	for (p = text; (hit = strstr(p, rebase_from)); p = hit + flen) {
		sb_add(&out, p, hit - p);
		sb_add(&out, rebase_to, strlen(rebase_to));
	}
	n = len - (p - text);
	sb_add(&out, p, n);
	free(text);
	if (write_file_atomic(path, out.buf, out.len))
		die("cannot write %s: %s", path, strerror(errno));
	sb_free(&out);
	return 0;
}

/* Where SEED's objects were built: its tree file, else REAL/src. */
static char *built_at(const char *seed, const char *real)
{
	char *path = xasprintf("%s/tree", seed);
	char *text = read_file(path, NULL);

	free(path);
	if (text && *text) {
		trim_end(text);
		return text;
	}
	free(text);
	return xasprintf("%s/src", real);
}

/*
 * From the kernel store, if it may be used and has the key.  A fetch cut
 * short (tree, no ok: the key is not built) left the store's files here:
 * they go first, store or not, so nothing builds through their links.
 */
static bool fetch(struct kernel *k, bool use_store)
{
	char *tree = xasprintf("%s/tree", k->dir);
	char *log = xasprintf("%s/store.log", k->dir);
	bool taken;

	if (path_exists(tree))
		kstore_clear(k->dir);
	taken = use_store && kstore_fetch(k->key, k->dir, log);
	free(tree);
	free(log);
	return taken;
}

/* Where this key's objects are built, for copy_objects() of a later seed. */
static void write_tree(const char *dir)
{
	char *src = xasprintf("%s/src", dir), *path, real[PATH_MAX];

	path = xasprintf("%s/tree", dir);
	if (!realpath(src, real) || write_file_atomic(path, real, strlen(real)))
		die("cannot write %s: %s", path, strerror(errno));
	free(path);
	free(src);
}

/* SEED's objects (SEED/src/out) into tree/out, as if built there. */
static void copy_objects(const struct kbuild_opts *o, const char *seed,
			 const char *tree, const char *final, const char *log)
{
	char *from = xasprintf("%s/src/out", seed);
	char *to = xasprintf("%s/out", tree);
	char *cp[] = { "cp", "-a", from, to, NULL };
	char *tools, *version, real[PATH_MAX], dir[PATH_MAX];

	if (run_argv(cp, NULL, log))
		die("cannot copy %s to %s (see %s)", from, to, log);
	/* kbuild's build number: #1, as in a build from scratch. */
	version = xasprintf("%s/.version", to);
	unlink(version);
	free(version);
	/*
	 * objtool records physical paths: resolve symlinks.  A seed from
	 * the kernel store was built elsewhere: its tree file says where.
	 */
	if (!realpath(seed, real) || !realpath(o->build, dir))
		die("cannot resolve %s: %s", seed, strerror(errno));
	rebase_from = built_at(seed, real);
	rebase_to = xasprintf("%s%s", dir, final + strlen(o->build));
	tools = xasprintf("%s/tools", to);
	if (path_exists(tools) && nftw(tools, rebase_one, 32, FTW_PHYS))
		die("cannot rewrite the paths under %s", tools);
	free((char *)rebase_from);
	free((char *)rebase_to);
	rebase_from = rebase_to = NULL;
	free(tools);
	free(from);
	free(to);
}

/*
 * Whether kernel KEY is built and not being built (its builder holds the
 * lock): *lock keeps it shared while we copy; close it after.
 */
static bool seed_ready(const struct kbuild_opts *o, const char *key,
		       int *lock)
{
	char *seed = xasprintf("%s/kernels/%s", o->build, key);
	char *stamp = xasprintf("%s/ok", seed);
	char *image = xasprintf("%s/bzImage", seed);
	char *lockp = xasprintf("%s/lock", seed);
	char *out = xasprintf("%s/src/out", seed);
	bool ok;

	*lock = open(lockp, O_RDONLY | O_CLOEXEC);
	ok = *lock >= 0 && !flock(*lock, LOCK_SH | LOCK_NB) &&
	     path_exists(stamp) && path_exists(image) && path_exists(out);
	free(seed);
	free(stamp);
	free(image);
	free(lockp);
	free(out);
	return ok;
}

/*
 * Seed a patched tree's object folder with the pristine key's, when that
 * key is built: the same source and config without the series.  kbuild
 * then remakes only what the patches changed (patch(1) gives each file it
 * writes a new mtime, newer than every seed object) and what depends on
 * it, the way a developer's rebuild after an edit does: about 25 s in
 * place of 70 s of ccache hits.  Only the pristine key can seed, never
 * another series (its patched objects would be newer than this tree's
 * unpatched files and stay), and not when a patch changes tools/.
 * objtool's build records absolute paths in its .cmd and .d files: they
 * are rewritten from the seed's tree to this one (else objtool relinks
 * and every object that it checked is remade).  The image is the same,
 * byte for byte, as a build from scratch (make bench compares them; there
 * STACKTEST_NO_SEED=1 builds from scratch).
 */
static bool seed_objects(const struct kbuild_opts *o, const char *pristine,
			 char **names, int n, const char *tree,
			 const char *final, const char *log)
{
	char *seed = xasprintf("%s/kernels/%s", o->build, pristine);
	int lock = -1;
	bool seeded = n && !getenv("STACKTEST_NO_SEED") &&
		      !series_touches(o, names, n, unseedable_path) &&
		      seed_ready(o, pristine, &lock);

	if (seeded) {
		printf("kernel: objects seeded from %s (no patches); remaking what the series changed\n",
		       pristine);
		copy_objects(o, seed, tree, final, log);
	}
	if (lock >= 0)
		close(lock);
	free(seed);
	return seeded;
}

/*
 * A kernel whose series is its parent's (o->parent, built) plus more
 * patches (a mutant: one): the parent's tree, its sources hard-linked
 * (patch(1) writes a new file, never through a link) and its objects
 * copied, mtimes kept, so kbuild remakes only what the new patches
 * change.  Not when they change tools/ or scripts/ (see seed_objects).
 */
static bool from_parent(const struct kbuild_opts *o, char **names, int n,
			const char *tree, const char *final, const char *log)
{
	char *pdir = xasprintf("%s/kernels/%s", o->build, o->parent);
	char *from = xasprintf("%s/src", pdir), *out;
	char *cp[] = { "cp", "-al", from, (char *)tree, NULL };
	int lock = -1, extra = n - o->parent_patches;
	bool ok = extra > 0 && !getenv("STACKTEST_NO_SEED") &&
		  !series_touches(o, names + o->parent_patches, extra,
				  unseedable_path) &&
		  seed_ready(o, o->parent, &lock);

	if (ok) {
		printf("kernel: derived from %s (its %d patches built); remaking what the other %d change\n",
		       o->parent, o->parent_patches, extra);
		if (run_argv(cp, NULL, log))
			die("cannot copy %s to %s (see %s)", from, tree, log);
		out = xasprintf("%s/out", tree);
		rm_rf(out);
		free(out);
		copy_objects(o, pdir, tree, final, log);
	}
	if (lock >= 0)
		close(lock);
	free(pdir);
	free(from);
	return ok;
}

/*
 * A seeded tree whose series changes no Kconfig keeps the seed's
 * .config: the same fragments on the same Kconfig make the same config,
 * and the same layer kinds are unavailable.  Saves kconfig's five passes
 * (about 10 s).  The seed is the pristine key, or a mutant's parent, whose
 * .config came with its objects.
 */
static bool config_as_seed(const struct kbuild_opts *o, const char *pristine,
			   char **names, int n, struct strbuf *unavailable)
{
	char *path = xasprintf("%s/kernels/%s/unavailable", o->build, pristine);
	char *text = read_file(path, NULL);

	free(path);
	if (!text || series_touches(o, names, n, kconfig_path)) {
		free(text);
		return false;
	}
	printf("kernel: configured as %s (no patch changes a Kconfig)\n",
	       pristine);
	sb_add(unavailable, text, strlen(text));
	free(text);
	return true;
}

/*
 * Lock DIR/lock for this build (the fd is inherited by the build's
 * children on purpose).  Returns the fd; waits, saying so, while another
 * runner or its orphaned make holds it.
 */
static int lock_build(const char *dir, const char *key)
{
	char *path = xasprintf("%s/lock", dir);
	int fd = open(path, O_RDWR | O_CREAT, 0644);

	if (fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		printf("kernel: %s is being built by another runner; waiting for it\n",
		       key);
		fflush(stdout);
		if (flock(fd, LOCK_EX)) {
			if (errno == EINTR)
				die("stopped while waiting for the build of %s",
				    key);
			die("cannot lock %s: %s", path, strerror(errno));
		}
	}
	free(path);
	return fd;
}

/* The key was built: its stamp and its image are there. */
static bool built(const char *stamp, const struct kernel *k)
{
	return path_exists(stamp) && path_exists(k->bzimage);
}

char *kbuild_dir(const struct kbuild_opts *o)
{
	struct kernel k = { 0 };
	struct fragments f;
	char **names, pristine[17];
	int n, i;

	kconfig_fragments(o->config_dir, o->ksrc->series, o->profile,
			  o->fragment, &f);
	build_key(o, &k, &f, &names, &n, pristine);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(k.source_version);
	return xasprintf("%s/kernels/%s", o->build, k.key);
}

void kbuild(const struct kbuild_opts *o, struct kernel *k)
{
	char **names, *src, *tmp, *log, *stamp, *unav, pristine[17];
	struct strbuf unavailable = { 0 };
	const char *seed = pristine;
	struct fragments f;
	double t0 = now_s();
	int n, i, lock = -1, skip = 0;
	bool seeded = false;

	memset(k, 0, sizeof(*k));
	k->src = o->ksrc;
	kconfig_fragments(o->config_dir, o->ksrc->series, o->profile,
			  o->fragment, &f);
	build_key(o, k, &f, &names, &n, pristine);
	k->dir = xasprintf("%s/kernels/%s", o->build, k->key);
	k->bzimage = xasprintf("%s/bzImage", k->dir);
	k->config = xasprintf("%s/config", k->dir);
	k->sysmap = xasprintf("%s/src/out/System.map", k->dir);
	stamp = xasprintf("%s/ok", k->dir);
	unav = xasprintf("%s/unavailable", k->dir);
	if (built(stamp, k))
		goto cached;
	if (mkdir_p(k->dir))
		die("cannot create %s: %s", k->dir, strerror(errno));
	lock = lock_build(k->dir, k->key);
	if (built(stamp, k))
		goto cached;
	if (fetch(k, !o->parent && kstore_dir()))
		goto cached;
	printf("kernel: building %s (%s, %d patches from %s%s%s)\n", k->key,
	       k->source_version, n, o->series,
	       o->profile ? ", profile " : "", o->profile ? o->profile : "");
	src = xasprintf("%s/src", k->dir);
	log = xasprintf("%s/build.log", k->dir);
	if (!path_exists(src)) {
		/* Patch a staging copy; only a fully patched tree is kept. */
		tmp = xasprintf("%s/src.tmp", k->dir);
		rm_rf(tmp);
		if (o->parent && from_parent(o, names, n, tmp, src, log)) {
			seed = o->parent;
			skip = o->parent_patches;
			seeded = true;
		} else {
			ksource_copy(o->ksrc, o->build, tmp, log);
			/* Seed first: every file the series writes is newer. */
			seeded = seed_objects(o, pristine, names, n, tmp, src,
					      log);
		}
		apply_series(o, names + skip, n - skip, tmp, log);
		if (rename(tmp, src))
			die("rename %s: %s", tmp, strerror(errno));
		free(tmp);
	}
	tmp = xasprintf("%s/src/out", k->dir);
	mkdir_p(tmp);
	free(tmp);
	if (!seeded || !config_as_seed(o, seed, names + skip, n - skip,
				       &unavailable))
		kconfig_make(&f, src, log, &unavailable);
	k->unavailable = unavailable.buf ? unavailable.buf : xstrdup("");
	if (write_file_atomic(unav, k->unavailable, strlen(k->unavailable)))
		die("cannot write %s: %s", unav, strerror(errno));
	if (*k->unavailable)
		printf("kernel: layer kinds this kernel lacks:\n%s", k->unavailable);
	compile(o, k->dir, log);
	tmp = xasprintf("%s/src/out/arch/x86/boot/bzImage", k->dir);
	copy_file(tmp, k->bzimage);
	free(tmp);
	tmp = xasprintf("%s/src/out/.config", k->dir);
	copy_file(tmp, k->config);
	free(tmp);
	write_tree(k->dir);
	if (kstore_write_toolchain(k->dir))
		die("cannot write %s/toolchain: %s", k->dir, strerror(errno));
	if (write_file_atomic(stamp, k->source_version,
			      strlen(k->source_version)))
		die("cannot write %s: %s", stamp, strerror(errno));
	free(src);
	free(log);
	goto out;
cached:
	k->cached = true;
	k->unavailable = read_file(unav, NULL);
out:
	/*
	 * Kept in the store after its build or a use (not a mutant's: one
	 * build, thrown away after its run).
	 */
	if (!o->parent && kstore_dir()) {
		log = xasprintf("%s/store.log", k->dir);
		kstore_put(k->key, k->dir, log);
		free(log);
	}
	if (lock >= 0)
		close(lock);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(stamp);
	free(unav);
	if (!k->unavailable)
		k->unavailable = xstrdup("");
	k->seconds = now_s() - t0;
}
