// SPDX-License-Identifier: GPL-2.0
/*
 * A hung guest whose clock stopped cannot say where it is; QEMU can.
 * These read what its monitor said at the deadline.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hang.h"
#include "util.h"

static bool is_text(char type)
{
	return strchr("tTwW", type) != NULL;
}

char *ksym(const char *map, unsigned long long addr)
{
	unsigned long long a, best = 0;
	char type, name[128], best_name[128] = "";
	const char *p;
	int n;

	for (p = map; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (sscanf(p, "%llx %c %127s%n", &a, &type, name, &n) != 3)
			continue;
		if (is_text(type) && a <= addr && a >= best) {
			best = a;
			snprintf(best_name, sizeof(best_name), "%s", name);
		}
	}
	if (!*best_name)
		return NULL;
	return xasprintf("%s+0x%llx", best_name, addr - best);
}

/* The hex value after "key=" (QEMU's "RIP=ffffffff81..."). */
static bool reg(const char *state, const char *key, unsigned long long *v)
{
	const char *p = strstr(state, key);

	if (p)
		*v = strtoull(p + strlen(key), NULL, 16);
	return p;
}

/*
 * "info virtio-queue-status" answers: every queue where QEMU still holds
 * requests ("inuse: N"), as "device[3] queue 0: 2 requests in QEMU".
 */
static void virtio_inuse(struct strbuf *sb, const char *state)
{
	static const char cmd[] = "(qemu) info virtio-queue-status ";
	const char *p = state, *dev, *queue, *use, *next;
	int n = 0;

	while ((p = strstr(p, cmd))) {
		p += sizeof(cmd) - 1;	/* PATH QUEUE, then the answer */
		dev = strstr(p, "device[");
		queue = p + strcspn(p, " \n");
		use = strstr(p, "inuse:");
		next = strstr(p, "(qemu)");
		if (!dev || !use || (next && next < use))
			continue;
		if (atoi(use + 6) > 0)
			sb_printf(sb, "%s%.*s queue %d: %d requests in QEMU",
				  n++ ? "; " : "; virtio ",
				  (int)strcspn(dev, "]") + 1, dev, atoi(queue),
				  atoi(use + 6));
	}
	if (!n && strstr(state, "inuse:"))
		sb_printf(sb, "; no virtio request in QEMU");
}

char *vcpu_summary(const char *state, const char *map)
{
	struct strbuf sb = { 0 };
	const char *st = strstr(state, "VM status: ");
	unsigned long long rip, rfl, hlt;
	char *sym;

	if (st)
		sb_printf(&sb, "VM status %.*s", (int)strcspn(st + 11, "\n"),
			  st + 11);
	if (reg(state, "RIP=", &rip)) {
		sym = map ? ksym(map, rip) : NULL;
		sb_printf(&sb, "%svCPU at %llx%s%s%s", sb.len ? "; " : "",
			  rip, sym ? " (" : "", sym ? sym : "", sym ? ")" : "");
		free(sym);
	}
	if (reg(state, "HLT=", &hlt) && hlt == 1)
		sb_printf(&sb, ", halted");
	if (reg(state, "RFL=", &rfl))
		sb_printf(&sb, ", interrupts %s", rfl & 0x200 ? "on" : "off");
	virtio_inuse(&sb, state);
	return sb.buf;
}

char *nmi_split(char *console)
{
	char *p = strstr(console, "NMI received for unknown reason");
	char *end, *stack;
	int n = 0;

	if (!p)
		return NULL;
	while (p > console && p[-1] != '\n')
		p--;
	for (end = p; *end && n < 40; n++) {
		char *nl = strchr(end, '\n');
		bool last = strstr(end, "</TASK>") &&
			    (!nl || strstr(end, "</TASK>") < nl);

		end = nl ? nl + 1 : end + strlen(end);
		if (last)
			break;
	}
	stack = xasprintf("%.*s", (int)(end - p), p);
	*p = 0;
	return stack;
}
