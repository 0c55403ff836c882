// SPDX-License-Identifier: MIT
/*
 * /: the lab at a glance, so that a person knows in five seconds whether
 * something needs them.  A status line on top ("2 open regressions need
 * triage", or "Nothing needs you"), then short sections, each linking to
 * its full page: the open regressions (alerts new or acknowledged, one
 * row per change as /alerts groups them, newest first) with the culprit
 * where a bisection of the change found one; what each rig does now and
 * the queue; the submissions running and ended today; each tracked
 * line's last tested head; the change points of the last days
 * (page_home_lab.c); then what the lab holds (counts), the newest
 * kernels and runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/alerts.h"
#include "db/bisections.h"
#include "page.h"
#include "page_alerts.h"
#include "page_home.h"

#define HOME_OPEN_MAX 1000	/* open alerts read to group */
#define HOME_KERNELS 10
#define HOME_RUNS 10

static void counts(struct strbuf *sb, struct db *db)
{
	static const struct {
		const char *what, *label, *href;
	} c[] = {
		{ "kernels", "kernels", "/kernels" },
		{ "rigs", "rigs", "/rigs" },
		{ "suites", "suites", NULL },
		{ "runs", "runs", "/runs" },
		{ "metrics", "metrics", "/history" },
		{ "results", "results", NULL },
	};
	size_t i;

	sb_adds(sb, "<p class=\"counts\">");
	for (i = 0; i < sizeof(c) / sizeof(*c); i++) {
		long long n = (long long)db_count(db, c[i].what);

		sb_adds(sb, i ? " &middot; " : "");
		if (n < 0) {
			sb_addf(sb, "? %s", c[i].label);
			continue;
		}
		if (c[i].href)
			sb_addf(sb, "<a href=\"%s\">%lld %s</a>", c[i].href, n,
				c[i].label);
		else
			sb_addf(sb, "%lld %s", n, c[i].label);
	}
	sb_adds(sb, "</p>\n");
}

static void recent_kernels(struct strbuf *sb, struct db *db)
{
	struct db_kernel *v = NULL;
	size_t n = 0, i;

	if (db_kernel_list(db, &v, &n))
		n = 0;
	sb_adds(sb, "<h2>Recent kernels</h2>\n");
	if (n >= 2) {
		sb_adds(sb, "<p><a href=\"/compare?k=");
		sb_add_urlenc(sb, v[1].ident);
		sb_adds(sb, "&amp;k=");
		sb_add_urlenc(sb, v[0].ident);
		sb_adds(sb, "&amp;base=");
		sb_add_urlenc(sb, v[1].ident);
		sb_adds(sb, "\">Compare ");
		sb_add_html(sb, v[0].ident);
		sb_adds(sb, " with ");
		sb_add_html(sb, v[1].ident);
		sb_adds(sb, "</a></p>\n");
	}
	if (!n)
		sb_adds(sb, "<p>No kernels yet: import results with "
			"<code>klab import FILE</code>.</p>\n");
	else
		sb_adds(sb, "<ul class=\"kernels\">");
	for (i = 0; i < n && i < HOME_KERNELS; i++) {
		sb_adds(sb, "<li>");
		page_link(sb, "/kernels/", v[i].ident, v[i].ident);
		sb_addf(sb, " (%lld run%s)</li>", (long long)v[i].nruns,
			v[i].nruns == 1 ? "" : "s");
	}
	if (n)
		sb_addf(sb, "</ul>\n%s", n > HOME_KERNELS ?
			"<p><a href=\"/kernels\">all kernels</a></p>\n" : "");
	db_kernels_free(v, n);
}

/* The culprit of the change of the group v[ix[0..n)]: the first bad
 * candidate of the bisection of the first of its alerts that has one
 * (db_bisection_of_change), "bisecting" while it runs, "none found" and
 * why when it ended without one; "-" when none is of this change. */
static void culprit(struct strbuf *sb, struct db *db,
		    const struct db_alert_event *v, const size_t *ix, size_t n)
{
	struct db_bisection b;
	struct db_bis_cand c;
	size_t k;
	int rc = DB_NOTFOUND;

	for (k = 0; k < n && rc == DB_NOTFOUND; k++)
		rc = db_bisection_of_change(db, v[ix[k]].link,
					    v[ix[k]].kernel_before,
					    v[ix[k]].kernel_after, &b, &c);
	if (rc) {
		sb_adds(sb, rc == DB_NOTFOUND ? "-" : "?");
		return;
	}
	sb_addf(sb, "<a href=\"/bisections/%lld\">", (long long)b.id);
	if (c.idx >= 0) {
		sb_add_html(sb, *c.label ? c.label : c.kernel);
		sb_adds(sb, "</a>");
		if (*c.author) {
			sb_adds(sb, " by ");
			sb_add_html(sb, c.author);
		}
	} else if (!strcmp(b.state, "running")) {
		sb_addf(sb, "bisecting (bisection %lld)</a>", (long long)b.id);
	} else {
		sb_adds(sb, "none found</a>: ");
		sb_add_html(sb, *b.outcome ? b.outcome : b.state);
	}
	db_bisection_release(&b);
	db_bis_cand_release(&c);
}

/* One row: the group v[ix[0..n)], its first alert first. */
static void regression_row(struct strbuf *sb, struct db *db,
			   const struct db_alert_event *v, const size_t *ix,
			   size_t n)
{
	const struct db_alert_event *a = &v[ix[0]];
	char when[40];

	page_time(when, sizeof(when), a->created);
	sb_addf(sb, "<tr class=\"regression\" id=\"regression-%lld\"><td>"
		"<a class=\"alert\" href=\"/alerts/%lld\">",
		(long long)(a->group_id ? a->group_id : a->id),
		(long long)a->id);
	sb_add_html(sb, *a->title ? a->title : a->kind);
	sb_addf(sb, "</a></td><td>%s</td><td class=\"state\">", when);
	page_alert_group_state(sb, v, ix, n);
	sb_adds(sb, "</td><td>");
	sb_add_html(sb, a->rig);
	if (*a->line) {
		sb_adds(sb, "<br>");
		sb_add_html(sb, a->line);
	}
	sb_adds(sb, "</td><td class=\"metrics\">");
	page_alert_group_metrics(sb, v, ix, n);
	sb_adds(sb, "</td><td class=\"culprit\">");
	culprit(sb, db, v, ix, n);
	sb_adds(sb, "</td></tr>\n");
}

/* The status line: how many open changes have an alert nobody has
 * looked at yet (state new), how many others are open (acknowledged);
 * capped: counted in the newest HOME_OPEN_MAX open alerts only. */
static void status_line(struct strbuf *sb, size_t need, size_t open,
			int capped)
{
	if (need) {
		sb_addf(sb, "<p id=\"status\" class=\"status need\"><a href=\""
			"/alerts?state=new\">%zu open regression%s need%s "
			"triage</a>", need, need == 1 ? "" : "s",
			need == 1 ? "s" : "");
	} else {
		sb_adds(sb, "<p id=\"status\" class=\"status calm\">Nothing "
			"needs you");
	}
	if (open > need)
		sb_addf(sb, " &middot; <a href=\"/alerts?state=acknowledged\">"
			"%zu acknowledged</a>", open - need);
	if (capped)
		sb_addf(sb, " (in the newest %d open alerts)", HOME_OPEN_MAX);
	sb_adds(sb, "</p>\n");
}

/* The status line and the open regressions, one row per change. */
static void regressions(struct strbuf *sb, struct db *db)
{
	struct db_alert_filter f = { .state = "open", .alerts_only = 1 };
	struct db_alert_event *v = NULL;
	size_t n = 0, ng = 0, need = 0, *order = NULL, *starts = NULL, k, i;

	if (db_alert_event_list(db, &f, HOME_OPEN_MAX, &v, &n)) {
		sb_adds(sb, "<p id=\"status\" class=\"status need\">The alerts "
			"cannot be read: see <a href=\"/alerts\">/alerts</a>"
			"</p>\n");
		return;
	}
	ng = page_alert_group_order(v, n, &order, &starts);
	for (k = 0; k < ng; k++)
		for (i = starts[k]; i < starts[k + 1]; i++)
			if (!strcmp(v[order[i]].state, "new")) {
				need++;
				break;
			}
	status_line(sb, need, ng, n >= HOME_OPEN_MAX);
	sb_adds(sb, "<section id=\"regressions\"><h2><a href=\"/alerts?state="
		"open\">Open regressions</a></h2>\n");
	if (!ng)
		sb_adds(sb, "<p>No open alert.</p>\n");
	else
		sb_adds(sb, "<table class=\"regressions\"><thead><tr><th>"
			"alert</th><th>raised (UTC)</th><th>state</th><th>"
			"rig, line</th><th>metrics</th><th>culprit</th></tr>"
			"</thead>\n<tbody>\n");
	for (k = 0; k < ng && k < HOME_ROWS; k++)
		regression_row(sb, db, v, order + starts[k],
			       starts[k + 1] - starts[k]);
	if (ng > HOME_ROWS)
		sb_addf(sb, "<tr><td colspan=\"6\"><a href=\"/alerts?state="
			"open\">and %zu more</a></td></tr>\n", ng - HOME_ROWS);
	if (ng)
		sb_adds(sb, "</tbody></table>\n");
	sb_adds(sb, "</section>\n");
	free(order);
	free(starts);
	db_alert_events_free(v, n);
}

int web_home(struct db *db, struct query *q, const char *arg,
	     struct web_response *r)
{
	int64_t now = (int64_t)time(NULL);
	struct db_run *runs = NULL;
	size_t nr = 0;

	sb_reset(&r->body);
	page_begin(&r->body, "Home", "home");
	sb_adds(&r->body, "<h1>klab: kernel I/O regression lab</h1>\n");
	regressions(&r->body, db);
	home_rigs(&r->body, db, now);
	home_submissions(&r->body, db, now);
	home_tracks(&r->body, db);
	home_changepoints(&r->body, db, now);
	sb_adds(&r->body, "<h2>What the lab holds</h2>\n");
	counts(&r->body, db);
	recent_kernels(&r->body, db);
	sb_adds(&r->body, "<section id=\"runs\"><h2><a href=\"/runs\">Recent "
		"runs</a></h2>\n");
	if (db_run_list(db, NULL, NULL, NULL, HOME_RUNS, &runs, &nr)) {
		home_cannot(&r->body, "the runs");
		nr = 0;
	} else {
		page_runs_table(&r->body, runs, nr);
	}
	sb_adds(&r->body, "<p><a href=\"/runs\">all runs</a> &middot; "
		"<a href=\"/compare\">compare kernels</a> &middot; "
		"<a href=\"/history\">history of a metric</a></p>\n"
		"</section>\n");
	page_end(&r->body);
	db_runs_free(runs, nr);
	return page_ok(r, CT_HTML);
}
