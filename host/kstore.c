// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel store (kstore.h), by default ~/.cache/stacktest/kernels;
 * STACKTEST_KERNEL_STORE names another, or none when empty.  An entry is
 * STORE/KEY: the kernel folder's tree (where its objects were built:
 * copy_objects() rewrites objtool's paths from it), bzImage, config,
 * unavailable, build.log, src and ok, hard-linked, and "toolchain",
 * written at its build: what the build key does not hold but the image
 * depends on (gcc's and ld's versions, kbuild's flag variables,
 * KSTORE_RECIPE).  Only a folder built by what builds now goes in, and
 * only an entry built so is taken.  Entries come in whole (a temporary
 * folder renamed) and go whole (renamed away, then removed), the least
 * recently used once there are more than KSTORE_KEEP.
 *
 * A fetch links tree first and ok last: a build folder that has tree but
 * no ok holds a fetch cut short, whose files are the store's, and kbuild
 * removes them (kstore_clear()) before it builds there.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "kstore.h"
#include "util.h"

#define KSTORE_KEEP 32	/* make check keeps about 20 */
/* Bump when kbuild's recipe (compile(), kconfig) changes the image. */
#define KSTORE_RECIPE 1
/* A temporary folder this old is a dead runner's. */
#define KSTORE_STALE_S 3600

/* In link order: tree first, ok last. */
static const char *const entry_files[] = {
	"tree", "toolchain", "bzImage", "config", "unavailable", "build.log",
	"src", "ok",
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

/* The first line cmd prints into sb; false when it prints none. */
static bool first_line(const char *cmd, struct strbuf *sb)
{
	char buf[256] = "";
	FILE *p = popen(cmd, "r");

	if (p) {
		if (!fgets(buf, sizeof(buf), p))
			buf[0] = 0;
		pclose(p);
	}
	buf[strcspn(buf, "\n")] = 0;
	sb_printf(sb, "%s\n", buf);
	return *buf;
}

/*
 * NULL when gcc's or ld's version cannot be read: then no store.  Asked
 * once per runner (each kernel it uses asks again otherwise).
 */
static const char *toolchain(void)
{
	static const char *const vars[] = {
		"KCFLAGS", "KCPPFLAGS", "KAFLAGS", "KRUSTFLAGS", "LLVM",
		"CROSS_COMPILE", "ARCH", "LOCALVERSION",
	};
	static struct strbuf sb;
	static bool asked;
	size_t i;

	if (asked)
		return sb.buf;
	asked = true;
	sb_printf(&sb, "recipe %d\n", KSTORE_RECIPE);
	if (!first_line("gcc -dumpfullversion 2>/dev/null", &sb) ||
	    !first_line("ld --version 2>/dev/null", &sb)) {
		sb_free(&sb);
		return NULL;
	}
	for (i = 0; i < ARRAY_SIZE(vars); i++)
		if (getenv(vars[i]))
			sb_printf(&sb, "%s=%s\n", vars[i], getenv(vars[i]));
	return sb.buf;
}

int kstore_write_toolchain(const char *dir)
{
	const char *tc = toolchain();
	char *path = xasprintf("%s/toolchain", dir);
	int rc = tc ? write_file_atomic(path, tc, strlen(tc)) : 0;

	free(path);
	return rc;
}

/* Folder's toolchain file says what builds now (NULL: unknown, never). */
static bool built_by(const char *folder, const char *now)
{
	char *path = xasprintf("%s/toolchain", folder);
	char *text = read_file(path, NULL);
	bool same = now && text && !strcmp(text, now);

	free(path);
	free(text);
	return same;
}

/* Hard links need the store and dir on one file system. */
static bool same_fs(const char *store, const char *dir)
{
	struct stat a, b;

	return !mkdir_p(store) && !stat(store, &a) && !stat(dir, &b) &&
	       a.st_dev == b.st_dev;
}

void kstore_clear(const char *dir)
{
	char *staging = xasprintf("%s/src.tmp", dir);
	int i;

	rm_rf(staging);
	free(staging);
	for (i = ARRAY_SIZE(entry_files) - 1; i >= 0; i--) {
		char *p = xasprintf("%s/%s", dir, entry_files[i]);

		rm_rf(p);
		free(p);
	}
}

/* cp -al FROM/NAME... TO: the NAMEs that exist, in entry_files' order. */
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
	const char *now = toolchain();
	char *entry, *ok;
	bool taken = false;

	if (!store)
		return false;
	entry = xasprintf("%s/%s", store, key);
	ok = xasprintf("%s/ok", entry);
	if (path_exists(ok) && built_by(entry, now) && same_fs(store, dir)) {
		/* Used now: eviction takes it last. */
		utimes(entry, NULL);
		/* What an interrupted build of this key left goes. */
		kstore_clear(dir);
		/* Evicted while linking: its ok went first, or is gone. */
		taken = !link_files(entry, dir, log) && path_exists(ok);
		if (taken) {
			printf("kernel: %s taken from the kernel store %s\n",
			       key, store);
		} else {
			warnx_("cannot link %s into %s (see %s); building it",
			       entry, dir, log);
			kstore_clear(dir);
		}
	}
	free(entry);
	free(ok);
	return taken;
}

/* A build key: 16 hex digits (nothing else in the store is an entry). */
static bool is_key(const char *name)
{
	return strlen(name) == 16 && strspn(name, "0123456789abcdef") == 16;
}

/* Ours: .KEY.PID (a put) or .gone.PID.N (an entry on its way out). */
static bool is_temporary(const char *name)
{
	return (name[0] == '.' && strlen(name) > 17 && name[17] == '.' &&
		strspn(name + 1, "0123456789abcdef") == 16) ||
	       !strncmp(name, ".gone.", 6);
}

/* A temporary folder untouched for an hour is a dead runner's: removed. */
static void remove_stale(const char *path, const struct stat *st)
{
	if (time(NULL) - st->st_mtime > KSTORE_STALE_S)
		rm_rf(path);
}

/* The least recently used entry in oldest (NULL: none); how many there are. */
static int scan(const char *store, char **oldest)
{
	DIR *d = opendir(store);
	struct dirent *e;
	time_t t_old = 0;
	struct stat st;
	int n = 0;

	*oldest = NULL;
	while (d && (e = readdir(d))) {
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", store, e->d_name);
		if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
			free(p);
			continue;
		}
		if (is_temporary(e->d_name)) {
			remove_stale(p, &st);
		} else if (is_key(e->d_name)) {
			n++;
			if (!*oldest || st.st_mtime < t_old) {
				free(*oldest);
				*oldest = xstrdup(p);
				t_old = st.st_mtime;
			}
		}
		free(p);
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * Folder out of the store whole: renamed to a name of ours (its time set
 * now, so no other runner takes it for a dead one's), then removed.
 */
static int remove_entry(const char *store, const char *folder)
{
	static int seq;
	char *gone = xasprintf("%s/.gone.%d.%d", store, (int)getpid(), seq++);
	int rc;

	rm_rf(gone);
	rc = rename(folder, gone);
	if (!rc) {
		utimes(gone, NULL);
		rc = rm_rf(gone);
	}
	free(gone);
	return rc;
}

/* Past KSTORE_KEEP entries, the least recently used go. */
static void evict(const char *store)
{
	char *oldest = NULL;
	int rc = 0;

	while (!rc && scan(store, &oldest) > KSTORE_KEEP && oldest) {
		rc = remove_entry(store, oldest);
		free(oldest);
		oldest = NULL;
	}
	free(oldest);
	if (rc)
		warnx_("cannot remove an old entry of the kernel store %s",
		       store);
}

void kstore_put(const char *key, const char *dir, const char *log)
{
	const char *store = kstore_dir(), *now = toolchain();
	char *entry, *tmp;

	if (!store || !same_fs(store, dir))
		return;
	entry = xasprintf("%s/%s", store, key);
	/*
	 * Only a folder built by what builds now goes in (a folder of unknown
	 * or another toolchain is only marked used), and it replaces an
	 * entry of another toolchain.
	 */
	if (!built_by(dir, now) ||
	    (path_exists(entry) && (built_by(entry, now) ||
				    remove_entry(store, entry)))) {
		utimes(entry, NULL);	/* used: eviction takes it last */
		free(entry);
		return;
	}
	tmp = xasprintf("%s/.%s.%d", store, key, (int)getpid());
	rm_rf(tmp);
	if (mkdir_p(tmp) || link_files(dir, tmp, log) || rename(tmp, entry)) {
		/* Another runner stored it first, or the store failed. */
		if (!path_exists(entry))
			warnx_("kernel %s not kept in the store %s (see %s)", key,
			       store, log);
		rm_rf(tmp);
	} else {
		printf("kernel: %s kept in the kernel store %s\n", key, store);
		evict(store);
	}
	free(tmp);
	free(entry);
}
