// SPDX-License-Identifier: MIT
/*
 * iofile: disks, regions, aligned buffers and error messages for the
 * workload programs (see iofile.h).
 */
#include "workloads/iofile.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "workloads/runctl.h"

void iofile_errmsg(int e, const char *file, const char *what, char *buf,
		   size_t len)
{
	switch (e) {
	case ENOSPC:
	case EDQUOT:
	case EFBIG:
		snprintf(buf, len, "disk full on '%s' (%s)", file, strerror(e));
		break;
	case ENODEV:
	case ENXIO:
	case ENOENT:
	case ESTALE:
	case ENOMEDIUM:
	case EBADF:
		snprintf(buf, len, "device vanished: '%s' (%s)", file,
			 strerror(e));
		break;
	case EIO:
		snprintf(buf, len, "device failed or vanished: '%s' (%s %s)",
			 file, what, strerror(e));
		break;
	default:
		snprintf(buf, len, "%s error on '%s' (%s)", what, file,
			 strerror(e));
	}
}

static int plan_dir(struct ioplan *p, const char *disk, const char *tag,
		    uint64_t len)
{
	char path[4096];
	unsigned i;

	for (i = 0; i < p->n; i++) {
		snprintf(path, sizeof(path), "%s/klab-%s-%ld-%u", disk, tag,
			 (long)getpid(), i);
		p->r[i].file = strdup(path);
		p->r[i].off = 0;
		p->r[i].len = len;
		p->r[i].created = 1;
	}
	return 0;
}

static int plan_bdev(struct ioplan *p, const char *disk, uint64_t len,
		     unsigned flags, char *err, size_t errlen)
{
	uint64_t size = 0, base;
	unsigned i;
	int fd;

	fd = open(disk, O_RDONLY);
	if (fd < 0 || iofile_size(fd, &size)) {
		iofile_errmsg(errno, disk, "open", err, errlen);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (size < len * p->n) {
		snprintf(err, errlen, "device '%s' too small: %llu MB for %u "
			 "regions of %llu MB", disk,
			 (unsigned long long)(size >> 20), p->n,
			 (unsigned long long)(len >> 20));
		return -1;
	}
	/* at the end: whole 1 MiB units, so O_DIRECT stays aligned */
	base = flags & IOPLAN_AT_END ? (size - len * p->n) & ~((1ull << 20) - 1)
				     : 0;
	for (i = 0; i < p->n; i++) {
		p->r[i].file = strdup(disk);
		p->r[i].off = base + len * i;
		p->r[i].len = len;
		p->r[i].bdev = 1;
	}
	return 0;
}

static int plan_file(struct ioplan *p, const char *disk, int exists,
		     uint64_t len, unsigned flags)
{
	uint64_t base = flags & IOPLAN_AT_END ? IOPLAN_FILE_FAR : 0;
	unsigned i;

	for (i = 0; i < p->n; i++) {
		p->r[i].file = strdup(disk);
		p->r[i].off = base + len * i;
		p->r[i].len = len;
		p->r[i].created = !exists && i == 0;
	}
	return 0;
}

int iofile_plan(struct ioplan *p, const char *disk, const char *tag,
		unsigned n, uint64_t len, unsigned flags, char *err,
		size_t errlen)
{
	struct stat st;
	int exists, rc;

	p->n = n;
	p->r = calloc(n ? n : 1, sizeof(*p->r));
	if (!p->r)
		abort();
	exists = stat(disk, &st) == 0;
	if (!exists && errno != ENOENT) {
		snprintf(err, errlen, "cannot use disk '%s': %s", disk,
			 strerror(errno));
		rc = -1;
	} else if (exists && S_ISDIR(st.st_mode)) {
		rc = plan_dir(p, disk, tag, len);
	} else if (exists && S_ISBLK(st.st_mode)) {
		rc = plan_bdev(p, disk, len, flags, err, errlen);
	} else if (!exists || S_ISREG(st.st_mode)) {
		rc = plan_file(p, disk, exists, len, flags);
	} else {
		snprintf(err, errlen, "cannot use disk '%s': not a block "
			 "device, file or directory", disk);
		rc = -1;
	}
	if (rc) {
		iofile_cleanup(p);
		p->n = 0;
	}
	return rc;
}

void iofile_cleanup(struct ioplan *p)
{
	unsigned i;

	for (i = 0; p->r && i < p->n; i++) {
		if (p->r[i].created && p->r[i].file)
			unlink(p->r[i].file);
		free(p->r[i].file);
	}
	free(p->r);
	p->r = NULL;
	p->n = 0;
}

int iofile_open(const struct ioregion *r, int flags, char *err, size_t errlen)
{
	int fd;

	if (r->bdev)
		fd = open(r->file, O_RDWR | flags);
	else
		fd = open(r->file, O_RDWR | O_CREAT | flags, 0644);
	if (fd < 0 && errno == EINVAL && (flags & O_DIRECT)) {
		snprintf(err, errlen, "cannot open '%s' with O_DIRECT: the "
			 "file system does not support it", r->file);
		return -1;
	}
	if (fd < 0)
		iofile_errmsg(errno, r->file, "open", err, errlen);
	return fd;
}

int iofile_slot_open(struct ioslot *s, const struct ioregion *r, size_t bs,
		     int flags)
{
	char err[512];

	s->r = r;
	s->buf = iofile_buffer(bs);
	s->fd = iofile_open(r, flags, err, sizeof(err));
	if (s->fd < 0) {
		wl_fail("%s", err);
		return -1;
	}
	return 0;
}

void iofile_slot_close(struct ioslot *s)
{
	if (s->fd > 0)
		close(s->fd);
	free(s->buf);
}

int iofile_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size) ? -1 : 0;
	*size = (uint64_t)st.st_size;
	return 0;
}

void *iofile_buffer(size_t len)
{
	void *p = NULL;
	size_t i;

	if (posix_memalign(&p, IOFILE_ALIGN, len ? len : IOFILE_ALIGN))
		abort();
	for (i = 0; i < len; i++)
		((unsigned char *)p)[i] = (unsigned char)(i * 31 + 7) | 1;
	return p;
}

static int io_fail(int e, const char *file, const char *what)
{
	char msg[512];

	iofile_errmsg(e, file, what, msg, sizeof(msg));
	wl_fail("%s", msg);
	return -1;
}

int iofile_read(int fd, const char *file, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return io_fail(errno, file, "read");
		if (n == 0) {
			wl_fail("unexpected end of file '%s' at %llu (file "
				"truncated or device shrunk)", file,
				(unsigned long long)(off + done));
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

int iofile_write(int fd, const char *file, const void *buf, size_t len,
		 uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done,
				   (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return io_fail(errno, file, "write");
		if (n == 0)
			return io_fail(ENOSPC, file, "write");
		done += (size_t)n;
	}
	return 0;
}

int iofile_fill(int fd, const char *file, uint64_t off, uint64_t len,
		size_t bs, void *buf)
{
	uint64_t done = 0;

	while (done < len && !wl_stopping()) {
		size_t n = len - done < bs ? (size_t)(len - done) : bs;

		if (iofile_write(fd, file, buf, n, off + done))
			return -1;
		done += n;
	}
	if (fsync(fd) && errno != EINVAL)
		return io_fail(errno, file, "fsync");
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path) && errno != ENOENT ? -1 : 0;
}

int iofile_rmtree(const char *path)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	int i, rc = -1;

	/* a killed load may still finish a create or two: retry */
	for (i = 0; i < 20 && rc; i++) {
		rc = nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		if (rc && errno == ENOENT)
			return 0;
		if (rc)
			nanosleep(&pause, NULL);
	}
	return rc;
}

/*
 * Drop the page cache of one region another way, for kernels built
 * without fadvise (CONFIG_ADVISE_SYSCALLS=n) and for pages fadvise left:
 * a block device's whole buffer cache (BLKFLSBUF), else every clean page
 * of the system (/proc/sys/vm/drop_caches).  Both need root, which a
 * rig's agent is.
 */
int iofile_drop_root(const struct ioregion *r, int fd)
{
	int pfd, ok;

	if (r->bdev && ioctl(fd, BLKFLSBUF, 0) == 0)
		return 0;
	pfd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (pfd < 0)
		return -1;
	ok = write(pfd, "1", 1) == 1;
	close(pfd);
	return ok ? 0 : -1;
}

/*
 * Whole pages of region r still in the page cache (mincore over a
 * mapping of them; fadvise keeps a page the region shares with its
 * neighbour, so those are not counted), or 0 when that cannot be told:
 * the phase's device share still shows a cached read.
 */
uint64_t iofile_resident(const struct ioregion *r, int fd)
{
	long sz = sysconf(_SC_PAGESIZE);
	uint64_t pg = sz > 0 ? (uint64_t)sz : 4096;
	uint64_t off = (r->off + pg - 1) / pg * pg;
	uint64_t end = (r->off + r->len) / pg * pg, n = 0, i, len;
	unsigned char *vec;
	void *m;

	if (end <= off)
		return 0;
	len = end - off;
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	if (m == MAP_FAILED)
		return 0;
	vec = malloc(len / pg);
	if (vec && mincore(m, len, vec) == 0)
		for (i = 0; i < len / pg; i++)
			n += vec[i] & 1;
	free(vec);
	munmap(m, len);
	return n;
}

/*
 * Write back the dirty pages of region r and wait for them: only its
 * range (sync_file_range), not its file's or device's others.  On a
 * block device that tiobench-under-writes' writers share, fdatasync
 * wrote back the writers' dirty data too, up to the dirty limit, and
 * waited for it before every read phase and every retry of a drop.
 */
int iofile_region_sync(const struct ioregion *r, int fd)
{
	if (sync_file_range(fd, (off_t)r->off, (off_t)r->len,
			    SYNC_FILE_RANGE_WAIT_BEFORE |
			    SYNC_FILE_RANGE_WRITE |
			    SYNC_FILE_RANGE_WAIT_AFTER) == 0)
		return 0;
	if (errno != ENOSYS && errno != ESPIPE && errno != EINVAL)
		return -1;
	return fdatasync(fd) && errno != EINVAL ? -1 : 0;
}
