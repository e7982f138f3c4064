/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The grammar of a stack layer ("md level=raid10 layout=n2") and the names
 * of the guest tests.  Shared by the host, which rejects a bad topology
 * before booting anything, and by the guest, which builds the layers.
 */
#ifndef STACKS_SPEC_H
#define STACKS_SPEC_H

#include <stddef.h>

#define SPEC_MAX_OPTS 8

struct layer_opt {
	char key[24];
	char val[64];
};

struct layer {
	char kind[16];
	int nopts;
	struct layer_opt opt[SPEC_MAX_OPTS];
};

/* Parse and validate one layer; on error return -1 with a message. */
int layer_parse(const char *text, struct layer *l, char *err, size_t errlen);
const char *layer_get(const struct layer *l, const char *key,
		      const char *def);
/* Names of the guest test programs, NULL-terminated. */
extern const char *const spec_tests[];
int spec_test_known(const char *name);
/* "256M", "1G", "4096", "64K" into bytes; -1 when malformed. */
long long parse_size(const char *s);

#endif
