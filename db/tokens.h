/* SPDX-License-Identifier: MIT */
/*
 * tokens: who may write to klabd, and what they did.  A user token is kept
 * only as the hex SHA-256 of the secret (the secret is shown once, when
 * `klabd token add` makes it); its role is "submitter" or "operator".  The
 * audit log records every state-changing request that was accepted: who
 * (a token name, or "rig:NAME" for agents), the action and its subject.
 *
 * The hash comparison itself is not done here: the caller lists the rows
 * and compares in constant time (http/auth.c).
 */
#ifndef KLAB_DB_TOKENS_H
#define KLAB_DB_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

struct db_token {
	int64_t id;
	char *name;
	char *role;		/* "submitter" or "operator" */
	char *hash;		/* hex SHA-256 of the secret */
	int64_t created;
};

/* Add a token; DB_CONFLICT (err says so) when the name is taken,
 * DB_INVALID for a bad name or role. */
int db_token_add(struct db *db, const char *name, const char *role,
		 const char *hash, char *err, size_t errlen);
/* Every token, oldest first; the caller frees with db_tokens_free(). */
int db_token_list(struct db *db, struct db_token **out, size_t *n);
/* Remove the named token: DB_OK or DB_NOTFOUND. */
int db_token_revoke(struct db *db, const char *name);
void db_token_release(struct db_token *t);
void db_tokens_free(struct db_token *v, size_t n);

struct db_audit {
	int64_t id;
	int64_t at;		/* unix time */
	char *who, *role, *action, *subject, *detail;
};

/* Append one audit row; DB_OK or DB_ERR. */
int db_audit_add(struct db *db, const char *who, const char *role,
		 const char *action, const char *subject, const char *detail);
/* The newest limit rows, newest first; free with db_audits_free(). */
int db_audit_list(struct db *db, int limit, struct db_audit **out,
		  size_t *n);
void db_audits_free(struct db_audit *v, size_t n);

#endif
