// SPDX-License-Identifier: MIT
/*
 * /comparisons/ID: a comparison run with adaptive repetition as it
 * stands: its kernels, rig and suite, its state and outcome, the cells
 * done of those planned, and the verdict table of its own cells (the
 * compare page's tables).  The page reloads itself every few seconds
 * while the run is queued or running.  ?format=text gives the outcome
 * and the text report, ready for mail.  The caller (the HTTP layer) loads
 * and judges the comparison: this file only renders what it is given.
 */
#include <stdio.h>
#include <string.h>

#include "db/comparisons.h"
#include "page.h"
#include "report.h"

#define REFRESH_S 5

static int is_active(const struct db_comparison *c)
{
	return !strcmp(c->state, "queued") || !strcmp(c->state, "running");
}

static void text_head(struct strbuf *sb, const struct db_comparison *c,
		      const char *summary)
{
	sb_addf(sb, "comparison %lld: %s against %s, rig %s, suite %s\n",
		(long long)c->id, c->candidate, c->base, c->rig, c->suite);
	sb_addf(sb, "cells done: %d (%s) + %d (%s) of %d a side planned, "
		"cap %d\n", c->done[0], c->base, c->done[1], c->candidate,
		c->planned, c->max_cells);
	if (c->borrowed)
		sb_addf(sb, "base cells borrowed from earlier comparisons: "
			"%d of the %d\n", c->borrowed, c->done[0]);
	sb_addf(sb, "outcome: %s\n\n", summary);
}

/* page_begin, with a reload while the run goes on. */
static void html_head(struct strbuf *sb, const struct db_comparison *c,
		      const char *verdict, const char *summary)
{
	sb_addf(sb, "<h1>Comparison %lld</h1>\n<p>", (long long)c->id);
	sb_add_html(sb, c->candidate);
	sb_adds(sb, " against ");
	sb_add_html(sb, c->base);
	sb_adds(sb, ", rig ");
	sb_add_html(sb, c->rig);
	sb_adds(sb, ", suite ");
	sb_add_html(sb, c->suite);
	page_summary_state(sb, "started", c->created, c->state);
	page_summary_verdict(sb, "outcome", verdict, summary);
	sb_addf(sb, "</p>\n<p>Cells done: %d base, %d candidate, of "
		"%d a side planned (cap %d a side); failed cells: %d.",
		c->done[0], c->done[1], c->planned, c->max_cells,
		c->failed[0] + c->failed[1]);
	if (c->borrowed)
		sb_addf(sb, " %d of the base's cells were borrowed from the "
			"earlier steps of a bisection.", c->borrowed);
	if (is_active(c))
		sb_addf(sb, " This page reloads every %d s.", REFRESH_S);
	sb_addf(sb, " <a href=\"/api/comparisons/%lld\">json</a> &middot; "
		"<a href=\"/comparisons/%lld?format=text\">text</a></p>\n",
		(long long)c->id, (long long)c->id);
	sb_adds(sb, "<p class=\"note rule\">Cells are added in interleaved "
		"pairs and judged only at planned looks, each with its share "
		"of the page's error budget; a decision once taken is kept."
		"</p>\n");
}

int web_comparison(const struct db_comparison *c,
		   const struct comparison *cmp, const char *verdict,
		   const char *summary, struct query *q,
		   struct web_response *r)
{
	enum page_format f;
	char title[64];

	if (page_format(q, PF_HTML | PF_TEXT, &f, r))
		return r->status;
	if (f == PF_TEXT) {
		text_head(&r->body, c, summary);
		report_text(&r->body, cmp);
		return page_ok(r, CT_TEXT);
	}
	snprintf(title, sizeof(title), "Comparison %lld", (long long)c->id);
	page_begin_refresh(&r->body, title, "compare",
			   is_active(c) ? REFRESH_S : 0);
	html_head(&r->body, c, verdict, summary);
	page_compare_tables(&r->body, cmp);
	page_end(&r->body);
	return page_ok(r, CT_HTML);
}
