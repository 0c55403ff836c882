// SPDX-License-Identifier: MIT
/*
 * The /subscriptions page and its forms: a signed-in submitter sees their
 * own alert subscriptions (an operator everyone's), adds one, sends one
 * a test alert and deletes one, through the same checks as the JSON API
 * (alerts_sub_create, alerts_sub_of in api_alerts.c).  Forms carry the
 * session's CSRF token (checked by auth_request before these run); a
 * refusal is shown on the page with its status, a drawn webhook secret
 * once on the page that answers the post.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/alerts.h"
#include "http/api.h"
#include "http/api_alerts.h"
#include "http/auth.h"
#include "klabd/klabd.h"

/* Render /subscriptions for the caller with status and a message. */
static int subs_page(struct req *rq, struct web_response *r, int status,
		     const char *notice, const char *error)
{
	int member = rq->role >= ROLE_SUBMITTER && rq->who[0];
	int all = rq->role >= ROLE_OPERATOR;
	struct web_subs_view view = { NULL, 0, member ? rq->who : "", all,
				      rq->csrf[0] && member ? rq->csrf : NULL,
				      notice, error };
	struct db_alert_sub *v = NULL;
	size_t n = 0;
	int rc;

	if (member && db_alert_sub_list(rq->db, all ? NULL : rq->who, &v, &n))
		return web_error_page(r, &rq->q, 500, "cannot list "
				      "subscriptions");
	view.v = v;
	view.n = n;
	r->status = status;
	rc = web_subscriptions(&view, r);
	db_alert_subs_free(v, n);
	return rc;
}

int page_subscriptions(struct req *rq, struct web_response *r)
{
	return subs_page(rq, r, 200, NULL, NULL);
}

/* The "error" of the JSON refusal in r, into buf. */
static const char *refusal(struct web_response *r, char *buf, size_t len)
{
	json_t *doc = json_loadb(r->body.buf, r->body.len, 0, NULL);
	const char *msg = json_string_value(json_object_get(doc, "error"));

	snprintf(buf, len, "%s", msg ? msg : "refused");
	json_decref(doc);
	return buf;
}

/* The form's fields as the document POST /api/subscriptions takes. */
static json_t *form_doc(struct req *rq)
{
	static const char *const keys[] = { "channel", "target", "secret",
		"rig", "suite", "metric", "submitter" };
	struct strbuf events = STRBUF_INIT;
	json_t *doc = json_object();
	const char **ev = NULL, *v;
	size_t i, n;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = query_get(&rq->q, keys[i]);
		if (v && *v)
			json_object_set_new(doc, keys[i], json_string(v));
	}
	sb_init(&events);
	n = query_all(&rq->q, "event", 1, &ev);
	for (i = 0; i < n; i++)
		sb_addf(&events, "%s%s", i ? "," : "", ev[i]);
	free(ev);
	json_object_set_new(doc, "events", json_string(events.buf));
	sb_release(&events);
	return doc;
}

int web_subscription_post(struct req *rq, struct web_response *r)
{
	char secret[ALERT_MAX_SECRET + 1] = "", msg[600], err[400];
	json_t *doc = form_doc(rq);
	const char *given;
	int64_t id = 0;
	int rc;

	rc = alerts_sub_create(rq, r, doc, &id, secret, sizeof(secret));
	json_decref(doc);
	if (rc)
		return subs_page(rq, r, rc, NULL, refusal(r, err, sizeof(err)));
	given = query_get(&rq->q, "secret");
	if (*secret && !(given && *given))
		snprintf(msg, sizeof(msg), "Subscription %lld added.  Its "
			 "webhook secret, shown this once: %s", (long long)id,
			 secret);
	else
		snprintf(msg, sizeof(msg), "Subscription %lld added.",
			 (long long)id);
	return subs_page(rq, r, 200, msg, NULL);
}

/* POST /subscriptions/ID/delete or /test from the page's buttons. */
static int sub_button_post(struct req *rq, struct web_response *r, int test)
{
	struct db_alert_sub s;
	char err[400], msg[128];
	int rc = alerts_sub_of(rq, r, &s);

	if (rc)
		return subs_page(rq, r, rc, NULL, refusal(r, err, sizeof(err)));
	if (test) {
		rc = alerts_sub_test(rq, &s, NULL, NULL, err, sizeof(err));
	} else {
		rc = db_alert_sub_delete(rq->db, s.id);
		if (rc == 0)
			auth_audit(rq, "unsubscribe", s.channel,
				   "subscription %lld", (long long)s.id);
		else
			snprintf(err, sizeof(err),
				 "cannot delete subscription %lld",
				 (long long)s.id);
	}
	snprintf(msg, sizeof(msg), test ? "Test alert queued for "
		 "subscription %lld." : "Subscription %lld deleted.",
		 (long long)s.id);
	db_alert_sub_release(&s);
	return subs_page(rq, r, rc ? 500 : 200, rc ? NULL : msg,
			 rc ? err : NULL);
}

int web_subscription_delete_post(struct req *rq, struct web_response *r)
{
	return sub_button_post(rq, r, 0);
}

int web_subscription_test_post(struct req *rq, struct web_response *r)
{
	return sub_button_post(rq, r, 1);
}
