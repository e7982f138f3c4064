// SPDX-License-Identifier: GPL-2.0
/* A newc ("070701") cpio writer, as init/initramfs.c reads it. */
#include <stdio.h>
#include <string.h>

#include "cpio.h"

static unsigned int next_ino = 1;

static void pad4(struct strbuf *sb)
{
	static const char zeros[4];

	sb_add(sb, zeros, (4 - sb->len % 4) % 4);
}

static void header(struct strbuf *sb, const char *name, unsigned int mode,
		   size_t len)
{
	size_t nlen = strlen(name) + 1;

	sb_printf(sb, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		  next_ino++, mode, 0, 0, 1, 0, (unsigned int)len, 0, 0, 0, 0,
		  (unsigned int)nlen, 0);
	sb_add(sb, name, nlen);
	pad4(sb);
}

void cpio_add_file(struct strbuf *sb, const char *name, const char *data,
		   size_t len, unsigned int mode)
{
	header(sb, name, 0100000 | mode, len);
	sb_add(sb, data, len);
	pad4(sb);
}

void cpio_finish(struct strbuf *sb)
{
	header(sb, "TRAILER!!!", 0, 0);
}
