// SPDX-License-Identifier: MIT
/*
 * db_samples: what the compare and history pages read.  db_samples gives
 * every result of a few kernels on a rig x suite (one indexed query per
 * kernel, so the kernels come back in the order asked for); db_history
 * gives one metric across kernels and time, newest points when limited,
 * of the runs that completed ("done": a failed run's numbers are no data);
 * db_metric_list names every metric with its unit and direction.
 */
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

/*
 * No ORDER BY in these two: sorting the rows in C is several times faster
 * than sqlite's sorter for the 10k-row answers the pages ask for.
 */
static const char sql_samples[] =
	"SELECT m.name, m.unit, m.direction, x.value, r.id, r.repetition,"
	"  r.finished, x.rowid"
	" FROM runs r JOIN results x ON x.run_id = r.id"
	" JOIN metrics m ON m.id = x.metric_id"
	" WHERE r.kernel_id = ?1"
	" AND (?2 = 0 OR r.rig_id IN " DB_RIGS_NAMED("?5") ")"
	" AND (?3 = 0 OR r.suite_id = ?3)"
	" AND (?4 IS NULL OR substr(m.name, 1, length(?4)) = ?4)";
static const char sql_history[] =
	"SELECT k.ident, x.value, r.id, r.repetition, r.finished, x.rowid,"
	"  r.rigconf_hash"
	" FROM results x JOIN runs r ON r.id = x.run_id"
	" JOIN kernels k ON k.id = r.kernel_id"
	" WHERE x.metric_id = ?1 AND r.status = 'done'"
	" AND (?2 = 0 OR r.rig_id = ?2) AND (?3 = 0 OR r.suite_id = ?3)";
static const char sql_metric_list[] =
	"SELECT name, unit, direction FROM metrics ORDER BY name";
static const char sql_metric_get[] =
	"SELECT id, unit, direction FROM metrics WHERE name = ?1";

/* A sample and the result's rowid, the last sort key. */
struct srow {
	struct db_sample s;
	int64_t rowid;
};

struct srow_vec {
	struct srow *v;
	size_t n, alloc;
};

static int dir_from_db(int d)
{
	return d == DIR_HIGHER ? DIR_HIGHER : d == DIR_LOWER ? DIR_LOWER
							     : DIR_NONE;
}

static struct db_sample *srow_push(struct srow_vec *sv, int64_t rowid)
{
	struct srow *r;

	DB_ALLOC_GROW(sv->v, sv->n, sv->alloc);
	r = &sv->v[sv->n++];
	memset(r, 0, sizeof(*r));
	r->rowid = rowid;
	return &r->s;
}

static void sample_release(struct db_sample *s)
{
	free(s->kernel);
	free(s->metric);
	free(s->unit);
	free(s->rigconf);
}

static void srows_free(struct srow_vec *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		sample_release(&sv->v[i].s);
	free(sv->v);
}

/* Hand the samples from index from on to the caller, oldest memory freed. */
static void srows_detach(struct srow_vec *sv, size_t from,
			 struct db_sample **out, size_t *n)
{
	size_t i;

	for (i = 0; i < from; i++)
		sample_release(&sv->v[i].s);
	*n = sv->n - from;
	*out = *n ? db_xrealloc(NULL, *n * sizeof(**out)) : NULL;
	for (i = from; i < sv->n; i++)
		(*out)[i - from] = sv->v[i].s;
	free(sv->v);
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* Samples of one kernel: metric, repetition, run, result order. */
static int cmp_sample(const void *pa, const void *pb)
{
	const struct srow *a = pa, *b = pb;
	int c = strcmp(a->s.metric, b->s.metric);

	if (!c)
		c = cmp_i64(a->s.repetition, b->s.repetition);
	if (!c)
		c = cmp_i64(a->s.run_id, b->s.run_id);
	return c ? c : cmp_i64(a->rowid, b->rowid);
}

/* History: run time, run, result order. */
static int cmp_history(const void *pa, const void *pb)
{
	const struct srow *a = pa, *b = pb;
	int c = cmp_i64(a->s.time, b->s.time);

	if (!c)
		c = cmp_i64(a->s.run_id, b->s.run_id);
	return c ? c : cmp_i64(a->rowid, b->rowid);
}

/* Resolve an optional rig and suite to ids (0: any); ids[0] of a
 * class is one of its rigs (the samples then come from all of them). */
static int rig_suite_ids(struct db *db, const char *rig, const char *suite,
			 int64_t ids[2], char *err, size_t errlen)
{
	ids[0] = rig ? db_rig_named(db, rig) : 0;
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

static void sample_row(sqlite3_stmt *st, struct srow_vec *sv,
		       const char *kernel)
{
	struct db_sample *s = srow_push(sv, sqlite3_column_int64(st, 7));

	s->kernel = db_xstrdup(kernel);
	s->metric = db_col_str(st, 0);
	s->unit = db_col_str(st, 1);
	s->dir = dir_from_db(sqlite3_column_int(st, 2));
	s->value = sqlite3_column_double(st, 3);
	s->run_id = sqlite3_column_int64(st, 4);
	s->repetition = sqlite3_column_int(st, 5);
	s->time = sqlite3_column_int64(st, 6);
}

static int samples_of(struct db *db, const char *kernel, const int64_t ids[2],
		      const char *rig, const char *prefix, struct srow_vec *sv,
		      char *err, size_t errlen)
{
	int64_t kid = db_kernel_id(db, kernel);
	size_t first = sv->n;
	sqlite3_stmt *st;
	int rc;

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
	db_bind_str(st, 5, rig);
	for (;;) {
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		sample_row(st, sv, kernel);
	}
	db_stmt_done(st);
	if (rc != SQLITE_DONE)
		return db_sqlerr(db, err, errlen);
	if (sv->n - first > 1)
		qsort(sv->v + first, sv->n - first, sizeof(*sv->v),
		      cmp_sample);
	return DB_OK;
}

int db_samples(struct db *db, const char *const *kernels, size_t nk,
	       const char *rig, const char *suite, const char *metric_prefix,
	       struct db_sample **out, size_t *n, char *err, size_t errlen)
{
	struct srow_vec sv = { NULL, 0, 0 };
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
			rc = samples_of(db, kernels[i], ids, rig,
					metric_prefix, &sv, err, errlen);
	}
	if (rc != DB_OK) {
		srows_free(&sv);
		return rc;
	}
	srows_detach(&sv, 0, out, n);
	return DB_OK;
}

/* The metric's id, unit and direction; DB_NOTFOUND when unknown. */
static int metric_get(struct db *db, const char *name, int64_t *id,
		      char **unit, int *dir)
{
	sqlite3_stmt *st = db_stmt(db, ST_METRIC_ID, sql_metric_get);
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_str(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*unit = db_col_str(st, 1);
		*dir = dir_from_db(sqlite3_column_int(st, 2));
	}
	db_stmt_done(st);
	if (rc == SQLITE_ROW)
		return DB_OK;
	return rc == SQLITE_DONE ? DB_NOTFOUND : DB_ERR;
}

static int history_rows(sqlite3_stmt *st, struct srow_vec *sv,
			const char *metric, const char *unit, int dir)
{
	struct db_sample *s;
	int rc;

	for (;;) {
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		s = srow_push(sv, sqlite3_column_int64(st, 5));
		s->kernel = db_col_str(st, 0);
		s->metric = db_xstrdup(metric);
		s->unit = db_xstrdup(unit);
		s->dir = dir;
		s->value = sqlite3_column_double(st, 1);
		s->run_id = sqlite3_column_int64(st, 2);
		s->repetition = sqlite3_column_int(st, 3);
		s->time = sqlite3_column_int64(st, 4);
		s->rigconf = db_col_str(st, 6);
	}
	db_stmt_done(st);
	return rc == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_history(struct db *db, const char *metric, const char *rig,
	       const char *suite, int limit, struct db_sample **out,
	       size_t *n, char *err, size_t errlen)
{
	struct srow_vec sv = { NULL, 0, 0 };
	sqlite3_stmt *st;
	int64_t ids[2], mid = 0;
	char *unit = NULL;
	int rc, dir = 0;

	*out = NULL;
	*n = 0;
	if (!metric)
		return db_seterr(err, errlen, DB_INVALID, "no metric given");
	rc = rig_suite_ids(db, rig, suite, ids, err, errlen);
	if (rc != DB_OK)
		return rc;
	rc = metric_get(db, metric, &mid, &unit, &dir);
	if (rc != DB_OK)
		return rc == DB_NOTFOUND
			? db_seterr(err, errlen, rc, "unknown metric '%s'",
				    metric)
			: db_sqlerr(db, err, errlen);
	st = db_stmt(db, ST_HISTORY, sql_history);
	if (!st)
		goto out_sqlerr;
	sqlite3_bind_int64(st, 1, mid);
	sqlite3_bind_int64(st, 2, ids[0]);
	sqlite3_bind_int64(st, 3, ids[1]);
	if (history_rows(st, &sv, metric, unit, dir) != DB_OK)
		goto out_sqlerr;
	free(unit);
	if (sv.n > 1)
		qsort(sv.v, sv.n, sizeof(*sv.v), cmp_history);
	/* Keep the newest limit points, oldest first. */
	srows_detach(&sv, limit > 0 && sv.n > (size_t)limit
			  ? sv.n - (size_t)limit : 0, out, n);
	return DB_OK;

out_sqlerr:
	free(unit);
	srows_free(&sv);
	return db_sqlerr(db, err, errlen);
}

void db_samples_free(struct db_sample *v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		sample_release(&v[i]);
	free(v);
}

static void metric_from_row(sqlite3_stmt *st, void *elem)
{
	struct db_metric *m = elem;

	m->name = db_col_str(st, 0);
	m->unit = db_col_str(st, 1);
	m->dir = dir_from_db(sqlite3_column_int(st, 2));
}

static const struct db_col metric_cols[] = {
	DB_COL(db_metric, name, STR),
	DB_COL(db_metric, unit, STR),
};

static const struct db_rows metric_rows = {
	sizeof(struct db_metric), metric_cols, 2, metric_from_row
};

DB_DEFINE_LIST(metric, db_metric, metric_rows, ST_METRIC_LIST, sql_metric_list)

void db_metrics_free(struct db_metric *v, size_t n)
{
	db_rows_free(&metric_rows, v, n);
}

