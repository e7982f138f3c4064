// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

/* A key's value: a size, a count, or one word of a '|' list. */
struct key_spec {
	const char *key;
	char type;		/* 's' size, 'n' count, 'e' enum */
	const char *choices;	/* for 'e' */
};

struct kind_spec {
	const char *kind;
	const char *what;
	struct key_spec keys[SPEC_MAX_OPTS];
};

static const struct kind_spec kinds[] = {
	{ "md", "md array built with mdadm --create", {
		{ "level", 'e', "raid1|raid10|raid5|raid6" },
		{ "layout", 'e', "n2|f2|o2|left-symmetric" },
		{ "devices", 'n', NULL },
		{ "chunk", 's', NULL },
		{ "bitmap", 'e', "internal|none" },
		{ "write-mostly", 'e', "first" },
		{ "write-behind", 'n', NULL },
	} },
	{ "dm-linear", "dm-linear concatenating disks (dmsetup)", {
		{ "devices", 'n', NULL },
	} },
	{ "dm-crypt", "dm-crypt aes-xts-plain64 with a fixed test key (dmsetup)",
	  { { NULL } } },
	{ "dm-clone", "dm-clone of a pattern-filled disk onto another, hydration off until the test enables it (dmsetup)",
	  { { NULL } } },
	{ "dm-zoned", "dm-zoned v2 over a regular cache disk and a zoned disk, formatted by stacks/dmz-format.c (dmsetup)", {
		{ "reserved", 'n', NULL },
		{ "probe", 'e', "bad-primary" },
	} },
	{ "lvm", "LVM volume group over the device below or over disks, one LV: linear, thin (in a thin pool) or raid1 (lvm2)", {
		{ "devices", 'n', NULL },
		{ "type", 'e', "linear|thin|raid1" },
	} },
	{ "drbd", "DRBD 8.4 resource between the two nodes (drbdadm), node0 primary", {
		{ "protocol", 'e', "A|B|C" },
	} },
	{ "brd", "brd RAM disk (has rw_page)", {
		{ "size", 's', NULL },
	} },
	{ "zram", "zram compressed RAM disk (has rw_page)", {
		{ "size", 's', NULL },
	} },
	{ "ext4", "ext4 made with mkfs.ext4 -b 4096, mounted", { { NULL } } },
	{ "xfs", "xfs made with mkfs.xfs, mounted", { { NULL } } },
	{ "f2fs", "f2fs made with mkfs.f2fs, mounted", { { NULL } } },
	{ "swapfile", "swap file written (not sparse) on the filesystem", {
		{ "size", 's', NULL },
	} },
	{ "swapdev", "swap straight on the block device below", { { NULL } } },
};

const char *const spec_tests[] = {
	"data-integrity",
	"swapfile-integrity",
	"swapdev-integrity",
	"md-writebehind",
	"md-rebuild-reshape",
	"fsync-storm",
	"drbd-replicate",
	"dm-clone-hydrate",
	"dm-recreate",
	"drbd-peer-check",
	/* Self-tests of the harness (host/test/faults.sh), not of kernels. */
	"selftest-hang",
	"selftest-kill-init",
	"selftest-drbd-cut",
	NULL,
};

int spec_test_known(const char *name)
{
	int i;

	for (i = 0; spec_tests[i]; i++)
		if (!strcmp(spec_tests[i], name))
			return 1;
	return 0;
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

static int check_value(const struct key_spec *k, const char *val,
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

static const struct key_spec *find_key(const struct kind_spec *ks,
				       const char *key)
{
	int i;

	for (i = 0; i < SPEC_MAX_OPTS && ks->keys[i].key; i++)
		if (!strcmp(ks->keys[i].key, key))
			return &ks->keys[i];
	return NULL;
}

static const struct kind_spec *find_kind(const char *kind)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].kind, kind))
			return &kinds[i];
	return NULL;
}

static int parse_opt(const struct kind_spec *ks, char *word,
		     struct layer *l, char *err, size_t errlen)
{
	char *eq = strchr(word, '=');
	const struct key_spec *k;

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
	if (l->nopts == SPEC_MAX_OPTS || strlen(word) >= sizeof(l->opt[0].key) ||
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
	const struct kind_spec *ks;

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
	ks = find_kind(w);
	if (!ks) {
		snprintf(err, errlen, "unknown layer kind '%s'", w);
		return -1;
	}
	strcpy(l->kind, ks->kind);
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
