/* SPDX-License-Identifier: MIT */
/*
 * web: every page klabd serves, rendered server-side from the database.
 * No external assets: CSS is inline, charts are SVG drawn by chart.c.
 * All user-supplied text is HTML-escaped (sb_add_html).
 *
 * Each page function fills a web_response and returns its HTTP status.
 * The HTTP layer (http/http.c) owns the route table and calls these
 * with a db handle for the calling thread and the decoded query string.
 * Pages that have data formats honour ?format=html|text|csv|json.
 */
#ifndef KLAB_WEB_H
#define KLAB_WEB_H

#include "db/db.h"
#include "klabd/outcome.h"
#include "lib/query.h"
#include "lib/strbuf.h"

struct web_response {
	int status;
	const char *content_type;	/* static string */
	struct strbuf body;
	char location[512];		/* for 303 redirects, else "" */
	char cookie[256];		/* a Set-Cookie header, else "" */
	int fd;				/* >= 0: send this file instead of
					 * body (closed by release) */
	unsigned long long fd_size;
};

/*
 * The HTTP status of an outcome of a service (klabd/outcome.h), the one
 * table of them for the API (http/) and the pages: OUT_OK 200,
 * OUT_INVALID 400, OUT_FORBIDDEN 403, OUT_NOTFOUND 404, OUT_CONFLICT
 * 409, OUT_TOOBIG 413, OUT_REFUSED 422, OUT_BUSY 503, OUT_ERROR and
 * anything else 500.  A DB_* code is outcome_of_db's first.
 */
int web_status(enum outcome o);
void web_response_init(struct web_response *r);
void web_response_release(struct web_response *r);
/* A JSON error body {"error": msg} with the given status. */
int web_error_json(struct web_response *r, int status, const char *msg);
/* An HTML error page (or text/JSON per ?format) with the given status. */
int web_error_page(struct web_response *r, const struct query *q,
		   int status, const char *msg);

/*
 * Pages.  arg is the rest of the path after the route prefix (kernel
 * identifier for /kernels/ID, run id for /runs/ID), "" when none.
 */
int web_home(struct db *db, struct query *q, const char *arg,
	     struct web_response *r);		/* GET / */
int web_kernels(struct db *db, struct query *q, const char *arg,
		struct web_response *r);	/* /kernels, /kernels/ID */
/*
 * The repetitions stored inside run run_id (db/reps.h) as a JSON array of
 * {"rep", "complete", "metric", "value"}, by metric then repetition; an
 * empty array when there are none.  A new reference (a json_t *).
 */
struct json_t;
struct json_t *web_run_reps_json(struct db *db, int64_t run_id);
int web_runs(struct db *db, struct query *q, const char *arg,
	     struct web_response *r);		/* /runs, /runs/ID */
/* A job's steps (db/jobs.h) as a JSON array of {"step", "rep", "secs"} in
 * the order they ran; empty when none (or job 0).  A new reference. */
struct json_t *web_job_steps_json(struct db *db, int64_t job);
/*
 * The mean of each step over the newest limit done jobs of rig and suite
 * (NULL: any) as {"rig", "suite", "limit", "jobs", "secs" (their sum),
 * "steps": [{"step", "secs", "share", "jobs"}]} into *out (a new
 * reference): DB_OK, or a DB_* code with *out NULL.
 */
int web_steps_json(struct db *db, const char *rig, const char *suite,
		   int limit, struct json_t **out);
int web_steps(struct db *db, struct query *q, const char *arg,
	      struct web_response *r);		/* /steps */
int web_rigs(struct db *db, struct query *q, const char *arg,
	     struct web_response *r);		/* /rigs */
/* /rigs for a signed-in operator: offline rigs get a "bring online" form
 * carrying csrf (NULL: no forms, as web_rigs). */
int web_rigs_forms(struct db *db, struct query *q, const char *csrf,
		   struct web_response *r);
/* /login: a form to paste a token; msg (or NULL) says why it is shown
 * again, next (or NULL) where to go after signing in. */
int web_login(const char *msg, const char *next, struct web_response *r);
/*
 * /compare?k=A&k=B...&base=A&rig=R&suite=S&format=html|text|csv|json
 * (k may also be comma-separated).  With fewer than 2 kernels it shows the
 * picker form only.
 */
int web_compare(struct db *db, struct query *q, const char *arg,
		struct web_response *r);
/* /history?metric=M&rig=R&suite=S&limit=N&format=html|csv|json */
int web_history(struct db *db, struct query *q, const char *arg,
		struct web_response *r);
/*
 * /comparisons/ID?format=html|text: a comparison run (db/comparisons.h)
 * and its verdict table as judged by the caller, with its outcome in one
 * word (verdict) and one line (summary).
 */
struct db_comparison;
struct comparison;
int web_comparison(const struct db_comparison *c,
		   const struct comparison *cmp, const char *verdict,
		   const char *summary, struct query *q,
		   struct web_response *r);
/*
 * /alerts?limit=N&state=S&line=L&metric=GLOB&rig=R&suite=S&kind=K&group=G
 * &format=html|json: the newest alerts (one row per group, with their
 * state; the notices of state changes apart) and deliveries of the
 * alert outbox (db/alerts.h), with attempts, state and last error;
 * format forces one (NULL: ?format=).  /alerts.atom?kind=K&rig=R&suite=S&
 * metric=GLOB&submitter=U&subscription=N: those events as an Atom feed
 * whose links start with base (klabd's public URL).
 */
int web_alerts(struct db *db, struct query *q, const char *format,
	       struct web_response *r);
/*
 * /alerts/ID?format=html|json: one alert with its triage (state,
 * assignee, what fixed it), its group and its log; for a signed-in
 * caller (csrf set) the forms that change its state, assign it and
 * comment on it, error (or NULL) said above them.  format forces one
 * (NULL: ?format=).  404 for an unknown id.
 */
struct web_alert_view {
	int64_t id;
	const char *who;	/* NULL or "" when not signed in */
	const char *csrf;	/* NULL: no forms */
	const char *error;
};
int web_alert(struct db *db, struct query *q,
	      const struct web_alert_view *view, const char *format,
	      struct web_response *r);
int web_alerts_atom(struct db *db, struct query *q, const char *base,
		    struct web_response *r);
/*
 * /subscriptions: the alert subscriptions a caller may see (their own, or
 * everyone's for an operator), with a form to add one and buttons to
 * test and delete each when csrf is set (a signed-in session); notice or
 * error (or NULL) is said at the top.  The caller fills r->status first
 * when it is not 200.
 */
struct db_alert_sub;
struct web_subs_view {
	const struct db_alert_sub *v;
	size_t n;
	const char *who;	/* "" when not signed in */
	int all;		/* an operator: everyone's */
	const char *csrf;	/* NULL: no forms */
	const char *notice, *error;
};
int web_subscriptions(const struct web_subs_view *view,
		      struct web_response *r);
/*
 * Fill the header of the HTML page in r (one begun by page_begin) for
 * the caller: who and a sign-out button (a form posting csrf to
 * /logout) for a signed-in session, a sign-in link when csrf is NULL.
 * Any other response is left as it is.
 */
void web_page_session(struct web_response *r, const char *who,
		      const char *csrf);
/* /style.css: the one stylesheet (also inlined in pages). */
int web_style(struct db *db, struct query *q, const char *arg,
	      struct web_response *r);

#endif
