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
	" created FROM rigs"

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
	sqlite3_stmt *st;
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
	st = db_stmt(db, ST_RIG_PUT, sql_rig_put);
	if (!st)
		return db_sqlerr(db, err, errlen);
	db_bind_str(st, 1, r->name);
	db_bind_str0(st, 2, r->kind);
	db_bind_str0(st, 3, r->profile);
	sqlite3_bind_int(st, 4, r->disks);
	sqlite3_bind_int(st, 5, r->cpus);
	sqlite3_bind_int(st, 6, r->memory_mb);
	db_bind_str0(st, 7, r->state);
	sqlite3_bind_int64(st, 8, r->created > 0 ? r->created
						 : (int64_t)time(NULL));
	if (db_exec_stmt(st) != 0)
		return db_seterr(err, errlen, DB_ERR,
				 "cannot store rig '%s': %s", r->name,
				 sqlite3_errmsg(db->h));
	return DB_OK;
}

static void rig_from_row(sqlite3_stmt *st, void *elem)
{
	struct db_rig *r = elem;

	r->id = sqlite3_column_int64(st, 0);
	r->name = db_col_str(st, 1);
	r->kind = db_col_str(st, 2);
	r->profile = db_col_str(st, 3);
	r->disks = sqlite3_column_int(st, 4);
	r->cpus = sqlite3_column_int(st, 5);
	r->memory_mb = sqlite3_column_int(st, 6);
	r->state = db_col_str(st, 7);
	r->created = sqlite3_column_int64(st, 8);
}

static void rig_release_elem(void *elem)
{
	db_rig_release(elem);
}

static const struct db_rows rig_rows = {
	sizeof(struct db_rig), rig_from_row, rig_release_elem
};

int db_rig_get(struct db *db, const char *name, struct db_rig *out)
{
	sqlite3_stmt *st;

	memset(out, 0, sizeof(*out));
	if (!name)
		return DB_NOTFOUND;
	st = db_stmt(db, ST_RIG_GET, sql_rig_get);
	if (!st)
		return DB_ERR;
	db_bind_str(st, 1, name);
	return db_row_get(st, &rig_rows, out);
}

int db_rig_list(struct db *db, struct db_rig **out, size_t *n)
{
	sqlite3_stmt *st = db_stmt(db, ST_RIG_LIST, sql_rig_list);
	void *v = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return DB_ERR;
	rc = db_rows_collect(st, &rig_rows, &v, n);
	*out = v;
	return rc;
}

int db_rig_set_state(struct db *db, const char *name, const char *state)
{
	sqlite3_stmt *st;

	if (!name || !state || !*state)
		return DB_INVALID;
	st = db_stmt(db, ST_RIG_STATE, sql_rig_state);
	if (!st)
		return DB_ERR;
	db_bind_str(st, 1, name);
	db_bind_str(st, 2, state);
	if (db_exec_retry(db, st, "rig state") != DB_OK)
		return DB_ERR;
	return sqlite3_changes(db->h) > 0 ? DB_OK : DB_NOTFOUND;
}

void db_rig_release(struct db_rig *r)
{
	if (!r)
		return;
	free(r->name);
	free(r->kind);
	free(r->profile);
	free(r->state);
	memset(r, 0, sizeof(*r));
}

void db_rigs_free(struct db_rig *v, size_t n)
{
	db_rows_free(&rig_rows, v, n);
}

int db_suite_put(struct db *db, const char *name, const char *description,
		 char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = db_name_check(IDENT_SUITE, name, err, errlen);

	if (rc != DB_OK)
		return rc;
	st = db_stmt(db, ST_SUITE_PUT, sql_suite_put);
	if (!st)
		return db_sqlerr(db, err, errlen);
	db_bind_str(st, 1, name);
	db_bind_str0(st, 2, description);
	if (db_exec_stmt(st) != 0)
		return db_seterr(err, errlen, DB_ERR,
				 "cannot store suite '%s': %s", name,
				 sqlite3_errmsg(db->h));
	return DB_OK;
}

static void suite_from_row(sqlite3_stmt *st, void *elem)
{
	struct db_suite *s = elem;

	s->id = sqlite3_column_int64(st, 0);
	s->name = db_col_str(st, 1);
	s->description = db_col_str(st, 2);
}

static void suite_release_elem(void *elem)
{
	db_suite_release(elem);
}

static const struct db_rows suite_rows = {
	sizeof(struct db_suite), suite_from_row, suite_release_elem
};

int db_suite_get(struct db *db, const char *name, struct db_suite *out)
{
	sqlite3_stmt *st;

	memset(out, 0, sizeof(*out));
	if (!name)
		return DB_NOTFOUND;
	st = db_stmt(db, ST_SUITE_GET, sql_suite_get);
	if (!st)
		return DB_ERR;
	db_bind_str(st, 1, name);
	return db_row_get(st, &suite_rows, out);
}

int db_suite_list(struct db *db, struct db_suite **out, size_t *n)
{
	sqlite3_stmt *st = db_stmt(db, ST_SUITE_LIST, sql_suite_list);
	void *v = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return DB_ERR;
	rc = db_rows_collect(st, &suite_rows, &v, n);
	*out = v;
	return rc;
}

void db_suite_release(struct db_suite *s)
{
	if (!s)
		return;
	free(s->name);
	free(s->description);
	memset(s, 0, sizeof(*s));
}

void db_suites_free(struct db_suite *v, size_t n)
{
	db_rows_free(&suite_rows, v, n);
}
