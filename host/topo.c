// SPDX-License-Identifier: GPL-2.0
/*
 * Topology files are INI, read with inih (Debian's libinih): it hands each
 * key to us in file order with its line known, so every error names
 * file:line.
 */
#include <ini.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"
#include "util.h"

struct parse_state {
	struct topology *t;
	char msg[256];
	unsigned int seen;	/* bit per scalar key already set */
};

enum {
	K_DESC, K_MEM, K_NODES, K_TIMEOUT, K_COUNT, K_SIZE, K_BUS, K_ZONED,
	K_ZONED_SIZE, K_WRITE_CACHE,
};

static int __attribute__((format(printf, 2, 3)))
fail(struct parse_state *ps, const char *fmt, ...)
{
	va_list ap;

	if (!ps->msg[0]) {
		va_start(ap, fmt);
		vsnprintf(ps->msg, sizeof(ps->msg), fmt, ap);
		va_end(ap);
	}
	return 0;	/* inih records this line as the first error */
}

static int once(struct parse_state *ps, int bit, const char *name)
{
	if (ps->seen & (1u << bit))
		return fail(ps, "'%s' given twice", name);
	ps->seen |= 1u << bit;
	return 1;
}

static int parse_count(const char *v, int min, int max, int *out)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (end == v || *end || n < min || n > max)
		return -1;
	*out = n;
	return 0;
}

static int topology_key(struct parse_state *ps, const char *k, const char *v)
{
	struct topology *t = ps->t;

	if (!strcmp(k, "description")) {
		if (!once(ps, K_DESC, k))
			return 0;
		t->description = xstrdup(v);
	} else if (!strcmp(k, "memory")) {
		if (!once(ps, K_MEM, k))
			return 0;
		t->memory = parse_size(v);
		if (t->memory < (64 << 20))
			return fail(ps, "memory = %s: want a size of at least 64M", v);
	} else if (!strcmp(k, "nodes")) {
		if (!once(ps, K_NODES, k))
			return 0;
		if (parse_count(v, 1, 2, &t->nodes))
			return fail(ps, "nodes = %s: want 1, or 2 (DRBD)", v);
	} else if (!strcmp(k, "timeout")) {
		if (!once(ps, K_TIMEOUT, k))
			return 0;
		if (parse_count(v, 1, 86400, &t->timeout))
			return fail(ps, "timeout = %s: want seconds, 1 to 86400", v);
	} else {
		return fail(ps, "unknown key '%s' in [topology]", k);
	}
	return 1;
}

static int disks_key(struct parse_state *ps, const char *k, const char *v)
{
	struct topology *t = ps->t;

	if (!strcmp(k, "count")) {
		if (!once(ps, K_COUNT, k))
			return 0;
		if (parse_count(v, 0, 16, &t->ndisks))
			return fail(ps, "count = %s: want 0 to 16 disks", v);
	} else if (!strcmp(k, "size")) {
		if (!once(ps, K_SIZE, k))
			return 0;
		t->disk_size = parse_size(v);
		if (t->disk_size < (1 << 20) || t->disk_size % 4096)
			return fail(ps, "size = %s: want a size of at least 1M, a multiple of 4K", v);
	} else if (!strcmp(k, "bus")) {
		if (!once(ps, K_BUS, k))
			return 0;
		if (strcmp(v, "virtio"))
			return fail(ps, "bus = %s: only virtio is supported", v);
		snprintf(t->bus, sizeof(t->bus), "%s", v);
	} else if (!strcmp(k, "write-cache")) {
		if (!once(ps, K_WRITE_CACHE, k))
			return 0;
		if (strcmp(v, "on") && strcmp(v, "off"))
			return fail(ps, "write-cache = %s: want on or off", v);
		t->write_through = !strcmp(v, "off");
	} else if (!strcmp(k, "zoned")) {
		if (!once(ps, K_ZONED, k))
			return 0;
		if (parse_count(v, 0, 4, &t->nzoned))
			return fail(ps, "zoned = %s: want 0 to 4 zoned NVMe namespaces", v);
	} else if (!strcmp(k, "zoned-size")) {
		if (!once(ps, K_ZONED_SIZE, k))
			return 0;
		t->zoned_size = parse_size(v);
		if (t->zoned_size < (48 << 20) || t->zoned_size % (16 << 20))
			return fail(ps, "zoned-size = %s: want a multiple of the 16M zone size, at least 48M", v);
	} else {
		return fail(ps, "unknown key '%s' in [disks]", k);
	}
	return 1;
}

static int stack_key(struct parse_state *ps, const char *k, const char *v)
{
	struct topology *t = ps->t;
	char err[200];

	if (strcmp(k, "layer"))
		return fail(ps, "unknown key '%s' in [stack] (want 'layer')", k);
	if (t->nlayers == TOPO_MAX_LAYERS)
		return fail(ps, "too many layers");
	if (layer_parse(v, &t->layers[t->nlayers], err, sizeof(err)))
		return fail(ps, "layer = %s: %s", v, err);
	t->layer_text[t->nlayers++] = xstrdup(v);
	return 1;
}

/* guest-tests/tests/NAME.c, or guest-tests/selftests/NAME.c for "selftests/NAME". */
static bool guest_test_known(const char *name)
{
	const char *root = getenv("STACKTEST_ROOT");
	const char *base = strncmp(name, "selftests/", 10) ? name : name + 10;
	const char *p;
	char *path;
	bool ok;

	for (p = base; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) &&
		    *p != '-')
			return false;
	if (!*base)
		return false;
	path = xasprintf("%s/guest-tests/%s%s.c", root ? root : ".",
			 base == name ? "tests/" : "", name);
	ok = path_exists(path);
	free(path);
	return ok;
}

/* option = NAME=VALUE: the guest tests see $STACK_OPT_NAME = VALUE. */
static int test_option(struct parse_state *ps, const char *v)
{
	struct topology *t = ps->t;
	size_t n = strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-");

	if (!n || v[n] != '=' || !v[n + 1] || strpbrk(v + n + 1, " \t"))
		return fail(ps, "option = %s: want NAME=VALUE (NAME of a-z, 0-9, '-'; VALUE without spaces)", v);
	if (t->noptions == TOPO_MAX_OPTIONS)
		return fail(ps, "too many options (at most %d)", TOPO_MAX_OPTIONS);
	t->options[t->noptions++] = xstrdup(v);
	return 1;
}

/*
 * known-issue = X.Y TEST WHY: on kernel series X.Y the guest reports TEST
 * as a SKIP with WHY (a kernel limitation, reproduced on purpose by a
 * topology of known-issues/ that WHY names), instead of running it.
 */
static int known_issue(struct parse_state *ps, const char *v)
{
	struct topology *t = ps->t;
	char kser[16], test[64];
	int maj, min, end = 0;

	if (sscanf(v, "%15s %63s %n", kser, test, &end) != 2 || !v[end] ||
	    sscanf(kser, "%d.%d", &maj, &min) != 2)
		return fail(ps, "known-issue = %s: want 'X.Y TEST why' (a kernel series, a guest test, the reason)", v);
	if (!guest_test_known(test))
		return fail(ps, "known-issue = %s: no such guest test %s", v, test);
	if (t->nknown == TOPO_MAX_OPTIONS)
		return fail(ps, "too many known issues (at most %d)", TOPO_MAX_OPTIONS);
	t->known[t->nknown++] = xstrdup(v);
	return 1;
}

/*
 * trace = NAME...: kernel functions of the stack's own drivers (raid6's
 * two-failure recovery, a target's map function) the guests count with
 * the function profiler beside the series' changed ones; the run reports
 * their calls per topology, and a test may assert on them (trace_hits).
 */
static int trace_key(struct parse_state *ps, const char *v)
{
	struct topology *t = ps->t;
	char name[64];
	int off = 0, used;

	if (sscanf(v, "%63s", name) != 1)
		return fail(ps, "trace = : name at least one function");
	while (sscanf(v + off, "%63s%n", name, &used) == 1) {
		off += used;
		if (strspn(name, "abcdefghijklmnopqrstuvwxyz"
			   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
		    strlen(name) || isdigit((unsigned char)name[0]))
			return fail(ps, "trace = %s: '%s' is not a function name", v, name);
		if (t->ntrace == TOPO_MAX_TRACE)
			return fail(ps, "too many trace names (at most %d)", TOPO_MAX_TRACE);
		t->trace[t->ntrace++] = xstrdup(name);
	}
	return 1;
}

static int tests_key(struct parse_state *ps, const char *k, const char *v)
{
	struct topology *t = ps->t;
	bool peer = !strcmp(k, "peer-test");
	int *n = peer ? &t->npeer : &t->ntests;

	if (!strcmp(k, "swap-pressure")) {
		if (swap_pressure_rank(v) < 0)
			return fail(ps, "swap-pressure = %s: want reclaim, memcg or pageout", v);
		snprintf(t->swap_pressure, sizeof(t->swap_pressure), "%s", v);
		return 1;
	}
	if (!strcmp(k, "option"))
		return test_option(ps, v);
	if (!strcmp(k, "known-issue"))
		return known_issue(ps, v);
	if (!strcmp(k, "trace"))
		return trace_key(ps, v);
	if (strcmp(k, "test") && !peer)
		return fail(ps, "unknown key '%s' in [tests] (want 'test', 'peer-test', 'swap-pressure', 'option', 'known-issue' or 'trace')", k);
	if (!guest_test_known(v))
		return fail(ps, "%s = %s: no such guest test (guest-tests/tests/%s.c)", k, v, v);
	if (*n == TOPO_MAX_TESTS)
		return fail(ps, "too many tests");
	(peer ? t->peer_tests : t->tests)[(*n)++] = xstrdup(v);
	return 1;
}

static int handler(void *user, const char *section, const char *k,
		   const char *v)
{
	struct parse_state *ps = user;

	if (ps->msg[0])
		return 1;	/* report the first error only */
	if (!strcmp(section, "topology"))
		return topology_key(ps, k, v);
	if (!strcmp(section, "disks"))
		return disks_key(ps, k, v);
	if (!strcmp(section, "stack"))
		return stack_key(ps, k, v);
	if (!strcmp(section, "tests"))
		return tests_key(ps, k, v);
	return fail(ps, "unknown section [%s]", section);
}

static char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	char *n = xstrdup(b ? b + 1 : path);
	char *dot = strrchr(n, '.');

	if (dot && !strcmp(dot, ".ini"))
		*dot = 0;
	return n;
}

static const char *missing_field(const struct topology *t)
{
	if (!t->description)
		return "[topology] description";
	if (!t->memory)
		return "[topology] memory";
	if (t->ndisks && !t->disk_size)
		return "[disks] size";
	if (t->nzoned && !t->zoned_size && !t->disk_size)
		return "[disks] zoned-size";
	if (!t->ntests)
		return "[tests] test";
	if (t->nodes == 2 && !t->npeer)
		return "[tests] peer-test (node1's tests)";
	if (t->nodes == 2 && t->join_layer < 0)
		return "[stack] layer = drbd (what joins the two nodes)";
	return NULL;
}

/*
 * A layer that joins two guests (DRBD): exactly one, exactly when
 * nodes = 2.  Every layer must fit: its disks from those left, a
 * filesystem below where it needs one.
 */
static char *check_layers(struct topology *t)
{
	int i, n, free = t->ndisks + t->nzoned;
	bool fs = false, below = false;

	t->join_layer = -1;
	for (i = 0; i < t->nlayers; i++) {
		const struct layer *l = &t->layers[i];
		const struct layer_kind *k = layer_kind(l->kind);
		char why[160];

		if (k->joins_nodes) {
			if (t->join_layer >= 0)
				return xasprintf("more than one %s layer", l->kind);
			t->join_layer = i;
		}
		if (k->needs_fs && !fs)
			return xasprintf("layer %d (%s) needs a filesystem below it",
					 i + 1, t->layer_text[i]);
		n = layer_disks(l, below, free, why, sizeof(why));
		if (n < 0)
			return xasprintf("layer %d (%s): %s", i + 1,
					 t->layer_text[i], why);
		free -= n;
		free += k->makes_disk;
		fs |= k->fs;
		below |= !k->pool;
	}
	if (t->nodes == 1 && t->join_layer >= 0)
		return xasprintf("a %s layer needs [topology] nodes = 2",
				 t->layers[t->join_layer].kind);
	if (t->nodes == 1 && t->npeer)
		return xstrdup("peer-test needs [topology] nodes = 2");
	return NULL;
}

int topo_load(const char *path, struct topology *t, char *err, size_t errlen)
{
	struct parse_state ps = { .t = t };
	const char *miss;
	char *bad;
	int line;

	memset(t, 0, sizeof(*t));
	t->nodes = 1;
	t->timeout = 600;
	strcpy(t->bus, "virtio");
	t->path = xstrdup(path);
	t->name = base_name(path);
	line = ini_parse(path, handler, &ps);
	if (line < 0) {
		snprintf(err, errlen, "%s: cannot open", path);
		return -1;
	}
	if (line > 0) {
		snprintf(err, errlen, "%s:%d: %s", path, line,
			 ps.msg[0] ? ps.msg : ini_syntax_why(path, line));
		return -1;
	}
	bad = check_layers(t);
	if (bad) {
		snprintf(err, errlen, "%s: %s", path, bad);
		free(bad);
		return -1;
	}
	miss = missing_field(t);
	if (miss) {
		snprintf(err, errlen, "%s: missing field %s", path, miss);
		return -1;
	}
	if (t->nzoned && !t->zoned_size) {
		t->zoned_size = t->disk_size;
		if (t->zoned_size < (48 << 20) || t->zoned_size % (16 << 20)) {
			snprintf(err, errlen, "%s: [disks] size %lld MiB cannot be a zoned namespace (16M zones, at least 3): give zoned-size",
				 path, t->zoned_size >> 20);
			return -1;
		}
	}
	if (t->ndisks + t->nzoned > 16) {
		snprintf(err, errlen, "%s: more than 16 disks with the zoned ones", path);
		return -1;
	}
	return 0;
}

void topo_free(struct topology *t)
{
	int i;

	for (i = 0; i < t->nlayers; i++)
		free(t->layer_text[i]);
	for (i = 0; i < t->ntests; i++)
		free(t->tests[i]);
	for (i = 0; i < t->npeer; i++)
		free(t->peer_tests[i]);
	for (i = 0; i < t->noptions; i++)
		free(t->options[i]);
	for (i = 0; i < t->nknown; i++)
		free(t->known[i]);
	for (i = 0; i < t->ntrace; i++)
		free(t->trace[i]);
	free(t->name);
	free(t->path);
	free(t->description);
	memset(t, 0, sizeof(*t));
}
