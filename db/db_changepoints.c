// SPDX-License-Identifier: MIT
/*
 * db_changepoints: the change-point cache of changepoints.h.  Statements
 * are prepared per call: the cache is written once per metric after new
 * results, and read by one page or API call at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "changepoints.h"
#include "db_int.h"

#define CP_COLS \
	"SELECT c.id, g.name, s.name, m.name, m.unit, c.kernel_before," \
	" c.kernel_after, c.run_after, c.position, c.mean_before," \
	" c.mean_after, c.size_pct, c.p_value, c.first_seen, c.updated" \
	" FROM changepoints c JOIN rigs g ON g.id = c.rig_id" \
	" JOIN suites s ON s.id = c.suite_id" \
	" JOIN metrics m ON m.id = c.metric_id "

#define C(field, type) DB_COL(db_changepoint, field, type)
static const struct db_col cp_cols[] = {
	C(id, INT64), C(rig, STR), C(suite, STR), C(metric, STR),
	C(unit, STR), C(kernel_before, STR), C(kernel_after, STR),
	C(run_after, INT64), C(position, INT64), C(mean_before, DOUBLE),
	C(mean_after, DOUBLE), C(size_pct, DOUBLE), C(p_value, DOUBLE),
	C(first_seen, INT64), C(updated, INT64),
};
#undef C

static const struct db_rows cp_rows = DB_ROWS(db_changepoint, cp_cols);
DB_DEFINE_RELEASE(changepoint, changepoints, db_changepoint, cp_rows)

int db_changepoint_list(struct db *db, const char *rig, const char *suite,
			const char *metric, struct db_changepoint **out,
			size_t *n, char *err, size_t errlen)
{
	void *v = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	rc = db_run_rows(db, &cp_rows, &v, n, CP_COLS
			 "WHERE c.current = 1 AND (?1 IS NULL OR g.name = ?1)"
			 " AND (?2 IS NULL OR s.name = ?2)"
			 " AND (?3 IS NULL OR m.name = ?3)"
			 " ORDER BY g.name, s.name, m.name, c.position",
			 "zzz", rig, suite, metric);
	if (rc != DB_OK)
		return db_sqlerr(db, err, errlen);
	*out = v;
	return DB_OK;
}

int db_changepoint_recent(struct db *db, int64_t since, int limit,
			  struct db_changepoint **out, size_t *n)
{
	void *v = NULL;
	int rc = db_run_rows(db, &cp_rows, &v, n, CP_COLS "WHERE c.current = "
			     "1 AND c.first_seen >= ? ORDER BY c.first_seen "
			     "DESC, c.id DESC LIMIT ?", "Ii", since,
			     limit > 0 ? limit : -1);

	*out = v;
	return rc;
}

/* The ids of rig, suite and metric; DB_NOTFOUND naming the first unknown. */
static int cp_ids(struct db *db, const char *rig, const char *suite,
		  const char *metric, int64_t ids[3], char *err, size_t errlen)
{
	static const char *const what[3] = { "rig", "suite", "metric" };
	const char *name[3] = { rig, suite, metric };
	int i, rc;

	ids[0] = db_rig_id(db, rig);
	ids[1] = db_suite_id(db, suite);
	rc = db_run_row(db, &db_rows_int64, &ids[2],
			"SELECT id FROM metrics WHERE name = ?", "s", metric);
	ids[2] = rc == DB_OK ? ids[2] : rc == DB_NOTFOUND ? 0 : DB_ERR;
	for (i = 0; i < 3; i++) {
		if (ids[i] < 0)
			return db_sqlerr(db, err, errlen);
		if (ids[i] == 0)
			return db_seterr(err, errlen, DB_NOTFOUND,
					 "unknown %s '%s'", what[i], name[i]);
	}
	return DB_OK;
}

/* Store one change point; c->fresh says whether it was new. */
static int cp_put(struct db *db, const int64_t ids[3],
		  struct db_changepoint *c)
{
	int64_t seen;
	int rc;

	rc = db_run_row(db, &db_rows_int64, &seen,
			"SELECT id FROM changepoints WHERE rig_id = ? AND "
			"suite_id = ? AND metric_id = ? AND kernel_after = ?",
			"IIIs", ids[0], ids[1], ids[2], c->kernel_after);
	if (rc != DB_OK && rc != DB_NOTFOUND)
		return DB_ERR;
	c->fresh = rc == DB_NOTFOUND;
	rc = db_run(db, "INSERT INTO changepoints (rig_id, suite_id, "
		    "metric_id, kernel_before, kernel_after, run_after, "
		    "position, mean_before, mean_after, size_pct, p_value, "
		    "current, first_seen, updated) VALUES (?1, ?2, ?3, ?4, "
		    "?5, ?6, ?7, ?8, ?9, ?10, ?11, 1, ?12, ?12) ON CONFLICT "
		    "(rig_id, suite_id, metric_id, kernel_after) DO UPDATE "
		    "SET kernel_before = ?4, run_after = ?6, position = ?7, "
		    "mean_before = ?8, mean_after = ?9, size_pct = ?10, "
		    "p_value = ?11, current = 1, updated = ?12",
		    "IIIssIIddddT", ids[0], ids[1], ids[2], c->kernel_before,
		    c->kernel_after, c->run_after, c->position, c->mean_before,
		    c->mean_after, c->size_pct, c->p_value);
	return rc == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_changepoints_store(struct db *db, const char *rig, const char *suite,
			  const char *metric, struct db_changepoint *v,
			  size_t n, char *err, size_t errlen)
{
	int64_t ids[3];
	size_t i;
	int rc;

	rc = cp_ids(db, rig, suite, metric, ids, err, errlen);
	if (rc != DB_OK)
		return rc;
	if (db_begin(db) != DB_OK)
		return db_sqlerr(db, err, errlen);
	if (db_run(db, "UPDATE changepoints SET current = 0 WHERE rig_id = ? "
		   "AND suite_id = ? AND metric_id = ?", "III", ids[0], ids[1],
		   ids[2]) != SQLITE_DONE)
		goto out_rollback;
	for (i = 0; i < n; i++)
		if (cp_put(db, ids, &v[i]) != DB_OK)
			goto out_rollback;
	if (db_commit(db) != DB_OK)
		goto out_rollback;
	return DB_OK;

out_rollback:
	rc = db_sqlerr(db, err, errlen);
	db_rollback(db);
	return rc;
}

int db_changepoint_metrics(struct db *db, const char *rig, const char *suite,
			   char ***names, size_t *n, char *err, size_t errlen)
{
	void *v = NULL;
	int rc;

	*names = NULL;
	*n = 0;
	rc = db_run_rows(db, &db_rows_str, &v, n,
			 "SELECT m.name FROM metrics m WHERE EXISTS (SELECT 1"
			 " FROM results x JOIN runs r ON r.id = x.run_id"
			 " JOIN rigs g ON g.id = r.rig_id"
			 " JOIN suites s ON s.id = r.suite_id"
			 " WHERE x.metric_id = m.id AND g.name = ?"
			 " AND s.name = ?) ORDER BY m.name", "ss", rig, suite);
	if (rc != DB_OK)
		return db_sqlerr(db, err, errlen);
	*names = v;
	return DB_OK;
}

void db_names_free(char **v, size_t n)
{
	db_rows_free(&db_rows_str, v, n);
}

char *db_kernel_source(struct db *db, const char *ident)
{
	char *src = NULL;
	int rc;

	rc = db_run_row(db, &db_rows_str, &src,
			"SELECT source FROM kernels WHERE ident = ?", "s",
			ident);
	if (rc == DB_NOTFOUND)
		return db_xstrdup("");
	return rc == DB_OK ? src : NULL;
}
