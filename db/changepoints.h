/* SPDX-License-Identifier: MIT */
/*
 * changepoints: the change points found on the history of each rig x
 * suite x metric (judge/changepoint.h finds them, controller/ keeps them
 * up to date), cached so that pages and the API read them without
 * recomputing and so that each is alerted once: a change point is known
 * by its rig, suite, metric and the kernel after it, and stays known
 * (marked not current) when a later computation no longer finds it.
 */
#ifndef KLAB_DB_CHANGEPOINTS_H
#define KLAB_DB_CHANGEPOINTS_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

struct db_changepoint {
	int64_t id;
	char *rig, *suite, *metric, *unit;
	char *kernel_before, *kernel_after;
	int64_t run_after;	/* the run of the first point after it */
	int64_t position;	/* of that point in the ordered history */
	double mean_before, mean_after, size_pct, p_value;
	int64_t first_seen, updated;	/* unix seconds */
	int fresh;		/* db_changepoints_store: never seen before */
};

/*
 * The current change points, rig / suite / metric NULL: any; ordered by
 * rig, suite, metric and position.  DB_OK or DB_ERR (err filled).
 */
int db_changepoint_list(struct db *db, const char *rig, const char *suite,
			const char *metric, struct db_changepoint **out,
			size_t *n, char *err, size_t errlen);
/* The current change points first seen at or after since (unix
 * seconds), newest first; limit <= 0: all.  DB_OK or DB_ERR. */
int db_changepoint_recent(struct db *db, int64_t since, int limit,
			  struct db_changepoint **out, size_t *n);
/*
 * Make v[0..n) (their rig, suite and metric fields ignored) the current
 * change points of rig x suite x metric, in one transaction: the others
 * of that history are marked not current, and v[i].fresh is set for those
 * never stored before.  DB_OK, DB_NOTFOUND (unknown rig, suite or
 * metric) or DB_ERR, err filled.
 */
int db_changepoints_store(struct db *db, const char *rig, const char *suite,
			  const char *metric, struct db_changepoint *v,
			  size_t n, char *err, size_t errlen);
/* Names of the metrics with results on rig x suite, sorted (heap strings,
 * free with db_names_free). */
int db_changepoint_metrics(struct db *db, const char *rig, const char *suite,
			   char ***names, size_t *n, char *err, size_t errlen);
void db_names_free(char **v, size_t n);
/* The kernel's catalog source ("import", "debian", "build"; "" unknown),
 * a heap string, or NULL on a database error. */
char *db_kernel_source(struct db *db, const char *ident);
void db_changepoint_release(struct db_changepoint *c);
void db_changepoints_free(struct db_changepoint *v, size_t n);

#endif
