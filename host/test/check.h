/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host test programs' one assertion: CHECK(cond, "what", ...) prints
 * "ok" or "FAIL" with the description and counts it.
 */
#ifndef HOST_TEST_CHECK_H
#define HOST_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...) check(!!(cond), #cond, __VA_ARGS__)

static void __attribute__((format(printf, 3, 4)))
check(int ok, const char *expr, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok)
		printf("   [%s]", expr);
	printf("\n");
	if (ok)
		passed++;
	else
		failed++;
}

#endif
