/* SPDX-License-Identifier: MIT */
/*
 * qattr: set a suite's block queue attributes (its queue key, for example
 * "wbt_lat_usec=0 nr_requests=64") on every disk behind --disks for the
 * length of a run, and put the old values back afterwards.  The disks are
 * the whole disks devstat finds (a partition's or a mounted file system's
 * own disk).  klab-run applies them after the agent has set the job's
 * scheduler, so iosched/ attributes are the chosen scheduler's.
 */
#ifndef KLAB_QATTR_H
#define KLAB_QATTR_H

#include <stddef.h>

#include "workloads/devstat.h"
#include "workloads/suite.h"

struct qattr_saved {
	char path[600];		/* .../queue/NAME */
	char old[64];
};

struct qattr_state {
	struct qattr_saved v[DEVSTAT_MAX_DISKS * SUITE_MAX_QUEUE];
	unsigned n;
};

/*
 * Write each of s's attributes on each disk of dev (sysfs directories).
 * Returns 0, or -1 with a message that names the disk, the attribute and
 * the kernel's answer in err; what was set before the failure is put back.
 * A suite without a queue key is 0 at once.
 */
int qattr_apply(struct qattr_state *st, const struct suite *s,
		const struct devstat_set *dev, char *err, size_t errlen);

/* Put the old values back, last set first. */
void qattr_restore(struct qattr_state *st);

#endif
