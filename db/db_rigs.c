// SPDX-License-Identifier: MIT
/*
 * db_rigs: the machines results come from (rigs) and the workloads run on
 * them (suites).  Migration 1 seeds the "default" manual rig and the suites
 * klab knows; operators and the rig manager add more.  Putting a rig or
 * suite that exists updates only the fields given (non-empty strings,
 * positive counts), so a partial update never blanks what is known.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_int.h"

static const char sql_rig_put[] =
	"INSERT INTO rigs (name, kind, profile, disks, cpus, memory_mb,"
	"  state, created)"
	" VALUES (?1, coalesce(nullif(?2, ''), 'manual'), ?3, ?4, ?5, ?6,"
	"  coalesce(nullif(?7, ''), 'idle'), ?8)"
	" ON CONFLICT (name) DO UPDATE SET"
	"  kind = CASE WHEN ?2 <> '' THEN ?2 ELSE kind END,"
	"  profile = CASE WHEN ?3 <> '' THEN ?3 ELSE profile END,"
	"  disks = CASE WHEN ?4 > 0 THEN ?4 ELSE disks END,"
	"  cpus = CASE WHEN ?5 > 0 THEN ?5 ELSE cpus END,"
	"  memory_mb = CASE WHEN ?6 > 0 THEN ?6 ELSE memory_mb END,"
	"  state = CASE WHEN ?7 <> '' THEN ?7 ELSE state END";

#define RIG_COLS \
	"SELECT id, name, kind, profile, disks, cpus, memory_mb, state," \
	" created, class FROM rigs"

static const char sql_rig_get[] = RIG_COLS " WHERE name = ?1";
static const char sql_rig_list[] = RIG_COLS " ORDER BY name";
static const char sql_rig_state[] =
	"UPDATE rigs SET state = ?2 WHERE name = ?1";

static const char sql_suite_put[] =
	"INSERT INTO suites (name, description) VALUES (?1, ?2)"
	" ON CONFLICT (name) DO UPDATE SET"
	"  description = CASE WHEN ?2 <> '' THEN ?2 ELSE description END";
static const char sql_suite_get[] =
	"SELECT id, name, description FROM suites WHERE name = ?1";
static const char sql_suite_list[] =
	"SELECT id, name, description FROM suites ORDER BY name";

static int rig_kind_check(const char *kind, char *err, size_t errlen)
{
	static const char *const kinds[] = { "manual", "qemu", "remote" };
	size_t i;

	if (!kind || !*kind)
		return DB_OK;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(kind, kinds[i]) == 0)
			return DB_OK;
	}
	return db_seterr(err, errlen, DB_INVALID, "unknown rig kind '%s'",
			 kind);
}

int db_rig_put(struct db *db, const struct db_rig *r, char *err,
	       size_t errlen)
{
	int rc;

	if (!r)
		return db_seterr(err, errlen, DB_INVALID, "no rig given");
	rc = db_name_check(IDENT_RIG, r->name, err, errlen);
	if (rc == DB_OK)
		rc = rig_kind_check(r->kind, err, errlen);
	if (rc != DB_OK)
		return rc;
	if (r->disks < 0 || r->cpus < 0 || r->memory_mb < 0)
		return db_seterr(err, errlen, DB_INVALID,
				 "rig '%s': negative disks, cpus or memory",
				 r->name);
	return db_store(db, ST_RIG_PUT, sql_rig_put, "rig", r->name, err,
			errlen, "zssiiisI", r->name, r->kind, r->profile,
			r->disks, r->cpus, r->memory_mb, r->state,
			r->created > 0 ? r->created : (int64_t)time(NULL));
}

#define C(field, type) DB_COL(db_rig, field, type)
static const struct db_col rig_cols[] = {
	C(id, INT64), C(name, STR), C(kind, STR), C(profile, STR),
	C(disks, INT), C(cpus, INT), C(memory_mb, INT), C(state, STR),
	C(created, INT64), C(klass, STR),
};
#undef C

DB_DEFINE_ENTITY(rig, rigs, db_rig, rig_cols, ST_RIG_GET, sql_rig_get,
		 ST_RIG_LIST, sql_rig_list)

int db_rig_set_state(struct db *db, const char *name, const char *state)
{
	sqlite3_stmt *st;

	if (!name || !state || !*state)
		return DB_INVALID;
	st = db_stmt(db, ST_RIG_STATE, sql_rig_state);
	if (!st)
		return DB_ERR;
	db_bind(st, "zz", name, state);
	if (db_exec_retry(db, st, "rig state") != DB_OK)
		return DB_ERR;
	return sqlite3_changes(db->h) > 0 ? DB_OK : DB_NOTFOUND;
}

int db_suite_put(struct db *db, const char *name, const char *description,
		 char *err, size_t errlen)
{
	int rc = db_name_check(IDENT_SUITE, name, err, errlen);

	if (rc != DB_OK)
		return rc;
	return db_store(db, ST_SUITE_PUT, sql_suite_put, "suite", name, err,
			errlen, "zs", name, description);
}

#define C(field, type) DB_COL(db_suite, field, type)
static const struct db_col suite_cols[] = {
	C(id, INT64), C(name, STR), C(description, STR),
};
#undef C

DB_DEFINE_ENTITY(suite, suites, db_suite, suite_cols, ST_SUITE_GET,
		 sql_suite_get, ST_SUITE_LIST, sql_suite_list)

