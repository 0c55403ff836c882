// SPDX-License-Identifier: MIT
/*
 * Alerts over HTTP: subscriptions (POST, GET, DELETE /api/subscriptions,
 * a test alert with POST /api/subscriptions/ID/test), the events and the
 * outbox (GET /api/alerts), an event emitted by hand (POST /api/alerts,
 * operators: integrations and tests, with the line, kernels and group
 * key of the change it is about), the /alerts page and the Atom feed
 * (one alert and its triage: api_alert_triage.c).
 * A submitter manages their own subscriptions, an operator everyone's.
 * Targets are checked here (alerts_match.c) before anything is stored.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/alerts.h"
#include "http/api.h"
#include "http/api_alerts.h"
#include "http/api_util.h"
#include "http/auth.h"
#include "db/alerts.h"
#include "klabd/klabd.h"
#include "lib/rand.h"

#define MAX_SUBS_PER_OWNER 200
#define MAX_TITLE 300
#define MAX_TEXT (256 * 1024)

/* A glob of metric names: the name rule's characters and * ? [ ] ! ^ */
static int glob_check(const char *g, char *err, size_t errlen)
{
	size_t n = strspn(g, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
			  "TUVWXYZ0123456789._+-:@~*?[]!^");

	if (g[n] || n > ALERT_MAX_FIELD) {
		snprintf(err, errlen, "field 'metric': a glob of metric names "
			 "(at most %d bytes) has a character not allowed at "
			 "byte %zu", ALERT_MAX_FIELD, n + 1);
		return -1;
	}
	return 0;
}

/* The event kinds of doc's "events": a string "a,b" or a list. */
static int events_field(struct web_response *r, json_t *doc,
			struct strbuf *out)
{
	json_t *v = json_object_get(doc, "events"), *e;
	char err[300];
	size_t i;

	if (json_is_string(v))
		sb_adds(out, json_string_value(v));
	else if (json_is_array(v))
		json_array_foreach(v, i, e) {
			if (!json_is_string(e))
				return web_error_json(r, 400,
						      "field 'events': "
						      "expected a list "
						      "of strings");
			sb_addf(out, "%s%s", i ? "," : "",
				json_string_value(e));
		}
	else if (v && !json_is_null(v))
		return web_error_json(r, 400, "field 'events': expected a "
				      "string or a list");
	if (alerts_kinds_check(out->buf, err, sizeof(err)))
		return web_error_json(r, 400, err);
	return 0;
}

/* The channel, target and secret of a new subscription into s. */
static int sub_target(struct req *rq, struct web_response *r, json_t *doc,
		      struct db_alert_sub *s, char *secret, size_t len)
{
	const char *sec = NULL;
	char err[400];

	s->target = "";
	if (api_field_str(r, doc, "channel", 1, (const char **)&s->channel) ||
	    api_field_str(r, doc, "target", 0, (const char **)&s->target) ||
	    api_field_str(r, doc, "secret", 0, &sec))
		return r->status;
	if (!strcmp(s->channel, "email")) {
		if (alerts_email_check(s->target, err, sizeof(err)))
			return web_error_json(r, 400, err);
	} else if (!strcmp(s->channel, "webhook")) {
		if (alerts_url_check(s->target, err, sizeof(err)))
			return web_error_json(r, 400, err);
	} else if (!strcmp(s->channel, "feed")) {
		if (*s->target)
			return web_error_json(r, 400, "field 'target': a feed "
					      "has none (it is read at "
					      "/alerts.atom?subscription=ID)");
	} else {
		return web_error_json(r, 400, "field 'channel': expected "
				      "'email', 'webhook' or 'feed'");
	}
	if (sec && (strcmp(s->channel, "webhook") || !*sec ||
		    strlen(sec) > ALERT_MAX_SECRET || strpbrk(sec, "\r\n")))
		return web_error_json(r, 400, "field 'secret': only for a "
				      "webhook, 1 to 256 bytes, one line");
	if (sec)
		snprintf(secret, len, "%s", sec);
	else if (!strcmp(s->channel, "webhook") &&
		 rand_hex(secret, 32))
		return web_error_json(r, 500, "cannot draw a secret");
	s->secret = secret;
	return 0;
}

/* The filter of a new subscription into s. */
static int sub_filter(struct web_response *r, json_t *doc,
		      struct db_alert_sub *s)
{
	char err[400];

	s->rig = s->suite = s->metric = s->submitter = "";
	if (api_field_ident(r, doc, "rig", IDENT_RIG, 0,
			    (const char **)&s->rig) ||
	    api_field_ident(r, doc, "suite", IDENT_SUITE, 0,
			    (const char **)&s->suite) ||
	    api_field_ident(r, doc, "submitter", IDENT_TOKEN, 0,
			    (const char **)&s->submitter) ||
	    api_field_str(r, doc, "metric", 0, (const char **)&s->metric))
		return r->status;
	if (glob_check(s->metric, err, sizeof(err)))
		return web_error_json(r, 400, err);
	return 0;
}

static int owner_full(struct req *rq)
{
	struct db_alert_sub *v = NULL;
	size_t n = 0;

	if (db_alert_sub_list(rq->db, rq->who, &v, &n))
		return -1;
	db_alert_subs_free(v, n);
	return n >= MAX_SUBS_PER_OWNER;
}

/* Store the subscription doc describes for the caller: 0 with *id (and
 * secret, "" unless a webhook's), else the status with r filled. */
int alerts_sub_create(struct req *rq, struct web_response *r, json_t *doc,
		      int64_t *id, char *secret, size_t len)
{
	struct strbuf events = STRBUF_INIT;
	struct db_alert_sub s;
	int rc;

	sb_init(&events);
	memset(&s, 0, sizeof(s));
	rc = sub_target(rq, r, doc, &s, secret, len);
	if (!rc)
		rc = sub_filter(r, doc, &s);
	if (!rc)
		rc = events_field(r, doc, &events);
	if (rc)
		goto out;
	s.events = events.buf;
	s.owner = rq->who;
	rc = owner_full(rq);
	if (rc)
		rc = web_error_json(r, rc < 0 ? 500 : 409, rc < 0 ? "cannot "
				    "list subscriptions" : "too many "
				    "subscriptions: delete some first");
	else if (db_alert_sub_add(rq->db, &s, id))
		rc = web_error_json(r, 500, "cannot store the subscription");
	else
		auth_audit(rq, "subscribe", s.channel, "subscription %lld",
			   (long long)*id);
out:
	sb_release(&events);
	return rc;
}

int api_subscription_add(struct req *rq, struct web_response *r)
{
	json_t *doc = api_body(rq, r, 0);
	char secret[ALERT_MAX_SECRET + 1] = "", feed[64];
	int64_t id;
	int rc;

	if (!doc)
		return r->status;
	rc = alerts_sub_create(rq, r, doc, &id, secret, sizeof(secret));
	if (!rc) {
		snprintf(feed, sizeof(feed), "/alerts.atom?subscription=%lld",
			 (long long)id);
		rc = api_reply(r, 201, json_pack("{s:I, s:s, s:s*}", "id",
				(json_int_t)id, "feed", feed, "secret",
				*secret ? secret : NULL));
	}
	json_decref(doc);
	return rc;
}

static json_t *sub_json(const void *elem)
{
	const struct db_alert_sub *s = elem;

	return json_pack("{s:I, s:s, s:s, s:b, s:s, s:s, s:s, s:s, s:s, s:s, "
			 "s:I}", "id", (json_int_t)s->id, "channel", s->channel,
			 "target", s->target, "secret_set", *s->secret != 0,
			 "rig", s->rig, "suite", s->suite, "metric", s->metric,
			 "submitter", s->submitter, "events", s->events,
			 "owner", s->owner, "created", (json_int_t)s->created);
}

int api_subscriptions(struct req *rq, struct web_response *r)
{
	struct db_alert_sub *v = NULL;
	size_t n = 0;
	int rc;

	if (db_alert_sub_list(rq->db, rq->role >= ROLE_OPERATOR ? NULL :
			      rq->who, &v, &n))
		return web_error_json(r, 500, "cannot list subscriptions");
	rc = api_reply_list(r, "subscriptions", v, n, sizeof(*v), sub_json);
	db_alert_subs_free(v, n);
	return rc;
}

/* The subscription of /api/subscriptions/ID that the caller may manage:
 * 0 with *s filled, else the error's status with r filled. */
int alerts_sub_of(struct req *rq, struct web_response *r,
		  struct db_alert_sub *s)
{
	char msg[600];
	long id;

	if (api_arg_id(rq, r, "subscription", &id))
		return r->status;
	if (db_alert_sub_get(rq->db, id, s)) {
		snprintf(msg, sizeof(msg), "unknown subscription %ld", id);
		return web_error_json(r, 404, msg);
	}
	if (rq->role < ROLE_OPERATOR && strcmp(s->owner, rq->who)) {
		snprintf(msg, sizeof(msg), "subscription %ld belongs to "
			 "'%.200s', not to '%.200s'", id, s->owner, rq->who);
		db_alert_sub_release(s);
		return web_error_json(r, 403, msg);
	}
	return 0;
}

int api_subscription_delete(struct req *rq, struct web_response *r)
{
	struct db_alert_sub s;
	int rc = alerts_sub_of(rq, r, &s);

	if (rc)
		return rc;
	if (db_alert_sub_delete(rq->db, s.id))
		rc = web_error_json(r, 500, "cannot delete the subscription");
	else {
		auth_audit(rq, "unsubscribe", s.channel, "subscription %lld",
			   (long long)s.id);
		rc = api_reply(r, 200, json_pack("{s:I}", "deleted",
						  (json_int_t)s.id));
	}
	db_alert_sub_release(&s);
	return rc;
}

int alerts_sub_test(struct req *rq, const struct db_alert_sub *s,
		    int64_t *event, size_t *n, char *err, size_t errlen)
{
	struct alert_event ev = { .kind = ALERT_TEST };
	char title[128], text[600];

	snprintf(title, sizeof(title), "test alert for subscription %lld",
		 (long long)s->id);
	snprintf(text, sizeof(text), "This is a test alert sent by '%.200s' "
		 "to subscription %lld (%s).\nIf you read it, the channel "
		 "works.\n", rq->who, (long long)s->id, s->channel);
	ev.title = title;
	ev.text = text;
	ev.link = "/alerts";
	ev.submitter = rq->who;
	if (alerts_emit_to(rq->db, &ev, s->id, event, n, err, errlen))
		return -1;
	auth_audit(rq, "alert test", s->channel, "subscription %lld",
		   (long long)s->id);
	return 0;
}

int api_subscription_test(struct req *rq, struct web_response *r)
{
	struct db_alert_sub s;
	int64_t event = 0;
	char err[300];
	size_t n = 0;
	int rc = alerts_sub_of(rq, r, &s);

	if (rc)
		return rc;
	if (alerts_sub_test(rq, &s, &event, &n, err, sizeof(err)))
		rc = web_error_json(r, 500, err);
	else
		rc = api_reply(r, 202, json_pack("{s:I, s:I}", "event",
				(json_int_t)event, "deliveries",
				(json_int_t)n));
	db_alert_sub_release(&s);
	return rc;
}

/* A field of an emitted event: absent, or a string of at most max. */
static int ev_field(struct web_response *r, json_t *doc, const char *key,
		    size_t max, const char **out)
{
	char msg[128];

	if (api_field_str(r, doc, key, 0, out))
		return -1;
	if (*out && strlen(*out) > max) {
		snprintf(msg, sizeof(msg), "field '%s': longer than %zu bytes",
			 key, max);
		return web_error_json(r, 413, msg);
	}
	return 0;
}

int api_alert_emit(struct req *rq, struct web_response *r)
{
	json_t *doc = api_body(rq, r, 0);
	struct alert_event ev;
	int64_t event = 0;
	char err[300];
	size_t n = 0;
	int rc;

	if (!doc)
		return r->status;
	memset(&ev, 0, sizeof(ev));
	if (ev_field(r, doc, "kind", 64, &ev.kind) ||
	    ev_field(r, doc, "rig", IDENT_MAX, &ev.rig) ||
	    ev_field(r, doc, "suite", IDENT_MAX, &ev.suite) ||
	    ev_field(r, doc, "metric", IDENT_MAX, &ev.metric) ||
	    ev_field(r, doc, "submitter", IDENT_MAX, &ev.submitter) ||
	    ev_field(r, doc, "title", MAX_TITLE, &ev.title) ||
	    ev_field(r, doc, "text", MAX_TEXT, &ev.text) ||
	    ev_field(r, doc, "link", 512, &ev.link) ||
	    ev_field(r, doc, "dedup", ALERT_MAX_FIELD, &ev.dedup) ||
	    ev_field(r, doc, "line", ALERT_MAX_FIELD, &ev.line) ||
	    ev_field(r, doc, "kernel_before", IDENT_MAX, &ev.before) ||
	    ev_field(r, doc, "kernel_after", IDENT_MAX, &ev.after) ||
	    ev_field(r, doc, "group", ALERT_MAX_FIELD, &ev.group))
		rc = r->status;
	else if (!alerts_kind_known(ev.kind) ||
		 !strcmp(ev.kind, ALERT_STATE_CHANGED))
		rc = web_error_json(r, 400, "field 'kind': expected "
				    "submission_finished, worse_found, "
				    "change_point, rig_offline, "
				    "build_failed, bisection_done or "
				    "regression "
				    "(alert_state is klab's own notice of "
				    "a triage)");
	else if (ev.title && strpbrk(ev.title, "\r\n"))
		rc = web_error_json(r, 400, "field 'title': one line, without "
				    "CR or LF");
	else if (ev.link && *ev.link != '/')
		rc = web_error_json(r, 400, "field 'link': a path on klabd, "
				    "starting with '/'");
	else {
		rc = alerts_emit_to(rq->db, &ev, 0, &event, &n, err,
				    sizeof(err));
		if (rc == DB_ERR)
			rc = web_error_json(r, 500, err);
		else
			rc = api_reply(r, rc == DB_REPEATED ? 200 : 201,
				json_pack("{s:I, s:I, s:b}", "event",
					  (json_int_t)event, "deliveries",
					  (json_int_t)n, "repeated",
					  rc == DB_REPEATED));
	}
	json_decref(doc);
	return rc;
}

int api_alerts(struct req *rq, struct web_response *r)
{
	return web_alerts(rq->db, &rq->q, "json", r);
}

int page_alerts(struct req *rq, struct web_response *r)
{
	return web_alerts(rq->db, &rq->q, NULL, r);
}

int page_alerts_atom(struct req *rq, struct web_response *r)
{
	char base[600];

	if (rq->d->public_url)
		snprintf(base, sizeof(base), "%s", rq->d->public_url);
	else
		snprintf(base, sizeof(base), "http://%s:%d", rq->d->host ?
			 rq->d->host : "127.0.0.1", rq->d->port);
	return web_alerts_atom(rq->db, &rq->q, base, r);
}
