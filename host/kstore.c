// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel store (kstore.h), by default ~/.cache/stacktest/kernels;
 * STACKTEST_KERNEL_STORE names another, or none when empty.  An entry is STORE/KEY: the kernel
 * folder's bzImage, config, unavailable, build.log, tree (where its
 * objects were built: copy_objects() rewrites objtool's paths from it)
 * and src, hard-linked, plus "compiler": gcc's version, which the key
 * does not hold; an entry built by another gcc is not taken.  Entries
 * come in whole (a temporary folder renamed); the least recently used
 * go once there are more than KSTORE_KEEP.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "kstore.h"
#include "util.h"

#define KSTORE_KEEP 24

static const char *const entry_files[] = {
	"bzImage", "config", "unavailable", "build.log", "tree", "src", "ok",
};

const char *kstore_dir(void)
{
	static char *dflt;
	const char *d = getenv("STACKTEST_KERNEL_STORE");
	const char *home = getenv("HOME");

	if (d)
		return *d == '/' ? d : NULL;
	if (!dflt && home && *home == '/')
		dflt = xasprintf("%s/.cache/stacktest/kernels", home);
	return dflt;
}

/* Hard links need the store and dir on one file system. */
static bool same_fs(const char *store, const char *dir)
{
	struct stat a, b;

	return !mkdir_p(store) && !stat(store, &a) && !stat(dir, &b) &&
	       a.st_dev == b.st_dev;
}

/* Dir back to its state before a fetch that failed half-way. */
static void unlink_files(const char *dir)
{
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(entry_files); i++) {
		char *p = xasprintf("%s/%s", dir, entry_files[i]);

		rm_rf(p);
		free(p);
	}
}

/* gcc's version, the compiler kbuild runs (through ccache). */
static char *compiler(void)
{
	char buf[128] = "";
	FILE *p = popen("gcc -dumpfullversion 2>/dev/null", "r");

	if (p) {
		if (!fgets(buf, sizeof(buf), p))
			buf[0] = 0;
		pclose(p);
	}
	trim_end(buf);
	return xstrdup(buf);
}

static bool same_compiler(const char *entry)
{
	char *path = xasprintf("%s/compiler", entry);
	char *text = read_file(path, NULL), *now = compiler();
	bool same;

	if (text)
		trim_end(text);
	same = text && *now && !strcmp(text, now);
	free(path);
	free(text);
	free(now);
	return same;
}

/* cp -al FROM/NAME... TO: NAMEs that exist. */
static int link_files(const char *from, const char *to, const char *log)
{
	char *argv[ARRAY_SIZE(entry_files) + 5];
	int n = 0, i, rc;

	argv[n++] = "cp";
	argv[n++] = "-al";
	for (i = 0; i < (int)ARRAY_SIZE(entry_files); i++) {
		char *p = xasprintf("%s/%s", from, entry_files[i]);

		if (path_exists(p))
			argv[n++] = p;
		else
			free(p);
	}
	argv[n++] = (char *)to;
	argv[n] = NULL;
	rc = run_argv(argv, NULL, log);
	for (i = 2; i < n - 1; i++)
		free(argv[i]);
	return rc;
}

bool kstore_fetch(const char *key, const char *dir, const char *log)
{
	const char *store = kstore_dir();
	char *entry, *ok;
	bool taken = false;

	if (!store)
		return false;
	entry = xasprintf("%s/%s", store, key);
	ok = xasprintf("%s/ok", entry);
	if (path_exists(ok) && same_compiler(entry) && same_fs(store, dir)) {
		taken = !link_files(entry, dir, log);
		if (taken) {
			utimes(entry, NULL);
			printf("kernel: %s taken from the kernel store %s\n",
			       key, store);
		} else {
			warnx_("cannot link %s into %s (see %s); building it",
			       entry, dir, log);
			unlink_files(dir);
		}
	}
	free(entry);
	free(ok);
	return taken;
}

/* Remove the least recently used entries past KSTORE_KEEP. */
static void evict(const char *store)
{
	DIR *d = opendir(store);
	struct dirent *e;
	char *oldest = NULL;
	time_t t_old = 0;
	int n = 0;
	struct stat st;

	while (d && (e = readdir(d))) {
		char *p;

		if (e->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", store, e->d_name);
		if (!stat(p, &st) && S_ISDIR(st.st_mode)) {
			n++;
			if (!oldest || st.st_mtime < t_old) {
				free(oldest);
				oldest = xstrdup(p);
				t_old = st.st_mtime;
			}
		}
		free(p);
	}
	if (d)
		closedir(d);
	if (n > KSTORE_KEEP && oldest) {
		rm_rf(oldest);
		free(oldest);
		evict(store);
		return;
	}
	free(oldest);
}

void kstore_put(const char *key, const char *dir, const char *log)
{
	const char *store = kstore_dir();
	char *entry, *tmp, *cc, *path;

	if (!store)
		return;
	entry = xasprintf("%s/%s", store, key);
	if (path_exists(entry) || !same_fs(store, dir)) {
		utimes(entry, NULL);	/* used: the last to go */
		free(entry);
		return;
	}
	tmp = xasprintf("%s/.%s.%d", store, key, (int)getpid());
	rm_rf(tmp);
	cc = compiler();
	path = xasprintf("%s/compiler", tmp);
	if (mkdir_p(tmp) || link_files(dir, tmp, log) ||
	    write_file_atomic(path, cc, strlen(cc)) || rename(tmp, entry)) {
		/* Another runner stored it first, or the store is elsewhere. */
		if (!path_exists(entry))
			warnx_("kernel %s not kept in the store %s (see %s)", key,
			       store, log);
		rm_rf(tmp);
	} else {
		printf("kernel: %s kept in the kernel store %s\n", key, store);
		evict(store);
	}
	free(path);
	free(cc);
	free(tmp);
	free(entry);
}
