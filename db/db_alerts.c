// SPDX-License-Identifier: MIT
/*
 * Alert subscriptions, events and the outbox of deliveries.  See
 * alerts.h.  An event and its deliveries are written under one savepoint
 * (inside the caller's transaction if there is one), so an event is never
 * stored without its deliveries.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alerts.h"
#include "db_int.h"

#define SUB_COLS "SELECT id, channel, target, secret, rig, suite, metric, " \
	"submitter, events, owner, created FROM alert_subscriptions "

#define C(field, type) DB_COL(db_alert_sub, field, type)
static const struct db_col sub_cols[] = {
	C(id, INT64), C(channel, STR), C(target, STR), C(secret, STR),
	C(rig, STR), C(suite, STR), C(metric, STR), C(submitter, STR),
	C(events, STR), C(owner, STR), C(created, INT64),
};
#undef C
static const struct db_rows sub_rows = DB_ROWS(db_alert_sub, sub_cols);
DB_DEFINE_RELEASE(alert_sub, alert_subs, db_alert_sub, sub_rows)

#define EVENT_COLS "SELECT id, kind, rig, suite, metric, submitter, title, " \
	"text, link, COALESCE(dedup, ''), created, line, kernel_before, " \
	"kernel_after, group_key, group_id, state, assignee, fixed_commit, " \
	"fixed_kernel, duplicate_of, about, updated FROM alert_events "

#define C(field, type) DB_COL(db_alert_event, field, type)
static const struct db_col event_cols[] = {
	C(id, INT64), C(kind, STR), C(rig, STR), C(suite, STR),
	C(metric, STR), C(submitter, STR), C(title, STR), C(text, STR),
	C(link, STR), C(dedup, STR), C(created, INT64), C(line, STR),
	C(kernel_before, STR), C(kernel_after, STR), C(group_key, STR),
	C(group_id, INT64), C(state, STR), C(assignee, STR),
	C(fixed_commit, STR), C(fixed_kernel, STR), C(duplicate_of, INT64),
	C(about, INT64), C(updated, INT64),
};
#undef C
static const struct db_rows event_rows = DB_ROWS(db_alert_event,
						 event_cols);
DB_DEFINE_RELEASE(alert_event, alert_events, db_alert_event, event_rows)

#define DELIVERY_COLS "SELECT o.id, o.event_id, o.subscription_id, " \
	"o.channel, o.state, o.attempts, o.next_at, o.last_error, " \
	"COALESCE(o.delivered, 0), o.created, e.kind, e.title " \
	"FROM alert_outbox o JOIN alert_events e ON e.id = o.event_id "

#define C(field, type) DB_COL(db_alert_delivery, field, type)
static const struct db_col delivery_cols[] = {
	C(id, INT64), C(event_id, INT64), C(subscription_id, INT64),
	C(channel, STR), C(state, STR), C(attempts, INT), C(next_at, INT64),
	C(last_error, STR), C(delivered, INT64), C(created, INT64),
	C(kind, STR), C(title, STR),
};
#undef C
static const struct db_rows delivery_rows = DB_ROWS(db_alert_delivery,
						    delivery_cols);
DB_DEFINE_RELEASE(alert_delivery, alert_deliveries, db_alert_delivery,
		  delivery_rows)

int db_alert_sub_add(struct db *db, const struct db_alert_sub *s,
		     int64_t *id)
{
	if (db_run(db, "INSERT INTO alert_subscriptions (channel, target, "
		   "secret, rig, suite, metric, submitter, events, owner, "
		   "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		   "sssssssssT", s->channel, s->target, s->secret, s->rig,
		   s->suite, s->metric, s->submitter, s->events, s->owner) !=
	    SQLITE_DONE)
		return DB_ERR;
	*id = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

int db_alert_sub_get(struct db *db, int64_t id, struct db_alert_sub *out)
{
	return db_run_row(db, &sub_rows, out, SUB_COLS "WHERE id = ?", "I", id);
}

int db_alert_sub_list(struct db *db, const char *owner,
		      struct db_alert_sub **out, size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &sub_rows, &v, n, SUB_COLS "WHERE ?1 IS NULL "
			     "OR owner = ?1 ORDER BY id", "z", owner);

	*out = v;
	return rc;
}

int db_alert_sub_delete(struct db *db, int64_t id)
{
	int changed = 0, own, ok;

	if (db_unit_open(db, &own))
		return DB_ERR;
	ok = db_run(db, "DELETE FROM alert_subscriptions WHERE id = ?", "I",
		    id) == SQLITE_DONE;
	if (ok)
		changed = sqlite3_changes(db->h);
	ok = ok && db_run(db, "UPDATE alert_outbox SET state = 'cancelled' "
			  "WHERE subscription_id = ? AND state = 'pending'",
			  "I", id) == SQLITE_DONE;
	if (db_unit_close(db, own, ok) || !ok)
		return DB_ERR;
	return changed ? DB_OK : DB_NOTFOUND;
}

/* The earlier event of ev's kind and dedup key: its id, 0 when none. */
static int64_t event_find(struct db *db, const struct db_alert_event *ev)
{
	int64_t id = 0;

	if (!ev->dedup || !*ev->dedup)
		return 0;
	if (db_run_row(db, &db_rows_int64, &id, "SELECT id FROM alert_events "
		       "WHERE kind = ? AND dedup = ?", "ss", ev->kind,
		       ev->dedup) == DB_ERR)
		return -1;
	return id;
}

/* The event's row, in the group of the first event of its group key. */
static int event_row_add(struct db *db, const struct db_alert_event *ev,
			 int64_t now, int64_t *id)
{
	const char *state = ev->state && *ev->state ? ev->state : "new";

	if (db_run(db, "INSERT INTO alert_events (kind, rig, suite, metric, "
		   "submitter, title, text, link, dedup, created, line, "
		   "kernel_before, kernel_after, group_key, state, about, "
		   "updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
		   "?11, ?12, ?13, ?14, ?15, ?16, ?10)", "sssssssszIsssssI",
		   ev->kind, ev->rig, ev->suite, ev->metric, ev->submitter,
		   ev->title, ev->text, ev->link, ev->dedup && *ev->dedup ?
		   ev->dedup : NULL, now, ev->line, ev->kernel_before,
		   ev->kernel_after, ev->group_key, state, ev->about) !=
	    SQLITE_DONE)
		return DB_ERR;
	*id = sqlite3_last_insert_rowid(db->h);
	if (db_run(db, "UPDATE alert_events SET group_id = COALESCE((SELECT "
		   "MIN(id) FROM alert_events WHERE ?2 != '' AND group_key = "
		   "?2), id) WHERE id = ?1", "Is", *id, ev->group_key) !=
	    SQLITE_DONE)
		return DB_ERR;
	return DB_OK;
}

static int event_insert(struct db *db, const struct db_alert_event *ev,
			const int64_t *subs, const char *const *chans,
			size_t n, int64_t *id)
{
	int64_t now = (int64_t)time(NULL);
	size_t i;
	int feed;

	if (event_row_add(db, ev, now, id))
		return DB_ERR;
	for (i = 0; i < n; i++) {
		feed = !strcmp(chans[i], "feed");
		if (db_run(db, "INSERT INTO alert_outbox (event_id, "
			   "subscription_id, channel, state, next_at, "
			   "delivered, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
			   "IIssIpI", *id, subs[i], chans[i], feed ?
			   "delivered" : "pending", now, feed ? now : 0,
			   now) != SQLITE_DONE)
			return DB_ERR;
	}
	return DB_OK;
}

int db_alert_event_add(struct db *db, const struct db_alert_event *ev,
		       const int64_t *subs, const char *const *chans,
		       size_t n, int64_t *id)
{
	int64_t prev;
	int rc, own;

	if (db_unit_open(db, &own))
		return DB_ERR;
	prev = event_find(db, ev);
	if (prev < 0)
		rc = DB_ERR;
	else if (prev > 0)
		rc = DB_REPEATED;
	else
		rc = event_insert(db, ev, subs, chans, n, id);
	if (rc == DB_REPEATED)
		*id = prev;
	if (db_unit_close(db, own, rc != DB_ERR))
		rc = DB_ERR;
	return rc;
}

int db_alert_event_get(struct db *db, int64_t id,
		       struct db_alert_event *out)
{
	return db_run_row(db, &event_rows, out, EVENT_COLS "WHERE id = ?",
			  "I", id);
}

/* The notices (db_alert_kind_notice): the list and its SQL side by
 * side, the one home of both. */
static const char *const notice_kinds[] = {
	"alert_state", "test", "submission_finished",
};
#define NOTICE_KINDS_SQL "('alert_state', 'test', 'submission_finished')"

int db_alert_kind_notice(const char *kind)
{
	size_t i;

	for (i = 0; i < sizeof(notice_kinds) / sizeof(*notice_kinds); i++)
		if (!strcmp(kind, notice_kinds[i]))
			return 1;
	return 0;
}

int db_alert_event_list(struct db *db, const struct db_alert_filter *f,
			int limit, struct db_alert_event **out, size_t *n)
{
	static const struct db_alert_filter any;
	void *v;
	int rc;

	if (!f)
		f = &any;
	rc = db_run_rows(db, &event_rows, &v, n, EVENT_COLS
			 "WHERE (?1 = '' OR kind = ?1) AND (?2 = '' OR rig = "
			 "?2) AND (?3 = '' OR suite = ?3) AND (?4 = '' OR "
			 "submitter = ?4) AND (?5 = '' OR metric GLOB ?5) AND "
			 "(?6 = 0 OR id IN (SELECT event_id FROM alert_outbox "
			 "WHERE subscription_id = ?6)) AND (?8 = '' OR line = "
			 "?8) AND (?9 = '' OR state = ?9 OR (?9 = 'open' AND "
			 "state IN ('new', 'acknowledged'))) AND (?10 = 0 OR "
			 "(?10 > 0) = (kind NOT IN " NOTICE_KINDS_SQL ")) "
			 "AND (?11 = 0 OR "
			 "group_id = ?11) ORDER BY id DESC LIMIT ?7",
			 "sssssIissiI", f->kind, f->rig, f->suite,
			 f->submitter, f->metric, f->subscription,
			 limit > 0 ? limit : -1, f->line, f->state,
			 f->alerts_only, f->group);
	*out = v;
	return rc;
}

int db_alert_delivery_list(struct db *db, int limit,
			   struct db_alert_delivery **out, size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &delivery_rows, &v, n, DELIVERY_COLS
			     "ORDER BY o.id DESC LIMIT ?", "i",
			     limit > 0 ? limit : -1);

	*out = v;
	return rc;
}

int db_alert_delivery_due(struct db *db, int64_t now, int limit,
			  struct db_alert_delivery **out, size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &delivery_rows, &v, n, DELIVERY_COLS
			     "WHERE o.state = 'pending' AND o.next_at <= ? "
			     "ORDER BY o.next_at, o.id LIMIT ?", "Ii", now,
			     limit > 0 ? limit : -1);

	*out = v;
	return rc;
}

int64_t db_alert_pending(struct db *db)
{
	int64_t count = 0;

	if (db_run_row(db, &db_rows_int64, &count, "SELECT COUNT(*) FROM "
		       "alert_outbox WHERE state = 'pending'", "") != DB_OK)
		return DB_ERR;
	return count;
}

int db_alert_delivery_group(struct db *db, int64_t delivery, int64_t sub,
			    int64_t group, struct db_alert_delivery **out,
			    size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &delivery_rows, &v, n, DELIVERY_COLS
			     "WHERE o.subscription_id = ? AND o.state = "
			     "'pending' AND o.id != ? AND e.group_id = ? "
			     "ORDER BY o.id", "III", sub, delivery, group);

	*out = v;
	return rc;
}

int db_alert_delivery_done(struct db *db, int64_t id, int64_t now)
{
	return db_run(db, "UPDATE alert_outbox SET state = 'delivered', "
		      "attempts = attempts + 1, last_error = '', delivered = ? "
		      "WHERE id = ? AND state = 'pending'", "II", now, id) ==
		SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_alert_delivery_fail(struct db *db, int64_t id, const char *error,
			   int64_t next_at, int give_up)
{
	return db_run(db, "UPDATE alert_outbox SET attempts = attempts + 1, "
		      "last_error = ?, next_at = ?, state = ? WHERE id = ? AND "
		      "state = 'pending'", "sIsI", error, next_at,
		      give_up ? "failed" : "pending", id) == SQLITE_DONE ?
		DB_OK : DB_ERR;
}

int db_alert_fixed_list(struct db *db, const char *rig, const char *suite,
			const char *metric, struct db_alert_event **out,
			size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &event_rows, &v, n, EVENT_COLS
			     "WHERE state = 'fixed' AND rig = ? AND suite = ? "
			     "AND metric = ? AND kind = 'change_point' ORDER "
			     "BY id", "sss", rig, suite, metric);

	*out = v;
	return rc;
}

int db_alert_event_hold(struct db *db, int64_t event, int64_t secs)
{
	return db_run(db, "UPDATE alert_outbox SET next_at = next_at + ? "
		      "WHERE event_id = ? AND channel = 'email' AND state = "
		      "'pending'", "II", secs, event) == SQLITE_DONE ? DB_OK :
		DB_ERR;
}
