// SPDX-License-Identifier: GPL-2.0
/*
 * The layer grammar and the registry of layer kinds (see layer.h); shared
 * by the host, which rejects a bad topology before booting anything, and
 * by the guest, which builds the layers.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"

extern const struct layer_kind *const __start_stacktest_layers[];
extern const struct layer_kind *const __stop_stacktest_layers[];

static int cmp_kind(const void *a, const void *b)
{
	return strcmp((*(const struct layer_kind *const *)a)->name,
		      (*(const struct layer_kind *const *)b)->name);
}

const struct layer_kind *const *layer_kinds(int *n)
{
	static const struct layer_kind **sorted;
	static int count;

	if (!sorted) {
		count = __stop_stacktest_layers - __start_stacktest_layers;
		sorted = malloc(count * sizeof(*sorted));
		if (!sorted)
			abort();
		memcpy(sorted, __start_stacktest_layers,
		       count * sizeof(*sorted));
		qsort(sorted, count, sizeof(*sorted), cmp_kind);
	}
	*n = count;
	return sorted;
}

const struct layer_kind *layer_kind(const char *name)
{
	int i, n;
	const struct layer_kind *const *k = layer_kinds(&n);

	for (i = 0; i < n; i++)
		if (!strcmp(k[i]->name, name))
			return k[i];
	return NULL;
}

const char *const swap_pressures[] = { "reclaim", "memcg", "pageout", NULL };

int swap_pressure_rank(const char *name)
{
	int i;

	for (i = 0; name && swap_pressures[i]; i++)
		if (!strcmp(swap_pressures[i], name))
			return i;
	return -1;
}

int layer_disks_none(const struct layer *l, bool below, int free, char *err,
		     size_t len)
{
	return 0;
}

int layer_disks(const struct layer *l, bool below, int free, char *err,
		size_t len)
{
	const struct layer_kind *k = layer_kind(l->kind);

	if (k && k->disks)
		return k->disks(l, below, free, err, len);
	if (below)
		return 0;
	if (free >= 1)
		return 1;
	snprintf(err, len, "%s: no device below and no free disk", l->kind);
	return -1;
}

long long parse_size(const char *s)
{
	char *end;
	long long v;
	int shift = 0;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'K': case 'k':
		shift = 10; end++; break;
	case 'M': case 'm':
		shift = 20; end++; break;
	case 'G': case 'g':
		shift = 30; end++; break;
	}
	if (*end || v > (LLONG_MAX >> shift))
		return -1;
	return v << shift;
}

static int in_choices(const char *val, const char *choices)
{
	size_t n = strlen(val);
	const char *p = choices;

	while (p) {
		if (!strncmp(p, val, n) && (p[n] == '|' || !p[n]))
			return 1;
		p = strchr(p, '|');
		if (p)
			p++;
	}
	return 0;
}

static int check_value(const struct layer_key *k, const char *val,
		       char *err, size_t errlen)
{
	char *end;

	switch (k->type) {
	case 's':
		if (parse_size(val) > 0)
			return 0;
		snprintf(err, errlen, "%s=%s: not a size (like 256M)", k->key,
			 val);
		return -1;
	case 'n':
		if (strtol(val, &end, 10) > 0 && !*end)
			return 0;
		snprintf(err, errlen, "%s=%s: not a positive count", k->key,
			 val);
		return -1;
	default:
		if (in_choices(val, k->choices))
			return 0;
		snprintf(err, errlen, "%s=%s: expected one of %s", k->key, val,
			 k->choices);
		return -1;
	}
}

static const struct layer_key *find_key(const struct layer_kind *ks,
				       const char *key)
{
	int i;

	for (i = 0; i < LAYER_MAX_OPTS && ks->keys[i].key; i++)
		if (!strcmp(ks->keys[i].key, key))
			return &ks->keys[i];
	return NULL;
}

static int parse_opt(const struct layer_kind *ks, char *word,
		     struct layer *l, char *err, size_t errlen)
{
	char *eq = strchr(word, '=');
	const struct layer_key *k;

	if (!eq || eq == word) {
		snprintf(err, errlen, "%s: '%s' is not key=value", l->kind,
			 word);
		return -1;
	}
	*eq = 0;
	k = find_key(ks, word);
	if (!k) {
		snprintf(err, errlen, "%s: unknown option '%s'", l->kind, word);
		return -1;
	}
	if (check_value(k, eq + 1, err, errlen))
		return -1;
	if (l->nopts == LAYER_MAX_OPTS || strlen(word) >= sizeof(l->opt[0].key) ||
	    strlen(eq + 1) >= sizeof(l->opt[0].val)) {
		snprintf(err, errlen, "%s: option '%s' too long", l->kind, word);
		return -1;
	}
	strcpy(l->opt[l->nopts].key, word);
	strcpy(l->opt[l->nopts].val, eq + 1);
	l->nopts++;
	return 0;
}

int layer_parse(const char *text, struct layer *l, char *err, size_t errlen)
{
	char buf[512], *save, *w;
	const struct layer_kind *ks;

	memset(l, 0, sizeof(*l));
	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "layer too long");
		return -1;
	}
	strcpy(buf, text);
	w = strtok_r(buf, " \t", &save);
	if (!w) {
		snprintf(err, errlen, "empty layer");
		return -1;
	}
	ks = layer_kind(w);
	if (!ks) {
		snprintf(err, errlen, "unknown layer kind '%s'", w);
		return -1;
	}
	snprintf(l->kind, sizeof(l->kind), "%s", ks->name);
	while ((w = strtok_r(NULL, " \t", &save)))
		if (parse_opt(ks, w, l, err, errlen))
			return -1;
	return 0;
}

const char *layer_get(const struct layer *l, const char *key, const char *def)
{
	int i;

	for (i = 0; i < l->nopts; i++)
		if (!strcmp(l->opt[i].key, key))
			return l->opt[i].val;
	return def;
}
