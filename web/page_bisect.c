// SPDX-License-Identifier: MIT
/*
 * /bisections and /bisections/ID: bisections as they stand (see
 * page_bisect.h).  The status page shows the request with its job
 * configuration (scale, scheduler, kernel parameters), the range still
 * open with the steps left (an estimate: log2 of the untested candidates
 * in the range, plus the confirmation), every step (purpose, candidate,
 * kernel, cells, delta with its confidence interval, mark or the reason
 * for a skip), the candidates, and at the end the mail-ready report.
 */
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "page.h"
#include "page_bisect.h"
#include "page_submit.h"

#define REFRESH_S 3

static void bis_steps_table(struct strbuf *sb, const struct web_bisect *w)
{
	size_t i;

	sb_adds(sb, "<h2>Steps</h2>\n<table id=\"steps\"><tr><th>#</th>"
		"<th>purpose</th><th>candidate</th><th>kernel</th><th>cells"
		"</th><th>delta (CI)</th><th>mark</th><th>reason</th></tr>\n");
	for (i = 0; i < w->nsteps; i++) {
		const struct db_bis_step *s = &w->steps[i];

		sb_addf(sb, "<tr class=\"%s\"><td>%zu</td><td>", *s->mark ?
			s->mark : "open", i + 1);
		sb_add_html(sb, s->purpose);
		sb_adds(sb, "</td><td>");
		if (s->idx >= 0 && (size_t)s->idx < w->ncands)
			sb_add_html(sb, w->cands[s->idx].label);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, s->kernel);
		if (s->comparison)
			sb_addf(sb, " (<a href=\"/comparisons/%lld\">"
				"comparison %lld</a>)",
				(long long)s->comparison,
				(long long)s->comparison);
		sb_addf(sb, "</td><td>%d</td><td>", s->cells);
		sb_add_html(sb, s->delta);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, *s->mark ? s->mark : "running");
		sb_adds(sb, "</td><td>");
		if (!strcmp(s->mark, "skip"))
			sb_add_html(sb, s->reason);
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</table>\n");
}

static void bis_cands_table(struct strbuf *sb, const struct web_bisect *w)
{
	size_t i;

	sb_adds(sb, "<h2>Candidates</h2>\n<table id=\"candidates\"><tr>"
		"<th>index</th><th>candidate</th><th>author</th><th>kernel"
		"</th></tr>\n");
	for (i = 0; i < w->ncands; i++) {
		const struct db_bis_cand *c = &w->cands[i];
		int open = strcmp(w->b->kind, "git") ? i > w->good &&
			   i <= w->bad : i == w->good || i == w->bad;

		sb_addf(sb, "<tr%s><td>%d</td><td>", open ?
			" class=\"open\"" : "", c->idx);
		sb_add_html(sb, c->label);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, c->author);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, c->kernel);
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</table>\n");
}

int web_bisection(const struct web_bisect *w, struct query *q,
		  struct web_response *r)
{
	struct strbuf *sb = &r->body;
	const struct db_bisection *b = w->b;
	int running = !strcmp(b->state, "running");
	char title[64], cfg[400];

	sb_reset(sb);
	snprintf(title, sizeof(title), "Bisection %lld", (long long)b->id);
	page_begin_refresh(sb, title, "bisections", running ? REFRESH_S : 0);
	sb_addf(sb, "<h1>Bisection %lld: ", (long long)b->id);
	sb_add_html(sb, *b->outcome ? b->outcome : b->state);
	sb_adds(sb, "</h1>\n<p>");
	sb_add_html(sb, b->kind);
	sb_adds(sb, " ");
	if (!strcmp(b->kind, "git") && w->ncands >= 2) {
		sb_add_html(sb, b->base);
		sb_adds(sb, ": ");
		sb_add_html(sb, w->cands[0].label);
		sb_adds(sb, " (good) .. ");
		sb_add_html(sb, w->cands[1].label);
	} else {
		sb_add_html(sb, b->good);
		sb_adds(sb, " (good) .. ");
		sb_add_html(sb, b->bad);
	}
	sb_adds(sb, " (bad) on rig ");
	sb_add_html(sb, b->rig);
	sb_adds(sb, ", suite ");
	sb_add_html(sb, b->suite);
	sb_adds(sb, ", metrics ");
	sb_add_html(sb, b->metrics);
	sb_adds(sb, " by ");
	sb_add_html(sb, b->who);
	fmt_job_config(cfg, sizeof(cfg), b->scale, b->scheduler, b->cmdline);
	sb_adds(sb, "</p>\n<p id=\"config\">every cell: ");
	sb_add_html(sb, cfg);
	sb_adds(sb, "</p>\n");
	if (running && w->ncands > w->bad) {
		sb_addf(sb, "<p id=\"range\">phase %s; remaining range: ",
			b->phase);
		sb_add_html(sb, w->cands[w->good].label);
		sb_adds(sb, " (good) .. ");
		sb_add_html(sb, w->cands[w->bad].label);
		sb_addf(sb, " (bad); about %zu steps left</p>\n",
			w->steps_left);
	}
	if (*b->error) {
		sb_adds(sb, "<p class=\"error\">");
		sb_add_html(sb, b->error);
		sb_adds(sb, "</p>\n");
	}
	bis_steps_table(sb, w);
	bis_cands_table(sb, w);
	if (*b->report) {
		sb_adds(sb, "<h2>Report</h2>\n<pre id=\"report\">");
		sb_add_html(sb, b->report);
		sb_adds(sb, "</pre>\n");
	}
	page_end(sb);
	(void)q;
	return page_ok(r, CT_HTML);
}

int web_bisections(const struct db_bisection *v, size_t n, struct query *q,
		   struct web_response *r)
{
	struct strbuf *sb = &r->body;
	char when[40];
	size_t i;

	sb_reset(sb);
	page_begin(sb, "Bisections", "bisections");
	sb_adds(sb, "<h1>Bisections</h1>\n<p><a href=\"/bisections/new\">"
		"Bisect a Debian kernel line</a>; a patch series found worse "
		"has a Bisect button on its submission's page.</p>\n"
		"<table id=\"bisections\"><tr>"
		"<th>id</th><th>started</th><th>by</th><th>kind</th><th>range"
		"</th><th>rig</th><th>suite</th><th>metrics</th><th>state"
		"</th><th>outcome</th></tr>\n");
	for (i = 0; i < n; i++) {
		page_time(when, sizeof(when), v[i].created);
		sb_addf(sb, "<tr><td><a href=\"/bisections/%lld\">%lld</a></td>"
			"<td>%s</td><td>", (long long)v[i].id,
			(long long)v[i].id, when);
		sb_add_html(sb, v[i].who);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].kind);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].good);
		sb_adds(sb, " .. ");
		sb_add_html(sb, v[i].bad);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].rig);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].suite);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].metrics);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].state);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].outcome);
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</table>\n");
	page_end(sb);
	(void)q;
	return page_ok(r, CT_HTML);
}

static void form_field(struct strbuf *sb, const struct query *q,
		       const char *key, const char *label, const char *hint)
{
	const char *v = query_get(q, key);

	sb_addf(sb, "<label>%s <input name=\"%s\" value=\"", label, key);
	sb_add_html(sb, v ? v : "");
	sb_addf(sb, "\" placeholder=\"%s\"></label><br>\n", hint);
}

/* rig, suite, metric, cap, the job configuration and the button, then
 * the form ends */
static void form_common(struct strbuf *sb, const struct query *q)
{
	form_field(sb, q, "rig", "rig", "");
	form_field(sb, q, "suite", "suite", "");
	form_field(sb, q, "metric", "metric", "tiobench.seq_read.rate");
	form_field(sb, q, "max_cells", "cells a side (optional)", "8");
	form_field(sb, q, "scale", "scale (optional)", "1");
	form_field(sb, q, "scheduler", "I/O scheduler (optional)",
		   "mq-deadline");
	form_field(sb, q, "cmdline", "kernel parameters (optional)",
		   "elevator=none");
	sb_adds(sb, "<button type=\"submit\">Bisect</button></form>\n");
}

int web_bisect_form(const struct query *q, const char *csrf, int status,
		    const char *error, struct web_response *r)
{
	struct strbuf *sb = &r->body;

	sb_reset(sb);
	page_begin(sb, "Bisect", "bisections");
	sb_adds(sb, "<h1>Bisect a kernel line</h1>\n<p>Which release made it "
		"worse?  The Debian packages between the good and the bad "
		"release are bisected: each step fetches a release and "
		"compares it with the good end (docs/VERDICTS.md, Bisection)."
		"  A patch series is bisected from its submission's page."
		"</p>\n");
	if (!csrf) {
		sb_adds(sb, "<p><a href=\"/login?next=/bisections/new\">Sign "
			"in</a> as a submitter to start a bisection.</p>\n");
		page_end(sb);
		return page_ok(r, CT_HTML);
	}
	if (error) {
		sb_adds(sb, "<p class=\"error\" id=\"error\">");
		sb_add_html(sb, error);
		sb_adds(sb, "</p>\n");
	}
	sb_adds(sb, "<form id=\"bisect\" method=\"post\" action=\""
		"/bisections\"><input type=\"hidden\" name=\"csrf\" "
		"value=\"");
	sb_add_html(sb, csrf);
	sb_adds(sb, "\"><input type=\"hidden\" name=\"kind\" value=\""
		"debian\">\n");
	form_field(sb, q, "good", "good release", "6.1.170");
	form_field(sb, q, "bad", "bad release", "6.1.177");
	form_common(sb, q);
	sb_adds(sb, "<h2>Bisect a git range</h2>\n<p>Which commit made it "
		"worse?  git bisect chooses the commits between the good and "
		"the bad commit of a git base of the configuration; each is "
		"built and compared with the good end.</p>\n");
	sb_adds(sb, "<form id=\"bisect-git\" method=\"post\" action=\""
		"/bisections\"><input type=\"hidden\" name=\"csrf\" "
		"value=\"");
	sb_add_html(sb, csrf);
	sb_adds(sb, "\"><input type=\"hidden\" name=\"kind\" value=\""
		"git\">\n");
	form_field(sb, q, "base", "git base", "linux");
	form_field(sb, q, "good", "good commit", "v6.1");
	form_field(sb, q, "bad", "bad commit", "HEAD");
	form_common(sb, q);
	page_end(sb);
	page_ok(r, CT_HTML);
	if (error)
		r->status = status;
	return r->status;
}
