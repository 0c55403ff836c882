/* SPDX-License-Identifier: MIT */
/*
 * submissions: patch submissions in the database.  A submission is one
 * user request (a base, a patch series, rigs and suites, the job
 * configuration of their cells, its submitter and a note) that
 * flow/submissions.c drives through its stages: check, build,
 * cells, verdict, report, alert.  Its patches (one row per
 * patch of the series, with its subject), its stages (each with its
 * times and log) and its cells (one comparison run per rig x suite) are
 * rows of their own, so a restarted klabd picks every submission up
 * where it was.  The queue view (db_queue_*) is what the /queue page
 * shows: jobs handed out or waiting, with their submitter, and builds.
 */
#ifndef KLAB_DB_SUBMISSIONS_H
#define KLAB_DB_SUBMISSIONS_H

#include <stdint.h>

#include "db.h"

struct db_submission {
	int64_t id;
	char *base;		/* as requested: debian-6.1, NAME@COMMIT */
	char *files;		/* stored patch files, '\n' separated */
	char *rigs, *suites;	/* ',' separated */
	char *note, *who;
	int max_cells;		/* cells a side, per comparison */
	double scale;		/* the job configuration of every cell: */
	char *scheduler;	/* scale (<= 0 stored as 1), scheduler and */
	char *cmdline;		/* kernel parameters, "" */
	char *state;		/* running finished failed cancelled */
	char *stage;		/* check build cells verdict report alert */
	char *verdict;		/* worse better same undecided, "" */
	char *error;
	int64_t build[2];	/* base and patched builds, 0: none yet */
	char *kernel[2];	/* their catalog idents once built, "" */
	char *report;		/* the text report once written */
	int64_t created, finished;
};

struct db_sub_patch {
	int seq;
	char *name;		/* file it came from ("series.mbox[2/3]") */
	char *subject;
};

struct db_sub_stage {
	char *stage;
	char *state;		/* running done failed cancelled */
	char *log;
	int64_t started, finished;
};

struct db_sub_cell {
	int64_t comparison;
	char *rig, *suite;
};

/*
 * A new submission s (state running, stage build; id, verdict, builds,
 * kernels, report and times ignored; scale <= 0 stored as 1, scheduler
 * and cmdline NULL as "") with its n patches and its check stage
 * already done with check_log, in the caller's transaction.  *id its
 * id.  DB_OK, or a DB_E* code with err set.
 */
int db_submission_add(struct db *db, const struct db_submission *s,
		      const struct db_sub_patch *p, size_t n,
		      const char *check_log, int64_t *id, char *err,
		      size_t errlen);
/* DB_OK, DB_NOTFOUND or DB_ERR. */
int db_submission_get(struct db *db, int64_t id, struct db_submission *out);
/* Newest first; active: only running ones, oldest first; limit <= 0:
 * all. */
int db_submission_list(struct db *db, int active, int limit,
		       struct db_submission **out, size_t *n);
/* The submissions that ended (finished, failed or cancelled) at or
 * after since (unix seconds), newest first; limit <= 0: all. */
int db_submission_ended(struct db *db, int64_t since, int limit,
			struct db_submission **out, size_t *n);
/* Set state, stage, verdict, error, report (NULL: keep each); finished
 * is stamped when state is not "running".  A state is set only on a
 * running submission (an end is final): DB_NOTFOUND otherwise. */
int db_submission_update(struct db *db, int64_t id, const char *state,
			 const char *stage, const char *verdict,
			 const char *error, const char *report);
/* Record the builds of side 0 (base) and 1 (patched); ident NULL: keep. */
int db_submission_set_build(struct db *db, int64_t id, int side,
			    int64_t build, const char *ident);
/* The submission build is a side of: DB_OK with *id, DB_NOTFOUND. */
int db_submission_of_build(struct db *db, int64_t build, int64_t *id);
/* Running submissions created before id: its place in the queue - 1. */
int db_submission_ahead(struct db *db, int64_t id);

int db_submission_patches(struct db *db, int64_t id,
			  struct db_sub_patch **out, size_t *n);
int db_submission_stages(struct db *db, int64_t id,
			 struct db_sub_stage **out, size_t *n);
int db_submission_cells(struct db *db, int64_t id,
			struct db_sub_cell **out, size_t *n);
/* Begin stage (a running row), or end the running row of stage with
 * state and log (appended). */
int db_submission_stage_begin(struct db *db, int64_t id, const char *stage);
int db_submission_stage_end(struct db *db, int64_t id, const char *stage,
			    const char *state, const char *log);
/* Record comparison as the cell of rig x suite. */
int db_submission_cell_add(struct db *db, int64_t id, int64_t comparison,
			   const char *rig, const char *suite);

void db_submission_release(struct db_submission *s);
void db_submissions_free(struct db_submission *v, size_t n);
void db_sub_patches_free(struct db_sub_patch *v, size_t n);
void db_sub_stages_free(struct db_sub_stage *v, size_t n);
void db_sub_cells_free(struct db_sub_cell *v, size_t n);

/* A job of the queue view: handed out or waiting, with its submitter. */
struct db_queue_job {
	int64_t id;
	char *kernel, *suite, *state;
	/* the rig it runs on; a waiting job's, the rig or class of rigs
	 * it waits for (the class, "pool", of a job queued for one) */
	char *rig;
	char *who;		/* the comparison's submitter, "" by hand */
	int64_t submission;	/* 0 when not a submission's cell */
	int64_t created, started;
	char *pool;		/* the class it was queued for, "" none */
};

/*
 * The jobs of rig (NULL: every rig) in state class: active 1 those
 * handed out (assigned booting running), 0 the queued ones in the order
 * db_job_next hands them out (round-robin by submitter).
 */
/* The job db_job_next hands rig next: its id, 0 when none, -1 on error. */
int64_t db_queue_next(struct db *db, const char *rig);
int db_queue_jobs(struct db *db, const char *rig, int active,
		  struct db_queue_job **out, size_t *n);
/* Every job of submission id's comparisons, oldest first. */
int db_submission_jobs(struct db *db, int64_t id, struct db_queue_job **out,
		       size_t *n);
void db_queue_jobs_free(struct db_queue_job *v, size_t n);

#endif
