// SPDX-License-Identifier: MIT
/*
 * db_raw: the raw outputs of a run (the tiobench text, fio JSON, console
 * log) kept byte for byte next to the numbers parsed from them, so a
 * result can always be checked against what the tool printed.  Content
 * is stored once in raw_blobs under its SHA-256; raw_outputs links a run
 * and a name to a blob, so an upload that made 500 runs is stored once.
 * Putting a name again replaces the link.  Rows of schema 3 and older
 * keep their content inline and are read as before.  A run's latency
 * histograms are rows of run_hists (db_hist.c) and read as the raw
 * outputs "hist/<phase>.json" they were until schema 20; a raw output
 * stored under such a name comes first.
 */
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "../lib/sha256.h"

static const char sql_run_exists[] = "SELECT 1 FROM runs WHERE id = ?1";
static const char sql_raw_put[] =
	"INSERT INTO raw_outputs (run_id, name, content, blob_id)"
	" VALUES (?1, ?2, X'', ?3)"
	" ON CONFLICT (run_id, name) DO UPDATE"
	" SET content = X'', blob_id = excluded.blob_id";
static const char sql_raw_get[] =
	"SELECT coalesce(b.content, r.content) FROM raw_outputs r"
	" LEFT JOIN raw_blobs b ON b.id = r.blob_id"
	" WHERE r.run_id = ?1 AND r.name = ?2";
static const char sql_raw_list[] =
	"SELECT name FROM raw_outputs WHERE run_id = ?1"
	" UNION SELECT 'hist/' || phase || '.json' FROM run_hists"
	" WHERE run_id = ?1 ORDER BY 1";
static const char sql_blob_add[] =
	"INSERT INTO raw_blobs (sha256, size, content) VALUES (?1, ?2, ?3)"
	" ON CONFLICT (sha256) DO NOTHING";
static const char sql_blob_id[] = "SELECT id FROM raw_blobs WHERE sha256 = ?1";

static int run_exists(struct db *db, int64_t run_id)
{
	int64_t one;

	return db_row_get_id(db, ST_RUN_EXISTS, sql_run_exists, run_id,
			     &db_rows_int64, &one);
}

int64_t db_raw_blob(struct db *db, const void *data, size_t len,
		    const char *sha256_hex)
{
	sqlite3_stmt *st;

	if ((!data && len > 0) || len > (size_t)0x7fffffff)
		return DB_INVALID;
	st = db_stmt(db, ST_BLOB_ADD, sql_blob_add);
	if (!st)
		return DB_ERR;
	db_bind_str(st, 1, sha256_hex);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)len);
	/* A zero-length blob, not NULL, for empty output. */
	sqlite3_bind_blob(st, 3, data ? data : "", (int)len, SQLITE_STATIC);
	if (db_exec_stmt(st) != 0)
		return DB_ERR;
	return db_lookup_id(db, ST_BLOB_ID, sql_blob_id, sha256_hex);
}

int db_raw_link(struct db *db, int64_t run_id, const char *name,
		int64_t blob_id)
{
	sqlite3_stmt *st = db_stmt(db, ST_RAW_PUT, sql_raw_put);

	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, run_id);
	db_bind_str(st, 2, name);
	sqlite3_bind_int64(st, 3, blob_id);
	return db_exec_stmt(st) == 0 ? DB_OK : DB_ERR;
}

int db_raw_put(struct db *db, int64_t run_id, const char *name,
	       const void *data, size_t len)
{
	char hex[SHA256_HEX_LEN + 1];
	int64_t blob;
	int rc;

	if (db_name_check(IDENT_RAW, name, NULL, 0) != DB_OK ||
	    (!data && len > 0) || len > (size_t)0x7fffffff)
		return DB_INVALID;
	rc = run_exists(db, run_id);
	if (rc != DB_OK)
		return rc;
	sha256_hex(data ? data : "", len, hex);
	blob = db_raw_blob(db, data, len, hex);
	if (blob <= 0)
		return blob < 0 ? (int)blob : DB_ERR;
	return db_raw_link(db, run_id, name, blob);
}

int db_raw_get(struct db *db, int64_t run_id, const char *name, char **data,
	       size_t *len)
{
	sqlite3_stmt *st;
	const void *p;
	size_t n = 0;
	int rc;

	*data = NULL;
	*len = 0;
	if (!name)
		return DB_NOTFOUND;
	st = db_stmt(db, ST_RAW_GET, sql_raw_get);
	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, run_id);
	db_bind_str(st, 2, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		p = sqlite3_column_blob(st, 0);
		n = (size_t)sqlite3_column_bytes(st, 0);
		*data = db_xrealloc(NULL, n + 1);
		if (n)
			memcpy(*data, p, n);
		(*data)[n] = '\0';
		*len = n;
	}
	db_stmt_done(st);
	if (rc == SQLITE_ROW)
		return DB_OK;
	if (rc == SQLITE_DONE)
		return db_hist_raw(db, run_id, name, data, len);
	return DB_ERR;
}

int db_raw_list(struct db *db, int64_t run_id, char ***names, size_t *n)
{
	sqlite3_stmt *st = db_stmt(db, ST_RAW_LIST, sql_raw_list);
	void *v;
	int rc;

	if (st)
		sqlite3_bind_int64(st, 1, run_id);
	rc = db_rows_collect(st, &db_rows_str, &v, n);
	*names = v;
	return rc;
}
