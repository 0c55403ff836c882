// SPDX-License-Identifier: MIT
/*
 * db_kernels: the kernel catalogue.  A kernel is known by its identifier as
 * users write it ("2.4.22-axboe-2l", "6.1.192+elv-lowlat"); putting one
 * that exists fills in or replaces only the fields given non-empty, so an
 * import can create a bare kernel and a build can add its hashes later.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_int.h"

static const char sql_put[] =
	"INSERT INTO kernels (ident, version, base, patch_hash, config_hash,"
	"  source, provenance, created)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
	" ON CONFLICT (ident) DO UPDATE SET"
	"  version = CASE WHEN ?2 <> '' THEN ?2 ELSE version END,"
	"  base = CASE WHEN ?3 <> '' THEN ?3 ELSE base END,"
	"  patch_hash = CASE WHEN ?4 <> '' THEN ?4 ELSE patch_hash END,"
	"  config_hash = CASE WHEN ?5 <> '' THEN ?5 ELSE config_hash END,"
	"  source = CASE WHEN ?6 <> '' THEN ?6 ELSE source END,"
	"  provenance = CASE WHEN ?7 <> '' THEN ?7 ELSE provenance END";

#define KERNEL_COLS \
	"SELECT k.id, k.ident, k.version, k.base, k.patch_hash," \
	" k.config_hash, k.source, k.provenance, k.created," \
	" (SELECT count(*) FROM runs r WHERE r.kernel_id = k.id)" \
	" FROM kernels k"

static const char sql_get[] = KERNEL_COLS " WHERE k.ident = ?1";
static const char sql_list[] = KERNEL_COLS " ORDER BY k.created DESC, k.id DESC";

int db_kernel_put(struct db *db, const struct db_kernel *k, char *err,
		  size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	if (!k)
		return db_seterr(err, errlen, DB_INVALID, "no kernel given");
	rc = db_name_check(IDENT_KERNEL, k->ident, err, errlen);
	if (rc != DB_OK)
		return rc;
	st = db_stmt(db, ST_KERNEL_PUT, sql_put);
	if (!st)
		return db_sqlerr(db, err, errlen);
	db_bind_str(st, 1, k->ident);
	db_bind_str0(st, 2, k->version);
	db_bind_str0(st, 3, k->base);
	db_bind_str0(st, 4, k->patch_hash);
	db_bind_str0(st, 5, k->config_hash);
	db_bind_str0(st, 6, k->source);
	db_bind_str0(st, 7, k->provenance);
	sqlite3_bind_int64(st, 8, k->created > 0 ? k->created
						 : (int64_t)time(NULL));
	if (db_exec_stmt(st) != 0)
		return db_seterr(err, errlen, DB_ERR,
				 "cannot store kernel '%s': %s", k->ident,
				 sqlite3_errmsg(db->h));
	return DB_OK;
}

static void kernel_from_row(sqlite3_stmt *st, void *elem)
{
	struct db_kernel *k = elem;

	k->id = sqlite3_column_int64(st, 0);
	k->ident = db_col_str(st, 1);
	k->version = db_col_str(st, 2);
	k->base = db_col_str(st, 3);
	k->patch_hash = db_col_str(st, 4);
	k->config_hash = db_col_str(st, 5);
	k->source = db_col_str(st, 6);
	k->provenance = db_col_str(st, 7);
	k->created = sqlite3_column_int64(st, 8);
	k->nruns = sqlite3_column_int64(st, 9);
}

static void kernel_release_elem(void *elem)
{
	db_kernel_release(elem);
}

static const struct db_rows kernel_rows = {
	sizeof(struct db_kernel), kernel_from_row, kernel_release_elem
};

int db_kernel_get(struct db *db, const char *ident, struct db_kernel *out)
{
	sqlite3_stmt *st;

	memset(out, 0, sizeof(*out));
	if (!ident)
		return DB_NOTFOUND;
	st = db_stmt(db, ST_KERNEL_GET, sql_get);
	if (!st)
		return DB_ERR;
	db_bind_str(st, 1, ident);
	return db_row_get(st, &kernel_rows, out);
}

int db_kernel_list(struct db *db, struct db_kernel **out, size_t *n)
{
	sqlite3_stmt *st = db_stmt(db, ST_KERNEL_LIST, sql_list);
	void *v = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return DB_ERR;
	rc = db_rows_collect(st, &kernel_rows, &v, n);
	*out = v;
	return rc;
}

void db_kernel_release(struct db_kernel *k)
{
	if (!k)
		return;
	free(k->ident);
	free(k->version);
	free(k->base);
	free(k->patch_hash);
	free(k->config_hash);
	free(k->source);
	free(k->provenance);
	memset(k, 0, sizeof(*k));
}

void db_kernels_free(struct db_kernel *v, size_t n)
{
	db_rows_free(&kernel_rows, v, n);
}
