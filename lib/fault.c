// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's fault injectors (Documentation/fault-injection/): a disk's
 * bios failed by fail_make_request, the way a dying disk fails them, so
 * the stacking driver above takes its real error path; and LKDTM's crash
 * points, for the harness's self-tests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stacktest.h"

#define DEBUGFS "/sys/kernel/debug"

int fault_attr(const char *name, const char *attr, const char *val)
{
	char path[160];

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", name, attr);
	if (write_str(path, val)) {
		ktap_diag("cannot write %s to %s", val, path);
		return -1;
	}
	return 0;
}

/* debugfs mounted if DEBUGFS/name is not there yet; 0, or -1 (said why). */
static int debugfs_has(const char *name)
{
	char path[160];

	snprintf(path, sizeof(path), DEBUGFS "/%s", name);
	if (access(path, F_OK) && mount("debugfs", DEBUGFS, "debugfs", 0, NULL) &&
	    errno != EBUSY) {
		ktap_diag("mount debugfs: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int fault_setup(const char *name, int probability, long long times)
{
	char n[32], p[16];

	if (debugfs_has(name))
		return -1;
	snprintf(n, sizeof(n), "%lld", times);
	snprintf(p, sizeof(p), "%d", probability);
	/* Silently (a dump_stack is a splat); probability last. */
	return fault_attr(name, "verbose", "0") ||
	       fault_attr(name, "interval", "1") ||
	       fault_attr(name, "space", "0") ||
	       fault_attr(name, "times", n) ||
	       fault_attr(name, "probability", p);
}

long long fault_times_left(const char *name)
{
	char path[160];

	snprintf(path, sizeof(path), DEBUGFS "/%s/times", name);
	return read_ll(path);
}

int fail_disk(const char *dev, int on)
{
	const char *base = strrchr(dev, '/');
	char path[160];

	snprintf(path, sizeof(path), "/sys/class/block/%s/make-it-fail",
		 base ? base + 1 : dev);
	if (write_str(path, on ? "1" : "0")) {
		ktap_diag("cannot write %s", path);
		return -1;
	}
	ktap_diag("%s: every bio %s", dev, on ? "fails from now" :
		  "succeeds again");
	return 0;
}

int lkdtm_provoke(const char *point)
{
	if (debugfs_has("provoke-crash"))
		return -1;
	ktap_diag("LKDTM: provoking %s", point);
	fflush(stdout);
	return fault_attr("provoke-crash", "DIRECT", point);
}
