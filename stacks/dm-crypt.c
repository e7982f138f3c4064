// SPDX-License-Identifier: GPL-2.0
/* dm-crypt on the device below (or a free disk). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"

/*
 * dm-crypt's fixed test key (AES-256-XTS wants 64 bytes): a test suite's
 * key, not a secret.
 */
#define TEST_KEY "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" \
		 "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"

/*
 * The driver the crypto API gives dm-crypt for ALG: the highest priority
 * entry of that name in /proc/crypto (xts-aes-aesni where the CPU has
 * AES-NI, else the generic C code), or "?" when none is listed.
 */
static void crypto_driver(const char *alg, char *drv, size_t len)
{
	FILE *f = fopen("/proc/crypto", "r");
	char line[256], cur[128] = "", val[128];
	int prio, best = -1;
	bool match = false;

	snprintf(drv, len, "?");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "name : %127s", val) == 1)
			match = !strcmp(val, alg);
		else if (sscanf(line, "driver : %127s", val) == 1)
			snprintf(cur, sizeof(cur), "%s", val);
		else if (match && sscanf(line, "priority : %d", &prio) == 1 &&
			 prio > best) {
			best = prio;
			snprintf(drv, len, "%s", cur);
		}
	}
	fclose(f);
}

static int crypt_build(struct stack *s, const struct layer *l, char *msg,
		       size_t len)
{
	bool discards = !strcmp(layer_get(l, "discards", "off"), "on");
	char table[512], lower[64], drv[128];
	long long sz;

	if (stack_lower(s, lower, sizeof(lower), msg, len))
		return -1;
	sz = dev_sectors(lower);
	/* allow_discards: dm-crypt drops discards unless told to pass them. */
	snprintf(table, sizeof(table), "0 %lld crypt aes-xts-plain64 %s 0 %s 0%s\n",
		 sz, TEST_KEY, lower, discards ? " 1 allow_discards" : "");
	if (dm_create(s, "crypt0", table, msg, len))
		return -1;
	crypto_driver("xts(aes)", drv, sizeof(drv));
	snprintf(msg, len, "%s: dm-crypt aes-xts-plain64 (%s) on %s%s", s->top,
		 drv, lower, discards ? ", allow_discards" : "");
	return 0;
}

static int crypt_teardown(struct stack *s, const struct layer *l, char *msg,
			  size_t len)
{
	return dm_remove("crypt0", msg, len);
}

static const struct layer_kind dm_crypt = {
	.name = "dm-crypt",
	.what = "dm-crypt aes-xts-plain64 with a fixed test key (dmsetup)",
	.keys = {
		{ "discards", 'e', "on|off" },
	},
	.tools = { "dmsetup" },
	.build = crypt_build,
	.teardown = crypt_teardown,
	.ops = { DM_OP_SUSPEND, DM_OP_RELOAD },
	.settle = dm_settle,
};
LAYER_KIND(dm_crypt);
