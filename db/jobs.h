/* SPDX-License-Identifier: MIT */
/*
 * jobs: the lab's work queue in the database.  A job is one cell of the
 * lab: a kernel, on a rig, running a suite (with an I/O scheduler and a
 * scale factor).  The rig manager (lab/rigmgr.c) hands queued jobs
 * to agents, follows them through boot and run, and records how they end:
 * done (with the runs its results created) or failed with a class
 * ("infra": retried; "kernel": panic/oops/hang, with the console log;
 * "benchmark": tool error or timeout, with its output).
 *
 * Boot artifacts of a kernel (its uname -r, bzImage and per-kernel module
 * archive, by content hash) are kept beside the catalog entry.
 */
#ifndef KLAB_DB_JOBS_H
#define KLAB_DB_JOBS_H

#include <stdint.h>

#include "db.h"

struct db_job {
	int64_t id;
	char *kernel, *rig, *suite;
	char *scheduler;	/* "" : leave the rig's default */
	char *cmdline;		/* extra kernel command line, "" */
	double scale;
	/* queued assigned booting running done failed */
	char *state;
	char *failure;		/* "", "infra", "kernel", "benchmark" */
	char *error;
	char *console;		/* console log of the failed boot, or "" */
	char *output;		/* benchmark output of a failure, or "" */
	int attempts;
	int64_t created, started, finished;
};

struct db_job_new {
	const char *kernel, *rig, *suite, *scheduler, *cmdline;
	double scale;
};

/* Queue a job; kernel/rig/suite must exist.  *id receives its id.  rig
 * may name a class (rigs.class, migration 23): the job then goes to
 * whichever rig of the class takes it first (db_job_assign); a rig's
 * own name outside a class of that name queues it for that rig alone. */
int db_job_add(struct db *db, const struct db_job_new *j, int64_t *id,
	       char *err, size_t errlen);
int db_job_get(struct db *db, int64_t id, struct db_job *out);
/* Newest first; rig/state NULL: any; limit <= 0: no limit. */
int db_job_list(struct db *db, const char *rig, const char *state,
		int limit, struct db_job **out, size_t *n);
/* The next queued job for rig, round-robin by submitter (the fair order
 * of db/submissions.h): DB_NOTFOUND when none. */
int db_job_next(struct db *db, const char *rig, struct db_job *out);
/* Hand queued job id to rig (state "assigned", started stamped; a
 * job queued for a class takes rig as its rig).  DB_NOTFOUND when the
 * job is no longer queued (another rig of its class took it). */
int db_job_assign(struct db *db, int64_t id, const char *rig);
/* Change the state; started/finished stamped on the way. */
int db_job_set_state(struct db *db, int64_t id, const char *state);
/* Record a failure.  class "infra" with attempts left requeues the job
 * (state "queued", attempts + 1); everything else ends it ("failed"). */
int db_job_fail(struct db *db, int64_t id, const char *klass,
		const char *error, const char *console, const char *output,
		int max_attempts);
/* Run ids stored for the job (the acknowledged upload), *n may be 0. */
int db_job_runs(struct db *db, int64_t id, int64_t **runs, size_t *n);
/* Jobs left in assigned/booting/running by a previous klabd go back to
 * the queue (their rigs are cold-booted anyway).  Returns the count. */
int db_job_requeue_stale(struct db *db);
void db_job_release(struct db_job *j);
void db_jobs_free(struct db_job *v, size_t n);

/*
 * Where a job's time went (db_job_steps.c): its steps in the order they
 * ran, klabd's own (hand-out, boot, upload) and those of the agent's
 * upload (docs/RESULTS.md, "steps").  Not measurements.
 */
struct db_job_step {
	char *name;
	int rep;		/* the repetition it was part of, 0: none */
	double secs;
};

/* Replace job's steps with v[0..n) (names copied); DB_OK or DB_ERR. */
int db_job_steps_put(struct db *db, int64_t job, const struct db_job_step *v,
		     size_t n);
/* Job's steps in order, *n may be 0; DB_OK or DB_ERR. */
int db_job_steps(struct db *db, int64_t job, struct db_job_step **out,
		 size_t *n);
void db_job_steps_free(struct db_job_step *v, size_t n);

/* One step over many jobs: its mean seconds per job (the sum of its
 * rows in a job, every repetition's, over the jobs counted). */
struct db_step_mean {
	char *name;
	double secs;
	int64_t jobs;		/* jobs that had the step */
	int64_t total;		/* jobs counted */
};

/*
 * The mean of each step over the newest limit (<= 0: all) done jobs
 * that have steps, of rig and suite (NULL: any), in the order the steps
 * first ran; *jobs the number of jobs counted.  DB_OK or DB_ERR.
 */
int db_job_step_means(struct db *db, const char *rig, const char *suite,
		      int limit, struct db_step_mean **out, size_t *n,
		      int64_t *jobs);
void db_step_means_free(struct db_step_mean *v, size_t n);

/* Boot artifacts of a kernel. */
struct db_kernel_boot {
	char *release;		/* uname -r */
	char *image;		/* path of the bzImage / vmlinuz */
	char *modules;		/* path of the modules cpio.gz, "" if none */
};

int db_kernel_set_boot(struct db *db, const char *ident,
		       const char *release, const char *image,
		       const char *modules);
/* DB_NOTFOUND when the kernel is unknown or has no boot artifacts. */
int db_kernel_get_boot(struct db *db, const char *ident,
		       struct db_kernel_boot *out);
void db_kernel_boot_release(struct db_kernel_boot *b);

/* Rig tokens: set (on configuration) and look a token up. */
int db_rig_set_token(struct db *db, const char *rig, const char *token);
/* Record rig's class (its own name by default), from the
 * configuration. */
int db_rig_set_class(struct db *db, const char *rig, const char *klass);
/* The rig name owning token (heap copy), or NULL. */
char *db_rig_by_token(struct db *db, const char *token);

#endif
