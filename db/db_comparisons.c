// SPDX-License-Identifier: MIT
/*
 * Comparison runs and the jobs that are their cells.  See comparisons.h.
 * Statements are prepared per call: a comparison moves once per cell.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comparisons.h"
#include "db_int.h"

/* The counts of a comparison's jobs by side and state. */
#define CJ_COUNT(side, cond) \
	"(SELECT COUNT(*) FROM comparison_jobs x JOIN jobs j ON j.id = " \
	"x.job_id WHERE x.comparison_id = c.id AND x.side = " side cond ")"
/* Its borrowed cells (done, side 0). */
#define CJ_BORROWED \
	"(SELECT COUNT(*) FROM comparison_borrowed y WHERE " \
	"y.comparison_id = c.id)"

#define CMP_COLS \
	"SELECT c.id, c.base, c.candidate, c.rig, c.suite, c.scheduler, " \
	"c.cmdline, c.scale, c.floors, c.max_cells, c.max_seconds, c.state, " \
	"c.planned, c.open, c.error, c.who, c.created, " \
	"COALESCE(c.finished, 0), c.stop_on_worse, " \
	CJ_COUNT("0", " AND j.state = 'done'") " + " CJ_BORROWED ", " \
	CJ_COUNT("1", " AND j.state = 'done'") ", " \
	CJ_COUNT("0", " AND j.state = 'failed'") ", " \
	CJ_COUNT("1", " AND j.state = 'failed'") ", " \
	CJ_COUNT("0", "") " + " CJ_BORROWED ", " CJ_COUNT("1", "") ", " \
	"(SELECT COUNT(*) FROM comparison_jobs x JOIN jobs j ON j.id = " \
	"x.job_id WHERE x.comparison_id = c.id AND j.state != 'queued'), " \
	CJ_BORROWED " FROM comparisons c "

#define C(field, type) DB_COL(db_comparison, field, type)
static const struct db_col cmp_cols[] = {
	C(id, INT64), C(base, STR), C(candidate, STR), C(rig, STR),
	C(suite, STR), C(scheduler, STR), C(cmdline, STR), C(scale, DOUBLE),
	C(floors, STR), C(max_cells, INT), C(max_seconds, DOUBLE),
	C(state, STR), C(planned, INT), C(open, INT),
	C(error, STR), C(who, STR), C(created, INT64), C(finished, INT64),
	C(stop_on_worse, INT), C(done[0], INT), C(done[1], INT),
	C(failed[0], INT), C(failed[1], INT), C(total[0], INT),
	C(total[1], INT), C(started, INT), C(borrowed, INT),
};
#undef C
static const struct db_rows cmp_rows = DB_ROWS(db_comparison, cmp_cols);
DB_DEFINE_RELEASE(comparison, comparisons, db_comparison, cmp_rows)

int db_comparison_add(struct db *db, const struct db_comparison *c,
		      int64_t *id, char *err, size_t errlen)
{
	sqlite3_stmt *st = db_prepare(db, "INSERT INTO comparisons (base, "
		"candidate, rig, suite, scheduler, scale, cmdline, floors, "
		"max_cells, max_seconds, state, planned, who, created, "
		"stop_on_worse) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		"'queued', ?, ?, ?, ?)");
	int rc;

	if (!st)
		return db_sqlerr(db, err, errlen);
	db_bind_str0(st, 1, c->base);
	db_bind_str0(st, 2, c->candidate);
	db_bind_str0(st, 3, c->rig);
	db_bind_str0(st, 4, c->suite);
	db_bind_str0(st, 5, c->scheduler);
	sqlite3_bind_double(st, 6, c->scale > 0 ? c->scale : 1.0);
	db_bind_str0(st, 7, c->cmdline);
	db_bind_str0(st, 8, c->floors);
	sqlite3_bind_int(st, 9, c->max_cells);
	sqlite3_bind_double(st, 10, c->max_seconds);
	sqlite3_bind_int(st, 11, c->planned);
	db_bind_str0(st, 12, c->who);
	sqlite3_bind_int64(st, 13, (int64_t)time(NULL));
	sqlite3_bind_int(st, 14, c->stop_on_worse != 0);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_sqlerr(db, err, errlen);
	*id = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

int db_comparison_job_add(struct db *db, int64_t id, int side,
			  const struct db_job_new *jn, int64_t *job,
			  char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = db_job_add(db, jn, job, err, errlen);

	if (rc)
		return rc;
	st = db_prepare(db, "INSERT INTO comparison_jobs (comparison_id, "
			"job_id, side) VALUES (?, ?, ?)");
	if (!st)
		return db_sqlerr(db, err, errlen);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, *job);
	sqlite3_bind_int(st, 3, side);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? DB_OK : db_sqlerr(db, err, errlen);
}

int db_comparison_get(struct db *db, int64_t id, struct db_comparison *out)
{
	return db_run_row(db, &cmp_rows, out, CMP_COLS "WHERE c.id = ?", "I",
			  id);
}

int db_comparison_list(struct db *db, int active, int limit,
		       struct db_comparison **out, size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &cmp_rows, &v, n, CMP_COLS "WHERE (?1 = 0 "
			     "OR c.state IN ('queued', 'running')) ORDER BY "
			     "c.id DESC LIMIT ?2", "ii", active,
			     limit > 0 ? limit : -1);

	*out = v;
	return rc;
}

int db_comparison_done_jobs(struct db *db, int64_t id, int64_t **jobs,
			    size_t *n)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT x.job_id FROM "
		"comparison_jobs x JOIN jobs j ON j.id = x.job_id WHERE "
		"x.comparison_id = ?1 AND j.state = 'done' UNION SELECT "
		"job_id FROM comparison_borrowed WHERE comparison_id = ?1 "
		"ORDER BY 1");
	size_t alloc = 0;
	int rc;

	*jobs = NULL;
	*n = 0;
	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, id);
	for (;;) {
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		DB_ALLOC_GROW(*jobs, *n, alloc);
		(*jobs)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return DB_OK;
	free(*jobs);
	*jobs = NULL;
	*n = 0;
	return DB_ERR;
}

char *db_comparison_job_error(struct db *db, int64_t id)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT j.failure || ': ' || "
		"j.error FROM comparison_jobs x JOIN jobs j ON j.id = x.job_id "
		"WHERE x.comparison_id = ? AND j.state = 'failed' ORDER BY "
		"j.id DESC LIMIT 1");
	char *s = NULL;

	if (!st)
		return db_xstrdup("");
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		s = db_col_str(st, 0);
	sqlite3_finalize(st);
	return s ? s : db_xstrdup("");
}

/*
 * Run a write of the comparison driver that must not be lost to a busy
 * database (db_exec_retry, naming what): sql with ?1, ?2, ... bound from
 * fmt as db_bind() does.  DB_OK or DB_ERR.
 */
static int cmp_write(struct db *db, const char *what, const char *sql,
		     const char *fmt, ...)
{
	sqlite3_stmt *st = db_prepare(db, sql);
	va_list ap;
	int rc;

	if (!st)
		return DB_ERR;
	va_start(ap, fmt);
	db_vbind(st, fmt, ap);
	va_end(ap);
	rc = db_exec_retry(db, st, what);
	sqlite3_finalize(st);
	return rc;
}

int db_comparison_update(struct db *db, int64_t id, const char *state,
			 int planned, int open, const char *error)
{
	if (cmp_write(db, "comparison state", "UPDATE comparisons SET "
		      "state = ?1, planned = ?2, open = ?3, "
		      "error = COALESCE(?4, error), finished = CASE WHEN ?1 IN "
		      "('decided', 'undecided', 'failed') THEN ?5 ELSE NULL "
		      "END WHERE id = ?6", "siizTI", state, planned, open,
		      error, id) != DB_OK)
		return DB_ERR;
	return sqlite3_changes(db->h) ? DB_OK : DB_NOTFOUND;
}

/* ---- decisions ------------------------------------------------------ */

#define DEC_FIELDS \
	"metric, verdict, final, look, note, analysis, tested, n_base, " \
	"n_cand, delta_pct, ci_lo, ci_hi, p, p_adj, threshold_pct, " \
	"floor_pct, noise_pct, sd_pct"

#define D(field, type) DB_COL(db_cmp_decision, field, type)
static const struct db_col dec_cols[] = {
	D(metric, STR), D(verdict, STR), D(final, INT), D(look, INT),
	D(note, STR), D(analysis, STR), D(tested, INT), D(n_base, INT),
	D(n_cand, INT), D(delta_pct, NUM), D(ci_lo, NUM), D(ci_hi, NUM),
	D(p, NUM), D(p_adj, NUM), D(threshold_pct, NUM), D(floor_pct, NUM),
	D(noise_pct, NUM), D(sd_pct, NUM),
};
#undef D
static const struct db_rows dec_rows = DB_ROWS(db_cmp_decision, dec_cols);
DB_DEFINE_FREE(cmp_decisions, db_cmp_decision, dec_rows)

/* One row of a look; a final row of the metric stays as it is. */
static int decision_put(struct db *db, sqlite3_stmt *st, int64_t id,
			const struct db_cmp_decision *d)
{
	db_bind(st, "Issiissiiiddddddddd", id, d->metric, d->verdict,
		d->final != 0, d->look, d->note, d->analysis, d->tested,
		d->n_base, d->n_cand, d->delta_pct, d->ci_lo, d->ci_hi, d->p,
		d->p_adj, d->threshold_pct, d->floor_pct, d->noise_pct,
		d->sd_pct);
	return db_exec_retry(db, st, "comparison decision");
}

int db_comparison_decide(struct db *db, int64_t id,
			 const struct db_cmp_decision *v, size_t n)
{
	sqlite3_stmt *st;
	size_t i;
	int rc = DB_OK;

	if (cmp_write(db, "comparison decisions", "DELETE FROM "
		      "comparison_decisions WHERE comparison_id = ?1 AND "
		      "final = 0", "I", id) != DB_OK)
		return DB_ERR;
	st = db_prepare(db, "INSERT OR IGNORE INTO comparison_decisions "
			"(comparison_id, " DEC_FIELDS ") VALUES (?, ?, ?, ?, "
			"?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!st)
		return DB_ERR;
	for (i = 0; i < n && !rc; i++)
		rc = decision_put(db, st, id, &v[i]);
	sqlite3_finalize(st);
	return rc;
}

int db_comparison_decisions(struct db *db, int64_t id,
			    struct db_cmp_decision **out, size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &dec_rows, &v, n, "SELECT " DEC_FIELDS
			     " FROM comparison_decisions WHERE comparison_id "
			     "= ? ORDER BY metric", "I", id);

	*out = v;
	return rc;
}

int db_comparison_cancel(struct db *db, int64_t id)
{
	if (cmp_write(db, "comparison cells", "UPDATE jobs SET state = "
		      "'failed', failure = 'infra', error = 'comparison ' || "
		      "?1 || ' failed', finished = ?2 WHERE state = 'queued' "
		      "AND id IN (SELECT job_id FROM comparison_jobs WHERE "
		      "comparison_id = ?1)", "IT", id) != DB_OK)
		return DB_ERR;
	return sqlite3_changes(db->h);
}

