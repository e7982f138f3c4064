// SPDX-License-Identifier: GPL-2.0
/*
 * selftests/blocked: a task blocked in the kernel for good, so the
 * harness's own tests can check that the kernel's hung-task report ends
 * the run early, with PID 1's forensics, naming this test.  The file
 * system on top is frozen (FIFREEZE) and a child creates a file on it:
 * its open() waits in sb_start_write() (mnt_want_write()),
 * uninterruptible, until a thaw that never comes.  Not a test of any
 * kernel.
 */
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "stacktest.h"

static void write_frozen(const char *mnt)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/blocked", mnt);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0 && write(fd, "x", 1) == 1)
		printf("# selftests/blocked: the write to a frozen fs returned\n");
	_exit(0);
}

static int test_main(void)
{
	const char *mnt = getenv("STACK_MNT");
	int fd;

	printf("KTAP version 1\n1..1\n");
	fd = mnt ? open(mnt, O_RDONLY) : -1;
	if (fd < 0 || ioctl(fd, FIFREEZE, 0)) {
		printf("not ok 1 cannot freeze the file system on top\n");
		return 1;
	}
	printf("# selftests/blocked: %s frozen, a child writes to it\n", mnt);
	fflush(stdout);
	if (!fork())
		write_frozen(mnt);
	for (;;)
		pause();
	return 0;
}

GUEST_TEST(
	.name = "selftests/blocked",
	.what = "harness self-test: a task blocked for good (hung-task report)",
	.run = test_main,
);
