/* SPDX-License-Identifier: MIT */
/*
 * job_check: what a rig may be asked to run, checked once for every way
 * of queueing cells (a job, a comparison run, a submission, a bisection,
 * a track): the suite (a file of workloads/suites/) and the job
 * configuration (scale, scheduler, the kernel parameters the
 * configuration's job_cmdline_allow allows).  Each answers an outcome
 * (klabd/outcome.h) with err naming the field.
 */
#ifndef KLAB_JOB_CHECK_H
#define KLAB_JOB_CHECK_H

#include <stddef.h>

#include "klabd/outcome.h"

struct klabd;

/*
 * A job configuration (scale 0: the suite's own; scheduler and cmdline
 * NULL or "": the rig's default, nothing added): OUT_OK; OUT_INVALID for
 * a scale out of klab-run's range or a scheduler that is not a name
 * (lib/ident.h); OUT_FORBIDDEN for a kernel parameter job_cmdline_allow
 * does not allow.
 */
enum outcome job_config_check(const struct klabd *d, double scale,
			      const char *scheduler, const char *cmdline,
			      char *err, size_t errlen);
/* A job's suite, a suite of workloads/suites/: OUT_OK, or OUT_INVALID
 * with err naming what is refused (a bad name, an unknown suite). */
enum outcome job_suite_check(const struct klabd *d, const char *suite,
			     char *err, size_t errlen);
/* Register (or describe anew) every suite of workloads/suites/ in the
 * database, as its file names and describes it (at start); how many.
 * A suite that cannot be read is logged and skipped. */
struct db;
int job_suites_register(const struct klabd *d, struct db *db);

#endif
