/* SPDX-License-Identifier: MIT */
/*
 * outcome: what a service of the lower rooms (flow/, lab/) answers and
 * who asks it.  A service takes plain inputs and a caller, and returns
 * one of these with a message in the caller's err buffer; it never
 * speaks HTTP.  The HTTP rooms map an outcome to a status in one table
 * (web_status, web/web.h: http/'s API and web/'s pages both answer with
 * it), the CLI and the drivers read it as it is.  The message is the
 * same whoever reads it: lowercase, the subject quoted, no full stop
 * (docs/ARCHITECTURE.md, STYLE.md).
 */
#ifndef KLAB_OUTCOME_H
#define KLAB_OUTCOME_H


struct db;

enum outcome {
	OUT_OK,
	OUT_INVALID,	/* the input is wrong: a field, a name, a range */
	OUT_FORBIDDEN,	/* this caller may not (another's, not allowed) */
	OUT_NOTFOUND,	/* it names something that does not exist */
	OUT_CONFLICT,	/* the state forbids it now (already ended, taken) */
	OUT_TOOBIG,	/* over a limit of size or count */
	OUT_REFUSED,	/* well formed but refused: a patch does not apply */
	OUT_BUSY,	/* too much under way now: retry later */
	OUT_ERROR,	/* ours: the database, a file, a script failed */
};

/*
 * Who asks a service to act: the name rows and the audit log keep (a
 * token's name, "" when anonymous) and whether it acts as an operator
 * (may act on what others own).  The strings stay the caller's.
 */
struct caller {
	const char *who;
	int operator;
};

/* The outcome of a DB_* code of db/db.h (DB_OK and DB_REPEATED: OUT_OK). */
enum outcome outcome_of_db(int dbrc);

/*
 * Record that c did action on subject in the audit log (db/tokens.h),
 * with its role's name (operator, submitter); detail is printf-like.  A
 * failed write is logged to stderr and never fails the action.
 */
void caller_audit(struct db *db, const struct caller *c, const char *action,
		  const char *subject, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
