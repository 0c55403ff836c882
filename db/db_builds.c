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

static void build_from_row(sqlite3_stmt *st, void *elem)
{
	struct db_build *b = elem;

	b->id = sqlite3_column_int64(st, 0);
	b->ident = db_col_str(st, 1);
	b->base = db_col_str(st, 2);
	b->patches = db_col_str(st, 3);
	b->state = db_col_str(st, 4);
	b->error = db_col_str(st, 5);
	b->record = db_col_str(st, 6);
	b->log = db_col_str(st, 7);
	b->created = sqlite3_column_int64(st, 8);
	b->finished = sqlite3_column_int64(st, 9);
}

static void build_release_elem(void *elem)
{
	db_build_release(elem);
}

static const struct db_rows build_rows = {
	sizeof(struct db_build), build_from_row, build_release_elem
};

int db_build_add(struct db *db, const char *ident, const char *base,
		 const char *patches, int64_t *id)
{
	sqlite3_stmt *st = db_prepare(db, "INSERT INTO builds (ident, base, patches,"
				" created) VALUES (?, ?, ?, ?)");
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_str0(st, 1, ident);
	db_bind_str0(st, 2, base);
	db_bind_str0(st, 3, patches);
	sqlite3_bind_int64(st, 4, (int64_t)time(NULL));
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

	memset(out, 0, sizeof(*out));
	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, id);
	rc = db_row_get(st, &build_rows, out);
	sqlite3_finalize(st);
	return rc;
}

int db_build_list(struct db *db, int limit, struct db_build **out,
		  size_t *n)
{
	sqlite3_stmt *st = db_prepare(db, BUILD_COLS "ORDER BY id DESC LIMIT ?");
	void *v = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return DB_ERR;
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
	memset(out, 0, sizeof(*out));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		build_from_row(st, out);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		db_rollback(db);
		return rc == SQLITE_DONE ? DB_NOTFOUND : DB_ERR;
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
	db_bind_str0(st, 1, state);
	db_bind_str0(st, 2, ident);
	db_bind_str0(st, 3, error);
	db_bind_str0(st, 4, record);
	db_bind_str0(st, 5, log);
	sqlite3_bind_int64(st, 6, (int64_t)time(NULL));
	sqlite3_bind_int64(st, 7, id);
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
	if (!b)
		return;
	free(b->ident);
	free(b->base);
	free(b->patches);
	free(b->state);
	free(b->error);
	free(b->record);
	free(b->log);
	memset(b, 0, sizeof(*b));
}

void db_builds_free(struct db_build *v, size_t n)
{
	db_rows_free(&build_rows, v, n);
}
