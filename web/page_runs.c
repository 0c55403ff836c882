// SPDX-License-Identifier: MIT
/*
 * /runs and /runs/ID: the list of runs (filtered by kernel, rig, suite)
 * and one run with its results, the values of each repetition inside it
 * and raw outputs (the benchmark's own text, shown escaped in <pre>, or
 * as plain text with ?format=text&raw=NAME).  A run that is not "done"
 * says that its numbers are not counted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/reps.h"
#include "format.h"
#include "page.h"
#include "web.h"

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

void page_runs_table(struct strbuf *sb, const struct db_run *v, size_t n)
{
	char t0[32], t1[32];
	size_t i;

	if (!n) {
		sb_adds(sb, "<p>No runs.</p>\n");
		return;
	}
	sb_adds(sb, "<table class=\"runs\"><thead><tr><th>run</th>"
		"<th>kernel</th><th>rig</th><th>suite</th><th>rep</th>"
		"<th>status</th><th>started (UTC)</th><th>finished (UTC)</th>"
		"<th class=\"num\">results</th><th>error</th></tr></thead>\n"
		"<tbody>\n");
	for (i = 0; i < n; i++) {
		page_time(t0, sizeof(t0), v[i].started);
		page_time(t1, sizeof(t1), v[i].finished);
		sb_addf(sb, "<tr><td><a href=\"/runs/%lld\">%lld</a></td><td>",
			(long long)v[i].id, (long long)v[i].id);
		page_link(sb, "/kernels/", v[i].kernel, v[i].kernel);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].rig);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].suite);
		sb_addf(sb, "</td><td class=\"num\">%d</td><td>",
			v[i].repetition);
		sb_add_html(sb, v[i].status);
		sb_addf(sb, "</td><td>%s</td><td>%s</td><td class=\"num\">%lld"
			"</td><td>", t0, t1, (long long)v[i].nresults);
		sb_add_html(sb, v[i].error);
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</tbody></table>\n");
}

json_t *page_run_json(const struct db_run *run)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:i, s:o, s:o, s:I, s:I, s:I}",
			 "id", (json_int_t)run->id,
			 "kernel", page_jstr(run->kernel),
			 "rig", page_jstr(run->rig),
			 "suite", page_jstr(run->suite),
			 "repetition", run->repetition,
			 "status", page_jstr(run->status),
			 "error", page_jstr(run->error),
			 "started", (json_int_t)run->started,
			 "finished", (json_int_t)run->finished,
			 "results", (json_int_t)run->nresults);
}

static int runs_list(struct db *db, struct query *q, enum page_format f,
		     struct web_response *r)
{
	const char *kernel = nonempty(query_get(q, "kernel"));
	const char *rig = nonempty(query_get(q, "rig"));
	const char *suite = nonempty(query_get(q, "suite"));
	struct db_run *v = NULL;
	size_t n = 0, i;
	long limit;
	json_t *arr;
	int rc;

	if (page_int_param(q, "limit", 100, 1, 100000, &limit, r))
		return r->status;
	rc = db_run_list(db, kernel, rig, suite, (int)limit, &v, &n);
	if (rc)
		return page_db_error(r, q, rc, "cannot list runs");
	sb_reset(&r->body);
	if (f == PF_JSON) {
		arr = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(arr, page_run_json(&v[i]));
		db_runs_free(v, n);
		return page_json(r, arr);
	}
	page_begin(&r->body, "Runs", "runs");
	sb_addf(&r->body, "<h1>Runs</h1>\n<p>The newest %zu run%s.</p>\n", n,
		n == 1 ? "" : "s");
	page_runs_table(&r->body, v, n);
	page_end(&r->body);
	db_runs_free(v, n);
	return page_ok(r, CT_HTML);
}

/*
 * The results of one run, read through db_samples: the run's own samples
 * are moved to the front (*nrun of them); free all *n with
 * db_samples_free.
 */
static int run_samples(struct db *db, const struct db_run *run,
		       struct db_sample **out, size_t *n, size_t *nrun,
		       char *err, size_t errlen)
{
	const char *k[1] = { run->kernel };
	struct db_sample *s = NULL;
	size_t ns = 0, i, j = 0;
	int rc;

	rc = db_samples(db, k, 1, run->rig, run->suite, NULL, &s, &ns, err,
			errlen);
	if (rc)
		return rc;
	for (i = 0; i < ns; i++) {
		if (s[i].run_id == run->id) {
			struct db_sample tmp = s[j];

			s[j++] = s[i];
			s[i] = tmp;
		}
	}
	*out = s;
	*n = ns;
	*nrun = j;
	return DB_OK;
}

static void names_free(char **v, size_t n)
{
	while (n > 0)
		free(v[--n]);
	free(v);
}

static void run_results_html(struct strbuf *sb, const struct db_run *run,
			     const struct db_sample *s, size_t n)
{
	char v[64];
	size_t i;

	sb_addf(sb, "<h2>Results</h2>\n");
	if (!n) {
		sb_adds(sb, "<p>No results.</p>\n");
		return;
	}
	sb_adds(sb, "<table class=\"results\"><thead><tr><th>metric</th>"
		"<th class=\"num\">value</th><th>unit</th><th>better</th>"
		"</tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++) {
		fmt_num(v, sizeof(v), s[i].value);
		sb_adds(sb, "<tr><td><a href=\"/history?metric=");
		sb_add_urlenc(sb, s[i].metric);
		sb_adds(sb, "&amp;rig=");
		sb_add_urlenc(sb, run->rig);
		sb_adds(sb, "&amp;suite=");
		sb_add_urlenc(sb, run->suite);
		sb_adds(sb, "\">");
		sb_add_html(sb, s[i].metric);
		sb_addf(sb, "</a></td><td class=\"num\">%s</td><td>", v);
		sb_add_html(sb, s[i].unit);
		sb_addf(sb, "</td><td>%s</td></tr>\n",
			metric_dir_name(s[i].dir));
	}
	sb_adds(sb, "</tbody></table>\n");
}

static void run_raw_html(struct strbuf *sb, const struct db_run *run,
			 char **names, size_t nn, const char *raw,
			 const char *data)
{
	size_t i;

	sb_adds(sb, "<h2>Raw outputs</h2>\n");
	if (!nn)
		sb_adds(sb, "<p>None stored.</p>\n");
	else
		sb_adds(sb, "<ul class=\"raw\">");
	for (i = 0; i < nn; i++) {
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "/runs/%lld?raw=",
			 (long long)run->id);
		sb_adds(sb, "<li>");
		page_link(sb, prefix, names[i], names[i]);
		sb_addf(sb, " (<a href=\"/runs/%lld?format=text&amp;raw=",
			(long long)run->id);
		sb_add_urlenc(sb, names[i]);
		sb_adds(sb, "\">text</a>)</li>");
	}
	if (nn)
		sb_adds(sb, "</ul>\n");
	if (!data)
		return;
	sb_adds(sb, "<h3>");
	sb_add_html(sb, raw);
	sb_adds(sb, "</h3>\n<pre class=\"raw\">");
	sb_add_html(sb, data);
	sb_adds(sb, "</pre>\n");
}

static void run_head_html(struct strbuf *sb, const struct db_run *run)
{
	char title[64];

	snprintf(title, sizeof(title), "Run %lld", (long long)run->id);
	page_begin(sb, title, "runs");
	sb_addf(sb, "<h1>%s</h1>\n", title);
	page_runs_table(sb, run, 1);
	if (strcmp(run->status, "done")) {
		sb_adds(sb, "<p class=\"failed\">This run is ");
		sb_add_html(sb, run->status);
		sb_adds(sb, ": its numbers are not counted in comparisons.");
		if (*run->error) {
			sb_adds(sb, " The benchmark failed: ");
			sb_add_html(sb, run->error);
		}
		sb_adds(sb, "</p>\n");
	}
	sb_adds(sb, "<p>");
	page_link(sb, "/kernels/", run->kernel, "kernel page");
	sb_adds(sb, " &middot; <a href=\"/runs?kernel=");
	sb_add_urlenc(sb, run->kernel);
	sb_adds(sb, "\">runs of this kernel</a> &middot; <a href=\"/runs?rig=");
	sb_add_urlenc(sb, run->rig);
	sb_adds(sb, "&amp;suite=");
	sb_add_urlenc(sb, run->suite);
	sb_adds(sb, "\">runs on this rig and suite</a></p>\n");
}

json_t *web_run_reps_json(struct db *db, int64_t run_id)
{
	json_t *a = json_array();
	struct db_rep *v = NULL;
	size_t n = 0, i;

	if (db_run_reps(db, &run_id, 1, &v, &n))
		return a;
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:i, s:b, s:o, s:f}",
			"rep", v[i].rep, "complete", v[i].complete,
			"metric", page_jstr(v[i].metric), "value", v[i].value));
	db_reps_free(v, n);
	return a;
}

/* Each repetition's value beside the run's mean, one row per metric. */
static void run_reps_html(struct strbuf *sb, struct db *db,
			  const struct db_run *run)
{
	struct db_rep *v = NULL;
	char num[64];
	size_t n = 0, i;

	if (db_run_reps(db, &run->id, 1, &v, &n) || !n) {
		db_reps_free(v, n);
		return;
	}
	sb_adds(sb, "<h2>Repetitions</h2>\n<p>Each repetition inside this "
		"run (one boot); the results above are their mean.  Values "
		"marked * are of a repetition that stopped early.</p>\n"
		"<table class=\"reps\"><thead><tr><th>metric</th>"
		"<th>values by repetition</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++) {
		if (!i || strcmp(v[i].metric, v[i - 1].metric)) {
			sb_adds(sb, i ? "</td></tr>\n<tr><td>" : "<tr><td>");
			sb_add_html(sb, v[i].metric);
			sb_adds(sb, "</td><td class=\"num\">");
		}
		fmt_num(num, sizeof(num), v[i].value);
		sb_addf(sb, "%s%s%s", i && !strcmp(v[i].metric,
			v[i - 1].metric) ? " " : "", num,
			v[i].complete ? "" : "*");
	}
	sb_adds(sb, "</td></tr>\n</tbody></table>\n");
	db_reps_free(v, n);
}

static json_t *run_json(const struct db_run *run, const struct db_sample *s,
			size_t n, char **names, size_t nn)
{
	json_t *o = page_run_json(run), *res = json_array();
	json_t *raw = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(res, json_pack("{s:o, s:o, s:s, s:f}",
			"metric", page_jstr(s[i].metric),
			"unit", page_jstr(s[i].unit),
			"direction", metric_dir_name(s[i].dir),
			"value", s[i].value));
	for (i = 0; i < nn; i++)
		json_array_append_new(raw, page_jstr(names[i]));
	json_object_set_new(o, "results_list", res);
	json_object_set_new(o, "raw_outputs", raw);
	return o;
}

/* ?raw=NAME: 0 with *data set (or NULL when not asked), else a status. */
static int run_raw_get(struct db *db, struct query *q, const struct db_run *run,
		       char **data, struct web_response *r)
{
	const char *raw = nonempty(query_get(q, "raw"));
	char v[200], msg[300];
	size_t len;
	int rc;

	*data = NULL;
	if (!raw)
		return 0;
	rc = db_raw_get(db, run->id, raw, data, &len);
	if (rc == DB_OK)
		return 0;
	fmt_ascii(v, sizeof(v), raw);
	snprintf(msg, sizeof(msg), "unknown raw output '%s' of run %lld", v,
		 (long long)run->id);
	return page_db_error(r, q, rc, rc == DB_NOTFOUND ? msg :
			     "cannot read raw output");
}

static int run_render(struct db *db, struct query *q, enum page_format f,
		      const struct db_run *run, struct web_response *r)
{
	struct db_sample *s = NULL;
	size_t ns = 0, nrun = 0, nn = 0;
	char **names = NULL, *data = NULL, err[256] = "";
	int rc;

	rc = run_raw_get(db, q, run, &data, r);
	if (rc)
		return rc;
	if (!data && f == PF_TEXT)
		return web_error_page(r, q, 400, "format=text shows one raw "
				      "output: add raw=NAME");
	sb_reset(&r->body);
	if (data && f == PF_TEXT) {
		sb_adds(&r->body, data);
		free(data);
		return page_ok(r, CT_TEXT);
	}
	rc = run_samples(db, run, &s, &ns, &nrun, err, sizeof(err));
	if (rc) {
		free(data);
		return page_db_error(r, q, rc, err);
	}
	if (db_raw_list(db, run->id, &names, &nn))
		nn = 0;
	if (f == PF_JSON) {
		json_t *o = run_json(run, s, nrun, names, nn);

		json_object_set_new(o, "repetitions",
				    web_run_reps_json(db, run->id));
		json_object_set_new(o, "steps",
				    web_job_steps_json(db, run->job_id));
		rc = page_json(r, o);
	} else {
		run_head_html(&r->body, run);
		run_results_html(&r->body, run, s, nrun);
		run_reps_html(&r->body, db, run);
		page_job_steps_html(&r->body, db, run->job_id);
		run_raw_html(&r->body, run, names, nn, query_get(q, "raw"),
			     data);
		page_end(&r->body);
		rc = page_ok(r, CT_HTML);
	}
	names_free(names, nn);
	db_samples_free(s, ns);
	free(data);
	return rc;
}

static int run_page(struct db *db, struct query *q, enum page_format f,
		    const char *arg, struct web_response *r)
{
	struct db_run run;
	char v[64], msg[128], *end;
	long long id;
	int rc;

	errno = 0;
	id = strtoll(arg, &end, 10);
	if (errno || *end || end == arg || id <= 0) {
		fmt_ascii(v, sizeof(v), arg);
		snprintf(msg, sizeof(msg), "invalid run id '%s'", v);
		return web_error_page(r, q, 400, msg);
	}
	memset(&run, 0, sizeof(run));
	rc = db_run_get(db, id, &run);
	if (rc) {
		snprintf(msg, sizeof(msg), "unknown run '%lld'", id);
		return page_db_error(r, q, rc, rc == DB_NOTFOUND ? msg :
				     "cannot read run");
	}
	rc = run_render(db, q, f, &run, r);
	db_run_release(&run);
	return rc;
}

int web_runs(struct db *db, struct query *q, const char *arg,
	     struct web_response *r)
{
	enum page_format f;

	if (page_format(q, PF_HTML | PF_JSON | PF_TEXT, &f, r))
		return r->status;
	if (arg && *arg)
		return run_page(db, q, f, arg, r);
	if (f == PF_TEXT)
		return web_error_page(r, q, 400, "the run list has no text "
				      "format");
	return runs_list(db, q, f, r);
}
