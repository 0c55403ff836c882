/* SPDX-License-Identifier: MIT */
/*
 * devstat: the block device's own counters around a phase.  A phase's
 * disks (block devices, files or directories) are resolved to the whole
 * disks behind them through /sys/dev/block/MAJ:MIN (a partition counts as
 * its disk); /sys/block/DEV/stat is read before and after the phase and
 * the deltas, summed over the disks, become results "<prefix>.dev_reads",
 * ".dev_read_merges", ... with direction DIR_NONE: they explain a phase
 * (merges per request, device-level I/O size, reads served by the page
 * cache) and never carry a verdict.  Field layout: the kernel's
 * Documentation/block/stat.rst.  KLAB_SYSROOT in the environment prefixes
 * /sys, so tests can feed a fake tree.
 */
#ifndef KLAB_DEVSTAT_H
#define KLAB_DEVSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/results.h"

/* One stat line's first eleven fields (ticks in ms, sectors of 512 B). */
struct devstat {
	uint64_t rd_ios, rd_merges, rd_sectors, rd_ticks;
	uint64_t wr_ios, wr_merges, wr_sectors, wr_ticks;
	uint64_t in_flight, io_ticks, queue_ticks;
};

#define DEVSTAT_MAX_DISKS 16

/* The whole disks of a phase, by their sysfs directories. */
struct devstat_set {
	unsigned n;
	char dir[DEVSTAT_MAX_DISKS][512];
};

/* Parse a /sys/block/DEV/stat line.  Returns 0, or -1 when it is not one. */
int devstat_parse(const char *line, struct devstat *out);

/*
 * The sysfs directory of the whole disk that holds path (a block device,
 * or a file or directory, existing or to be created in an existing
 * directory) under sysroot ("" for the real /sys).  Returns 0, or -1 when
 * there is none (a file on tmpfs or overlayfs).
 */
int devstat_disk_find(const char *sysroot, const char *path, char *dir,
		      size_t len);

/*
 * Resolve the comma-separated paths (sysroot from KLAB_SYSROOT); the same
 * disk counts once.  Returns how many disks were found.
 */
unsigned devstat_set_init(struct devstat_set *s, const char *paths);

/* Sum of the disks' counters now.  Returns 0, or -1 when one is unreadable. */
int devstat_set_read(const struct devstat_set *s, struct devstat *sum);

/* d = after - before, field by field (0 where a counter went backwards). */
void devstat_delta(const struct devstat *before, const struct devstat *after,
		   struct devstat *d);

/* KiB per request: sectors / 2 / ios, or -1 when ios is 0. */
double devstat_kib_per_io(uint64_t sectors, uint64_t ios);

/* Add d as "<prefix>.dev_*" results, all DIR_NONE. */
void devstat_report(struct result_set *rs, const char *prefix,
		    const struct devstat *d);

/*
 * The cache check of a read phase that asked for asked bytes: the share
 * the device delivered (read sectors x 512 / asked) is the result
 * "<prefix>.dev_read_share"; under DEVSTAT_DEVICE_SHARE the phase was
 * served from the page cache and "<prefix>.cached" is 1 (else 0).  Both
 * DIR_NONE; a verdict never rests on a phase whose cached is not 0
 * (judge/compare.c).  Returns whether the phase counts as cached.
 */
#define DEVSTAT_DEVICE_SHARE 0.9
int devstat_report_cache(struct result_set *rs, const char *prefix,
			 const struct devstat *d, uint64_t asked);

/*
 * The bytes this process (all its threads, and children it has reaped)
 * made the kernel fetch from storage: "read_bytes" of path, which is
 * /proc/self/io (NULL) or a test's file.  For a phase whose disk also
 * serves other processes (rio's reader beside dbench), this is its own
 * share where the disk's counters are everyone's.  Returns 0, or -1 when
 * there is none (a kernel without CONFIG_TASK_IO_ACCOUNTING).
 */
int devstat_proc_read_bytes(const char *path, uint64_t *out);

#endif
