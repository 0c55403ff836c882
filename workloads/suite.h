/* SPDX-License-Identifier: MIT */
/*
 * suite: the declarative suite files of workloads/suites/ (format in
 * docs/SUITES.md).  A suite is "key = value" lines: the measured workload
 * command, an optional background load, a warm-up command that runs and is
 * discarded, repetitions, a timeout, the file system the first disk must
 * carry and the space the suite needs on it, the block queue attributes
 * its disks run with and the vm settings (dirty limits) the machine runs
 * with (workloads/qattr.h).  Commands name {N} numbers that the
 * scale factor multiplies, and {disk}, {disks}, {ncpu}, {id} placeholders.
 */
#ifndef KLAB_SUITE_H
#define KLAB_SUITE_H

#include <stddef.h>

#define SUITE_MAX_QUEUE 8
#define SUITE_MAX_VM 4

/* One "NAME=VALUE" of the queue key (/sys/block/DEV/queue/NAME) or of the
 * vm key (/proc/sys/vm/NAME). */
struct suite_qattr {
	char name[48];		/* [a-z0-9_]+, or iosched/[a-z0-9_]+ */
	char value[24];		/* a decimal integer; for vm also {N},
				 * which klab-run expands in place */
};

struct suite {
	char *path;
	char *name;
	char *description;
	char *workload;		/* the measured command, unexpanded */
	char *warmup;		/* NULL for "none" */
	char *background;	/* NULL when there is none */
	char *background_warmup;	/* seconds, unexpanded ("{5}") */
	char *timeout;		/* seconds per run, unexpanded */
	char *filesystem;	/* "ext4": the first disk must be a mounted
				 * file system; NULL: disks are used raw */
	char *disk_mb;		/* MiB the first disk must have, unexpanded;
				 * NULL: no requirement */
	unsigned repetitions;
	struct suite_qattr queue[SUITE_MAX_QUEUE];
	unsigned nqueue;
	struct suite_qattr vm[SUITE_MAX_VM];	/* the vm key */
	unsigned nvm;
};

/* The scale factors klab-run takes (--scale): every way in that queues a
 * job checks its scale against these (http/api_jobs.c). */
#define SUITE_SCALE_MIN 0.0001
#define SUITE_SCALE_MAX 10000.0

struct suite_vars {
	double scale;
	const char *disk;	/* first disk */
	const char *disks;	/* all, comma-separated */
	const char *id;
	unsigned ncpu;
};

/*
 * Parse the suite file at path.  Returns 0, or -1 with a message naming the
 * file and line in err.  suite_release() frees it either way.
 */
int suite_load(struct suite *s, const char *path, char *err, size_t errlen);
void suite_release(struct suite *s);

/*
 * Find SUITE: a path when it contains '/', else dir/SUITE.suite for the
 * first dir in dirs (NULL-terminated) that has it.  Returns a new string,
 * or NULL with err filled in.
 */
char *suite_find(const char *name, const char *const *dirs, char *err,
		 size_t errlen);

/*
 * Expand placeholders in s: {N} or {N.N} becomes N x scale rounded to an
 * integer (at least 1), {disk}, {disks}, {ncpu}, {id} their values.
 * Returns a new string, or NULL with err filled in (unknown placeholder).
 */
char *suite_expand(const char *s, const struct suite_vars *v, char *err,
		   size_t errlen);

#endif
