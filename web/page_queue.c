// SPDX-License-Identifier: MIT
/*
 * /queue: the lab at a glance, the page an operator keeps open (it
 * reloads itself).  For each rig what it does now (the job, its kernel,
 * suite and stage, the time elapsed, who it is for, the console's last
 * lines as the rig manager has them) and what waits for it, in the order
 * the rig will take it (round-robin by submitter, db/submissions.h),
 * with each job's submitter and submission; a pool of rigs (a class of
 * several, lab/rig_class.c) has its own list, before its first rig, of
 * the jobs queued for the class, which the first of its rigs free takes;
 * then the builds queued or in progress, and the jobs that failed last,
 * with their class (kernel, benchmark, infra) and error.  ?rig=NAME
 * shows the rigs NAME means (a rig, or the rigs of a class) with their
 * pool and failures.  ?format=json gives the same as data (klab queue).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "db/jobs.h"
#include "page.h"
#include "page_submit.h"

#define QUEUE_REFRESH_S 5
#define QUEUE_FAILED_N 20	/* the failures shown */
#define QUEUE_ERROR_CHARS 200	/* of each one's error */

struct queue_data {
	const char *only;	/* ?rig=: a rig or class, NULL: all */
	struct db_rig *rigs;
	size_t nrigs;
	struct db_queue_job *now, *wait;
	size_t nnow, nwait;
	struct db_build *builds;
	size_t nbuilds;
	struct db_job *failed;	/* newest first */
	size_t nfailed;
};

static int build_active(const struct db_build *b)
{
	return !strcmp(b->state, "queued") || !strcmp(b->state, "building");
}

static json_t *qjob_json(const struct db_queue_job *j, int64_t now)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:I, s:I}", "id",
			 (json_int_t)j->id, "kernel", page_jstr(j->kernel),
			 "suite", page_jstr(j->suite), "state",
			 page_jstr(j->state), "who", page_jstr(j->who),
			 "rig", page_jstr(j->rig), "submission",
			 (json_int_t)j->submission, "elapsed", (json_int_t)(
			 j->started ? now - j->started : 0));
}

static json_t *failed_json(const struct db_job *j)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:I}", "id",
			 (json_int_t)j->id, "kernel", page_jstr(j->kernel),
			 "rig", page_jstr(j->rig), "suite", page_jstr(j->suite),
			 "failure", page_jstr(j->failure), "error",
			 page_jstr(j->error), "finished",
			 (json_int_t)j->finished);
}

/* 1 when rig i is shown: every rig, or those ?rig= means. */
static int rig_shown(const struct queue_data *qd, size_t i)
{
	const struct db_rig *g = &qd->rigs[i];

	return !qd->only || !strcmp(g->name, qd->only) ||
	       !strcmp(g->klass, qd->only);
}

/* The pool rig i belongs to (page_rig_pool) when it is the first shown
 * rig of it, else NULL. */
static const char *pool_first(const struct queue_data *qd, size_t i)
{
	const char *c = page_rig_pool(&qd->rigs[i]);
	size_t k;

	if (!rig_shown(qd, i) || !c)
		return NULL;
	for (k = 0; k < i; k++)
		if (rig_shown(qd, k) && !strcmp(qd->rigs[k].klass, c))
			return NULL;
	return c;
}

/* The waiting jobs for rig or class name, as JSON. */
static json_t *waiting_json(const struct queue_data *qd, const char *name,
			    int64_t now)
{
	json_t *a = json_array();
	size_t k;

	for (k = 0; k < qd->nwait; k++)
		if (!strcmp(qd->wait[k].rig, name))
			json_array_append_new(a, qjob_json(&qd->wait[k], now));
	return a;
}

/* The pool of rig i (pool_first) as JSON: its name, rigs, jobs. */
static json_t *pool_json(const struct queue_data *qd, size_t i, int64_t now)
{
	const char *c = pool_first(qd, i);
	json_t *rigs = json_array();
	size_t k;

	for (k = 0; k < qd->nrigs; k++)
		if (!strcmp(qd->rigs[k].klass, c))
			json_array_append_new(rigs,
					      page_jstr(qd->rigs[k].name));
	return json_pack("{s:o, s:o, s:o}", "name", page_jstr(c), "rigs",
			 rigs, "waiting", waiting_json(qd, c, now));
}

static json_t *queue_json(const struct queue_data *qd,
			  const struct web_console *con, size_t ncon)
{
	json_t *rigs = json_array(), *builds = json_array(), *o, *a;
	json_t *failed = json_array(), *pools = json_array();
	int64_t now = (int64_t)time(NULL);
	size_t i, k;

	for (i = 0; i < qd->nrigs; i++) {
		const char *tail = "";

		if (!rig_shown(qd, i))
			continue;
		if (pool_first(qd, i))
			json_array_append_new(pools, pool_json(qd, i, now));
		a = json_array();
		for (k = 0; k < qd->nnow; k++)
			if (!strcmp(qd->now[k].rig, qd->rigs[i].name))
				json_array_append_new(a, qjob_json(
						      &qd->now[k], now));
		for (k = 0; k < ncon; k++)
			if (!strcmp(con[k].rig, qd->rigs[i].name))
				tail = con[k].tail;
		o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "name",
			      page_jstr(qd->rigs[i].name), "class",
			      page_jstr(qd->rigs[i].klass), "state",
			      page_jstr(qd->rigs[i].state), "now", a,
			      "waiting", waiting_json(qd, qd->rigs[i].name,
						      now),
			      "console", page_jstr(tail));
		json_array_append_new(rigs, o);
	}
	for (i = 0; i < qd->nbuilds; i++)
		if (build_active(&qd->builds[i]))
			json_array_append_new(builds, json_pack("{s:I, s:o, "
				"s:o, s:o, s:I}", "id",
				(json_int_t)qd->builds[i].id, "ident",
				page_jstr(qd->builds[i].ident), "base",
				page_jstr(qd->builds[i].base), "state",
				page_jstr(qd->builds[i].state), "elapsed",
				(json_int_t)(now - qd->builds[i].created)));
	for (i = 0; i < qd->nfailed; i++)
		json_array_append_new(failed, failed_json(&qd->failed[i]));
	return json_pack("{s:o, s:o, s:o, s:o}", "rigs", rigs, "classes",
			 pools, "builds", builds, "failed", failed);
}

static void job_cells(struct strbuf *sb, const struct db_queue_job *j)
{
	sb_addf(sb, "<td><a href=\"/api/jobs/%lld\">%lld</a></td><td>",
		(long long)j->id, (long long)j->id);
	sb_add_html(sb, j->kernel);
	sb_adds(sb, "</td><td>");
	sb_add_html(sb, j->suite);
	sb_adds(sb, "</td><td>");
	sb_add_html(sb, j->state);
	sb_adds(sb, "</td><td>");
	sb_add_html(sb, *j->who ? j->who : "(by hand)");
	sb_adds(sb, "</td><td>");
	if (j->submission)
		sb_addf(sb, "<a href=\"/submissions/%lld\">%lld</a>",
			(long long)j->submission, (long long)j->submission);
	sb_adds(sb, "</td>");
}

#define JOB_HEAD "<th>job</th><th>kernel</th><th>suite</th><th>stage</th>" \
	"<th>submitter</th><th>submission</th>"

/* The jobs waiting for rig or class name, in the order they go. */
static void html_waiting(struct strbuf *sb, const struct queue_data *qd,
			 const char *name)
{
	size_t k, n = 0;

	sb_adds(sb, "<table class=\"waiting\"><tr><th>#</th>" JOB_HEAD
		"</tr>\n");
	for (k = 0; k < qd->nwait; k++) {
		if (strcmp(qd->wait[k].rig, name))
			continue;
		sb_addf(sb, "<tr><td>%zu</td>", ++n);
		job_cells(sb, &qd->wait[k]);
		sb_adds(sb, "</tr>\n");
	}
	if (!n)
		sb_adds(sb, "<tr><td colspan=\"7\">nothing waits</td></tr>\n");
	sb_adds(sb, "</table>\n");
}

static void html_rig(struct strbuf *sb, const struct queue_data *qd,
		     const struct db_rig *g, const char *tail)
{
	int64_t now = (int64_t)time(NULL);
	size_t k, n = 0;

	sb_adds(sb, "<h2 class=\"rig\">");
	sb_add_html(sb, g->name);
	sb_adds(sb, " <span class=\"note\">");
	sb_add_html(sb, g->state);
	sb_adds(sb, "</span></h2>\n<table class=\"now\"><tr>" JOB_HEAD
		"<th>elapsed</th></tr>\n");
	for (k = 0; k < qd->nnow; k++) {
		if (strcmp(qd->now[k].rig, g->name))
			continue;
		sb_adds(sb, "<tr>");
		job_cells(sb, &qd->now[k]);
		sb_addf(sb, "<td>%lld s</td></tr>\n", (long long)(
			qd->now[k].started ? now - qd->now[k].started : 0));
		n++;
	}
	if (!n)
		sb_adds(sb, "<tr><td colspan=\"7\">idle</td></tr>\n");
	sb_adds(sb, "</table>\n");
	if (tail && *tail) {
		sb_adds(sb, "<pre class=\"console\">");
		sb_add_html(sb, tail);
		sb_adds(sb, "</pre>\n");
	}
	html_waiting(sb, qd, g->name);
}

/* The pool of rig i (pool_first): its rigs, the jobs queued for it. */
static void html_pool(struct strbuf *sb, const struct queue_data *qd,
		      size_t i)
{
	const char *c = qd->rigs[i].klass;
	size_t k, n = 0;

	sb_adds(sb, "<h2 class=\"pool\">");
	sb_add_html(sb, c);
	sb_adds(sb, " <span class=\"note\">class of ");
	for (k = 0; k < qd->nrigs; k++) {
		if (strcmp(qd->rigs[k].klass, c))
			continue;
		sb_adds(sb, n++ ? ", " : "");
		sb_add_html(sb, qd->rigs[k].name);
	}
	sb_adds(sb, ": the first of them free takes these</span></h2>\n");
	html_waiting(sb, qd, c);
}

/* The first line of a job's error, at most QUEUE_ERROR_CHARS bytes and
 * never cut inside a UTF-8 character; the job's page has the rest. */
static void error_line(struct strbuf *sb, const char *e)
{
	char buf[QUEUE_ERROR_CHARS + 4];
	size_t n = strcspn(e, "\n");

	if (n > QUEUE_ERROR_CHARS) {
		n = QUEUE_ERROR_CHARS;
		while (n && ((unsigned char)e[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(buf, e, n);
	snprintf(buf + n, sizeof(buf) - n, "%s", e[n] ? "..." : "");
	sb_add_html(sb, buf);
}

static void html_failed(struct strbuf *sb, const struct queue_data *qd)
{
	char when[40];
	size_t i;

	sb_addf(sb, "<h2>Failed last</h2>\n<table id=\"failed\"><tr><th>job"
		"</th><th>kernel</th><th>rig</th><th>suite</th><th>blamed on"
		"</th><th>error</th><th>ended</th></tr>\n");
	for (i = 0; i < qd->nfailed; i++) {
		const struct db_job *j = &qd->failed[i];

		page_time(when, sizeof(when), j->finished);
		sb_addf(sb, "<tr><td><a href=\"/api/jobs/%lld\">%lld</a></td>"
			"<td>", (long long)j->id, (long long)j->id);
		sb_add_html(sb, j->kernel);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, j->rig);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, j->suite);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, j->failure);
		sb_adds(sb, "</td><td>");
		error_line(sb, j->error);
		sb_addf(sb, "</td><td>%s</td></tr>\n", when);
	}
	if (!qd->nfailed)
		sb_adds(sb, "<tr><td colspan=\"7\">no failed job</td></tr>\n");
	sb_adds(sb, "</table>\n");
}

static void html_queue(struct strbuf *sb, const struct queue_data *qd,
		       const struct web_console *con, size_t ncon)
{
	size_t i, k, n = 0;
	char when[40];

	page_begin_refresh(sb, "Queue", "queue", QUEUE_REFRESH_S);
	sb_addf(sb, "<h1>Queue</h1>\n<p>What each rig does now and what "
		"waits for it, in the order it takes it: round-robin by "
		"submitter.  This page reloads every %d s.</p>\n",
		QUEUE_REFRESH_S);
	for (i = 0; i < qd->nrigs; i++) {
		const char *tail = NULL;

		if (!rig_shown(qd, i))
			continue;
		if (pool_first(qd, i))
			html_pool(sb, qd, i);
		for (k = 0; k < ncon; k++)
			if (!strcmp(con[k].rig, qd->rigs[i].name))
				tail = con[k].tail;
		html_rig(sb, qd, &qd->rigs[i], tail);
	}
	sb_adds(sb, "<h2>Builds</h2>\n<table id=\"builds\"><tr><th>build</th>"
		"<th>kernel</th><th>base</th><th>state</th><th>queued</th>"
		"</tr>\n");
	for (i = 0; i < qd->nbuilds; i++) {
		const struct db_build *b = &qd->builds[i];

		if (!build_active(b))
			continue;
		page_time(when, sizeof(when), b->created);
		sb_addf(sb, "<tr><td><a href=\"/api/builds/%lld\">%lld</a></td>"
			"<td>", (long long)b->id, (long long)b->id);
		sb_add_html(sb, b->ident);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, b->base);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, b->state);
		sb_addf(sb, "</td><td>%s</td></tr>\n", when);
		n++;
	}
	if (!n)
		sb_adds(sb, "<tr><td colspan=\"5\">no build</td></tr>\n");
	sb_adds(sb, "</table>\n");
	html_failed(sb, qd);
	page_end(sb);
}

/* 1 when ?rig= names a rig or a class of rigs. */
static int known(const struct queue_data *qd)
{
	size_t i;

	for (i = 0; i < qd->nrigs; i++)
		if (rig_shown(qd, i))
			return 1;
	return 0;
}

int web_queue(struct db *db, const struct web_console *con, size_t ncon,
	      struct query *q, struct web_response *r)
{
	struct queue_data qd;
	enum page_format f;
	char msg[160];
	int rc;

	if (page_format(q, PF_HTML | PF_JSON, &f, r))
		return r->status;
	memset(&qd, 0, sizeof(qd));
	qd.only = query_get(q, "rig");
	if (qd.only && !*qd.only)
		qd.only = NULL;
	rc = db_rig_list(db, &qd.rigs, &qd.nrigs);
	if (!rc && qd.only && !known(&qd)) {
		snprintf(msg, sizeof(msg), "unknown rig '%.64s' (no rig or "
			 "class of that name)", qd.only);
		db_rigs_free(qd.rigs, qd.nrigs);
		return page_db_error(r, q, DB_NOTFOUND, msg);
	}
	if (!rc)
		rc = db_queue_jobs(db, NULL, 1, &qd.now, &qd.nnow);
	if (!rc)
		rc = db_queue_jobs(db, NULL, 0, &qd.wait, &qd.nwait);
	if (!rc)
		rc = db_build_list(db, 200, &qd.builds, &qd.nbuilds);
	if (!rc)
		rc = db_job_list(db, qd.only, "failed", QUEUE_FAILED_N,
				 &qd.failed, &qd.nfailed);
	sb_reset(&r->body);
	if (rc)
		rc = page_db_error(r, q, rc, "cannot read the queue");
	else if (f == PF_JSON)
		rc = page_json(r, queue_json(&qd, con, ncon));
	else {
		html_queue(&r->body, &qd, con, ncon);
		rc = page_ok(r, CT_HTML);
	}
	db_rigs_free(qd.rigs, qd.nrigs);
	db_queue_jobs_free(qd.now, qd.nnow);
	db_queue_jobs_free(qd.wait, qd.nwait);
	db_builds_free(qd.builds, qd.nbuilds);
	db_jobs_free(qd.failed, qd.nfailed);
	return rc;
}
