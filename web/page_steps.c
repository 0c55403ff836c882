// SPDX-License-Identifier: MIT
/*
 * Where a cell's time goes: a job's steps on its run's page (each step
 * summed over the repetitions, with its share of the cell), and /steps,
 * the mean of each step over the newest done jobs of a rig and suite
 * (?rig=, ?suite=, ?limit=, 20 by default; ?format=json, which
 * GET /api/steps and `klab steps` read).  The steps are klabd's (hand-out,
 * boot, upload) and the agent's upload's (docs/RESULTS.md, "steps").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/jobs.h"
#include "lib/alloc.h"
#include "format.h"
#include "page.h"
#include "web.h"

json_t *web_job_steps_json(struct db *db, int64_t job)
{
	struct db_job_step *v = NULL;
	json_t *a = json_array();
	size_t n = 0, i;

	if (!job || db_job_steps(db, job, &v, &n))
		return a;
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:o, s:i, s:f}", "step",
			page_jstr(v[i].name), "rep", v[i].rep, "secs",
			v[i].secs));
	db_job_steps_free(v, n);
	return a;
}

/* One row of a steps table: name, count, seconds, share of total. */
static void step_row(struct strbuf *sb, const char *name, long count,
		     double secs, double total)
{
	sb_adds(sb, "<tr><td>");
	sb_add_html(sb, name);
	sb_addf(sb, "</td><td class=\"num\">%ld</td><td class=\"num\">%.1f"
		"</td><td class=\"num\">%.1f%%</td></tr>\n", count, secs,
		total > 0 ? 100 * secs / total : 0);
}

void page_job_steps_html(struct strbuf *sb, struct db *db, int64_t job)
{
	struct db_job_step *v = NULL;
	double total = 0, secs;
	size_t n = 0, i, j;
	long count;
	char *seen;

	if (!job || db_job_steps(db, job, &v, &n) || !n) {
		db_job_steps_free(v, n);
		return;
	}
	for (i = 0; i < n; i++)
		total += v[i].secs;
	sb_addf(sb, "<h2>Where the cell's time went</h2>\n<p>Job %lld took "
		"%.1f s from its hand-out to its results stored; each step "
		"summed over the repetitions (<a href=\"/steps\">every "
		"cell's</a>).</p>\n<table class=\"steps\"><thead><tr>"
		"<th>step</th><th class=\"num\">times</th><th class=\"num\">"
		"seconds</th><th class=\"num\">share</th></tr></thead>\n"
		"<tbody>\n", (long long)job, total);
	seen = xcalloc(n, 1);
	for (i = 0; i < n; i++) {
		if (seen[i])
			continue;
		for (j = i, secs = 0, count = 0; j < n; j++)
			if (!strcmp(v[j].name, v[i].name)) {
				seen[j] = 1;
				secs += v[j].secs;
				count++;
			}
		step_row(sb, v[i].name, count, secs, total);
	}
	sb_adds(sb, "</tbody></table>\n");
	free(seen);
	db_job_steps_free(v, n);
}

int web_steps_json(struct db *db, const char *rig, const char *suite,
		   int limit, json_t **out)
{
	struct db_step_mean *v = NULL;
	json_t *a;
	double total = 0;
	size_t n = 0, i;
	int64_t jobs = 0;
	int rc = db_job_step_means(db, rig, suite, limit, &v, &n, &jobs);

	*out = NULL;
	if (rc)
		return rc;
	for (i = 0; i < n; i++)
		total += v[i].secs;
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:o, s:f, s:f, s:I}",
			"step", page_jstr(v[i].name), "secs", v[i].secs,
			"share", total > 0 ? v[i].secs / total : 0, "jobs",
			(json_int_t)v[i].jobs));
	*out = json_pack("{s:o, s:o, s:i, s:I, s:f, s:o}", "rig",
			 page_jstr(rig), "suite", page_jstr(suite), "limit",
			 limit, "jobs", (json_int_t)jobs, "secs", total,
			 "steps", a);
	db_step_means_free(v, n);
	return DB_OK;
}

static void steps_html(struct strbuf *sb, const json_t *doc)
{
	const json_t *a = json_object_get(doc, "steps"), *s;
	size_t i;

	page_begin(sb, "Where cells spend their time", "runs");
	sb_adds(sb, "<h1>Where cells spend their time</h1>\n<form "
		"method=\"get\" action=\"/steps\">rig <input name=\"rig\"> "
		"suite <input name=\"suite\"> <button>show</button></form>\n");
	if (!json_array_size(a)) {
		sb_adds(sb, "<p>No done job has steps yet.</p>\n");
		return;
	}
	sb_addf(sb, "<p>The mean over the newest %lld done jobs",
		(long long)json_integer_value(json_object_get(doc, "jobs")));
	if (json_string_value(json_object_get(doc, "rig"))) {
		sb_adds(sb, " of rig ");
		sb_add_html(sb, json_string_value(json_object_get(doc, "rig")));
	}
	if (json_string_value(json_object_get(doc, "suite"))) {
		sb_adds(sb, ", suite ");
		sb_add_html(sb, json_string_value(json_object_get(doc,
								  "suite")));
	}
	sb_addf(sb, ": %.1f s a cell.  A step of the repetitions counts "
		"all of them.</p>\n<table class=\"steps\"><thead><tr>"
		"<th>step</th><th class=\"num\">jobs</th><th class=\"num\">"
		"mean seconds</th><th class=\"num\">share</th></tr></thead>\n"
		"<tbody>\n", json_real_value(json_object_get(doc, "secs")));
	json_array_foreach(a, i, s)
		step_row(sb, json_string_value(json_object_get(s, "step")),
			 (long)json_integer_value(json_object_get(s, "jobs")),
			 json_real_value(json_object_get(s, "secs")),
			 json_real_value(json_object_get(doc, "secs")));
	sb_adds(sb, "</tbody></table>\n");
}

int web_steps(struct db *db, struct query *q, const char *arg,
	      struct web_response *r)
{
	const char *rig = query_get(q, "rig"), *suite = query_get(q, "suite");
	enum page_format f;
	json_t *doc;
	long limit;
	int rc;

	(void)arg;
	if (page_format(q, PF_HTML | PF_JSON, &f, r) ||
	    page_int_param(q, "limit", 20, 1, 100000, &limit, r))
		return r->status;
	rc = web_steps_json(db, rig && *rig ? rig : NULL,
			    suite && *suite ? suite : NULL, (int)limit, &doc);
	if (rc)
		return page_db_error(r, q, rc, "cannot read the jobs' steps");
	sb_reset(&r->body);
	if (f == PF_JSON)
		return page_json(r, doc);
	steps_html(&r->body, doc);
	page_end(&r->body);
	json_decref(doc);
	return page_ok(r, CT_HTML);
}
