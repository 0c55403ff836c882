// SPDX-License-Identifier: MIT
/*
 * db_runs: reading runs back.  A run is one execution of a suite for one
 * kernel on one rig (kernel x rig x suite x repetition) with its status,
 * error and times; db_import creates them.  Lists are newest first.
 */
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

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

