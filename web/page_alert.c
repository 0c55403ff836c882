// SPDX-License-Identifier: MIT
/*
 * The triage on the pages: /alerts/ID (one alert: what it says, its
 * state, assignee and fix, the other alerts of its change, its log of
 * comments and changes, and for a signed-in caller the forms that change
 * its state, assign it and comment on it, posting the session's CSRF
 * token), and the table of /alerts, one row per group (the alerts of
 * one change: several metrics, several suites) with its state.
 */
#include <stdlib.h>
#include <string.h>

#include "page.h"
#include "page_alerts.h"

#define GROUP_MAX 1000

void page_alert_title(struct strbuf *sb, const struct db_alert_event *e)
{
	if (*e->link == '/') {	/* a path on klabd, kept as it is */
		sb_adds(sb, "<a href=\"");
		sb_add_html(sb, e->link);
		sb_adds(sb, "\">");
	}
	sb_add_html(sb, e->title);
	if (*e->link == '/')
		sb_adds(sb, "</a>");
}

/* ---- the table of /alerts: one row per group ----------------------- */

struct grow {
	int64_t gid, newest, id;
	size_t i;		/* in the caller's array */
};

static int by_group(const void *pa, const void *pb)
{
	const struct grow *a = pa, *b = pb;

	if (a->gid != b->gid)
		return a->gid < b->gid ? 1 : -1;
	return a->id < b->id ? 1 : a->id > b->id ? -1 : 0;
}

/* Groups by their newest alert, newest first; oldest first inside. */
static int by_newest(const void *pa, const void *pb)
{
	const struct grow *a = pa, *b = pb;

	if (a->newest != b->newest)
		return a->newest < b->newest ? 1 : -1;
	return a->id > b->id ? 1 : a->id < b->id ? -1 : 0;
}

size_t page_alert_group_order(const struct db_alert_event *v, size_t n,
			      size_t **order, size_t **starts)
{
	struct grow *g = calloc(n + 1, sizeof(*g));
	size_t i, j, ng = 0;

	*order = calloc(n + 1, sizeof(**order));
	*starts = calloc(n + 1, sizeof(**starts));
	if (!g || !*order || !*starts)
		abort();
	for (i = 0; i < n; i++) {
		g[i].gid = v[i].group_id ? v[i].group_id : v[i].id;
		g[i].id = v[i].id;
		g[i].i = i;
	}
	qsort(g, n, sizeof(*g), by_group);
	for (i = 0; i < n; i = j)	/* runs of one group: newest first */
		for (j = i; j < n && g[j].gid == g[i].gid; j++)
			g[j].newest = g[i].id;
	qsort(g, n, sizeof(*g), by_newest);
	for (i = 0; i < n; i++) {
		(*order)[i] = g[i].i;
		if (!i || g[i].gid != g[i - 1].gid)
			(*starts)[ng++] = i;
	}
	(*starts)[ng] = n;
	free(g);
	return ng;
}

/* The distinct values of the string field at off of the n alerts. */
static void add_distinct(struct strbuf *sb, const struct db_alert_event *v,
			 const size_t *ix, size_t n, size_t off)
{
	const char *s, *t;
	size_t k, j, shown = 0;

	sb_adds(sb, "<td>");
	for (k = 0; k < n; k++) {
		s = *(char *const *)((const char *)&v[ix[k]] + off);
		for (j = 0; j < k; j++) {
			t = *(char *const *)((const char *)&v[ix[j]] + off);
			if (!strcmp(s, t))
				break;
		}
		if (j < k || !*s)
			continue;
		sb_adds(sb, shown++ ? ", " : "");
		sb_add_html(sb, s);
	}
	sb_adds(sb, "</td>");
}

void page_alert_group_state(struct strbuf *sb, const struct db_alert_event *v,
			    const size_t *ix, size_t n)
{
	static const char *const st[] = { "new", "acknowledged", "invalid",
		"fixed", "duplicate", "closed" };
	size_t k, j, count, shown = 0;

	for (k = 1; k < n && !strcmp(v[ix[k]].state, v[ix[0]].state); k++)
		;
	if (k == n) {
		sb_add_html(sb, v[ix[0]].state);
		return;
	}
	sb_adds(sb, "mixed:");
	for (j = 0; j < sizeof(st) / sizeof(st[0]); j++) {
		for (count = 0, k = 0; k < n; k++)
			count += !strcmp(v[ix[k]].state, st[j]);
		if (count)
			sb_addf(sb, "%s %zu %s", shown++ ? "," : "", count,
				st[j]);
	}
}

void page_alert_group_metrics(struct strbuf *sb,
			      const struct db_alert_event *v,
			      const size_t *ix, size_t n)
{
	const struct db_alert_event *a;
	size_t k;

	for (k = 0; k < n; k++) {
		a = &v[ix[k]];
		sb_addf(sb, "%s<a id=\"event-%lld\" href=\"/alerts/%lld\">",
			k ? ", " : "", (long long)a->id, (long long)a->id);
		if (*a->metric)
			sb_add_html(sb, a->metric);
		else
			sb_addf(sb, "alert %lld", (long long)a->id);
		sb_adds(sb, "</a>");
	}
}

/* One row: the group's n alerts v[ix[0..n)], its first alert first. */
static void group_row(struct strbuf *sb, const struct db_alert_event *v,
		      const size_t *ix, size_t n)
{
	const struct db_alert_event *a = &v[ix[0]];
	char when[40];

	page_time(when, sizeof(when), a->created);
	sb_addf(sb, "<tr id=\"group-%lld\"><td class=\"num\"><a href=\""
		"/alerts/%lld\">%lld</a></td><td>%s</td><td class=\"state\">",
		(long long)a->group_id, (long long)a->id, (long long)a->id,
		when);
	page_alert_group_state(sb, v, ix, n);
	sb_adds(sb, "</td>");
	add_distinct(sb, v, ix, n, offsetof(struct db_alert_event, kind));
	add_distinct(sb, v, ix, n, offsetof(struct db_alert_event, rig));
	add_distinct(sb, v, ix, n, offsetof(struct db_alert_event, line));
	add_distinct(sb, v, ix, n, offsetof(struct db_alert_event, suite));
	sb_adds(sb, "<td class=\"metrics\">");
	page_alert_group_metrics(sb, v, ix, n);
	sb_adds(sb, "</td>");
	add_distinct(sb, v, ix, n, offsetof(struct db_alert_event, assignee));
	sb_adds(sb, "<td>");
	page_alert_title(sb, a);
	sb_adds(sb, "</td></tr>\n");
}

void page_alert_groups(struct strbuf *sb, const struct db_alert_event *v,
		       size_t n)
{
	size_t *order, *starts, ng, k;

	ng = page_alert_group_order(v, n, &order, &starts);
	sb_adds(sb, "<h2>Alerts</h2>\n<table class=\"alerts\"><thead><tr>"
		"<th>alert</th><th>time (UTC)</th><th>state</th><th>kind</th>"
		"<th>rig</th><th>line</th><th>suite</th><th>metrics</th>"
		"<th>assignee</th><th>title</th></tr></thead>\n<tbody>\n");
	for (k = 0; k < ng; k++)
		group_row(sb, v, order + starts[k], starts[k + 1] - starts[k]);
	sb_adds(sb, "</tbody></table>\n");
	if (!n)
		sb_adds(sb, "<p>No alerts.</p>\n");
	free(order);
	free(starts);
}

/* ---- /alerts/ID ----------------------------------------------------- */

static json_t *log_json(const struct db_alert_log *l)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:I, s:I}", "id",
			 (json_int_t)l->id, "who", page_jstr(l->who), "action",
			 page_jstr(l->action), "state", page_jstr(l->state),
			 "text", page_jstr(l->text), "notice",
			 (json_int_t)l->notice, "created",
			 (json_int_t)l->created);
}

static int alert_json(struct web_response *r, const struct db_alert_event *a,
		      const struct db_alert_event *gv, size_t gn,
		      const struct db_alert_log *lv, size_t ln)
{
	json_t *group = json_array(), *log = json_array();
	size_t i;

	for (i = 0; i < gn; i++)
		json_array_append_new(group, page_alert_json(&gv[i]));
	for (i = 0; i < ln; i++)
		json_array_append_new(log, log_json(&lv[i]));
	return page_json(r, json_pack("{s:o, s:o, s:o}", "alert",
				      page_alert_json(a), "group", group,
				      "log", log));
}

/* "State: <b id=state>fixed</b> (commit abc, kernel K)" and the rest;
 * a notice says whose state it tells instead. */
static void alert_summary(struct strbuf *sb, const struct db_alert_event *a,
			  int notice)
{
	char when[40];

	page_time(when, sizeof(when), a->created);
	sb_adds(sb, "<p>");
	sb_add_html(sb, a->kind);
	if (notice) {
		sb_addf(sb, ", raised %s UTC", when);
		if (a->about)
			sb_addf(sb, ": <a href=\"/alerts/%lld\">alert %lld</a> "
				"went to ", (long long)a->about,
				(long long)a->about);
		if (a->about)
			sb_add_html(sb, a->state);
		sb_adds(sb, ".</p>\n<p>");
		page_alert_title(sb, a);
		sb_adds(sb, "</p>\n<pre>");
		sb_add_html(sb, a->text);
		sb_adds(sb, "</pre>\n");
		return;
	}
	sb_addf(sb, ", raised %s UTC.  State: <b id=\"state\">", when);
	sb_add_html(sb, a->state);
	sb_adds(sb, "</b>");
	if (*a->fixed_commit) {
		sb_adds(sb, " by commit <code id=\"fixed-commit\">");
		sb_add_html(sb, a->fixed_commit);
		sb_adds(sb, "</code>");
	}
	if (*a->fixed_kernel) {
		sb_adds(sb, " by kernel <code id=\"fixed-kernel\">");
		sb_add_html(sb, a->fixed_kernel);
		sb_adds(sb, "</code>");
	}
	if (a->duplicate_of)
		sb_addf(sb, " of <a href=\"/alerts/%lld\">alert %lld</a>",
			(long long)a->duplicate_of, (long long)a->duplicate_of);
	sb_adds(sb, " &middot; assignee: <span id=\"assignee\">");
	sb_add_html(sb, *a->assignee ? a->assignee : "nobody");
	sb_adds(sb, "</span></p>\n<p>");
	page_alert_title(sb, a);
	sb_adds(sb, "</p>\n<pre>");
	sb_add_html(sb, a->text);
	sb_adds(sb, "</pre>\n");
}

/* The other alerts of a's group. */
static void alert_group(struct strbuf *sb, const struct db_alert_event *a,
			const struct db_alert_event *v, size_t n)
{
	size_t i;

	if (n < 2)
		return;
	sb_addf(sb, "<h2>Group %lld: %zu alerts of one change</h2>\n"
		"<table class=\"group\"><thead><tr><th>alert</th><th>state"
		"</th><th>suite</th><th>metric</th><th>title</th></tr>"
		"</thead>\n<tbody>\n", (long long)a->group_id, n);
	for (i = 0; i < n; i++) {
		sb_addf(sb, "<tr><td class=\"num\"><a href=\"/alerts/%lld\">"
			"%lld</a></td>", (long long)v[i].id,
			(long long)v[i].id);
		page_alert_cell(sb, v[i].state);
		page_alert_cell(sb, v[i].suite);
		page_alert_cell(sb, v[i].metric);
		page_alert_cell(sb, v[i].title);
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</tbody></table>\n");
}

static void alert_log(struct strbuf *sb, const struct db_alert_log *v,
		      size_t n)
{
	char when[40];
	size_t i;

	sb_adds(sb, "<h2>Log</h2>\n<table class=\"log\" id=\"log\"><thead><tr>"
		"<th>time (UTC)</th><th>who</th><th>what</th><th>text</th>"
		"</tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++) {
		page_time(when, sizeof(when), v[i].created);
		sb_addf(sb, "<tr><td>%s</td>", when);
		page_alert_cell(sb, v[i].who);
		sb_adds(sb, "<td>");
		if (!strcmp(v[i].action, "state")) {
			sb_adds(sb, "state: ");
			sb_add_html(sb, v[i].state);
		} else {
			sb_add_html(sb, v[i].action);
		}
		sb_adds(sb, "</td>");
		page_alert_cell(sb, v[i].text);
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</tbody></table>\n");
	if (!n)
		sb_adds(sb, "<p>Nothing yet.</p>\n");
}

/* <form method=post action=/alerts/ID/WHAT> with the CSRF field. */
static void form_open(struct strbuf *sb, const struct db_alert_event *a,
		      const char *what, const char *csrf)
{
	sb_addf(sb, "<form method=\"post\" action=\"/alerts/%lld/%s\" "
		"class=\"picker\" id=\"triage-%s\"><input type=\"hidden\" "
		"name=\"csrf\" value=\"", (long long)a->id, what, what);
	sb_add_html(sb, csrf);
	sb_adds(sb, "\">");
}

static void alert_forms(struct strbuf *sb, const struct db_alert_event *a,
			size_t group, const char *csrf)
{
	static const char *const st[] = { "acknowledged", "invalid", "fixed",
					  "duplicate", "new" };
	size_t i;

	sb_adds(sb, "<h2>Triage</h2>\n");
	form_open(sb, a, "state", csrf);
	sb_adds(sb, "<label>state <select name=\"state\" id=\"state-pick\">");
	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		page_option(sb, st[i], i + 1 < sizeof(st) / sizeof(st[0]) ?
			    st[i] : "new (reopen)", 0);
	sb_adds(sb, "</select></label> <label>fixed by commit <input "
		"name=\"commit\" id=\"commit\" size=\"14\" maxlength=\"64\">"
		"</label> <label>or kernel <input name=\"kernel\" "
		"id=\"kernel\" size=\"14\" maxlength=\"128\"></label> "
		"<label>duplicate of alert <input name=\"of\" id=\"of\" "
		"size=\"6\"></label><br><label>comment <textarea "
		"name=\"comment\" id=\"comment\" rows=\"2\" cols=\"60\" "
		"maxlength=\"4096\"></textarea></label>");
	if (group > 1)
		sb_addf(sb, " <label><input type=\"checkbox\" name=\"group\" "
			"id=\"whole-group\" value=\"1\" checked> the %zu "
			"alerts of its group</label>", group);
	sb_adds(sb, " <button type=\"submit\" id=\"state-go\">change state"
		"</button></form>\n<p>");
	form_open(sb, a, "assign", csrf);
	sb_adds(sb, "<label>assignee <input name=\"assignee\" size=\"14\" "
		"value=\"");
	sb_add_html(sb, a->assignee);
	sb_adds(sb, "\"></label> <button type=\"submit\">assign</button>"
		"</form></p>\n<p>");
	form_open(sb, a, "comment", csrf);
	sb_adds(sb, "<label>comment <textarea name=\"text\" rows=\"2\" "
		"cols=\"60\" maxlength=\"4096\"></textarea></label> <button "
		"type=\"submit\">comment</button></form></p>\n");
}

static void alert_html(struct strbuf *sb, const struct web_alert_view *view,
		       const struct db_alert_event *a,
		       const struct db_alert_event *gv, size_t gn,
		       const struct db_alert_log *lv, size_t ln)
{
	int notice = db_alert_kind_notice(a->kind);
	char title[48];

	snprintf(title, sizeof(title), "Alert %lld", (long long)a->id);
	page_begin(sb, title, "alerts");
	sb_addf(sb, "<h1>%s</h1>\n", title);
	if (view->error) {
		sb_adds(sb, "<p class=\"error\" id=\"error\">");
		sb_add_html(sb, view->error);
		sb_adds(sb, "</p>\n");
	}
	alert_summary(sb, a, notice);
	if (notice) {		/* no group, log or triage of its own */
		page_end(sb);
		return;
	}
	alert_group(sb, a, gv, gn);
	alert_log(sb, lv, ln);
	if (view->csrf)
		alert_forms(sb, a, gn, view->csrf);
	else
		sb_addf(sb, "<p><a href=\"/login?next=/alerts/%lld\">Sign in"
			"</a> to triage it.</p>\n", (long long)a->id);
	page_end(sb);
}

int web_alert(struct db *db, struct query *q,
	      const struct web_alert_view *view, const char *format,
	      struct web_response *r)
{
	struct db_alert_event a, *gv = NULL;
	struct db_alert_log *lv = NULL;
	struct db_alert_filter f;
	enum page_format pf = PF_JSON;
	size_t gn = 0, ln = 0;
	char msg[64];
	int rc;

	if (!format && page_format(q, PF_HTML | PF_JSON, &pf, r))
		return r->status;
	rc = db_alert_event_get(db, view->id, &a);
	if (rc == DB_NOTFOUND) {
		snprintf(msg, sizeof(msg), "unknown alert %lld",
			 (long long)view->id);
		return format ? web_error_json(r, 404, msg) :
			web_error_page(r, q, 404, msg);
	}
	memset(&f, 0, sizeof(f));
	f.group = a.group_id;
	f.alerts_only = 1;
	if (!rc && !db_alert_kind_notice(a.kind))
		rc = db_alert_event_list(db, &f, GROUP_MAX, &gv, &gn);
	if (!rc)
		rc = db_alert_log_list(db, a.id, &lv, &ln);
	if (rc) {
		rc = format ? web_error_json(r, 500, "cannot read the alert") :
			page_db_error(r, q, rc, "cannot read the alert");
	} else if (pf == PF_JSON) {
		rc = alert_json(r, &a, gv, gn, lv, ln);
	} else {
		sb_reset(&r->body);
		alert_html(&r->body, view, &a, gv, gn, lv, ln);
		rc = page_ok(r, CT_HTML);
	}
	db_alert_event_release(&a);
	db_alert_events_free(gv, gn);
	db_alert_logs_free(lv, ln);
	return rc;
}
