// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel: Debian's linux-source tarball, extracted once; per build key
 * (source version, series content, config fragments) a hard-linked copy
 * with the series applied, configured from config/ (kconfig.c), built out of
 * tree with ccache.  The object folder is src/out: an O= folder directly
 * inside the source tree makes kbuild use relative paths (srctree=..),
 * so compiler command lines and preprocessed output are the same for
 * every build key and ccache hits across series.  A finished build leaves an "ok" stamp; nothing is
 * rebuilt while the key is unchanged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kbuild.h"
#include "kconfig.h"

#define SRC_NAME "linux-source-6.1"

static char *source_version(const char *tarball)
{
	char *argv[] = { "dpkg-query", "-W", "-f=${Version}", SRC_NAME, NULL };
	char *out = NULL;
	struct stat st;

	if (stat(tarball, &st))
		die("%s: %s (install the Debian package %s)", tarball,
		    strerror(errno), SRC_NAME);
	if (run_capture(argv, NULL, &out) == 0 && out[0]) {
		char *v = xasprintf("%s %s", SRC_NAME, out);

		free(out);
		return v;
	}
	free(out);
	return xasprintf("%s size %lld mtime %lld", tarball,
			 (long long)st.st_size, (long long)st.st_mtime);
}

/* build/src/linux-source-6.1, extracted once per source version. */
static char *pristine_tree(const struct kbuild_opts *o, const char *version)
{
	char *dir = xasprintf("%s/src/%s", o->build, SRC_NAME);
	char *stamp = xasprintf("%s/src/%s.ok", o->build, SRC_NAME);
	char *have = read_file(stamp, NULL);
	char *tmp, *argv[6];

	if (have && !strcmp(have, version) && path_exists(dir)) {
		free(have);
		free(stamp);
		return dir;
	}
	free(have);
	tmp = xasprintf("%s/src/.extract.%d", o->build, getpid());
	printf("kernel: extracting %s\n", o->tarball);
	rm_rf(tmp);
	if (mkdir_p(tmp))
		die("cannot create %s: %s", tmp, strerror(errno));
	argv[0] = "tar";
	argv[1] = "-xf";
	argv[2] = (char *)o->tarball;
	argv[3] = "-C";
	argv[4] = tmp;
	argv[5] = NULL;
	if (run_argv(argv, NULL, NULL)) {
		rm_rf(tmp);
		die("cannot extract %s", o->tarball);
	}
	rm_rf(dir);
	free(tmp);
	tmp = xasprintf("%s/src/.extract.%d/%s", o->build, getpid(), SRC_NAME);
	if (rename(tmp, dir))
		die("%s: no %s inside (%s)", o->tarball, SRC_NAME,
		    strerror(errno));
	*strrchr(tmp, '/') = 0;
	rm_rf(tmp);
	if (write_file_atomic(stamp, version, strlen(version)))
		die("cannot write %s: %s", stamp, strerror(errno));
	free(tmp);
	free(stamp);
	return dir;
}

static void trim(char *s)
{
	char *e = s + strlen(s);

	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
}

int series_read(const char *dir, int limit, char ***names, int *n,
		struct strbuf *keydata, char *err, size_t errlen)
{
	char *path = xasprintf("%s/series", dir);
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
		trim(line);
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
			die("patch %s does not apply to %s (%d of %d in %s/series); failed in:\n%s%s",
			    pp, SRC_NAME, i + 1, n, o->series,
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

static void copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_file(from, &len);

	if (!data || write_file_atomic(to, data, len))
		die("cannot copy %s to %s: %s", from, to, strerror(errno));
	free(data);
}

static void build_key(const struct kbuild_opts *o, struct kernel *k,
		      const struct fragments *f, char ***names, int *n)
{
	struct strbuf kd = { 0 };
	char err[1024], hex[65];

	k->source_version = source_version(o->tarball);
	sb_printf(&kd, "source %s\n", k->source_version);
	if (series_read(o->series, o->prefix, names, n, &kd, err, sizeof(err)))
		die("%s", err);
	kconfig_key(f, &kd);
	sha256_hex(kd.buf, kd.len, hex);
	memcpy(k->key, hex, 16);
	k->key[16] = 0;
	sb_free(&kd);
}

void kbuild(const struct kbuild_opts *o, struct kernel *k)
{
	char **names, *pristine, *src, *tmp, *log, *stamp, *unav;
	char *cpargv[] = { "cp", "-al", NULL, NULL, NULL };
	struct strbuf unavailable = { 0 };
	struct fragments f;
	double t0 = now_s();
	int n, i;

	memset(k, 0, sizeof(*k));
	kconfig_fragments(o->config_dir, o->fragment, &f);
	build_key(o, k, &f, &names, &n);
	k->dir = xasprintf("%s/kernels/%s", o->build, k->key);
	k->bzimage = xasprintf("%s/bzImage", k->dir);
	k->config = xasprintf("%s/config", k->dir);
	stamp = xasprintf("%s/ok", k->dir);
	unav = xasprintf("%s/unavailable", k->dir);
	if (path_exists(stamp) && path_exists(k->bzimage)) {
		k->cached = true;
		k->unavailable = read_file(unav, NULL);
		goto out;
	}
	printf("kernel: building %s (%s, %d patches from %s)\n", k->key,
	       k->source_version, n, o->series);
	pristine = pristine_tree(o, k->source_version);
	src = xasprintf("%s/src", k->dir);
	log = xasprintf("%s/build.log", k->dir);
	if (mkdir_p(k->dir))
		die("cannot create %s: %s", k->dir, strerror(errno));
	if (!path_exists(src)) {
		/* Patch a staging copy; only a fully patched tree is kept. */
		tmp = xasprintf("%s/src.tmp", k->dir);
		rm_rf(tmp);
		cpargv[2] = pristine;
		cpargv[3] = tmp;
		if (run_argv(cpargv, NULL, log))
			die("cannot copy %s to %s", pristine, tmp);
		apply_series(o, names, n, tmp, log);
		if (rename(tmp, src))
			die("rename %s: %s", tmp, strerror(errno));
		free(tmp);
	}
	tmp = xasprintf("%s/src/out", k->dir);
	mkdir_p(tmp);
	free(tmp);
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
	if (write_file_atomic(stamp, k->source_version,
			      strlen(k->source_version)))
		die("cannot write %s: %s", stamp, strerror(errno));
	free(src);
	free(log);
	free(pristine);
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(stamp);
	free(unav);
	if (!k->unavailable)
		k->unavailable = xstrdup("");
	k->seconds = now_s() - t0;
}
