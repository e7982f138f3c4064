// SPDX-License-Identifier: GPL-2.0
/* A test's requirements, each checked before the test does any work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stacktest.h"

/* The guest kernel's .config, put into every guest by the runner. */
#define KERNEL_CONFIG "/etc/kernel.config"

static int in_path(const char *tool)
{
	const char *path = env_or("PATH", "/sbin:/bin:/usr/sbin:/usr/bin");
	char dir[256], full[512];
	const char *p = path, *colon;

	if (strchr(tool, '/'))
		return !access(tool, X_OK);
	while (*p) {
		colon = strchr(p, ':');
		snprintf(dir, sizeof(dir), "%.*s",
			 (int)(colon ? colon - p : (long)strlen(p)), p);
		snprintf(full, sizeof(full), "%s/%s", dir, tool);
		if (!access(full, X_OK))
			return 1;
		if (!colon)
			break;
		p = colon + 1;
	}
	return 0;
}

/* Is word one of the space-separated words of list? */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return 1;
		p += n;
	}
	return 0;
}

int kconfig_on(const char *option)
{
	char line[256];
	size_t n = strlen(option);
	int found = 0;
	FILE *f = fopen(KERNEL_CONFIG, "re");

	while (f && !found && fgets(line, sizeof(line), f))
		found = !strncmp(line, option, n) && line[n] == '=' &&
			(line[n + 1] == 'y' || line[n + 1] == 'm');
	if (f)
		fclose(f);
	return found;
}

int requirement_met(const struct requirement *r, char *why, size_t len)
{
	switch (r->kind) {
	case REQ_TOOL_:
		if (in_path(r->what))
			return 0;
		snprintf(why, len, "no tool '%s' in the guest", r->what);
		return -1;
	case REQ_LAYER_:
		if (has_word(env_or("STACK_KINDS", ""), r->what))
			return 0;
		snprintf(why, len, "needs a %s layer in the stack (stack: %s)",
			 r->what, env_or("STACK_KINDS", "none"));
		return -1;
	case REQ_ENV_:
		if (*env_or(r->what, ""))
			return 0;
		snprintf(why, len, "the stack provides no %s", r->what);
		return -1;
	case REQ_KCONFIG_:
		if (kconfig_on(r->what))
			return 0;
		snprintf(why, len, "the guest kernel lacks %s (%s)", r->what,
			 access(KERNEL_CONFIG, R_OK) ? "no " KERNEL_CONFIG :
			 KERNEL_CONFIG);
		return -1;
	case REQ_PATH_:
		if (!access(r->what, F_OK))
			return 0;
		snprintf(why, len, "%s does not exist", r->what);
		return -1;
	default:
		return 0;
	}
}
