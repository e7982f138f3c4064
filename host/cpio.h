/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_CPIO_H
#define HOST_CPIO_H

#include "util.h"

/* Append a regular file entry in the newc format the kernel unpacks. */
void cpio_add_file(struct strbuf *sb, const char *name, const char *data,
		   size_t len, unsigned int mode);
void cpio_finish(struct strbuf *sb);

#endif
