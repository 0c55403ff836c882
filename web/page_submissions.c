// SPDX-License-Identifier: MIT
/*
 * /submissions and /submissions/ID: patch submissions as they stand.
 * The status page names the submitter, base, patches (subjects), rigs
 * and suites, the job configuration of the cells when it is not the
 * default (scale, scheduler, kernel parameters), lists each stage with
 * its times and log, links the build logs and every cell's job (its
 * console and output), and shows the queue position while the
 * submission waits; it reloads itself every few seconds while it runs.
 * At the end it shows the verdict table of each rig x suite (the compare
 * page's tables) and the mail-ready text report (?format=text gives the
 * report alone).  The caller (the HTTP layer) loads and judges
 * everything: this file only renders it.
 */
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "judge/compare.h"
#include "page.h"
#include "page_submit.h"
#include "report.h"

#define REFRESH_S 3

/* The job configuration of every cell, unless the default (the page
 * looks as it did before submissions had one). */
static void html_config(struct strbuf *sb, const struct db_submission *s)
{
	char cfg[400];

	if (fmt_job_config_is_default(s->scale, s->scheduler, s->cmdline))
		return;
	fmt_job_config(cfg, sizeof(cfg), s->scale, s->scheduler, s->cmdline);
	sb_adds(sb, "<p id=\"config\">every cell: ");
	sb_add_html(sb, cfg);
	sb_adds(sb, "</p>\n");
}

static void html_head(struct strbuf *sb, const struct web_sub *w)
{
	const struct db_submission *s = w->s;
	size_t i;

	sb_addf(sb, "<h1>Submission %lld</h1>\n<p>By <b>", (long long)s->id);
	sb_add_html(sb, s->who);
	sb_adds(sb, "</b>, base <b>");
	sb_add_html(sb, s->base);
	sb_adds(sb, "</b>");
	page_summary_state(sb, "submitted", s->created, s->state);
	sb_adds(sb, " &middot; stage: <b id=\"stage\">");
	sb_add_html(sb, s->stage);
	sb_adds(sb, "</b>");
	page_summary_verdict(sb, "verdict", s->verdict,
			     *s->verdict ? s->verdict : "not yet");
	if (!strcmp(s->state, "running"))
		sb_addf(sb, " &middot; queue position %d (this page reloads "
			"every %d s)", w->ahead + 1, REFRESH_S);
	sb_adds(sb, "</p>\n");
	if (*s->error) {
		sb_adds(sb, "<p class=\"error\">");
		sb_add_html(sb, s->error);
		sb_adds(sb, "</p>\n");
	}
	if (*s->note) {
		sb_adds(sb, "<p>Note: ");
		sb_add_html(sb, s->note);
		sb_adds(sb, "</p>\n");
	}
	sb_addf(sb, "<h2>Patches</h2>\n<ol id=\"patches\">\n");
	for (i = 0; i < w->npatches; i++) {
		sb_adds(sb, "<li>");
		sb_add_html(sb, w->patches[i].subject);
		sb_adds(sb, " <span class=\"note\">");
		sb_add_html(sb, w->patches[i].name);
		sb_adds(sb, "</span></li>\n");
	}
	sb_adds(sb, "</ol>\n<p>Rigs: ");
	sb_add_html(sb, s->rigs);
	sb_adds(sb, " &middot; suites: ");
	sb_add_html(sb, s->suites);
	sb_addf(sb, " &middot; at most %d cells a side.</p>\n", s->max_cells);
	html_config(sb, s);
}

static void html_stages(struct strbuf *sb, const struct web_sub *w)
{
	char a[40], b[40];
	size_t i;

	sb_adds(sb, "<h2>Stages</h2>\n<table id=\"stages\"><tr><th>stage</th>"
		"<th>state</th><th>started</th><th>finished</th><th>log</th>"
		"</tr>\n");
	for (i = 0; i < w->nstages; i++) {
		const struct db_sub_stage *st = &w->stages[i];

		page_time(a, sizeof(a), st->started);
		page_time(b, sizeof(b), st->finished);
		sb_adds(sb, "<tr><td>");
		sb_add_html(sb, st->stage);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, st->state);
		sb_addf(sb, "</td><td>%s</td><td>%s</td><td><pre>", a, b);
		sb_add_html(sb, st->log);
		sb_adds(sb, "</pre></td></tr>\n");
	}
	sb_adds(sb, "</table>\n");
}

static void html_builds(struct strbuf *sb, const struct web_sub *w)
{
	int s;

	sb_adds(sb, "<p>Builds: ");
	for (s = 0; s < 2; s++) {
		const struct db_build *b = w->build[s];

		sb_addf(sb, "%s%s ", s ? " &middot; " : "", s ? "patched" :
			"base");
		if (!b) {
			sb_adds(sb, "not queued yet");
			continue;
		}
		sb_addf(sb, "<a href=\"/api/builds/%lld\">build %lld</a> ",
			(long long)b->id, (long long)b->id);
		sb_add_html(sb, b->state);
		if (*b->log)
			sb_addf(sb, " (<a href=\"/api/builds/%lld/log\">"
				"log</a>)", (long long)b->id);
	}
	sb_adds(sb, "</p>\n");
}

static void html_jobs(struct strbuf *sb, const struct web_sub *w,
		      const struct db_sub_cell *cell)
{
	size_t i, n = 0;

	for (i = 0; i < w->njobs; i++) {
		const struct db_queue_job *j = &w->jobs[i];

		/* a cell on a class of rigs: its jobs, on whichever rig */
		if ((strcmp(j->rig, cell->rig) && strcmp(j->pool, cell->rig)) ||
		    strcmp(j->suite, cell->suite))
			continue;
		sb_addf(sb, "%s<a href=\"/api/jobs/%lld\">job %lld</a> ",
			n++ ? ", " : "", (long long)j->id, (long long)j->id);
		sb_add_html(sb, j->kernel);
		sb_adds(sb, " ");
		sb_add_html(sb, j->state);
	}
	if (!n)
		sb_adds(sb, "no cells yet");
}

static void html_cells(struct strbuf *sb, const struct web_sub *w)
{
	size_t i;

	sb_adds(sb, "<h2>Cells</h2>\n<table id=\"cells\"><tr><th>rig</th>"
		"<th>suite</th><th>comparison</th><th>outcome</th><th>jobs "
		"(console, output)</th></tr>\n");
	for (i = 0; i < w->ncells; i++) {
		const struct web_sub_cell *c = &w->cells[i];

		sb_adds(sb, "<tr><td>");
		sb_add_html(sb, c->cell->rig);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, c->cell->suite);
		sb_addf(sb, "</td><td><a href=\"/comparisons/%lld\">%lld</a>"
			"</td><td class=\"%s\">",
			(long long)c->cell->comparison,
			(long long)c->cell->comparison,
			page_verdict_class(c->verdict));
		sb_add_html(sb, c->summary);
		sb_adds(sb, "</td><td>");
		html_jobs(sb, w, c->cell);
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</table>\n");
}

static void html_verdicts(struct strbuf *sb, const struct web_sub *w)
{
	size_t i;

	for (i = 0; i < w->ncells; i++) {
		const struct web_sub_cell *c = &w->cells[i];

		if (!c->cmp || !c->cmp->nk)
			continue;
		sb_adds(sb, "<h2>Verdict: rig ");
		sb_add_html(sb, c->cell->rig);
		sb_adds(sb, ", suite ");
		sb_add_html(sb, c->cell->suite);
		sb_adds(sb, "</h2>\n");
		page_compare_tables(sb, c->cmp);
	}
	if (*w->report) {
		sb_addf(sb, "<h2>Report</h2>\n<p><a href=\"/submissions/%lld?"
			"format=text\">plain text</a>, ready for mail</p>\n"
			"<pre id=\"report\">", (long long)w->s->id);
		sb_add_html(sb, w->report);
		sb_adds(sb, "</pre>\n");
	}
}

/* The "Bisect" button of a worse submission: its series on its base,
 * its first rig and suite, on the first metric found worse. */
static void html_bisect_form(struct strbuf *sb, const struct web_sub *w)
{
	const char *metric = "";
	size_t i, k;

	for (i = 0; i < w->ncells && !*metric; i++)
		for (k = 0; w->cells[i].cmp && k < w->cells[i].cmp->nm; k++)
			if (w->cells[i].cmp->nk == 2 &&
			    w->cells[i].cmp->m[k].cells[1].verdict == V_WORSE) {
				metric = w->cells[i].cmp->m[k].name;
				break;
			}
	sb_addf(sb, "<form id=\"bisect\" method=\"post\" action=\""
		"/submissions/%lld/bisect\"><input type=\"hidden\" "
		"name=\"csrf\" value=\"", (long long)w->s->id);
	sb_add_html(sb, w->csrf);
	sb_adds(sb, "\">which patch? metric <input name=\"metric\" value=\"");
	sb_add_html(sb, metric);
	sb_adds(sb, "\"> <button type=\"submit\">Bisect</button></form>\n");
}

int web_submission(const struct web_sub *w, struct query *q,
		   struct web_response *r)
{
	int running = !strcmp(w->s->state, "running");
	enum page_format f;
	char title[64];

	if (page_format(q, PF_HTML | PF_TEXT, &f, r))
		return r->status;
	if (f == PF_TEXT) {
		if (*w->report)
			sb_adds(&r->body, w->report);
		else
			sb_addf(&r->body,
				"klab submission %lld: %s, stage %s\n",
				(long long)w->s->id, w->s->state, w->s->stage);
		return page_ok(r, CT_TEXT);
	}
	snprintf(title, sizeof(title), "Submission %lld", (long long)w->s->id);
	page_begin_refresh(&r->body, title, "submissions", running ?
			   REFRESH_S : 0);
	html_head(&r->body, w);
	if (running && w->csrf) {
		sb_addf(&r->body, "<form method=\"post\" action=\"/submissions/"
			"%lld/cancel\"><input type=\"hidden\" name=\"csrf\" "
			"value=\"", (long long)w->s->id);
		sb_add_html(&r->body, w->csrf);
		sb_adds(&r->body, "\"><button type=\"submit\">cancel</button>"
			"</form>\n");
	}
	if (!strcmp(w->s->state, "finished") && !strcmp(w->s->verdict,
							  "worse") && w->csrf)
		html_bisect_form(&r->body, w);
	html_stages(&r->body, w);
	html_builds(&r->body, w);
	html_cells(&r->body, w);
	html_verdicts(&r->body, w);
	page_end(&r->body);
	return page_ok(r, CT_HTML);
}

int web_submissions(const struct db_submission *v, size_t n,
		    struct query *q, struct web_response *r)
{
	struct strbuf *sb = &r->body;
	enum page_format f;
	char when[40];
	size_t i;

	if (page_format(q, PF_HTML, &f, r))
		return r->status;
	page_begin(sb, "Submissions", "submissions");
	sb_adds(sb, "<h1>Submissions</h1>\n<p><a href=\"/submit\">Submit a "
		"patch</a> &middot; <a href=\"/queue\">the queue</a></p>\n"
		"<table id=\"submissions\"><tr><th>id</th><th>submitted</th>"
		"<th>submitter</th><th>base</th><th>state</th><th>stage</th>"
		"<th>verdict</th><th>note</th></tr>\n");
	for (i = 0; i < n; i++) {
		page_time(when, sizeof(when), v[i].created);
		sb_addf(sb, "<tr><td><a href=\"/submissions/%lld\">%lld"
			"</a></td><td>%s</td><td>", (long long)v[i].id,
			(long long)v[i].id, when);
		sb_add_html(sb, v[i].who);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].base);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].state);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].stage);
		sb_addf(sb, "</td><td class=\"%s\">", page_verdict_class(
			v[i].verdict));
		sb_add_html(sb, v[i].verdict);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].note);
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</table>\n");
	page_end(sb);
	return page_ok(r, CT_HTML);
}
