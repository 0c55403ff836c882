// SPDX-License-Identifier: MIT
/*
 * One alert and its triage over HTTP: GET /api/alerts/ID (the alert,
 * its group and its log), POST /api/alerts/ID/state, /assign and
 * /comments (JSON), and the /alerts/ID page with the same three as
 * forms (a signed-in session, CSRF checked by auth_request before these
 * run).  Who may: any user token, submitter or operator (the route
 * table; docs/SECURITY.md "Triage").  The service is
 * flow/alerts_triage.c; a refusal names the field, as JSON for the API
 * and on the page, with its status, for a form.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/alerts.h"
#include "flow/alerts.h"
#include "flow/track.h"
#include "http/api.h"
#include "http/api_util.h"
#include "http/auth.h"
#include "klabd/klabd.h"
#include "lib/config.h"
#include "web/web.h"

/* The alert of the path: its id, or 0 after a 400 in r. */
static long path_id(struct req *rq, struct web_response *r, int page)
{
	long id;

	if (!parse_long(rq->arg, 1, 0x7fffffffL, &id))
		return id;
	if (page)
		web_error_page(r, &rq->q, 404, "no such alert");
	else
		web_error_json(r, 400, "invalid alert id");
	return 0;
}

/* After a change of state: a fixed alert's line is looked at again at
 * once (the change points refreshed, as after new results), so one
 * whose metric is already back closes without waiting for a result. */
static void after_state(struct req *rq, long id, const char *state)
{
	struct db_alert_event a;

	if (strcmp(state, "fixed") || db_alert_event_get(rq->db, id, &a))
		return;
	if (*a.rig && *a.suite && !strcmp(a.kind, ALERT_CHANGE_POINT))
		track_results_stored(rq->d, a.rig, a.suite);
	db_alert_event_release(&a);
}

int api_alert_get(struct req *rq, struct web_response *r)
{
	struct web_alert_view view = { 0 };

	view.id = path_id(rq, r, 0);
	if (!view.id)
		return r->status;
	return web_alert(rq->db, &rq->q, &view, "json", r);
}

/* The JSON answer of a triage: the alert as GET shows it, or the
 * refusal of o. */
static int api_answer(struct req *rq, struct web_response *r, long id,
		      enum outcome o, const char *err)
{
	struct web_alert_view view = { 0 };

	if (o != OUT_OK)
		return api_error(r, o, err);
	view.id = id;
	return web_alert(rq->db, &rq->q, &view, "json", r);
}

int api_alert_state(struct req *rq, struct web_response *r)
{
	struct caller c = api_caller(rq);
	struct alert_triage t = { 0 };
	json_t *doc;
	long long of = 0;
	char err[600] = "";
	enum outcome o;
	long id = path_id(rq, r, 0);
	int rc;

	if (!id)
		return r->status;
	doc = api_body(rq, r, 0);
	if (!doc)
		return r->status;
	if (api_field_str(r, doc, "state", 1, &t.state) ||
	    api_field_str(r, doc, "commit", 0, &t.commit) ||
	    api_field_str(r, doc, "kernel", 0, &t.kernel) ||
	    api_field_int(r, doc, "of", 0, 1, 0x7fffffffL, &of) ||
	    api_field_str(r, doc, "comment", 0, &t.comment) ||
	    api_field_bool(r, doc, "group", 0, &t.group)) {
		rc = r->status;
	} else {
		t.of = of;
		o = alerts_triage(rq->db, &c, id, &t, err, sizeof(err));
		rc = api_answer(rq, r, id, o, err);
		if (o == OUT_OK)
			after_state(rq, id, t.state);
	}
	json_decref(doc);
	return rc;
}

/* A POST whose body is {"KEY": STRING}, handed to the service fn. */
static int api_one_field(struct req *rq, struct web_response *r,
			 const char *key,
			 enum outcome (*fn)(struct db *, const struct caller *,
					    int64_t, const char *, char *,
					    size_t))
{
	struct caller c = api_caller(rq);
	const char *v = NULL;
	char err[400] = "";
	enum outcome o;
	json_t *doc;
	long id = path_id(rq, r, 0);
	int rc;

	if (!id)
		return r->status;
	doc = api_body(rq, r, 0);
	if (!doc)
		return r->status;
	if (api_field_str(r, doc, key, 1, &v)) {
		rc = r->status;
	} else {
		o = fn(rq->db, &c, id, v, err, sizeof(err));
		rc = api_answer(rq, r, id, o, err);
	}
	json_decref(doc);
	return rc;
}

int api_alert_assign(struct req *rq, struct web_response *r)
{
	return api_one_field(rq, r, "assignee", alerts_assign);
}

int api_alert_comment(struct req *rq, struct web_response *r)
{
	return api_one_field(rq, r, "text", alerts_comment);
}

/* ---- the page and its forms --------------------------------------- */

/* /alerts/ID for the caller, with status and a message. */
static int alert_page(struct req *rq, struct web_response *r, long id,
		      int status, const char *error)
{
	int member = rq->role >= ROLE_SUBMITTER && rq->who[0];
	struct web_alert_view view = { 0 };
	int rc;

	view.id = id;
	view.who = member ? rq->who : "";
	view.csrf = member && rq->csrf[0] ? rq->csrf : NULL;
	view.error = error;
	rc = web_alert(rq->db, &rq->q, &view, NULL, r);
	if (rc == 200 && status != 200)
		r->status = rc = status;
	return rc;
}

int page_alert(struct req *rq, struct web_response *r)
{
	long id = path_id(rq, r, 1);

	return id ? alert_page(rq, r, id, 200, NULL) : r->status;
}

/* After a form: back to the alert's page (303), or the page with the
 * refusal and its status. */
static int form_done(struct req *rq, struct web_response *r, long id,
		     enum outcome o, const char *err)
{
	if (o != OUT_OK)
		return alert_page(rq, r, id, web_status(o), err);
	snprintf(r->location, sizeof(r->location), "/alerts/%ld", id);
	r->status = 303;
	return 303;
}

/* A form's optional text field: NULL when absent or empty. */
static const char *form_str(struct req *rq, const char *key)
{
	const char *v = query_get(&rq->q, key);

	return v && *v ? v : NULL;
}

int web_alert_state_post(struct req *rq, struct web_response *r)
{
	struct caller c = api_caller(rq);
	struct alert_triage t = { 0 };
	const char *of = form_str(rq, "of");
	char err[600] = "";
	enum outcome o = OUT_INVALID;
	long id = path_id(rq, r, 1), n = 0;

	if (!id)
		return r->status;
	t.state = query_get(&rq->q, "state");
	t.commit = form_str(rq, "commit");
	t.kernel = form_str(rq, "kernel");
	t.comment = form_str(rq, "comment");
	t.group = form_str(rq, "group") != NULL;
	if (of && parse_long(of, 1, 0x7fffffffL, &n))
		snprintf(err, sizeof(err), "field 'of': expected an alert id, "
			 "got '%.40s'", of);
	else if (!t.state)
		snprintf(err, sizeof(err), "field 'state': required");
	else {
		t.of = n;
		o = alerts_triage(rq->db, &c, id, &t, err, sizeof(err));
		if (o == OUT_OK)
			after_state(rq, id, t.state);
	}
	return form_done(rq, r, id, o, err);
}

/* A form of one field, KEY, handed to the service fn. */
static int form_one_field(struct req *rq, struct web_response *r,
			  const char *key,
			  enum outcome (*fn)(struct db *, const struct caller *,
					     int64_t, const char *, char *,
					     size_t))
{
	struct caller c = api_caller(rq);
	const char *v = query_get(&rq->q, key);
	char err[400] = "";
	enum outcome o;
	long id = path_id(rq, r, 1);

	if (!id)
		return r->status;
	o = fn(rq->db, &c, id, v ? v : "", err, sizeof(err));
	return form_done(rq, r, id, o, err);
}

int web_alert_assign_post(struct req *rq, struct web_response *r)
{
	return form_one_field(rq, r, "assignee", alerts_assign);
}

int web_alert_comment_post(struct req *rq, struct web_response *r)
{
	return form_one_field(rq, r, "text", alerts_comment);
}
