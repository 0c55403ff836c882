// SPDX-License-Identifier: MIT
/*
 * What every service of flow/ and lab/ shares to answer: the outcome of
 * a database code and the audit row of what a caller did (outcome.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "db/db.h"
#include "db/tokens.h"
#include "klabd/outcome.h"

enum outcome outcome_of_db(int dbrc)
{
	switch (dbrc) {
	case DB_OK:
	case DB_REPEATED:
		return OUT_OK;
	case DB_NOTFOUND:
		return OUT_NOTFOUND;
	case DB_INVALID:
		return OUT_INVALID;
	case DB_CONFLICT:
		return OUT_CONFLICT;
	case DB_TOOBIG:
		return OUT_TOOBIG;
	default:
		return OUT_ERROR;
	}
}

void caller_audit(struct db *db, const struct caller *c, const char *action,
		  const char *subject, const char *fmt, ...)
{
	const char *who = c->who && *c->who ? c->who : "anonymous";
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (!subject)
		subject = "";
	if (db_audit_add(db, who, c->operator ? "operator" : "submitter",
			 action, subject, detail))
		fprintf(stderr, "klabd: cannot write audit row '%s %s'\n",
			action, subject);
}
