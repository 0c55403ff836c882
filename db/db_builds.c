// SPDX-License-Identifier: MIT
/*
 * Kernel build requests.  See builds.h.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builds.h"
#include "db_int.h"

#define BUILD_COLS "SELECT id, ident, base, patches, state, error, " \
	"record, log, created, COALESCE(finished, 0), owner, may_replace " \
	"FROM builds "

#define C(field, type) DB_COL(db_build, field, type)
static const struct db_col build_cols[] = {
	C(id, INT64), C(ident, STR), C(base, STR), C(patches, STR),
	C(state, STR), C(error, STR), C(record, STR), C(log, STR),
	C(created, INT64), C(finished, INT64), C(owner, STR),
	C(may_replace, INT),
};
#undef C

static const struct db_rows build_rows = DB_ROWS(db_build, build_cols);
DB_DEFINE_RELEASE(build, builds, db_build, build_rows)

int db_build_add(struct db *db, const char *ident, const char *base,
		 const char *patches, const char *owner, int may_replace,
		 int64_t *id)
{
	if (db_run(db, "INSERT INTO builds (ident, base, patches, created, "
		   "owner, may_replace) VALUES (?, ?, ?, ?, ?, ?)", "sssTsi",
		   ident, base, patches, owner, may_replace) !=
	    SQLITE_DONE)
		return DB_ERR;
	*id = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

int db_build_get(struct db *db, int64_t id, struct db_build *out)
{
	return db_run_row(db, &build_rows, out, BUILD_COLS "WHERE id = ?", "I",
			  id);
}

int db_build_list(struct db *db, int limit, struct db_build **out,
		  size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &build_rows, &v, n,
			     BUILD_COLS "ORDER BY id DESC LIMIT ?", "i",
			     limit > 0 ? limit : -1);

	*out = v;
	return rc;
}

int db_build_take(struct db *db, struct db_build *out)
{
	sqlite3_stmt *st;
	int rc;

	if (db_begin(db))
		return DB_ERR;
	rc = db_run_row(db, &build_rows, out,
			BUILD_COLS "WHERE state = 'queued' ORDER BY id LIMIT 1",
			"");
	if (rc != DB_OK) {
		db_rollback(db);
		return rc;
	}
	st = db_prepare(db,
			"UPDATE builds SET state = 'building' WHERE id = ?");
	if (!st || (sqlite3_bind_int64(st, 1, out->id), sqlite3_step(st)) !=
	    SQLITE_DONE) {
		sqlite3_finalize(st);
		db_rollback(db);
		db_build_release(out);
		return DB_ERR;
	}
	sqlite3_finalize(st);
	return db_commit(db);
}

int db_build_finish(struct db *db, int64_t id, const char *state,
		    const char *ident, const char *error,
		    const char *record, const char *log)
{
	int rc = db_run(db, "UPDATE builds SET state = ?, ident = "
			"CASE WHEN ? != '' THEN ?2 ELSE ident END, "
			"error = ?, record = ?, log = ?, finished = ? "
			"WHERE id = ?", "sssssTI", state, ident, error,
			record, log, id);

	return rc == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_build_requeue_stale(struct db *db)
{
	int rc = db_run(db, "UPDATE builds SET state = 'queued' "
			"WHERE state = 'building'", "");

	return rc == SQLITE_DONE ? sqlite3_changes(db->h) : DB_ERR;
}

