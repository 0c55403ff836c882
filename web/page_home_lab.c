// SPDX-License-Identifier: MIT
/*
 * The home page's view of what the lab is doing (page_home.h): what each
 * rig runs now and how many jobs wait for it (the full view is /queue),
 * those queued for a pool of rigs counted on the pool's own row, the
 * submissions running and those that ended today (/submissions), the
 * last tested head of each tracked line (/api/tracks) and the change
 * points of the last days (/history of each metric).
 */
#include <string.h>

#include "db/changepoints.h"
#include "db/submissions.h"
#include "db/track.h"
#include "page.h"
#include "page_home.h"

void home_cannot(struct strbuf *sb, const char *what)
{
	sb_adds(sb, "<p class=\"err\">cannot read ");
	sb_add_html(sb, what);
	sb_adds(sb, "</p>\n");
}

/* The jobs of v[0..n) handed to rig, "idle" when none. */
static void rig_now(struct strbuf *sb, const struct db_queue_job *v,
		    size_t n, const char *rig, int64_t now)
{
	size_t k, shown = 0;

	for (k = 0; k < n; k++) {
		if (strcmp(v[k].rig, rig))
			continue;
		sb_addf(sb, "%s<a href=\"/api/jobs/%lld\">job %lld</a>: ",
			shown++ ? "<br>" : "", (long long)v[k].id,
			(long long)v[k].id);
		page_link(sb, "/kernels/", v[k].kernel, v[k].kernel);
		sb_adds(sb, ", ");
		sb_add_html(sb, v[k].suite);
		sb_adds(sb, ", ");
		sb_add_html(sb, v[k].state);
		sb_addf(sb, " for %lld s", (long long)(v[k].started ?
						      now - v[k].started : 0));
		if (v[k].submission)
			sb_addf(sb, " (<a href=\"/submissions/%lld\">"
				"submission %lld</a>)",
				(long long)v[k].submission,
				(long long)v[k].submission);
	}
	if (!shown)
		sb_adds(sb, "idle");
}

static size_t rig_waiting(const struct db_queue_job *v, size_t n,
			  const char *rig)
{
	size_t k, count = 0;

	for (k = 0; k < n; k++)
		count += !strcmp(v[k].rig, rig);
	return count;
}

/* Rig i's pool (page_rig_pool) when it is the first rig of it in
 * g[0..i], else NULL. */
static const char *pool_first(const struct db_rig *g, size_t i)
{
	const char *c = page_rig_pool(&g[i]);
	size_t k;

	for (k = 0; c && k < i; k++)
		if (!strcmp(g[k].klass, c))
			return NULL;
	return c;
}

/* A pool's row: its rigs, the jobs queued for it (any of its rigs takes
 * them: none is its "now"). */
static void pool_row(struct strbuf *sb, const struct db_rig *g, size_t n,
		     const char *pool, const struct db_queue_job *wait,
		     size_t nwait)
{
	size_t k, shown = 0;

	sb_adds(sb, "<tr class=\"pool\"><td>");
	page_link(sb, "/queue?rig=", pool, pool);
	sb_adds(sb, "</td><td class=\"state\">class of ");
	for (k = 0; k < n; k++) {
		if (strcmp(g[k].klass, pool))
			continue;
		sb_adds(sb, shown++ ? ", " : "");
		sb_add_html(sb, g[k].name);
	}
	sb_addf(sb, "</td><td class=\"now\">-</td><td class=\"num\">%zu"
		"</td></tr>\n", rig_waiting(wait, nwait, pool));
}

void home_rigs(struct strbuf *sb, struct db *db, int64_t now)
{
	struct db_queue_job *run = NULL, *wait = NULL;
	size_t ng = 0, nrun = 0, nwait = 0, i;
	struct db_rig *g = NULL;

	sb_adds(sb, "<section id=\"rigs\"><h2><a href=\"/queue\">Rigs now"
		"</a></h2>\n");
	if (db_rig_list(db, &g, &ng) || db_queue_jobs(db, NULL, 1, &run,
						       &nrun) ||
	    db_queue_jobs(db, NULL, 0, &wait, &nwait)) {
		home_cannot(sb, "the rigs and the queue");
		goto out;
	}
	sb_addf(sb, "<p id=\"queue-length\">%zu job%s wait%s in the queue "
		"&middot; <a href=\"/queue\">queue</a> &middot; <a href=\""
		"/rigs\">rigs</a></p>\n", nwait, nwait == 1 ? "" : "s",
		nwait == 1 ? "s" : "");
	if (!ng) {
		sb_adds(sb, "<p>No rigs registered.</p>\n");
		goto out;
	}
	sb_adds(sb, "<table class=\"rigs-now\"><thead><tr><th>rig</th>"
		"<th>state</th><th>now</th><th>waiting</th></tr></thead>\n"
		"<tbody>\n");
	for (i = 0; i < ng; i++) {
		if (pool_first(g, i))
			pool_row(sb, g, ng, g[i].klass, wait, nwait);
		sb_adds(sb, "<tr class=\"rig\"><td>");
		page_link(sb, "/runs?rig=", g[i].name, g[i].name);
		sb_adds(sb, "</td><td class=\"state\">");
		sb_add_html(sb, g[i].state);
		sb_adds(sb, "</td><td class=\"now\">");
		rig_now(sb, run, nrun, g[i].name, now);
		sb_addf(sb, "</td><td class=\"num\">%zu</td></tr>\n",
			rig_waiting(wait, nwait, g[i].name));
	}
	sb_adds(sb, "</tbody></table>\n");
out:
	sb_adds(sb, "</section>\n");
	db_rigs_free(g, ng);
	db_queue_jobs_free(run, nrun);
	db_queue_jobs_free(wait, nwait);
}

static void sub_rows(struct strbuf *sb, const struct db_submission *v,
		     size_t n, int ended)
{
	char when[40];
	size_t i;

	for (i = 0; i < n && i < HOME_ROWS; i++) {
		const struct db_submission *s = &v[i];

		page_time(when, sizeof(when), ended ? s->finished :
			  s->created);
		sb_addf(sb, "<tr class=\"%s\"><td class=\"num\"><a href=\""
			"/submissions/%lld\">%lld</a></td><td>%s</td><td>",
			ended ? "ended" : "running", (long long)s->id,
			(long long)s->id, when);
		sb_add_html(sb, s->who);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, s->base);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, s->state);
		if (!ended) {
			sb_adds(sb, ": ");
			sb_add_html(sb, s->stage);
		}
		sb_addf(sb, "</td><td class=\"%s\">", page_verdict_class(
			s->verdict));
		sb_add_html(sb, *s->verdict ? s->verdict : "-");
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, s->note);
		sb_adds(sb, "</td></tr>\n");
	}
	if (n > HOME_ROWS)
		sb_addf(sb, "<tr><td colspan=\"7\"><a href=\"/submissions\">"
			"and %zu more</a></td></tr>\n", n - HOME_ROWS);
}

void home_submissions(struct strbuf *sb, struct db *db, int64_t now)
{
	struct db_submission *run = NULL, *end = NULL;
	size_t nrun = 0, nend = 0;

	sb_adds(sb, "<section id=\"submissions\"><h2><a href=\"/submissions"
		"\">Submissions today</a></h2>\n");
	if (db_submission_list(db, 1, 0, &run, &nrun) ||
	    db_submission_ended(db, now - now % 86400, 0, &end, &nend)) {
		home_cannot(sb, "the submissions");
		goto out;
	}
	sb_addf(sb, "<p id=\"submission-counts\">%zu running, %zu ended today "
		"(UTC) &middot; <a href=\"/submit\">submit a patch series</a>"
		"</p>\n", nrun, nend);
	if (!nrun && !nend)
		goto out;
	sb_adds(sb, "<table class=\"submissions\"><thead><tr><th>id</th>"
		"<th>since / ended (UTC)</th><th>submitter</th><th>base</th>"
		"<th>state</th><th>verdict</th><th>note</th></tr></thead>\n"
		"<tbody>\n");
	sub_rows(sb, run, nrun, 0);
	sub_rows(sb, end, nend, 1);
	sb_adds(sb, "</tbody></table>\n");
out:
	sb_adds(sb, "</section>\n");
	db_submissions_free(run, nrun);
	db_submissions_free(end, nend);
}

static void track_row(struct strbuf *sb, const struct db_track *t)
{
	char when[40];

	page_time(when, sizeof(when), t->last_check);
	sb_addf(sb, "<tr class=\"track\"><td><a href=\"/api/tracks/%lld\">",
		(long long)t->id);
	sb_add_html(sb, t->distro);
	sb_adds(sb, "/");
	sb_add_html(sb, t->line);
	sb_adds(sb, "</a></td><td class=\"head\">");
	if (*t->last_kernel)
		page_link(sb, "/kernels/", t->last_kernel, t->last_kernel);
	if (*t->last_package && strcmp(t->last_package, t->last_kernel)) {
		sb_adds(sb, *t->last_kernel ? " <span class=\"note\">" :
			"<span>");
		sb_add_html(sb, t->last_package);
		sb_adds(sb, "</span>");
	}
	if (!*t->last_kernel && !*t->last_package)
		sb_adds(sb, "none yet");
	sb_adds(sb, "</td><td>");
	sb_add_html(sb, t->rigs);
	sb_adds(sb, "</td><td>");
	sb_add_html(sb, t->suite);
	sb_addf(sb, "</td><td>%s</td><td class=\"err\">", when);
	sb_add_html(sb, t->last_error);
	sb_adds(sb, "</td></tr>\n");
}

void home_tracks(struct strbuf *sb, struct db *db)
{
	struct db_track *v = NULL;
	size_t n = 0, i;

	sb_adds(sb, "<section id=\"tracks\"><h2><a href=\"/api/tracks\">"
		"Tracked lines</a></h2>\n");
	if (db_track_list(db, &v, &n)) {
		home_cannot(sb, "the tracked lines");
		goto out;
	}
	if (!n) {
		sb_adds(sb, "<p>No line is tracked: <code>klab track</code> "
			"watches one.</p>\n");
		goto out;
	}
	sb_adds(sb, "<table class=\"tracks\"><thead><tr><th>line</th>"
		"<th>last tested head</th><th>rigs</th><th>suite</th>"
		"<th>checked (UTC)</th><th>last error</th></tr></thead>\n"
		"<tbody>\n");
	for (i = 0; i < n && i < HOME_ROWS; i++)
		track_row(sb, &v[i]);
	if (n > HOME_ROWS)
		sb_addf(sb, "<tr><td colspan=\"6\"><a href=\"/api/tracks\">"
			"and %zu more</a></td></tr>\n", n - HOME_ROWS);
	sb_adds(sb, "</tbody></table>\n");
out:
	sb_adds(sb, "</section>\n");
	db_tracks_free(v, n);
}

static void cp_row(struct strbuf *sb, const struct db_changepoint *c)
{
	char when[40];

	page_time(when, sizeof(when), c->first_seen);
	sb_addf(sb, "<tr class=\"changepoint\"><td>%s</td><td>", when);
	sb_add_html(sb, c->rig);
	sb_adds(sb, "</td><td>");
	sb_add_html(sb, c->suite);
	sb_adds(sb, "</td><td><a href=\"/history?metric=");
	sb_add_urlenc(sb, c->metric);
	sb_adds(sb, "&amp;rig=");
	sb_add_urlenc(sb, c->rig);
	sb_adds(sb, "&amp;suite=");
	sb_add_urlenc(sb, c->suite);
	sb_adds(sb, "\">");
	sb_add_html(sb, c->metric);
	sb_adds(sb, "</a></td><td><a href=\"/compare?k=");
	sb_add_urlenc(sb, c->kernel_before);
	sb_adds(sb, "&amp;k=");
	sb_add_urlenc(sb, c->kernel_after);
	sb_adds(sb, "&amp;base=");
	sb_add_urlenc(sb, c->kernel_before);
	sb_adds(sb, "\">");
	sb_add_html(sb, c->kernel_before);
	sb_adds(sb, " &rarr; ");
	sb_add_html(sb, c->kernel_after);
	sb_addf(sb, "</a></td><td class=\"num\">%+.1f%%</td></tr>\n",
		c->size_pct);
}

void home_changepoints(struct strbuf *sb, struct db *db, int64_t now)
{
	struct db_changepoint *v = NULL;
	size_t n = 0, i;

	sb_addf(sb, "<section id=\"changepoints\"><h2><a href=\"/history\">"
		"Change points, last %d days</a></h2>\n", HOME_CP_DAYS);
	if (db_changepoint_recent(db, now - HOME_CP_DAYS * 86400, 0, &v,
				  &n)) {
		home_cannot(sb, "the change points");
		goto out;
	}
	if (!n) {
		sb_addf(sb, "<p>No change point in the last %d days.</p>\n",
			HOME_CP_DAYS);
		goto out;
	}
	sb_addf(sb, "<p>%zu change point%s, newest first; each metric's "
		"history has its own.</p>\n<table class=\"changepoints\">"
		"<thead><tr><th>seen (UTC)</th><th>rig</th><th>suite</th>"
		"<th>metric</th><th>change</th><th>size</th></tr></thead>\n"
		"<tbody>\n", n, n == 1 ? "" : "s");
	for (i = 0; i < n && i < HOME_ROWS; i++)
		cp_row(sb, &v[i]);
	if (n > HOME_ROWS)
		sb_addf(sb, "<tr><td colspan=\"6\"><a href=\"/history\">"
			"and %zu more</a></td></tr>\n", n - HOME_ROWS);
	sb_adds(sb, "</tbody></table>\n");
out:
	sb_adds(sb, "</section>\n");
	db_changepoints_free(v, n);
}
