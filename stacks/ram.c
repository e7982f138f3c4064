// SPDX-License-Identifier: GPL-2.0
/*
 * RAM-backed block devices whose drivers have rw_page (the path the 2014
 * swap bug took): brd (sized by the runner on the kernel command line)
 * and zram (sized here through sysfs).
 */
#include <stdio.h>
#include <string.h>

#include "stack.h"
#include "../guest-tests/guest.h"

static int brd_build(struct stack *s, const struct layer *l, char *msg,
		     size_t len)
{
	if (wait_path("/dev/ram0", 5)) {
		snprintf(msg, len, "/dev/ram0 missing (brd.rd_nr on the command line?)");
		return -1;
	}
	snprintf(s->top, sizeof(s->top), "/dev/ram0");
	snprintf(msg, len, "/dev/ram0: brd, %lld MiB",
		 dev_sectors("/dev/ram0") >> 11);
	return 0;
}

static int brd_teardown(struct stack *s, const struct layer *l, char *msg,
			size_t len)
{
	snprintf(msg, len, "brd stays (built in)");
	return 0;
}

static int zram_build(struct stack *s, const struct layer *l, char *msg,
		      size_t len)
{
	const char *size = layer_get(l, "size", "256M");
	char bytes[32];

	snprintf(bytes, sizeof(bytes), "%lld", parse_size(size));
	if (write_str("/sys/block/zram0/comp_algorithm", "lzo") ||
	    write_str("/sys/block/zram0/disksize", bytes) ||
	    wait_path("/dev/zram0", 5)) {
		snprintf(msg, len, "cannot set up zram0 (%s)", size);
		return -1;
	}
	snprintf(s->top, sizeof(s->top), "/dev/zram0");
	snprintf(msg, len, "/dev/zram0: zram lzo, %s", size);
	return 0;
}

static int zram_teardown(struct stack *s, const struct layer *l, char *msg,
			 size_t len)
{
	if (write_str("/sys/block/zram0/reset", "1")) {
		snprintf(msg, len, "zram0 reset failed");
		return -1;
	}
	snprintf(msg, len, "zram0 reset");
	return 0;
}

const struct layer_ops brd_ops = { "brd", brd_build, brd_teardown };
const struct layer_ops zram_ops = { "zram", zram_build, zram_teardown };
