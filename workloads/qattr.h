/* SPDX-License-Identifier: MIT */
/*
 * qattr: set a suite's block queue attributes (its queue key, for example
 * "wbt_lat_usec=0 nr_requests=64") on every disk behind --disks for the
 * length of a run, and put the old values back afterwards.  The disks are
 * the whole disks devstat finds (a partition's or a mounted file system's
 * own disk).  klab-run applies them after the agent has set the job's
 * scheduler, so iosched/ attributes are the chosen scheduler's.
 *
 * The vm key's settings (/proc/sys/vm/, "dirty_bytes=... ") are the whole
 * machine's, so two runs on one host must not interleave them: while a
 * run holds them it holds an exclusive lock on a journal file that lists
 * the old values, and the next run to take the lock puts back whatever a
 * killed run left in it before saving anything itself.
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
	struct qattr_saved v[DEVSTAT_MAX_DISKS * SUITE_MAX_QUEUE +
			     SUITE_MAX_VM];
	unsigned n;
	int journal;		/* the vm journal, locked; -1 when none */
};

/*
 * Write each of s's attributes on each disk of dev (sysfs directories).
 * Returns 0, or -1 with a message that names the disk, the attribute and
 * the kernel's answer in err; what was set before the failure is put back.
 * A suite without a queue key is 0 at once.
 */
int qattr_apply(struct qattr_state *st, const struct suite *s,
		const struct devstat_set *dev, char *err, size_t errlen);

/*
 * Write each of s's vm settings (values already expanded: plain integers)
 * under dir (/proc/sys/vm), after qattr_apply on the same st.  The old
 * values are written to the journal file first, under its lock (taken,
 * waiting if another run holds it, only when s has a vm key; a suite
 * without one only puts back what a killed run left, when no run holds
 * the lock).  dirty_bytes
 * and dirty_ratio are one setting to the kernel (writing one zeroes the
 * other; a _bytes file refuses 0), so a NAME_bytes that reads 0 is saved
 * as NAME_ratio's value.  Returns 0, or -1 with the setting, the path and
 * the kernel's answer in err, and everything st held (queue attributes
 * too) put back.
 */
int qattr_apply_vm(struct qattr_state *st, const struct suite *s,
		   const char *dir, const char *journal, char *err,
		   size_t errlen);

/* Put the old values back, last set first; empty and unlock the journal. */
void qattr_restore(struct qattr_state *st);

#endif
