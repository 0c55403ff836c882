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
	"record, log, created, COALESCE(finished, 0) FROM builds "

static const struct db_col build_cols[] = {
	DB_COL(db_build, id, DB_COL_INT64),
	DB_COL(db_build, ident, DB_COL_STR),
	DB_COL(db_build, base, DB_COL_STR),
	DB_COL(db_build, patches, DB_COL_STR),
	DB_COL(db_build, state, DB_COL_STR),
	DB_COL(db_build, error, DB_COL_STR),
	DB_COL(db_build, record, DB_COL_STR),
	DB_COL(db_build, log, DB_COL_STR),
	DB_COL(db_build, created, DB_COL_INT64),
	DB_COL(db_build, finished, DB_COL_INT64),
};

static const struct db_rows build_rows = DB_ROWS(db_build, build_cols);

int db_build_add(struct db *db, const char *ident, const char *base,
		 const char *patches, int64_t *id)
{
	sqlite3_stmt *st = db_prepare(db, "INSERT INTO builds (ident, base, patches,"
				" created) VALUES (?, ?, ?, ?)");
	int rc;

	if (!st)
		return DB_ERR;
	db_bind(st, "sssT", ident, base, patches);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return DB_ERR;
	*id = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

int db_build_get(struct db *db, int64_t id, struct db_build *out)
{
	sqlite3_stmt *st = db_prepare(db, BUILD_COLS "WHERE id = ?");
	int rc;

	if (st)
		sqlite3_bind_int64(st, 1, id);
	rc = db_row_get(st, &build_rows, out);
	sqlite3_finalize(st);
	return rc;
}

int db_build_list(struct db *db, int limit, struct db_build **out,
		  size_t *n)
{
	sqlite3_stmt *st = db_prepare(db, BUILD_COLS "ORDER BY id DESC LIMIT ?");
	void *v;
	int rc;

	if (st)
		sqlite3_bind_int(st, 1, limit > 0 ? limit : -1);
	rc = db_rows_collect(st, &build_rows, &v, n);
	sqlite3_finalize(st);
	*out = v;
	return rc;
}

int db_build_take(struct db *db, struct db_build *out)
{
	sqlite3_stmt *st;
	int rc;

	if (db_begin(db))
		return DB_ERR;
	st = db_prepare(db, BUILD_COLS "WHERE state = 'queued' ORDER BY id LIMIT 1");
	if (!st) {
		db_rollback(db);
		return DB_ERR;
	}
	rc = db_row_get(st, &build_rows, out);
	sqlite3_finalize(st);
	if (rc != DB_OK) {
		db_rollback(db);
		return rc;
	}
	st = db_prepare(db, "UPDATE builds SET state = 'building' WHERE id = ?");
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
	sqlite3_stmt *st = db_prepare(db, "UPDATE builds SET state = ?, ident = "
				"CASE WHEN ? != '' THEN ?2 ELSE ident END, "
				"error = ?, record = ?, log = ?, finished = ? "
				"WHERE id = ?");
	int rc;

	if (!st)
		return DB_ERR;
	db_bind(st, "sssssTI", state, ident, error, record, log, id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_build_requeue_stale(struct db *db)
{
	sqlite3_stmt *st = db_prepare(db, "UPDATE builds SET state = 'queued' "
				"WHERE state = 'building'");
	int rc;

	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? sqlite3_changes(db->h) : DB_ERR;
}

void db_build_release(struct db_build *b)
{
	db_row_release(&build_rows, b);
}

void db_builds_free(struct db_build *v, size_t n)
{
	db_rows_free(&build_rows, v, n);
}
