// SPDX-License-Identifier: MIT
/*
 * db_runs: reading runs back.  A run is one execution of a suite for one
 * kernel on one rig (kernel x rig x suite x repetition) with its status,
 * error and times; db_import creates them.  Lists are newest first.
 * The repetitions inside a run are stored and read here too (reps.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "reps.h"

#define RUN_COLS \
	"SELECT r.id, k.ident, g.name, s.name, r.repetition, r.status," \
	" r.error, r.started, r.finished," \
	" (SELECT count(*) FROM results x WHERE x.run_id = r.id)," \
	" coalesce(r.job_id, 0), r.rigconf, r.rigconf_hash" \
	" FROM runs r JOIN kernels k ON k.id = r.kernel_id" \
	" JOIN rigs g ON g.id = r.rig_id JOIN suites s ON s.id = r.suite_id"

static const char sql_run_list[] = RUN_COLS
	" WHERE (?1 IS NULL OR k.ident = ?1)"
	" AND (?2 IS NULL OR g.name = ?2)"
	" AND (?3 IS NULL OR s.name = ?3)"
	" ORDER BY r.finished DESC, r.id DESC LIMIT ?4";
static const char sql_run_get[] = RUN_COLS " WHERE r.id = ?1";

#define C(field, type) DB_COL(db_run, field, type)
static const struct db_col run_cols[] = {
	C(id, INT64), C(kernel, STR), C(rig, STR), C(suite, STR),
	C(repetition, INT), C(status, STR), C(error, STR), C(started, INT64),
	C(finished, INT64), C(nresults, INT64), C(job_id, INT64),
	C(rigconf, STR), C(rigconf_hash, STR),
};
#undef C

static const struct db_rows run_rows = DB_ROWS(db_run, run_cols);
DB_DEFINE_RELEASE(run, runs, db_run, run_rows)

int db_run_list(struct db *db, const char *kernel, const char *rig,
		const char *suite, int limit, struct db_run **out, size_t *n)
{
	sqlite3_stmt *st = db_stmt(db, ST_RUN_LIST, sql_run_list);
	void *v;
	int rc;

	if (st) {
		db_bind_str(st, 1, kernel);
		db_bind_str(st, 2, rig);
		db_bind_str(st, 3, suite);
		sqlite3_bind_int(st, 4, limit > 0 ? limit : -1);
	}
	rc = db_rows_collect(st, &run_rows, &v, n);
	*out = v;
	return rc;
}

int db_run_get(struct db *db, int64_t id, struct db_run *out)
{
	return db_row_get_id(db, ST_RUN_GET, sql_run_get, id, &run_rows, out);
}


/* ---- repetitions inside a run (reps.h) ---------------------------- */

static const char sql_rep_add[] =
	"INSERT INTO run_reps (run_id, rep, metric_id, value, complete)"
	" SELECT ?1, ?2, id, ?3, ?4 FROM metrics WHERE name = ?5";
static const char sql_reps_of[] =
	"SELECT rr.run_id, rr.rep, rr.complete, m.name, rr.value"
	" FROM run_reps rr JOIN metrics m ON m.id = rr.metric_id"
	" WHERE rr.run_id = ?1 ORDER BY m.name, rr.rep";

int db_run_reps_add(struct db *db, int64_t run_id, int rep, int complete,
		    const struct result_set *rs, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	size_t i;
	int rc = DB_OK, step;

	if (rep < 1)
		return db_seterr(err, errlen, DB_INVALID, "repetition %d of "
				 "run %lld: numbered from 1", rep,
				 (long long)run_id);
	for (i = 0; i < rs->n; i++)
		if (!isfinite(rs->v[i].value))
			return db_seterr(err, errlen, DB_INVALID,
					 "repetition %d: metric '%s' is not a "
					 "finite number", rep,
					 rs->v[i].metric);
	st = db_prepare(db, sql_rep_add);
	if (!st)
		return db_sqlerr(db, err, errlen);
	for (i = 0; i < rs->n && rc == DB_OK; i++) {
		db_bind(st, "Iidis", run_id, rep, rs->v[i].value, complete,
			rs->v[i].metric);
		step = sqlite3_step(st);
		if (step == SQLITE_CONSTRAINT)
			rc = db_seterr(err, errlen, DB_CONFLICT, "repetition "
				       "%d of run %lld: metric '%s' stored "
				       "twice", rep, (long long)run_id,
				       rs->v[i].metric);
		else if (step != SQLITE_DONE)
			rc = db_sqlerr(db, err, errlen);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

#define C(field, type) DB_COL(db_rep, field, type)
static const struct db_col rep_cols[] = {
	C(run_id, INT64), C(rep, INT), C(complete, INT), C(metric, STR),
	C(value, DOUBLE),
};
#undef C

static const struct db_rows rep_rows = DB_ROWS(db_rep, rep_cols);

int db_run_reps(struct db *db, const int64_t *runs, size_t n,
		struct db_rep **out, size_t *nout)
{
	struct db_rep *all = NULL, *v;
	size_t i, k, total = 0;
	int rc = DB_OK;

	for (i = 0; i < n && rc == DB_OK; i++) {
		v = NULL;
		k = 0;
		rc = db_run_rows(db, &rep_rows, &v, &k, sql_reps_of, "I",
				 runs[i]);
		if (rc == DB_OK && k) {
			all = db_xrealloc(all, (total + k) * sizeof(*all));
			memcpy(all + total, v, k * sizeof(*v));
			total += k;
		}
		free(v);
	}
	if (rc != DB_OK) {
		db_reps_free(all, total);
		all = NULL;
		total = 0;
	}
	*out = all;
	*nout = total;
	return rc;
}

void db_reps_free(struct db_rep *v, size_t n)
{
	db_rows_free(&rep_rows, v, n);
}
