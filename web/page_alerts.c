// SPDX-License-Identifier: MIT
/*
 * /alerts: what the lab's bell rang for and whether it was heard.  The
 * newest events (kind, rig, suite, metric, submitter, title) and the
 * outbox of deliveries (channel, state, attempts, next attempt, last
 * error), as HTML or JSON.  Targets (addresses, URLs) are not shown here:
 * they are the subscribers' (GET /api/subscriptions, with a token).
 *
 * /alerts.atom: the same events as an Atom feed (RFC 4287), filtered by
 * kind, rig, suite, metric glob, submitter or subscription, so that each
 * filter has its own feed URL.  Text that is not valid UTF-8 is repaired
 * and control characters are dropped: the feed is always well-formed XML.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/alerts.h"
#include "lib/utf8.h"
#include "page.h"

#define CT_ATOM "application/atom+xml; charset=utf-8"
#define FEED_MAX 50

static json_t *event_json(const struct db_alert_event *e)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
			 "s:I}", "id", (json_int_t)e->id, "kind",
			 page_jstr(e->kind), "rig", page_jstr(e->rig), "suite",
			 page_jstr(e->suite), "metric", page_jstr(e->metric),
			 "submitter", page_jstr(e->submitter), "title",
			 page_jstr(e->title), "text", page_jstr(e->text),
			 "link", page_jstr(e->link), "dedup",
			 page_jstr(e->dedup), "created",
			 (json_int_t)e->created);
}

static json_t *delivery_json(const struct db_alert_delivery *d)
{
	return json_pack("{s:I, s:I, s:I, s:o, s:o, s:i, s:I, s:o, s:I, s:I, "
			 "s:o}", "id", (json_int_t)d->id, "event",
			 (json_int_t)d->event_id, "subscription",
			 (json_int_t)d->subscription_id, "channel",
			 page_jstr(d->channel), "state", page_jstr(d->state),
			 "attempts", d->attempts, "next_attempt",
			 (json_int_t)d->next_at, "last_error",
			 page_jstr(d->last_error), "delivered",
			 (json_int_t)d->delivered, "created",
			 (json_int_t)d->created, "kind", page_jstr(d->kind));
}

static int alerts_json(struct web_response *r,
		       const struct db_alert_event *ev, size_t ne,
		       const struct db_alert_delivery *dv, size_t nd)
{
	json_t *events = json_array(), *deliveries = json_array();
	size_t i, pending = 0;

	for (i = 0; i < ne; i++)
		json_array_append_new(events, event_json(&ev[i]));
	for (i = 0; i < nd; i++) {
		json_array_append_new(deliveries, delivery_json(&dv[i]));
		pending += !strcmp(dv[i].state, "pending");
	}
	return page_json(r, json_pack("{s:o, s:o, s:I}", "events", events,
				      "deliveries", deliveries, "pending",
				      (json_int_t)pending));
}

static void cell(struct strbuf *sb, const char *s)
{
	sb_adds(sb, "<td>");
	sb_add_html(sb, s);
	sb_adds(sb, "</td>");
}

static void events_table(struct strbuf *sb, const struct db_alert_event *v,
			 size_t n)
{
	char when[40];
	size_t i;

	sb_adds(sb, "<h2>Events</h2>\n<table class=\"alerts\"><thead><tr>"
		"<th>id</th><th>time (UTC)</th><th>kind</th><th>rig</th>"
		"<th>suite</th><th>metric</th><th>submitter</th><th>title</th>"
		"</tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++) {
		page_time(when, sizeof(when), v[i].created);
		sb_addf(sb, "<tr id=\"event-%lld\"><td class=\"num\">%lld</td>"
			"<td>%s</td>", (long long)v[i].id, (long long)v[i].id,
			when);
		cell(sb, v[i].kind);
		cell(sb, v[i].rig);
		cell(sb, v[i].suite);
		cell(sb, v[i].metric);
		cell(sb, v[i].submitter);
		sb_adds(sb, "<td>");
		if (*v[i].link == '/')
			page_link(sb, "", v[i].link, v[i].title);
		else
			sb_add_html(sb, v[i].title);
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</tbody></table>\n");
	if (!n)
		sb_adds(sb, "<p>No events yet.</p>\n");
}

static void deliveries_table(struct strbuf *sb,
			     const struct db_alert_delivery *v, size_t n)
{
	char next[40], done[40];
	size_t i;

	sb_adds(sb, "<h2>Deliveries</h2>\n<table class=\"deliveries\"><thead>"
		"<tr><th>id</th><th>event</th><th>subscription</th>"
		"<th>channel</th><th>state</th><th>attempts</th>"
		"<th>next attempt</th><th>delivered</th><th>last error</th>"
		"</tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++) {
		page_time(next, sizeof(next), strcmp(v[i].state, "pending") ?
			  0 : v[i].next_at);
		page_time(done, sizeof(done), v[i].delivered);
		sb_addf(sb, "<tr><td class=\"num\">%lld</td><td class=\"num\">"
			"<a href=\"#event-%lld\">%lld</a></td>"
			"<td class=\"num\">%lld</td>", (long long)v[i].id,
			(long long)v[i].event_id, (long long)v[i].event_id,
			(long long)v[i].subscription_id);
		cell(sb, v[i].channel);
		cell(sb, v[i].state);
		sb_addf(sb, "<td class=\"num attempts\">%d</td><td>%s</td>"
			"<td>%s</td>", v[i].attempts, next, done);
		cell(sb, v[i].last_error);
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</tbody></table>\n");
	if (!n)
		sb_adds(sb, "<p>No deliveries yet.</p>\n");
}

static void alerts_html(struct strbuf *sb, const struct db_alert_event *ev,
			size_t ne, const struct db_alert_delivery *dv,
			size_t nd)
{
	page_begin(sb, "Alerts", "alerts");
	sb_adds(sb, "<h1>Alerts</h1>\n<p>Events are matched against the "
		"subscriptions (<code>klab subscriptions</code>) and delivered "
		"at least once; a failed delivery is retried with growing "
		"delays.  Subscribe at <a href=\"/subscriptions\">"
		"/subscriptions</a>.  Feed: <a href=\"/alerts.atom\">"
		"/alerts.atom</a> "
		"&middot; <a href=\"/api/alerts\">json</a></p>\n");
	events_table(sb, ev, ne);
	deliveries_table(sb, dv, nd);
	page_end(sb);
}

int web_alerts(struct db *db, struct query *q, const char *format,
	       struct web_response *r)
{
	struct db_alert_delivery *dv = NULL;
	struct db_alert_event *ev = NULL;
	enum page_format f = PF_JSON;
	size_t ne = 0, nd = 0;
	long limit;
	int rc;

	if (!format && page_format(q, PF_HTML | PF_JSON, &f, r))
		return r->status;
	if (page_int_param(q, "limit", 100, 1, 10000, &limit, r))
		return r->status;
	rc = db_alert_event_list(db, NULL, (int)limit, &ev, &ne);
	if (!rc)
		rc = db_alert_delivery_list(db, (int)limit, &dv, &nd);
	if (rc) {
		db_alert_events_free(ev, ne);
		return page_db_error(r, q, rc, "cannot list alerts");
	}
	sb_reset(&r->body);
	if (f == PF_JSON)
		rc = alerts_json(r, ev, ne, dv, nd);
	else {
		alerts_html(&r->body, ev, ne, dv, nd);
		rc = page_ok(r, CT_HTML);
	}
	db_alert_events_free(ev, ne);
	db_alert_deliveries_free(dv, nd);
	return rc;
}

/* s as XML character data: valid UTF-8, no control characters. */
static void xml_add(struct strbuf *sb, const char *s)
{
	char *fixed = utf8_repair(s, strlen(s)), *p;

	for (p = fixed; *p; p++)
		if ((unsigned char)*p < 32 && !strchr("\t\n\r", *p))
			*p = ' ';
	sb_add_html(sb, fixed);
	free(fixed);
}

/* RFC 3339, UTC. */
static void atom_time(struct strbuf *sb, int64_t t)
{
	time_t tt = (time_t)t;
	char buf[32];
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	sb_adds(sb, buf);
}

static void atom_entry(struct strbuf *sb, const char *base,
		       const struct db_alert_event *e)
{
	sb_adds(sb, "<entry>\n<id>");
	xml_add(sb, base);
	sb_addf(sb, "/alerts#event-%lld</id>\n<title>", (long long)e->id);
	xml_add(sb, e->title[0] ? e->title : e->kind);
	sb_adds(sb, "</title>\n<updated>");
	atom_time(sb, e->created);
	sb_adds(sb, "</updated>\n<link rel=\"alternate\" href=\"");
	xml_add(sb, base);
	if (*e->link == '/')
		xml_add(sb, e->link);
	else
		sb_addf(sb, "/alerts#event-%lld", (long long)e->id);
	sb_adds(sb, "\"/>\n<category term=\"");
	xml_add(sb, e->kind);
	sb_adds(sb, "\"/>\n<content type=\"text\">");
	xml_add(sb, e->text);
	sb_adds(sb, "</content>\n</entry>\n");
}

static void atom_feed(struct strbuf *sb, const char *base, const char *self,
		      const struct db_alert_event *v, size_t n)
{
	size_t i;

	sb_adds(sb, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns="
		"\"http://www.w3.org/2005/Atom\">\n<id>");
	xml_add(sb, self);
	sb_adds(sb, "</id>\n<title>klab alerts</title>\n<updated>");
	atom_time(sb, n ? v[0].created : (int64_t)time(NULL));
	sb_adds(sb, "</updated>\n<link rel=\"self\" type=\"application/atom+"
		"xml\" href=\"");
	xml_add(sb, self);
	sb_adds(sb, "\"/>\n<link rel=\"alternate\" type=\"text/html\" href=\"");
	xml_add(sb, base);
	sb_adds(sb, "/alerts\"/>\n<author><name>klab</name></author>\n"
		"<generator>klabd</generator>\n");
	for (i = 0; i < n; i++)
		atom_entry(sb, base, &v[i]);
	sb_adds(sb, "</feed>\n");
}

/* The feed's filter from q, and its own URL into self. */
static int atom_filter(struct query *q, const char *base,
		       struct db_alert_filter *f, struct strbuf *self,
		       struct web_response *r)
{
	static const char *const keys[] = { "kind", "rig", "suite", "metric",
					    "submitter" };
	const char **vals[] = { &f->kind, &f->rig, &f->suite, &f->metric,
				&f->submitter };
	long sub;
	size_t i;

	memset(f, 0, sizeof(*f));
	sb_addf(self, "%s/alerts.atom", base);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		*vals[i] = query_get(q, keys[i]);
		if (*vals[i] && strlen(*vals[i]) > 256)
			return web_error_page(r, q, 400, "a feed filter is at "
					      "most 256 bytes");
		if (!*vals[i])
			continue;
		sb_addf(self, "%c%s=", self->buf[self->len - 1] == 'm' ?
			'?' : '&', keys[i]);
		sb_add_urlenc(self, *vals[i]);
	}
	if (page_int_param(q, "subscription", 0, 1, 0x7fffffffL, &sub, r))
		return r->status;
	f->subscription = sub;
	if (sub)
		sb_addf(self, "%csubscription=%ld", self->buf[self->len - 1] ==
			'm' ? '?' : '&', sub);
	return 0;
}

int web_alerts_atom(struct db *db, struct query *q, const char *base,
		    struct web_response *r)
{
	struct strbuf self = STRBUF_INIT;
	struct db_alert_event *v = NULL;
	struct db_alert_filter f;
	size_t n = 0;
	int rc;

	sb_init(&self);
	rc = atom_filter(q, base, &f, &self, r);
	if (rc)
		goto out;
	rc = db_alert_event_list(db, &f, FEED_MAX, &v, &n);
	if (rc) {
		rc = page_db_error(r, q, rc, "cannot list alerts");
		goto out;
	}
	sb_reset(&r->body);
	atom_feed(&r->body, base, self.buf, v, n);
	rc = page_ok(r, CT_ATOM);
	db_alert_events_free(v, n);
out:
	sb_release(&self);
	return rc;
}

/* ---- /subscriptions ----------------------------------------------- */

static void sub_button(struct strbuf *sb, const struct db_alert_sub *s,
		       const char *csrf, const char *action)
{
	sb_addf(sb, "<form class=\"inline\" method=\"post\" action=\""
		"/subscriptions/%lld/%s\"><input type=\"hidden\" name=\"csrf\" "
		"value=\"", (long long)s->id, action);
	sb_add_html(sb, csrf);
	sb_addf(sb, "\"><button type=\"submit\">%s</button></form> ", action);
}

static void sub_row(struct strbuf *sb, const struct db_alert_sub *s,
		    const char *csrf)
{
	static const char *const names[] = { "rig", "suite", "metric",
					     "submitter" };
	const char *vals[] = { s->rig, s->suite, s->metric, s->submitter };
	size_t i, shown = 0;

	sb_addf(sb, "<tr id=\"sub-%lld\"><td class=\"num\">%lld</td>",
		(long long)s->id, (long long)s->id);
	cell(sb, s->channel);
	cell(sb, *s->target ? s->target : "-");
	sb_adds(sb, "<td>");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!*vals[i])
			continue;
		sb_addf(sb, "%s%s=", shown++ ? " " : "", names[i]);
		sb_add_html(sb, vals[i]);
	}
	sb_adds(sb, shown ? "</td>" : "any</td>");
	cell(sb, *s->events ? s->events : "all");
	cell(sb, s->owner);
	sb_addf(sb, "<td><a href=\"/alerts.atom?subscription=%lld\">feed</a> ",
		(long long)s->id);
	if (csrf) {
		sub_button(sb, s, csrf, "test");
		sub_button(sb, s, csrf, "delete");
	}
	sb_adds(sb, "</td></tr>\n");
}

static void sub_form(struct strbuf *sb, const char *csrf)
{
	static const char *const kinds[] = { "worse_found",
		"submission_finished", "change_point", "rig_offline",
		"build_failed" };
	size_t i;

	sb_adds(sb, "<h2>Subscribe</h2>\n<form method=\"post\" action=\""
		"/subscriptions\" class=\"picker\"><input type=\"hidden\" "
		"name=\"csrf\" value=\"");
	sb_add_html(sb, csrf);
	sb_adds(sb, "\"><label>channel <select name=\"channel\"><option>email"
		"</option><option>webhook</option><option>feed</option>"
		"</select></label> <label>address or URL "
		"<input name=\"target\" size=\"40\" maxlength=\"2048\">"
		"</label> <label>webhook secret "
		"<input name=\"secret\" maxlength=\"256\" autocomplete=\"off\">"
		"</label><br><label>rig <input name=\"rig\" size=\"10\">"
		"</label> <label>suite <input name=\"suite\" size=\"12\">"
		"</label> <label>metric glob "
		"<input name=\"metric\" size=\"20\"></label> <label>"
		"submitter <input name=\"submitter\" size=\"10\"></label><br>"
		"events (none ticked: all):");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		sb_addf(sb, " <label><input type=\"checkbox\" name=\"event\" "
			"value=\"%s\"> %s</label>", kinds[i], kinds[i]);
	sb_adds(sb, " <button type=\"submit\">subscribe</button></form>\n");
}

static void say(struct strbuf *sb, const char *cls, const char *msg)
{
	if (!msg)
		return;
	sb_addf(sb, "<p class=\"%s\">", cls);
	sb_add_html(sb, msg);
	sb_adds(sb, "</p>\n");
}

int web_subscriptions(const struct web_subs_view *view,
		      struct web_response *r)
{
	struct strbuf *sb = &r->body;
	int status = r->status;
	size_t i;

	sb_reset(sb);
	page_begin(sb, "Subscriptions", "alerts");
	sb_adds(sb, "<h1>Subscriptions</h1>\n");
	say(sb, "error", view->error);
	say(sb, "notice", view->notice);
	if (!*view->who) {
		sb_adds(sb, "<p><a href=\"/login?next=/subscriptions\">Sign in"
			"</a> to see and manage your alert subscriptions."
			"</p>\n");
		page_end(sb);
		return page_ok(r, CT_HTML);
	}
	sb_adds(sb, "<p>");
	sb_adds(sb, view->all ? "Everyone's subscriptions (operator)." :
		"Your subscriptions, as ");
	if (!view->all)
		sb_add_html(sb, view->who);
	sb_adds(sb, view->all ? "" : ".");
	sb_adds(sb, "  Deliveries: <a href=\"/alerts\">/alerts</a>.</p>\n"
		"<table class=\"subscriptions\"><thead><tr><th>id</th>"
		"<th>channel</th><th>target</th><th>filter</th><th>events</th>"
		"<th>owner</th><th></th></tr></thead>\n<tbody>\n");
	for (i = 0; i < view->n; i++)
		sub_row(sb, &view->v[i], view->csrf);
	sb_adds(sb, "</tbody></table>\n");
	if (!view->n)
		sb_adds(sb, "<p>No subscriptions.</p>\n");
	if (view->csrf)
		sub_form(sb, view->csrf);
	page_end(sb);
	page_ok(r, CT_HTML);
	if (status > 200)
		r->status = status;
	return r->status;
}
