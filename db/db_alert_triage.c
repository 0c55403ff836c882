// SPDX-License-Identifier: MIT
/*
 * The triage of alerts (db/alerts.h, migration 21): an alert's state,
 * assignee and what fixed it, each change with its entry in alert_log
 * (who, when, what), and the log read back.  What may change and into
 * what is the caller's (flow/alerts_triage.c): this layer stores.
 */
#include <stdlib.h>
#include <string.h>

#include "alerts.h"
#include "db_int.h"

#define LOG_COLS "SELECT id, event_id, who, action, state, text, notice, " \
	"created FROM alert_log "

#define C(field, type) DB_COL(db_alert_log, field, type)
static const struct db_col log_cols[] = {
	C(id, INT64), C(event_id, INT64), C(who, STR), C(action, STR),
	C(state, STR), C(text, STR), C(notice, INT64), C(created, INT64),
};
#undef C
static const struct db_rows log_rows = DB_ROWS(db_alert_log, log_cols);
DB_DEFINE_RELEASE(alert_log, alert_logs, db_alert_log, log_rows)

/* One entry of alert id's log; *log its id. */
static int log_add(struct db *db, int64_t id, const char *who,
		   const char *action, const char *state, const char *text,
		   int64_t *log)
{
	if (db_run(db, "INSERT INTO alert_log (event_id, who, action, state, "
		   "text, created) VALUES (?, ?, ?, ?, ?, ?)", "IssssT", id,
		   who, action, state, text) != SQLITE_DONE)
		return DB_ERR;
	*log = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

/* After an UPDATE of alert id: DB_OK when it changed a row. */
static int changed(struct db *db, int rc)
{
	if (rc != SQLITE_DONE)
		return DB_ERR;
	return sqlite3_changes(db->h) ? DB_OK : DB_NOTFOUND;
}

int db_alert_state_set(struct db *db, int64_t id,
		       const struct db_alert_change *ch, int64_t *log)
{
	int rc;

	rc = changed(db, db_run(db, "UPDATE alert_events SET state = ?, "
				"fixed_commit = ?, fixed_kernel = ?, "
				"duplicate_of = ?, updated = "
				"CAST(strftime('%s') AS INTEGER) WHERE id = ?",
				"sssII", ch->state, ch->commit, ch->kernel,
				ch->duplicate_of, id));
	if (rc)
		return rc;
	return log_add(db, id, ch->who, "state", ch->state, ch->text, log);
}

int db_alert_assign(struct db *db, int64_t id, const char *assignee,
		    const char *who, int64_t *log)
{
	int rc;

	rc = changed(db, db_run(db, "UPDATE alert_events SET assignee = ? "
				"WHERE id = ?", "sI", assignee, id));
	if (rc)
		return rc;
	return log_add(db, id, who, "assign", "", assignee, log);
}

int db_alert_comment(struct db *db, int64_t id, const char *who,
		     const char *text, int64_t *log)
{
	int64_t found = 0;
	int rc;

	rc = db_run_row(db, &db_rows_int64, &found, "SELECT id FROM "
			"alert_events WHERE id = ?", "I", id);
	if (rc)
		return rc;
	return log_add(db, id, who, "comment", "", text, log);
}

int db_alert_log_notice(struct db *db, int64_t log, int64_t notice)
{
	return db_run(db, "UPDATE alert_log SET notice = ? WHERE id = ?",
		      "II", notice, log) == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_alert_log_list(struct db *db, int64_t id, struct db_alert_log **out,
		      size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &log_rows, &v, n, LOG_COLS "WHERE event_id "
			     "= ? ORDER BY id", "I", id);

	*out = v;
	return rc;
}
