// SPDX-License-Identifier: MIT
/*
 * db_samples: what the compare and history pages read.  db_samples gives
 * every result of a few kernels on a rig x suite (one indexed query per
 * kernel, so the kernels come back in the order asked for); db_history
 * gives one metric across kernels and time, newest points when limited;
 * db_metric_list names every metric with its unit and direction.
 */
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

static const char sql_samples[] =
	"SELECT m.name, m.unit, m.direction, x.value, r.id, r.repetition,"
	"  r.finished"
	" FROM runs r JOIN results x ON x.run_id = r.id"
	" JOIN metrics m ON m.id = x.metric_id"
	" WHERE r.kernel_id = ?1"
	" AND (?2 = 0 OR r.rig_id = ?2) AND (?3 = 0 OR r.suite_id = ?3)"
	" AND (?4 IS NULL OR substr(m.name, 1, length(?4)) = ?4)"
	" ORDER BY m.name, r.repetition, r.id, x.rowid";
/* Newest first: the caller reverses, so a limit keeps the newest. */
static const char sql_history[] =
	"SELECT k.ident, m.unit, m.direction, x.value, r.id, r.repetition,"
	"  r.finished"
	" FROM results x JOIN runs r ON r.id = x.run_id"
	" JOIN kernels k ON k.id = r.kernel_id"
	" JOIN metrics m ON m.id = x.metric_id"
	" WHERE x.metric_id = ?1"
	" AND (?2 = 0 OR r.rig_id = ?2) AND (?3 = 0 OR r.suite_id = ?3)"
	" ORDER BY r.finished DESC, r.id DESC, x.rowid DESC LIMIT ?4";
static const char sql_metric_list[] =
	"SELECT name, unit, direction FROM metrics ORDER BY name";
static const char sql_metric_id[] = "SELECT id FROM metrics WHERE name = ?1";

struct sample_vec {
	struct db_sample *v;
	size_t n, alloc;
};

static int dir_from_db(int d)
{
	return d == DIR_HIGHER ? DIR_HIGHER : d == DIR_LOWER ? DIR_LOWER
							     : DIR_NONE;
}

/* Append a row; kernel is given (samples) or column 0 (history). */
static void sample_push(struct sample_vec *sv, sqlite3_stmt *st,
			const char *kernel)
{
	struct db_sample *s;

	if (sv->n == sv->alloc) {
		sv->alloc = sv->alloc ? sv->alloc * 2 : 64;
		sv->v = db_xrealloc(sv->v, sv->alloc * sizeof(*sv->v));
	}
	s = &sv->v[sv->n++];
	if (kernel) {
		s->kernel = db_xstrdup(kernel);
		s->metric = db_col_str(st, 0);
	} else {
		s->kernel = db_col_str(st, 0);
		s->metric = NULL;
	}
	s->unit = db_col_str(st, 1);
	s->dir = dir_from_db(sqlite3_column_int(st, 2));
	s->value = sqlite3_column_double(st, 3);
	s->run_id = sqlite3_column_int64(st, 4);
	s->repetition = sqlite3_column_int(st, 5);
	s->time = sqlite3_column_int64(st, 6);
}

/* Step st to the end, appending rows; DB_OK or DB_ERR. */
static int sample_rows(sqlite3_stmt *st, struct sample_vec *sv,
		       const char *kernel)
{
	int rc;

	for (;;) {
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		sample_push(sv, st, kernel);
	}
	db_stmt_done(st);
	return rc == SQLITE_DONE ? DB_OK : DB_ERR;
}

/* Resolve an optional rig and suite to ids (0: any). */
static int rig_suite_ids(struct db *db, const char *rig, const char *suite,
			 int64_t ids[2], char *err, size_t errlen)
{
	ids[0] = rig ? db_rig_id(db, rig) : 0;
	ids[1] = suite ? db_suite_id(db, suite) : 0;
	if (ids[0] < 0 || ids[1] < 0)
		return db_sqlerr(db, err, errlen);
	if (rig && ids[0] == 0)
		return db_seterr(err, errlen, DB_NOTFOUND, "unknown rig '%s'",
				 rig);
	if (suite && ids[1] == 0)
		return db_seterr(err, errlen, DB_NOTFOUND,
				 "unknown suite '%s'", suite);
	return DB_OK;
}

static int samples_of(struct db *db, const char *kernel, const int64_t ids[2],
		      const char *prefix, struct sample_vec *sv, char *err,
		      size_t errlen)
{
	int64_t kid = db_kernel_id(db, kernel);
	sqlite3_stmt *st;

	if (kid == 0)
		return db_seterr(err, errlen, DB_NOTFOUND,
				 "unknown kernel '%s'", kernel);
	st = kid > 0 ? db_stmt(db, ST_SAMPLES, sql_samples) : NULL;
	if (!st)
		return db_sqlerr(db, err, errlen);
	sqlite3_bind_int64(st, 1, kid);
	sqlite3_bind_int64(st, 2, ids[0]);
	sqlite3_bind_int64(st, 3, ids[1]);
	db_bind_str(st, 4, prefix && *prefix ? prefix : NULL);
	if (sample_rows(st, sv, kernel) != DB_OK)
		return db_sqlerr(db, err, errlen);
	return DB_OK;
}

int db_samples(struct db *db, const char *const *kernels, size_t nk,
	       const char *rig, const char *suite, const char *metric_prefix,
	       struct db_sample **out, size_t *n, char *err, size_t errlen)
{
	struct sample_vec sv = { NULL, 0, 0 };
	int64_t ids[2];
	size_t i;
	int rc;

	*out = NULL;
	*n = 0;
	if (nk > 0 && !kernels)
		return db_seterr(err, errlen, DB_INVALID, "no kernels given");
	rc = rig_suite_ids(db, rig, suite, ids, err, errlen);
	for (i = 0; rc == DB_OK && i < nk; i++) {
		if (!kernels[i])
			rc = db_seterr(err, errlen, DB_INVALID,
				       "kernel %zu has no name", i + 1);
		else
			rc = samples_of(db, kernels[i], ids, metric_prefix,
					&sv, err, errlen);
	}
	if (rc != DB_OK) {
		db_samples_free(sv.v, sv.n);
		return rc;
	}
	*out = sv.v;
	*n = sv.n;
	return DB_OK;
}

int db_history(struct db *db, const char *metric, const char *rig,
	       const char *suite, int limit, struct db_sample **out,
	       size_t *n, char *err, size_t errlen)
{
	struct sample_vec sv = { NULL, 0, 0 };
	struct db_sample tmp;
	sqlite3_stmt *st;
	int64_t ids[2], mid;
	size_t i;
	int rc;

	*out = NULL;
	*n = 0;
	if (!metric)
		return db_seterr(err, errlen, DB_INVALID, "no metric given");
	rc = rig_suite_ids(db, rig, suite, ids, err, errlen);
	if (rc != DB_OK)
		return rc;
	mid = db_lookup_id(db, ST_METRIC_ID, sql_metric_id, metric);
	if (mid <= 0)
		return mid < 0 ? db_sqlerr(db, err, errlen)
			: db_seterr(err, errlen, DB_NOTFOUND,
				    "unknown metric '%s'", metric);
	st = db_stmt(db, ST_HISTORY, sql_history);
	if (!st)
		return db_sqlerr(db, err, errlen);
	sqlite3_bind_int64(st, 1, mid);
	sqlite3_bind_int64(st, 2, ids[0]);
	sqlite3_bind_int64(st, 3, ids[1]);
	sqlite3_bind_int(st, 4, limit > 0 ? limit : -1);
	if (sample_rows(st, &sv, NULL) != DB_OK) {
		db_samples_free(sv.v, sv.n);
		return db_sqlerr(db, err, errlen);
	}
	for (i = 0; i < sv.n; i++)
		sv.v[i].metric = db_xstrdup(metric);
	for (i = 0; i < sv.n / 2; i++) {	/* oldest first */
		tmp = sv.v[i];
		sv.v[i] = sv.v[sv.n - 1 - i];
		sv.v[sv.n - 1 - i] = tmp;
	}
	*out = sv.v;
	*n = sv.n;
	return DB_OK;
}

void db_samples_free(struct db_sample *v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++) {
		free(v[i].kernel);
		free(v[i].metric);
		free(v[i].unit);
	}
	free(v);
}

int db_metric_list(struct db *db, struct db_metric **out, size_t *n)
{
	sqlite3_stmt *st = db_stmt(db, ST_METRIC_LIST, sql_metric_list);
	struct db_metric *v = NULL;
	size_t len = 0, alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return DB_ERR;
	for (;;) {
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		if (len == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			v = db_xrealloc(v, alloc * sizeof(*v));
		}
		v[len].name = db_col_str(st, 0);
		v[len].unit = db_col_str(st, 1);
		v[len].dir = dir_from_db(sqlite3_column_int(st, 2));
		len++;
	}
	db_stmt_done(st);
	if (rc != SQLITE_DONE) {
		db_metrics_free(v, len);
		return DB_ERR;
	}
	*out = v;
	*n = len;
	return DB_OK;
}

void db_metrics_free(struct db_metric *v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].unit);
	}
	free(v);
}
