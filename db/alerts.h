/* SPDX-License-Identifier: MIT */
/*
 * alerts (data): subscriptions, events and the outbox of deliveries
 * (migration 9), the triage of events and its log (migration 21).  A
 * subscription is a channel (email, webhook, feed), its
 * target and a filter; an event is stored once per kind and dedup key; a
 * delivery is one event for one subscription, with its attempts, the time
 * of the next one and the last error.  Which subscriptions an event goes
 * to is decided by the caller (flow/alerts.c): this layer stores.
 */
#ifndef KLAB_DB_ALERTS_H
#define KLAB_DB_ALERTS_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

struct db_alert_sub {
	int64_t id;
	char *channel;		/* "email", "webhook" or "feed" */
	char *target;		/* address or URL, "" for a feed */
	char *secret;		/* webhook HMAC key, "" when none */
	/* the filter, "" for any: rig, suite, metric glob, submitter and
	 * the event kinds, comma-separated */
	char *rig, *suite, *metric, *submitter, *events;
	char *owner;		/* the token name that made it */
	int64_t created;
};

/* Store s (its id is ignored); *id the new one.  DB_OK or DB_ERR. */
int db_alert_sub_add(struct db *db, const struct db_alert_sub *s,
		     int64_t *id);
int db_alert_sub_get(struct db *db, int64_t id, struct db_alert_sub *out);
/* Every subscription of owner (NULL: of everyone), oldest first. */
int db_alert_sub_list(struct db *db, const char *owner,
		      struct db_alert_sub **out, size_t *n);
/* Delete it and cancel its pending deliveries: DB_OK or DB_NOTFOUND. */
int db_alert_sub_delete(struct db *db, int64_t id);
void db_alert_sub_release(struct db_alert_sub *s);
void db_alert_subs_free(struct db_alert_sub *v, size_t n);

struct db_alert_event {
	int64_t id;
	char *kind, *rig, *suite, *metric, *submitter;
	char *title, *text, *link;
	char *dedup;		/* "" when none */
	int64_t created;
	/* the change it is about (migration 21), "" when not known: the
	 * line, the kernels either side, the key of its group (one change:
	 * several metrics, several suites); group_id is the id of the
	 * group's first event (its own when alone) */
	char *line, *kernel_before, *kernel_after, *group_key;
	int64_t group_id;
	/* triage: new, acknowledged, invalid, fixed, duplicate or closed,
	 * by whom it is looked at ("" nobody), what fixed it ("" when not
	 * fixed), the alert it repeats (0 none); an alert_state event names
	 * the alert it is about (about) and the state it went to (state) */
	char *state, *assignee, *fixed_commit, *fixed_kernel;
	int64_t duplicate_of, about;
	int64_t updated;	/* the last change of state, unix seconds */
};

/*
 * Store ev (its id and created are ignored) and one delivery for each of
 * the n subscriptions subs (channel chans[i]: a feed's is delivered at
 * once), due now, in one transaction.  DB_OK with *id the event, or
 * DB_REPEATED with *id the earlier event of the same kind and dedup key
 * (nothing stored), or DB_ERR.
 */
int db_alert_event_add(struct db *db, const struct db_alert_event *ev,
		       const int64_t *subs, const char *const *chans,
		       size_t n, int64_t *id);

int db_alert_event_get(struct db *db, int64_t id,
		       struct db_alert_event *out);

/*
 * The kinds of event that are notices, not alerts: no triage (their
 * state is not theirs to change), left out of a list of alerts only
 * (db_alert_filter.alerts_only), never an "open regression".  A
 * triage's alert_state, a subscription's test, and submission_finished:
 * the answer a submitter asked for, whatever its verdict (a worse one
 * is a worse_found alert as well).  1 when kind is one.
 */
int db_alert_kind_notice(const char *kind);

/* What feeds and pages filter events on; "" or NULL fields and 0: any. */
struct db_alert_filter {
	const char *kind, *rig, *suite, *submitter;
	const char *metric;	/* a glob, as sqlite's GLOB */
	int64_t subscription;	/* events delivered to it */
	const char *line;
	const char *state;	/* one state, or "open": new or acknowledged */
	/* 1: alerts only (no notices: db_alert_kind_notice), -1: the
	 * notices only */
	int alerts_only;
	int64_t group;		/* the events of that group */
};

/* The newest limit events that pass f (NULL: all), newest first. */
int db_alert_event_list(struct db *db, const struct db_alert_filter *f,
			int limit, struct db_alert_event **out, size_t *n);
void db_alert_event_release(struct db_alert_event *e);
void db_alert_events_free(struct db_alert_event *v, size_t n);

/* ---- triage (db_alert_triage.c) ----------------------------------- */

/* One entry of an alert's log: a comment, a change of state (state is
 * the new one) or of assignee (text is the new one). */
struct db_alert_log {
	int64_t id, event_id;
	char *who;
	char *action;		/* "comment", "state" or "assign" */
	char *state;		/* after a "state" entry, else "" */
	char *text;
	int64_t notice;		/* the alert_state event it raised, 0 none */
	int64_t created;
};

/* What a change of state sets: the state, what fixed it (a fixed or
 * closed alert's, else ""), the alert it repeats (a duplicate's, else
 * 0); who and why go to the log. */
struct db_alert_change {
	const char *state, *commit, *kernel;
	int64_t duplicate_of;
	const char *who, *text;
};

/*
 * Set the state of alert id as ch says and log it, in the caller's
 * transaction: *log the log entry.  DB_OK, DB_NOTFOUND or DB_ERR.
 */
int db_alert_state_set(struct db *db, int64_t id,
		       const struct db_alert_change *ch, int64_t *log);
/* Set the assignee of alert id ("": nobody) and log it as who did. */
int db_alert_assign(struct db *db, int64_t id, const char *assignee,
		    const char *who, int64_t *log);
/* Add a comment of who to the log of alert id. */
int db_alert_comment(struct db *db, int64_t id, const char *who,
		     const char *text, int64_t *log);
/* The log entry log raised the alert_state event notice. */
int db_alert_log_notice(struct db *db, int64_t log, int64_t notice);
/* The log of alert id, oldest first. */
int db_alert_log_list(struct db *db, int64_t id, struct db_alert_log **out,
		      size_t *n);
void db_alert_log_release(struct db_alert_log *l);
void db_alert_logs_free(struct db_alert_log *v, size_t n);
/* The fixed change-point alerts of metric on rig x suite, oldest first
 * (the ones a new result may close). */
int db_alert_fixed_list(struct db *db, const char *rig, const char *suite,
			const char *metric, struct db_alert_event **out,
			size_t *n);
/* Delay by secs the pending email deliveries of event (to gather the
 * rest of its group into one mail). */
int db_alert_event_hold(struct db *db, int64_t event, int64_t secs);

struct db_alert_delivery {
	int64_t id, event_id, subscription_id;
	char *channel;
	char *state;		/* pending, delivered, failed, cancelled */
	int attempts;
	int64_t next_at;	/* unix time of the next attempt */
	char *last_error;	/* "" when none */
	int64_t delivered;	/* unix time, 0 when not */
	int64_t created;
	char *kind, *title;	/* of the event */
};

/* The newest limit deliveries, newest first. */
int db_alert_delivery_list(struct db *db, int limit,
			   struct db_alert_delivery **out, size_t *n);
/* The pending deliveries due at now, oldest first, at most limit. */
int db_alert_delivery_due(struct db *db, int64_t now, int limit,
			  struct db_alert_delivery **out, size_t *n);
/* Pending deliveries in the outbox (due or not), DB_ERR on error. */
int64_t db_alert_pending(struct db *db);
/* The other pending deliveries to subscription sub of the events of
 * group, oldest first (they go in one mail with delivery). */
int db_alert_delivery_group(struct db *db, int64_t delivery, int64_t sub,
			    int64_t group, struct db_alert_delivery **out,
			    size_t *n);
/* Mark one delivered at now; DB_OK or DB_ERR. */
int db_alert_delivery_done(struct db *db, int64_t id, int64_t now);
/* Record a failed attempt: attempts + 1, error, and either the next
 * attempt at next_at or, when give_up, the state 'failed'. */
int db_alert_delivery_fail(struct db *db, int64_t id, const char *error,
			   int64_t next_at, int give_up);
void db_alert_delivery_release(struct db_alert_delivery *d);
void db_alert_deliveries_free(struct db_alert_delivery *v, size_t n);

#endif
