// SPDX-License-Identifier: MIT
/*
 * User tokens (as hashes) and the audit log.  See tokens.h.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_int.h"
#include "tokens.h"

int db_token_add(struct db *db, const char *name, const char *role,
		 const char *hash, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_name_check(IDENT_TOKEN, name, err, errlen);
	if (rc)
		return rc;
	if (!role || (strcmp(role, "submitter") && strcmp(role, "operator")))
		return db_seterr(err, errlen, DB_INVALID, "invalid role '%s': "
				 "expected 'submitter' or 'operator'",
				 role ? role : "");
	st = db_prepare(db, "INSERT INTO tokens (name, role, hash, created) "
			"VALUES (?, ?, ?, ?)");
	if (!st)
		return db_sqlerr(db, err, errlen);
	db_bind_str0(st, 1, name);
	db_bind_str0(st, 2, role);
	db_bind_str0(st, 3, hash);
	sqlite3_bind_int64(st, 4, (int64_t)time(NULL));
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_CONSTRAINT)
		return db_seterr(err, errlen, DB_CONFLICT, "token '%s' exists "
				 "already", name);
	if (rc != SQLITE_DONE)
		return db_sqlerr(db, err, errlen);
	return DB_OK;
}

int db_token_list(struct db *db, struct db_token **out, size_t *n)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT id, name, role, hash, created "
				"FROM tokens ORDER BY id");
	struct db_token *v = NULL;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return DB_ERR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == alloc) {
			alloc = alloc ? alloc * 2 : 8;
			v = db_xrealloc(v, alloc * sizeof(*v));
		}
		v[*n].id = sqlite3_column_int64(st, 0);
		v[*n].name = db_col_str(st, 1);
		v[*n].role = db_col_str(st, 2);
		v[*n].hash = db_col_str(st, 3);
		v[*n].created = sqlite3_column_int64(st, 4);
		(*n)++;
	}
	sqlite3_finalize(st);
	*out = v;
	if (rc != SQLITE_DONE) {
		db_tokens_free(v, *n);
		*out = NULL;
		*n = 0;
		return DB_ERR;
	}
	return DB_OK;
}

int db_token_revoke(struct db *db, const char *name)
{
	sqlite3_stmt *st = db_prepare(db, "DELETE FROM tokens WHERE name = ?");
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_str0(st, 1, name);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return DB_ERR;
	return sqlite3_changes(db->h) ? DB_OK : DB_NOTFOUND;
}

void db_token_release(struct db_token *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->role);
	free(t->hash);
	memset(t, 0, sizeof(*t));
}

void db_tokens_free(struct db_token *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		db_token_release(&v[i]);
	free(v);
}

int db_audit_add(struct db *db, const char *who, const char *role,
		 const char *action, const char *subject, const char *detail)
{
	sqlite3_stmt *st = db_prepare(db, "INSERT INTO audit (at, who, role, "
				"action, subject, detail) VALUES (?, ?, ?, ?, "
				"?, ?)");
	int rc;

	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, (int64_t)time(NULL));
	db_bind_str0(st, 2, who);
	db_bind_str0(st, 3, role);
	db_bind_str0(st, 4, action);
	db_bind_str0(st, 5, subject);
	db_bind_str0(st, 6, detail);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_audit_list(struct db *db, int limit, struct db_audit **out,
		  size_t *n)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT id, at, who, role, action, "
				"subject, detail FROM audit ORDER BY id DESC "
				"LIMIT ?");
	struct db_audit *v = NULL;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return DB_ERR;
	sqlite3_bind_int(st, 1, limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			v = db_xrealloc(v, alloc * sizeof(*v));
		}
		v[*n].id = sqlite3_column_int64(st, 0);
		v[*n].at = sqlite3_column_int64(st, 1);
		v[*n].who = db_col_str(st, 2);
		v[*n].role = db_col_str(st, 3);
		v[*n].action = db_col_str(st, 4);
		v[*n].subject = db_col_str(st, 5);
		v[*n].detail = db_col_str(st, 6);
		(*n)++;
	}
	sqlite3_finalize(st);
	*out = v;
	if (rc != SQLITE_DONE) {
		db_audits_free(v, *n);
		*out = NULL;
		*n = 0;
		return DB_ERR;
	}
	return DB_OK;
}

void db_audits_free(struct db_audit *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].who);
		free(v[i].role);
		free(v[i].action);
		free(v[i].subject);
		free(v[i].detail);
	}
	free(v);
}
