/* SPDX-License-Identifier: MIT */
/*
 * comparisons: comparison runs in the database.  A comparison run judges
 * a candidate kernel against a base kernel on one rig (or class of
 * rigs) and suite by
 * queueing interleaved A B cell pairs (jobs) until every headline metric
 * is decided or a cap is reached (flow/comparisons.c drives it,
 * judge/adaptive.h decides).  Its jobs belong to it (comparison_jobs), so
 * it judges exactly its own cells; the counts of its jobs by side and
 * state come with every row.  Each look stores its decisions, one row a
 * metric (comparison_decisions), and every view reads them back.
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
	int open;		/* headline metrics open at the last look */
	char *error;		/* why it failed, or "" */
	char *who;		/* who asked for it */
	int64_t created, finished;
	/* its jobs, per side (0 base, 1 candidate); done[0] and total[0]
	 * count the borrowed cells too */
	int done[2], failed[2], total[2], started;
	int borrowed;		/* base cells an older klab lent a step */
};

/*
 * One metric's decision at a look (judge/decision.h makes and reads it):
 * the candidate's verdict and the figures it was decided on, NAN where
 * not defined.  A decision (worse, better, same) is final: later looks
 * keep it.
 */
struct db_cmp_decision {
	char *metric;
	char *verdict;		/* a verdict's name, judge/decision.h */
	int final;		/* decided: later looks keep the row */
	int look;		/* cells a side judged; 0: schema 18's text */
	char *note;		/* why there is no verdict, or "" */
	char *analysis;		/* how it was tested, or "" */
	int tested;
	int n_base, n_cand;	/* cells */
	double delta_pct, ci_lo, ci_hi, p, p_adj;
	double threshold_pct, floor_pct, noise_pct, sd_pct;
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
/* Record a look: state, planned, open, error (NULL: keep); finished is
 * stamped when state is final. */
int db_comparison_update(struct db *db, int64_t id, const char *state,
			 int planned, int open, const char *error);
/*
 * Store the n decisions of a look of comparison id, inside the caller's
 * transaction: the rows of the last look that were not final are
 * replaced, a final row is never (its metric's decision in v is left
 * out).  DB_OK or DB_ERR.
 */
int db_comparison_decide(struct db *db, int64_t id,
			 const struct db_cmp_decision *v, size_t n);
/* The decisions of comparison id, by metric (*n may be 0). */
int db_comparison_decisions(struct db *db, int64_t id,
			    struct db_cmp_decision **out, size_t *n);
void db_cmp_decisions_free(struct db_cmp_decision *v, size_t n);
/* A comparison that failed gives up its cells not yet handed out: they
 * end "failed" (infra, "comparison N failed").  The count, or DB_ERR. */
int db_comparison_cancel(struct db *db, int64_t id);
void db_comparison_release(struct db_comparison *c);
void db_comparisons_free(struct db_comparison *v, size_t n);

#endif
