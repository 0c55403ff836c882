/* SPDX-License-Identifier: MIT */
/*
 * iofile: where a workload does its I/O.  A "disk" on the command line is a
 * block device, a regular file (created if missing) or a directory (a test
 * file is created inside).  iofile_plan() turns a disk and N workers into N
 * regions: one file each inside a directory, consecutive slices of the
 * device or file otherwise.  Files the plan created are removed by
 * iofile_cleanup(), also after an error or a signal.
 *
 * I/O errors are turned into messages that say which kind of trouble it was:
 * "disk full on 'X'", "device vanished: 'X' (...)", "I/O error on 'X' (...)".
 */
#ifndef KLAB_IOFILE_H
#define KLAB_IOFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define IOFILE_ALIGN 4096

struct ioregion {
	char *file;	/* path to open */
	uint64_t off;	/* first byte of the region */
	uint64_t len;	/* bytes */
	int created;	/* this plan created file: unlink on cleanup */
	int bdev;
};

struct ioplan {
	struct ioregion *r;
	unsigned n;
};

/*
 * Plan n regions of len bytes each on disk; tag names created files
 * ("klab-<tag>-<pid>-<i>").  Directories get one file per region, a
 * device or file gets consecutive regions (checked against the device
 * size).  IOPLAN_AT_END puts a device's regions at its end and a file's
 * from IOPLAN_FILE_FAR on, so that a program planned this way beside one
 * planned from the start (a background writer beside tiotest) never
 * shares a block with it.  Returns 0, or -1 with a message in err.
 */
#define IOPLAN_AT_END 1u
#define IOPLAN_FILE_FAR (1ull << 40)
int iofile_plan(struct ioplan *p, const char *disk, const char *tag,
		unsigned n, uint64_t len, unsigned flags, char *err,
		size_t errlen);
/* Remove created files (once per path) and free the plan. */
void iofile_cleanup(struct ioplan *p);

/* open(2) a region's file with extra flags (O_DIRECT, O_SYNC); -1 + msg. */
int iofile_open(const struct ioregion *r, int flags, char *err, size_t errlen);

/* A worker's region, opened, with its aligned I/O buffer. */
struct ioslot {
	const struct ioregion *r;
	int fd;
	void *buf;
};

/*
 * Point s at r, give it a bs-byte buffer (iofile_buffer) and open r with
 * flags.  Returns 0, or -1 after wl_fail() with the message.
 */
int iofile_slot_open(struct ioslot *s, const struct ioregion *r, size_t bs,
		     int flags);
/* Close s's file and free its buffer; a zeroed slot is left alone. */
void iofile_slot_close(struct ioslot *s);

/* Size in bytes of a block device, or of a regular file; -1 on error. */
int iofile_size(int fd, uint64_t *size);

/* An aligned buffer of len bytes, filled with non-zero bytes.  Aborts on
 * ENOMEM. */
void *iofile_buffer(size_t len);

/*
 * Write len bytes at off (whole region prefill for readers), in blocks of bs.
 * Stops early when wl_stopping().  Returns 0, or -1 with the message
 * recorded by wl_fail().
 */
int iofile_fill(int fd, const char *file, uint64_t off, uint64_t len,
		size_t bs, void *buf);

/*
 * One whole pread/pwrite of len bytes (retried on short transfers and
 * EINTR).  Returns 0, or -1 after wl_fail() with a message naming file.
 */
int iofile_read(int fd, const char *file, void *buf, size_t len, uint64_t off);
int iofile_write(int fd, const char *file, const void *buf, size_t len,
		 uint64_t off);

/* rm -r path (files, directories, no symlink following); 0 or -1. */
int iofile_rmtree(const char *path);

/* The message for errno e on file: disk full / device vanished / I/O error. */
void iofile_errmsg(int e, const char *file, const char *what, char *buf,
		   size_t len);

/* A region's page cache (tiotest's drops before its read phases): write
 * back its dirty pages and wait (only its range where the kernel can);
 * drop a device's buffer cache or every clean page (root); the whole
 * pages of it still cached, 0 when that cannot be told. */
int iofile_region_sync(const struct ioregion *r, int fd);
int iofile_drop_root(const struct ioregion *r, int fd);
uint64_t iofile_resident(const struct ioregion *r, int fd);

#endif
