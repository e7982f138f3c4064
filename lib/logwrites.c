// SPDX-License-Identifier: GPL-2.0
/*
 * Reading and replaying a dm-log-writes log (the kernel's format,
 * Documentation/admin-guide/device-mapper/log-writes.rst and
 * drivers/md/dm-log-writes.c): a super block at byte 0, then one entry
 * per logged write, flush, discard or mark, each a sector of its own
 * followed by the data written.  Writes are logged once a flush that
 * covers them completes (FUA writes at once), so the log is the order in
 * which data reached stable storage, and replaying it up to a mark gives
 * what survives a power cut at that mark.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stacktest.h"

#define LW_MAGIC 0x6a736677736872ULL
#define LW_VERSION 1ULL

struct lw_super_disk {
	uint64_t magic, version, nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct lw_entry_disk {
	uint64_t sector, nr_sectors, flags, data_len;
};

/* A sector-aligned read of len bytes at off (the log may be O_DIRECT). */
static int read_at(int fd, void *buf, size_t len, long long off)
{
	return pread(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

int lw_open(struct lw_log *l, const char *path)
{
	struct lw_super_disk *s;
	void *buf;

	memset(l, 0, sizeof(*l));
	l->fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (l->fd < 0 && errno == EINVAL)	/* a plain file on tmpfs */
		l->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0 || posix_memalign(&buf, 4096, 4096))
		return -1;
	if (read_at(l->fd, buf, 4096, 0)) {
		free(buf);
		return -1;
	}
	s = buf;
	l->nr_entries = le64toh(s->nr_entries);
	l->sectorsize = le32toh(s->sectorsize);
	if (le64toh(s->magic) != LW_MAGIC || le64toh(s->version) != LW_VERSION ||
	    l->sectorsize < 512 || l->sectorsize > 4096 ||
	    (l->sectorsize & (l->sectorsize - 1))) {
		free(buf);
		errno = EINVAL;
		return -1;
	}
	l->buf = buf;
	l->pos = l->sectorsize;
	return 0;
}

int lw_next(struct lw_log *l, struct lw_entry *e)
{
	struct lw_entry_disk *d = l->buf;
	size_t mlen;

	if (l->index >= l->nr_entries)
		return 0;
	if (read_at(l->fd, l->buf, l->sectorsize, l->pos))
		return -1;
	memset(e, 0, sizeof(*e));
	e->index = l->index++;
	e->sector = le64toh(d->sector);
	e->nr_sectors = le64toh(d->nr_sectors);
	e->flags = le64toh(d->flags);
	e->data_off = l->pos + l->sectorsize;
	if (e->flags & LW_MARK) {
		mlen = le64toh(d->data_len);
		if (mlen >= sizeof(e->mark))
			mlen = sizeof(e->mark) - 1;
		memcpy(e->mark, (char *)l->buf + sizeof(*d), mlen);
		e->nr_sectors = 0;
	}
	l->pos += l->sectorsize;
	if (!(e->flags & (LW_DISCARD | LW_MARK)))
		l->pos += (long long)e->nr_sectors * l->sectorsize;
	return 1;
}

void lw_close(struct lw_log *l)
{
	if (l->fd >= 0)
		close(l->fd);
	free(l->buf);
	l->buf = NULL;
	l->fd = -1;
}

/* Copy one entry's data (or zeroes, for a discard) onto the target. */
static int apply(struct lw_log *l, const struct lw_entry *e, int out)
{
	long long len = (long long)e->nr_sectors * l->sectorsize;
	long long dst = (long long)e->sector * l->sectorsize, done = 0;
	static char *buf;
	const long long chunk = 1 << 20;

	if (!buf && posix_memalign((void **)&buf, 4096, chunk))
		return -1;
	while (done < len) {
		long long n = len - done < chunk ? len - done : chunk;

		if (e->flags & LW_DISCARD)
			memset(buf, 0, n);
		else if (read_at(l->fd, buf, n, e->data_off + done))
			return -1;
		if (pwrite(out, buf, n, dst + done) != n)
			return -1;
		done += n;
	}
	return 0;
}

long long lw_replay(const char *log, const char *target, const char *mark,
		    char *msg, size_t len)
{
	struct lw_log l;
	struct lw_entry e;
	long long applied = 0;
	int out, rc, found = 0;

	if (lw_open(&l, log)) {
		snprintf(msg, len, "%s: not a dm-log-writes log (%s)", log,
			 strerror(errno));
		return -1;
	}
	out = open(target, O_WRONLY | O_CLOEXEC);
	if (out < 0) {
		snprintf(msg, len, "%s: %s", target, strerror(errno));
		lw_close(&l);
		return -1;
	}
	while ((rc = lw_next(&l, &e)) > 0) {
		if ((e.flags & LW_MARK) && mark && !strcmp(e.mark, mark)) {
			found = 1;
			break;
		}
		if (e.flags & LW_MARK || !e.nr_sectors)
			continue;
		if (apply(&l, &e, out)) {
			rc = -1;
			break;
		}
		applied++;
	}
	if (rc >= 0 && mark && !found) {
		snprintf(msg, len, "%s: no mark '%s' in %llu entries", log, mark,
			 (unsigned long long)l.nr_entries);
		rc = -1;
	} else if (rc < 0) {
		snprintf(msg, len, "%s: replay onto %s failed at entry %llu: %s",
			 log, target, (unsigned long long)e.index,
			 strerror(errno));
	}
	if (fsync(out))
		rc = -1;
	close(out);
	lw_close(&l);
	return rc < 0 ? -1 : applied;
}
