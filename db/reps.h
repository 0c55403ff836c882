/* SPDX-License-Identifier: MIT */
/*
 * reps: the repetitions inside a cell.  A run (one boot of a job) holds
 * the mean of its repetitions as its results (db_import); each
 * repetition's own values are kept beside them as samples of that run,
 * so the spread within a boot can be told from the spread between boots.
 * The cell stays the unit of a verdict.
 */
#ifndef KLAB_DB_REPS_H
#define KLAB_DB_REPS_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "lib/results.h"

struct db_rep {
	int64_t run_id;
	int rep;		/* 1-based, as klab-run numbered it */
	int complete;		/* 0: the repetition stopped early */
	char *metric;
	double value;
};

/*
 * Store repetition rep of run run_id: one sample per result of rs whose
 * metric the run's import already knows (others are skipped).  Runs
 * inside the caller's transaction when there is one.  DB_OK, or DB_E*
 * with err filled (DB_INVALID for a rep below 1 or a value that is not
 * finite, DB_CONFLICT for a repetition stored before).
 */
int db_run_reps_add(struct db *db, int64_t run_id, int rep, int complete,
		    const struct result_set *rs, char *err, size_t errlen);
/* Every repetition sample of the n runs, by run, metric, repetition. */
int db_run_reps(struct db *db, const int64_t *runs, size_t n,
		struct db_rep **out, size_t *nout);
void db_reps_free(struct db_rep *v, size_t n);

#endif
