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
#include "page_alerts.h"

#define CT_ATOM "application/atom+xml; charset=utf-8"
#define FEED_MAX 50
#define NOTICES_MAX 20

json_t *page_alert_json(const struct db_alert_event *e)
{
	json_t *o = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
			      "s:o, s:I}", "id", (json_int_t)e->id, "kind",
			      page_jstr(e->kind), "rig", page_jstr(e->rig),
			      "suite", page_jstr(e->suite), "metric",
			      page_jstr(e->metric), "submitter",
			      page_jstr(e->submitter), "title",
			      page_jstr(e->title), "text", page_jstr(e->text),
			      "link", page_jstr(e->link), "dedup",
			      page_jstr(e->dedup), "created",
			      (json_int_t)e->created);
	json_t *t = json_pack("{s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:I, "
			      "s:I, s:I}", "line", page_jstr(e->line),
			      "kernel_before", page_jstr(e->kernel_before),
			      "kernel_after", page_jstr(e->kernel_after),
			      "group", (json_int_t)e->group_id, "state",
			      page_jstr(e->state), "assignee",
			      page_jstr(e->assignee), "fixed_commit",
			      page_jstr(e->fixed_commit), "fixed_kernel",
			      page_jstr(e->fixed_kernel), "duplicate_of",
			      (json_int_t)e->duplicate_of, "about",
			      (json_int_t)e->about, "updated",
			      (json_int_t)e->updated);

	if (!o || !t || json_object_update(o, t))
		abort();	/* out of memory */
	json_decref(t);
	return o;
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
		json_array_append_new(events, page_alert_json(&ev[i]));
	for (i = 0; i < nd; i++) {
		json_array_append_new(deliveries, delivery_json(&dv[i]));
		pending += !strcmp(dv[i].state, "pending");
	}
	return page_json(r, json_pack("{s:o, s:o, s:I}", "events", events,
				      "deliveries", deliveries, "pending",
				      (json_int_t)pending));
}

void page_alert_cell(struct strbuf *sb, const char *s)
{
	sb_adds(sb, "<td>");
	sb_add_html(sb, s);
	sb_adds(sb, "</td>");
}

/* The events that are not alerts (db_alert_kind_notice): notices of
 * state changes and of finished submissions, tests. */
static void notices_table(struct strbuf *sb, const struct db_alert_event *v,
			  size_t n)
{
	char when[40];
	size_t i;

	sb_adds(sb, "<h2>Notices</h2>\n<p>Changes of state, finished "
		"submissions and test alerts, delivered as the alerts are."
		"</p>\n<table class=\"notices\">"
		"<thead><tr><th>id</th><th>time (UTC)</th><th>kind</th>"
		"<th>rig</th><th>metric</th><th>title</th></tr></thead>\n"
		"<tbody>\n");
	for (i = 0; i < n; i++) {
		page_time(when, sizeof(when), v[i].created);
		sb_addf(sb, "<tr id=\"event-%lld\"><td class=\"num\">%lld</td>"
			"<td>%s</td>", (long long)v[i].id, (long long)v[i].id,
			when);
		page_alert_cell(sb, v[i].kind);
		page_alert_cell(sb, v[i].rig);
		page_alert_cell(sb, v[i].metric);
		sb_adds(sb, "<td>");
		page_alert_title(sb, &v[i]);
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</tbody></table>\n");
	if (!n)
		sb_adds(sb, "<p>No notices yet.</p>\n");
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
		page_alert_cell(sb, v[i].channel);
		page_alert_cell(sb, v[i].state);
		sb_addf(sb, "<td class=\"num attempts\">%d</td><td>%s</td>"
			"<td>%s</td>", v[i].attempts, next, done);
		page_alert_cell(sb, v[i].last_error);
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</tbody></table>\n");
	if (!n)
		sb_adds(sb, "<p>No deliveries yet.</p>\n");
}

static const char *const states[] = {
	"open", "new", "acknowledged", "invalid", "fixed", "duplicate",
	"closed",
};

/* The filter form of /alerts, holding f's values. */
static void filter_form(struct strbuf *sb, const struct db_alert_filter *f)
{
	static const char *const keys[] = { "line", "metric", "rig" };
	const char *vals[] = { f->line, f->metric, f->rig };
	size_t i;

	sb_adds(sb, "<form method=\"get\" action=\"/alerts\" "
		"class=\"picker\" id=\"filter\"><label>state <select "
		"name=\"state\">");
	page_option(sb, "", "any", !*f->state);
	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		page_option(sb, states[i], states[i], !strcmp(f->state,
							      states[i]));
	sb_adds(sb, "</select></label>");
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		sb_addf(sb, " <label>%s <input name=\"%s\" size=\"16\" "
			"value=\"", keys[i], keys[i]);
		sb_add_html(sb, vals[i]);
		sb_adds(sb, "\"></label>");
	}
	if (f->group)
		sb_addf(sb, "<input type=\"hidden\" name=\"group\" "
			"value=\"%lld\">", (long long)f->group);
	sb_adds(sb, " <button type=\"submit\">filter</button> <a href=\""
		"/alerts\">all</a></form>\n");
}

static void alerts_html(struct strbuf *sb, const struct db_alert_filter *f,
			const struct db_alert_event *ev, size_t ne,
			const struct db_alert_event *nv, size_t nn,
			const struct db_alert_delivery *dv, size_t nd)
{
	page_begin(sb, "Alerts", "alerts");
	sb_adds(sb, "<h1>Alerts</h1>\n<p>What the lab's bell rang for, one "
		"row per change (its alerts: several metrics, several suites), "
		"with its state: new, acknowledged, invalid, fixed, duplicate "
		"or closed (a fixed metric back to its level).  Open one to "
		"triage it.  Events are matched against the subscriptions "
		"(<code>klab subscriptions</code>) and delivered "
		"at least once; a failed delivery is retried with growing "
		"delays.  Subscribe at <a href=\"/subscriptions\">"
		"/subscriptions</a>.  Feed: <a href=\"/alerts.atom\">"
		"/alerts.atom</a> "
		"&middot; <a href=\"/api/alerts\">json</a></p>\n");
	filter_form(sb, f);
	page_alert_groups(sb, ev, ne);
	notices_table(sb, nv, nn);
	deliveries_table(sb, dv, nd);
	page_end(sb);
}

/* The filter of /alerts from q: 0, or -1 with a 400 in r. */
static int list_filter(struct query *q, struct db_alert_filter *f,
		       struct web_response *r)
{
	static const char *const keys[] = { "state", "line", "metric", "rig",
					    "suite", "kind" };
	const char **vals[] = { &f->state, &f->line, &f->metric, &f->rig,
				&f->suite, &f->kind };
	char msg[300];
	long group, alerts;
	size_t i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		*vals[i] = query_get(q, keys[i]);
		if (!*vals[i])
			*vals[i] = "";
		if (strlen(*vals[i]) <= 256)
			continue;
		snprintf(msg, sizeof(msg), "parameter '%s': at most 256 bytes",
			 keys[i]);
		return web_error_page(r, q, 400, msg);
	}
	for (i = 0; *f->state && i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(f->state, states[i]))
			break;
	if (i == sizeof(states) / sizeof(states[0]) &&
	    strcmp(f->state, "any")) {
		snprintf(msg, sizeof(msg), "parameter 'state': expected any, "
			 "open, new, acknowledged, invalid, fixed, duplicate "
			 "or closed, got '%.64s'", f->state);
		return web_error_page(r, q, 400, msg);
	}
	if (page_int_param(q, "group", 0, 1, 0x7fffffffL, &group, r) ||
	    page_int_param(q, "alerts", 0, 0, 1, &alerts, r))
		return r->status;
	f->group = group;
	/* a state filters alerts (a notice's state is its alert's) */
	f->alerts_only = *f->state || alerts;
	if (!strcmp(f->state, "any"))
		f->state = "";
	return 0;
}

int web_alerts(struct db *db, struct query *q, const char *format,
	       struct web_response *r)
{
	struct db_alert_event *ev = NULL, *nv = NULL;
	struct db_alert_delivery *dv = NULL;
	struct db_alert_filter f, nf;
	enum page_format pf = PF_JSON;
	size_t ne = 0, nn = 0, nd = 0;
	long limit;
	int rc;

	if (!format && page_format(q, PF_HTML | PF_JSON, &pf, r))
		return r->status;
	if (page_int_param(q, "limit", 100, 1, 10000, &limit, r) ||
	    list_filter(q, &f, r))
		return r->status;
	nf = f;
	rc = DB_OK;
	if (pf == PF_HTML) {	/* alerts, then the notices apart */
		f.alerts_only = 1;
		nf.alerts_only = -1;
		nf.state = "";
		rc = db_alert_event_list(db, &nf, NOTICES_MAX, &nv, &nn);
	}
	if (!rc)
		rc = db_alert_event_list(db, &f, (int)limit, &ev, &ne);
	if (!rc)
		rc = db_alert_delivery_list(db, (int)limit, &dv, &nd);
	if (rc) {
		db_alert_events_free(ev, ne);
		db_alert_events_free(nv, nn);
		return page_db_error(r, q, rc, "cannot list alerts");
	}
	sb_reset(&r->body);
	if (pf == PF_JSON)
		rc = alerts_json(r, ev, ne, dv, nd);
	else {
		alerts_html(&r->body, &f, ev, ne, nv, nn, dv, nd);
		rc = page_ok(r, CT_HTML);
	}
	db_alert_events_free(ev, ne);
	db_alert_events_free(nv, nn);
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
	page_alert_cell(sb, s->channel);
	page_alert_cell(sb, *s->target ? s->target : "-");
	sb_adds(sb, "<td>");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!*vals[i])
			continue;
		sb_addf(sb, "%s%s=", shown++ ? " " : "", names[i]);
		sb_add_html(sb, vals[i]);
	}
	sb_adds(sb, shown ? "</td>" : "any</td>");
	page_alert_cell(sb, *s->events ? s->events : "all");
	page_alert_cell(sb, s->owner);
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
		"build_failed", "alert_state" };
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
