// SPDX-License-Identifier: GPL-2.0
/*
 * Series coverage as the run sees it: which functions the series changed
 * (coverage.c maps patches to functions), the names the guests are told
 * to count, the calls they counted, and the table at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "covrun.h"

/*
 * The functions the series changed: derived from its patches and the
 * patched tree, or, where the folder has one, its committed coverage.list
 * (patches/base: nothing changed, so the seed series' functions).
 */
void cov_series(const char *series, int prefix, const struct kernel *k,
		struct cov *c, struct run_opts *ro)
{
	char *list = xasprintf("%s/coverage.list", series), err[512], **names;
	char *src = xasprintf("%s/src", k->dir);
	struct strbuf kd = { 0 };
	int n, i;

	memset(c, 0, sizeof(*c));
	if (k->coverage) {
		/* A kernel artifact: its list, classified where it was built. */
		if (cov_from_list(c, k->coverage, err, sizeof(err)))
			die("%s", err);
	} else if (path_exists(list) && prefix < 0) {
		if (cov_from_list(c, list, err, sizeof(err)))
			die("%s", err);
	} else {
		if (series_read(series, k->src->series, prefix, &names, &n,
				&kd, err, sizeof(err)))
			die("%s", err);
		for (i = 0; i < n; i++) {
			char *pp = xasprintf("%s/%s", series, names[i]);
			char *text = read_file(pp, NULL);

			if (!text)
				die("%s: cannot read", pp);
			cov_from_patch(c, text, src);
			free(text);
			free(pp);
		}
		sb_free(&kd);
	}
	if (!k->coverage)
		cov_classify(c, src);
	ro->ntrace = 0;
	ro->trace = xcalloc(c->n + ro->nextra + 1, sizeof(char *));
	for (i = 0; i < c->n; i++)
		if (!c->fn[i].removed)
			ro->trace[ro->ntrace++] = c->fn[i].name;
	for (i = 0; i < ro->nextra; i++)
		if (!cov_find(c, ro->extra[i]))
			ro->trace[ro->ntrace++] = ro->extra[i];
	free(list);
	free(src);
}

void cov_add_hits(struct cov *c, struct topo_result *r)
{
	int i;

	for (i = 0; i < r->ncov; i++) {
		struct cov_fn *f = cov_find(c, r->cov[i].name);
		size_t len;

		if (!f)
			continue;
		if (r->cov[i].hits < 0) {
			f->untraceable = true;
			continue;
		}
		f->hits += r->cov[i].hits;
		len = strlen(f->where);
		if (r->cov[i].hits > 0 && len + strlen(r->name) + 2 < sizeof(f->where))
			snprintf(f->where + len, sizeof(f->where) - len, "%s%s",
				 len ? " " : "", r->name);
	}
}

/* Returns how many traceable changed functions no test executed. */
int cov_report(const char *series, struct cov *c)
{
	int i, traceable, never = 0;
	int run = cov_executed(c, &traceable);

	printf("\nseries coverage (%s): %d of %d changed functions executed\n",
	       series, run, traceable);
	for (i = 0; i < c->n; i++) {
		struct cov_fn *f = &c->fn[i];

		if (f->absent)
			printf("  %-32s %12s  (not in this kernel's source)\n",
			       f->name, "absent");
		else if (f->removed)
			printf("  %-32s %12s  (%s)\n", f->name, "removed",
			       "the series deleted it");
		else if (f->untraceable)
			printf("  %-32s %12s  (%s: %s)\n", f->name,
			       "not traceable", f->file, f->why);
		else if (cov_uncounted(f))
			printf("  %-32s %12s  (%s: no stack of ours calls it; see coverage.list)\n",
			       f->name, "unreachable", f->file);
		else
			printf("  %-32s %12lld  %s\n", f->name, f->hits,
			       f->hits ? f->where : "NEVER EXECUTED");
		never += !cov_uncounted(f) && !f->hits;
	}
	return never;
}

/* What the guests counted of name in r: -2 when they did not report it. */
static long long hits_of(const struct topo_result *r, const char *name)
{
	int i;

	for (i = 0; i < r->ncov; i++)
		if (!strcmp(r->cov[i].name, name))
			return r->cov[i].hits;
	return -2;
}

void paths_report(const char *series, const struct topology *t, int n,
		  const struct topo_result *res)
{
	int i, j;

	for (i = 0; i < n; i++) {
		if (!t[i].ntrace || !res[i].verdict)
			continue;
		printf("\nlayer paths (%s, %s):\n", series, t[i].name);
		for (j = 0; j < t[i].ntrace; j++) {
			long long h = hits_of(&res[i], t[i].trace[j]);

			if (h >= 0)
				printf("  %-32s %12lld%s\n", t[i].trace[j], h,
				       h ? "" : "  NEVER EXECUTED");
			else
				printf("  %-32s %12s\n", t[i].trace[j],
				       h == -1 ? "not traceable" : "not counted");
		}
	}
}

/* Functions the given patches change, in the pristine extracted tree. */
int cov_print_changed(const char *src, int n, char **patches)
{
	struct cov c = { 0 };
	int i;

	for (i = 0; i < n; i++) {
		char *text = read_file(patches[i], NULL);

		if (!text)
			die("%s: %s", patches[i], strerror(errno));
		cov_from_patch(&c, text, src);
		free(text);
	}
	for (i = 0; i < c.n; i++)
		printf("%-32s %-40s %s\n", c.fn[i].name, c.fn[i].file,
		       c.fn[i].removed ? "removed" : "");
	return 0;
}
