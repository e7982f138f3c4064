// SPDX-License-Identifier: GPL-2.0
/*
 * The guest kernel's configuration, from the folder config/: tinyconfig,
 * then base.config, then each layer kind's layers/KIND.config, then the
 * kernel series' own kernels/X.Y.config if there is one (where symbols
 * differ between kernels), then the profile's profiles/NAME.config
 * (--debug), then an optional extra fragment, merged by the kernel's own
 * scripts/kconfig/merge_config.sh and settled by olddefconfig.  An option
 * of base.config, the profile or the extra fragment that did not take stops the
 * build, named by file:line; a layer's option that did not take makes
 * that layer kind unavailable in this kernel (its topologies are a SKIP
 * naming the option), which is how one suite follows kernels that lack a
 * driver.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kconfig.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_path(struct fragments *f, char *path)
{
	f->path = xrealloc(f->path, (f->n + 1) * sizeof(char *));
	f->path[f->n++] = path;
}

void kconfig_fragments(const char *dir, const char *series,
		       const char *profile, const char *extra,
		       struct fragments *f)
{
	char *per_kernel = xasprintf("%s/kernels/%s.config", dir,
				     series ? series : "");
	char *layers = xasprintf("%s/layers", dir);
	DIR *d = opendir(layers);
	struct dirent *de;
	int first;

	memset(f, 0, sizeof(*f));
	f->path = xcalloc(1, sizeof(char *));
	f->path[f->n++] = xasprintf("%s/base.config", dir);
	if (!d)
		die("%s: cannot open the layer fragments", layers);
	first = f->n;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l < 8 || strcmp(de->d_name + l - 7, ".config"))
			continue;
		f->path = xrealloc(f->path, (f->n + 1) * sizeof(char *));
		f->path[f->n++] = xasprintf("%s/%s", layers, de->d_name);
	}
	closedir(d);
	qsort(f->path + first, f->n - first, sizeof(char *), cmp_str);
	f->nlayers = f->n - first;
	if (series && path_exists(per_kernel))
		add_path(f, per_kernel);
	else
		free(per_kernel);
	if (profile) {
		add_path(f, xasprintf("%s/profiles/%s.config", dir, profile));
		if (!path_exists(f->path[f->n - 1]))
			die("%s: no such profile", f->path[f->n - 1]);
	}
	if (extra)
		add_path(f, xstrdup(extra));
	free(layers);
}

const char *fragment_kind(const struct fragments *f, int i, char *buf,
			  size_t len)
{
	const char *b;

	if (i < 1 || i > f->nlayers)
		return NULL;
	b = strrchr(f->path[i], '/');
	snprintf(buf, len, "%s", b ? b + 1 : f->path[i]);
	buf[strlen(buf) - 7] = 0;
	return buf;
}

void kconfig_key(const struct fragments *f, struct strbuf *kd)
{
	int i;

	for (i = 0; i < f->n; i++) {
		char *text = read_file(f->path[i], NULL);

		if (!text)
			die("%s: cannot read the config fragment", f->path[i]);
		/* By its name in config/, not where the checkout lives. */
		sb_printf(kd, "fragment %s\n%s", strrchr(f->path[i], '/') + 1,
			  text);
		free(text);
	}
}

static const char *opt_name_end(const char *p)
{
	return p + strcspn(p, "=\n ");
}

/* Find "CONFIG_X=" or "# CONFIG_X is not set" in config; its line or NULL. */
static char *config_line(const char *config, const char *name, size_t nlen)
{
	const char *p = config;

	while (p && *p) {
		const char *s = p;
		const char *nl = strchr(p, '\n');

		if (!strncmp(s, "# ", 2))
			s += 2;
		if (!strncmp(s, name, nlen) && (s[nlen] == '=' || s[nlen] == ' '))
			return strndup(p, nl ? (size_t)(nl - p) : strlen(p));
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static bool wants_off(const char *line)
{
	size_t n = strlen(line);

	return !strncmp(line, "# ", 2) ||
	       (n >= 2 && !strcmp(line + n - 2, "=n"));
}

int kconfig_check(const char *frag_name, const char *frag, const char *config,
		  struct strbuf *report)
{
	char *copy = xstrdup(frag), *line, *save;
	int lineno = 0, bad = 0;

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *name = strstr(line, "CONFIG_");
		char *got;
		bool off, ok;

		lineno++;
		trim_end(line);
		if (!name || (line[0] == '#' && !strstr(line, " is not set")))
			continue;
		off = wants_off(line);
		got = config_line(config, name, opt_name_end(name) - name);
		if (off)
			ok = !got || wants_off(got);
		else
			ok = got && !strcmp(got, line);
		if (!ok) {
			sb_printf(report, "%s:%d: %s did not take: .config has %s\n",
				  frag_name, lineno, line,
				  got ? got : "no such option (unknown symbol, or its dependencies are off)");
			bad++;
		}
		free(got);
	}
	free(copy);
	return bad;
}

static void make_step(const char *src, const char *log, char **extra,
		      const char *what)
{
	char *argv[16] = { "make", "O=out" };
	int i = 2;

	while (*extra && i < 15)
		argv[i++] = *extra++;
	argv[i] = NULL;
	if (run_argv(argv, src, log))
		die("kernel %s failed; see %s", what, log);
}

/* "KIND why" for each line of why. */
static void kind_lines(struct strbuf *sb, const char *kind, char *why)
{
	char *line, *save;

	for (line = strtok_r(why, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		sb_printf(sb, "%s %s\n", kind, line);
}

void kconfig_make(const struct fragments *f, const char *src,
		  const char *log, struct strbuf *unavailable)
{
	char *cfg = xasprintf("%s/out/.config", src);
	char *tiny[] = { "tinyconfig", NULL };
	char *olddef[] = { "olddefconfig", NULL };
	char **merge = xcalloc(f->n + 6, sizeof(char *));
	char *config, kind[64];
	struct strbuf rep = { 0 };
	int i, a = 0;

	printf("kernel: configuring (tinyconfig + %d fragments of %s)\n", f->n,
	       f->path[0]);
	make_step(src, log, tiny, "tinyconfig");
	merge[a++] = "scripts/kconfig/merge_config.sh";
	merge[a++] = "-m";
	merge[a++] = "-O";
	merge[a++] = "out";
	merge[a++] = "out/.config";
	for (i = 0; i < f->n; i++)
		merge[a++] = f->path[i];
	if (run_argv(merge, src, log))
		die("merge_config.sh failed for the fragments of %s; see %s",
		    f->path[0], log);
	make_step(src, log, olddef, "olddefconfig");
	config = read_file(cfg, NULL);
	if (!config)
		die("cannot read %s", cfg);
	for (i = 0; i < f->n; i++) {
		char *frag = read_file(f->path[i], NULL);
		struct strbuf r = { 0 };

		if (!frag)
			die("cannot read %s", f->path[i]);
		if (kconfig_check(f->path[i], frag, config, &r)) {
			if (fragment_kind(f, i, kind, sizeof(kind)))
				kind_lines(unavailable, kind, r.buf);
			else
				sb_add(&rep, r.buf, r.len);
		}
		free(frag);
		sb_free(&r);
	}
	if (rep.len)
		die("config fragment options did not take effect:\n%s", rep.buf);
	free(config);
	free(cfg);
	free(merge);
}

bool kconfig_lacks(const char *unavailable, const char *kind, char *why,
		   size_t len)
{
	size_t n = strlen(kind);
	const char *p = unavailable;

	while (p && *p) {
		if (!strncmp(p, kind, n) && p[n] == ' ') {
			snprintf(why, len, "%.*s", (int)strcspn(p + n + 1, "\n"),
				 p + n + 1);
			return true;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return false;
}
