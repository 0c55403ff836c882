/* SPDX-License-Identifier: MIT */
/*
 * alerts: the lab's bell.  Anything worth telling someone (a submission
 * finished, a worse verdict, a change point on the history, a rig gone
 * offline, a failed build) is one event handed to alerts_emit; the
 * alerts module matches it against the subscriptions and delivers it
 * through their channels (email, webhook, Atom feed), durably.
 */
#ifndef KLAB_ALERTS_H
#define KLAB_ALERTS_H

#include <stddef.h>
#include <stdint.h>

#include "klabd/outcome.h"

struct db;

/* The kinds of event (alert_event.kind). */
#define ALERT_SUBMISSION_FINISHED "submission_finished"
#define ALERT_WORSE_FOUND "worse_found"
#define ALERT_CHANGE_POINT "change_point"
#define ALERT_RIG_OFFLINE "rig_offline"
#define ALERT_BUILD_FAILED "build_failed"
#define ALERT_BISECTION_DONE "bisection_done"
/* A tracked git line's regression bisected to its commit, confirmed
 * (flow/track_regress.c): the one alert of that change. */
#define ALERT_REGRESSION "regression"
/* A person (or klab) changed the state of an alert: the notice carries
 * the alert and its new state (alerts_triage.c). */
#define ALERT_STATE_CHANGED "alert_state"

struct alert_event {
	const char *kind;	/* one of ALERT_* */
	/* what subscriptions filter on; NULL when it does not apply */
	const char *rig, *suite, *metric, *submitter;
	const char *title;	/* one line */
	const char *text;	/* plain-text body: the report, for mail */
	const char *link;	/* path on klabd ("/submissions/12"), or NULL */
	/* the same kind and key are the same change: alerted once */
	const char *dedup;
	/* the change, when known (NULL when not): its line, the kernels
	 * either side, and the key that groups the alerts of one change
	 * (several metrics, several suites) into one summary */
	const char *line, *before, *after, *group;
	/* an ALERT_STATE_CHANGED notice: the alert and its new state */
	int64_t about;
	const char *state;
};

/*
 * Record ev for delivery to every matching subscription.  0, or -1 with
 * err set.  Safe from any klabd thread; delivery itself happens later,
 * in the background, and survives a restart.
 */
int alerts_emit(struct db *db, const struct alert_event *ev, char *err,
		size_t errlen);

/*
 * alerts_emit, with more said: only > 0 sends ev to that subscription
 * alone, whatever its filter (a test alert); *event (may be NULL) the
 * event's id, *ndeliv (may be NULL) the deliveries queued.  DB_OK,
 * DB_REPEATED (the same kind and dedup key was emitted before: nothing
 * stored, *event the earlier one) or DB_ERR with err set.
 */
int alerts_emit_to(struct db *db, const struct alert_event *ev, int64_t only,
		   int64_t *event, size_t *ndeliv, char *err, size_t errlen);

/* ---- producers' shorthands (one-line call sites) ------------------ */
/* The rig went offline (failed its health check twice). */
void alerts_rig_offline(struct db *db, const char *rig);
/* Build id of base failed with why. */
void alerts_build_failed(struct db *db, long long id, const char *base,
			 const char *why);

/* ---- triage (alerts_triage.c, alerts_fixed.c) --------------------- */
/*
 * Every alert has a state: new, acknowledged, invalid, fixed (by a
 * commit or a kernel), duplicate (of another alert), or closed (a fixed
 * change point whose metric is back to its level, klab's own), an
 * assignee and a log.  Notices of state changes (ALERT_STATE_CHANGED)
 * and test alerts are not alerts: they have no triage.  Each change of
 * state raises one ALERT_STATE_CHANGED event (for the feed, mail and
 * webhooks), for the alert or for its whole group.
 */
#define ALERT_MAX_COMMENT 4096	/* bytes of a comment */
#define ALERT_BY_KLAB "klab"	/* the log's name for klab itself */

struct caller;
struct alert_triage {
	const char *state;	/* new, acknowledged, invalid, fixed, dup.. */
	const char *commit;	/* fixed: the commit that fixed it, or */
	const char *kernel;	/* the kernel that did (one at least) */
	int64_t of;		/* duplicate: the alert it repeats */
	const char *comment;	/* NULL or "": none */
	int group;		/* the other alerts of its group too */
};

/* 1 when state is one a person may set ("new" reopens). */
int alerts_state_settable(const char *state);
/*
 * Change the state of alert id (and, with t->group, of every alert of
 * its group) as c: each changed alert logged, one notice raised.  The
 * fields are checked here; a refusal names the field ("field 'of':
 * alert 4 cannot be a duplicate of itself").  OUT_OK, or another
 * outcome with err filled.
 */
enum outcome alerts_triage(struct db *db, const struct caller *c, int64_t id,
			   const struct alert_triage *t, char *err,
			   size_t errlen);
/* Set who looks at alert id ("": nobody; else a token's name). */
enum outcome alerts_assign(struct db *db, const struct caller *c, int64_t id,
			   const char *assignee, char *err, size_t errlen);
/* Add c's comment (1 to ALERT_MAX_COMMENT bytes) to alert id's log. */
enum outcome alerts_comment(struct db *db, const struct caller *c,
			    int64_t id, const char *text, char *err,
			    size_t errlen);

struct db_sample;
struct db_changepoint;
/*
 * After new results: close each fixed change-point alert of metric on
 * rig x suite whose metric is back to its level (docs/VERDICTS.md "A
 * fixed alert closes itself"): s[0..n) the line's samples, cps[0..ncp)
 * the metric's current change points.  How many were closed, -1 on a
 * database error.
 */
int alerts_fixed_check(struct db *db, const char *rig, const char *suite,
		       const char *metric, const struct db_sample *s, size_t n,
		       const struct db_changepoint *cps, size_t ncp);

/* ---- the subscriptions' rules (alerts_match.c, pure) -------------- */
#define ALERT_TEST "test"	/* a test alert, sent to one subscription */
#define ALERT_MAX_TARGET 2048	/* bytes of an address or URL */
#define ALERT_MAX_FIELD 256	/* bytes of a filter field */

/* What a subscription lets through; "" (or NULL) fields match anything;
 * events is a comma-separated list of kinds. */
struct alert_filter {
	const char *rig, *suite, *metric, *submitter, *events;
};

/* 1 when ev passes f: each set field must equal the event's (the metric
 * as a glob, fnmatch(3)); an event without that field does not pass. */
int alerts_match(const struct alert_filter *f, const struct alert_event *ev);
/* 1 when kind is one of ALERT_* (not ALERT_TEST). */
int alerts_kind_known(const char *kind);
/* A comma-separated list of known kinds ("" is all): 0, or -1 with err
 * naming the unknown one. */
int alerts_kinds_check(const char *list, char *err, size_t errlen);
/* An email address fit for an SMTP envelope and a To: header (no CR, LF,
 * space, quotes or angle brackets; one '@'; bounded): 0 or -1, err. */
int alerts_email_check(const char *addr, char *err, size_t errlen);
/* An http:// or https:// URL with a host, printable, bounded: 0 or -1. */
int alerts_url_check(const char *url, char *err, size_t errlen);
/*
 * Seconds to wait after the attempts-th failed attempt (1, 2, ...):
 * base * 2^(attempts - 1), at most max.
 */
long alerts_backoff(int attempts, long base, long max);
/* "sha256=" and the hex HMAC-SHA256 of body under key, into out (at least
 * ALERT_SIG_LEN + 1 bytes). */
#define ALERT_SIG_LEN (7 + 64)
void alerts_sign(const char *key, const char *body, size_t len, char *out);
/* The signature of a webhook sent at ts (unix seconds, the header
 * X-Klab-Timestamp): alerts_sign() of "TS.BODY", so a receiver that
 * refuses an old timestamp refuses a replayed delivery (docs/API.md). */
void alerts_sign_webhook(const char *key, long long ts, const char *body,
			 size_t len, char *out);

/* ---- delivery (alerts.c, alerts_send.c) --------------------------- */
struct alerts_conf {
	const char *smtp_url;	/* smtp://host:port or smtps://, NULL: none */
	const char *smtp_from;	/* envelope and From: address */
	const char *smtp_user, *smtp_password;	/* NULL: no AUTH */
	int smtp_starttls;	/* 1: require STARTTLS on smtp:// */
	long timeout;		/* seconds per delivery attempt */
	long retry_base, retry_max;	/* backoff, seconds */
	int max_attempts;	/* then the delivery is 'failed' */
	const char *public_url;	/* links in mails and payloads */
	const int *cancel;	/* non-zero: abort the attempt (shutdown) */
};

/*
 * One pass over the outbox: every delivery due at now (at most limit)
 * is attempted once and its outcome recorded.  Returns how many were
 * attempted, -1 on a database error.  The delivery thread's body; the
 * benchmark calls it directly.
 */
int alerts_deliver_due(struct db *db, const struct alerts_conf *c,
		       int limit);

struct klabd;
/* klabd: read the alert_* / smtp_* keys of the configuration (0, or -1
 * with err naming the key), start and stop the delivery thread (stop is
 * safe after a failed or no start); kick it after an event. */
int alerts_start(struct klabd *d, char *err, size_t errlen);
void alerts_stop(struct klabd *d);
void alerts_kick(void);

#endif
