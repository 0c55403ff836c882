// SPDX-License-Identifier: MIT
/*
 * User tokens (as hashes) and the audit log.  See tokens.h.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_int.h"
#include "tokens.h"

#define C(field, type) DB_COL(db_token, field, type)
static const struct db_col token_cols[] = {
	C(id, INT64), C(name, STR), C(role, STR), C(hash, STR),
	C(created, INT64),
};
#undef C

static const struct db_rows token_rows = DB_ROWS(db_token, token_cols);
DB_DEFINE_RELEASE(token, tokens, db_token, token_rows)

#define C(field, type) DB_COL(db_audit, field, type)
static const struct db_col audit_cols[] = {
	C(id, INT64), C(at, INT64), C(who, STR), C(role, STR),
	C(action, STR), C(subject, STR), C(detail, STR),
};
#undef C

static const struct db_rows audit_rows = DB_ROWS(db_audit, audit_cols);

int db_token_add(struct db *db, const char *name, const char *role,
		 const char *hash, char *err, size_t errlen)
{
	int rc;

	rc = db_name_check(IDENT_TOKEN, name, err, errlen);
	if (rc)
		return rc;
	if (!role || (strcmp(role, "submitter") && strcmp(role, "operator")))
		return db_seterr(err, errlen, DB_INVALID, "invalid role '%s': "
				 "expected 'submitter' or 'operator'",
				 role ? role : "");
	rc = db_run(db, "INSERT INTO tokens (name, role, hash, created) "
		    "VALUES (?, ?, ?, ?)", "sssT", name, role, hash);
	if (rc == SQLITE_CONSTRAINT)
		return db_seterr(err, errlen, DB_CONFLICT, "token '%s' exists "
				 "already", name);
	if (rc != SQLITE_DONE)
		return db_sqlerr(db, err, errlen);
	return DB_OK;
}

int db_token_list(struct db *db, struct db_token **out, size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &token_rows, &v, n, "SELECT id, name, role, "
			     "hash, created FROM tokens ORDER BY id", "");

	*out = v;
	return rc;
}

int db_token_revoke(struct db *db, const char *name)
{
	int rc = db_run(db, "DELETE FROM tokens WHERE name = ?", "s", name);

	if (rc != SQLITE_DONE)
		return DB_ERR;
	return sqlite3_changes(db->h) ? DB_OK : DB_NOTFOUND;
}

int db_audit_add(struct db *db, const char *who, const char *role,
		 const char *action, const char *subject, const char *detail)
{
	int rc = db_run(db, "INSERT INTO audit (at, who, role, action, "
			"subject, detail) VALUES (?, ?, ?, ?, ?, ?)", "Tsssss",
			who, role, action, subject, detail);

	return rc == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_audit_list(struct db *db, int limit, struct db_audit **out,
		  size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &audit_rows, &v, n, "SELECT id, at, who, "
			     "role, action, subject, detail FROM audit ORDER "
			     "BY id DESC LIMIT ?", "i", limit);

	*out = v;
	return rc;
}

void db_audits_free(struct db_audit *v, size_t n)
{
	db_rows_free(&audit_rows, v, n);
}
