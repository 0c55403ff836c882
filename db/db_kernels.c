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
	" (SELECT count(*) FROM runs r WHERE r.kernel_id = k.id)," \
	" k.build_key" \
	" FROM kernels k"

static const char sql_get[] = KERNEL_COLS " WHERE k.ident = ?1";
static const char sql_list[] = KERNEL_COLS
	" ORDER BY k.created DESC, k.id DESC";

int db_kernel_put(struct db *db, const struct db_kernel *k, char *err,
		  size_t errlen)
{
	if (!k)
		return db_seterr(err, errlen, DB_INVALID, "no kernel given");
	if (db_name_check(IDENT_KERNEL, k->ident, err, errlen) != DB_OK)
		return DB_INVALID;
	return db_store(db, ST_KERNEL_PUT, sql_put, "kernel", k->ident, err,
			errlen, "zssssssI", k->ident, k->version, k->base,
			k->patch_hash, k->config_hash, k->source,
			k->provenance,
			k->created > 0 ? k->created : (int64_t)time(NULL));
}

#define C(field, type) DB_COL(db_kernel, field, type)
static const struct db_col kernel_cols[] = {
	C(id, INT64), C(ident, STR), C(version, STR), C(base, STR),
	C(patch_hash, STR), C(config_hash, STR), C(source, STR),
	C(provenance, STR), C(created, INT64), C(nruns, INT64),
	C(build_key, STR),
};
#undef C

DB_DEFINE_ENTITY(kernel, kernels, db_kernel, kernel_cols, ST_KERNEL_GET,
		 sql_get, ST_KERNEL_LIST, sql_list)


int db_kernel_claim(struct db *db, const struct db_kernel *k, int force,
		    char *err, size_t errlen)
{
	sqlite3_stmt *st;
	char *have = NULL;
	int rc;

	if (db_begin(db) != DB_OK)
		return db_sqlerr(db, err, errlen);
	st = db_prepare(db, "SELECT build_key FROM kernels WHERE ident = ?");
	if (!st) {
		db_rollback(db);
		return db_sqlerr(db, err, errlen);
	}
	sqlite3_bind_text(st, 1, k->ident, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		have = db_col_str(st, 0);
	sqlite3_finalize(st);
	if (have && !force && strcmp(have, k->build_key)) {
		rc = db_seterr(err, errlen, DB_CONFLICT, "kernel '%.128s' "
			       "exists (%s); only an operator or the same "
			       "build may replace it", k->ident, *have ?
			       "another build's" : "not built here");
		free(have);
		db_rollback(db);
		return rc;
	}
	free(have);
	rc = db_kernel_put(db, k, err, errlen);
	if (rc == DB_OK && db_run(db, "UPDATE kernels SET build_key = ? "
				  "WHERE ident = ?", "ss", k->build_key,
				  k->ident) != SQLITE_DONE)
		rc = db_sqlerr(db, err, errlen);
	if (rc != DB_OK) {
		db_rollback(db);
		return rc;
	}
	return db_commit(db) == DB_OK ? DB_OK : db_sqlerr(db, err, errlen);
}
