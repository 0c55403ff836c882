/* SPDX-License-Identifier: MIT */
/*
 * comparisons: comparison runs in the database.  A comparison run judges
 * a candidate kernel against a base kernel on one rig and suite by
 * queueing interleaved A B cell pairs (jobs) until every headline metric
 * is decided or a cap is reached (flow/comparisons.c drives it,
 * judge/adaptive.h decides).  Its jobs belong to it (comparison_jobs), so
 * it judges exactly its own cells; the counts of its jobs by side and
 * state come with every row.
 */
#ifndef KLAB_DB_COMPARISONS_H
#define KLAB_DB_COMPARISONS_H

#include <stdint.h>

#include "db.h"
#include "jobs.h"

struct db_comparison {
	int64_t id;
	char *base, *candidate, *rig, *suite;
	char *scheduler, *cmdline;
	double scale;
	char *floors;		/* floor specs, one a line */
	int max_cells;		/* cells a side */
	double max_seconds;	/* wall-time cap, 0: none */
	int stop_on_worse;	/* a headline worse ends it (bisection) */
	char *state;		/* queued running decided undecided failed */
	int planned;		/* cells a side asked for so far */
	char *decided;		/* "METRIC VERDICT" lines from look to look */
	int open;		/* headline metrics open at the last look */
	char *error;		/* why it failed, or "" */
	char *who;		/* who asked for it */
	int64_t created, finished;
	/* its jobs, per side (0 base, 1 candidate); done[0] and total[0]
	 * count the borrowed cells too */
	int done[2], failed[2], total[2], started;
	int borrowed;		/* base cells borrowed (db_bisection_borrow) */
};

/* A new comparison (id, counts, finished ignored); *id its id. */
int db_comparison_add(struct db *db, const struct db_comparison *c,
		      int64_t *id, char *err, size_t errlen);
/* Queue a job as a cell of comparison id on side (0 base, 1 candidate). */
int db_comparison_job_add(struct db *db, int64_t id, int side,
			  const struct db_job_new *jn, int64_t *job,
			  char *err, size_t errlen);
/* DB_OK, DB_NOTFOUND or DB_ERR. */
int db_comparison_get(struct db *db, int64_t id, struct db_comparison *out);
/* Newest first; active: only queued and running ones; limit <= 0: all. */
int db_comparison_list(struct db *db, int active, int limit,
		       struct db_comparison **out, size_t *n);
/* The comparison's jobs that are done, its borrowed ones included,
 * ascending (*n may be 0). */
int db_comparison_done_jobs(struct db *db, int64_t id, int64_t **jobs,
			    size_t *n);
/* The latest error of a failed job of the comparison, heap, "" if none. */
char *db_comparison_job_error(struct db *db, int64_t id);
/* Record a look: state, planned, decided, open, error (NULL: keep);
 * finished is stamped when state is final. */
int db_comparison_update(struct db *db, int64_t id, const char *state,
			 int planned, const char *decided, int open,
			 const char *error);
/* A comparison that failed gives up its cells not yet handed out: they
 * end "failed" (infra, "comparison N failed").  The count, or DB_ERR. */
int db_comparison_cancel(struct db *db, int64_t id);
void db_comparison_release(struct db_comparison *c);
void db_comparisons_free(struct db_comparison *v, size_t n);

#endif
