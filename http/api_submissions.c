// SPDX-License-Identifier: MIT
/*
 * Submissions over HTTP, three equal ways in: POST /api/submissions (a
 * JSON request, or a raw mbox / patch body with its fields in the URL
 * query), the /submit form (signed in, with its CSRF field) and klab
 * submit (the JSON API).  Each fills one struct sub_input for
 * submission_create, which checks everything (base, rigs, suites, the
 * job configuration of the cells: scale, scheduler, cmdline, the series
 * split into patches and applied with build-kernel.sh --check) before
 * anything is stored (submissions_check.c).  Also: GET
 * /api/submissions[/ID], cancel, the pages /submissions[/ID], and the
 * queue (/queue, /api/queue) with each rig's console tail.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/api.h"
#include "http/api_util.h"
#include "http/auth.h"
#include "lab/build.h"
#include "lib/alloc.h"
#include "lab/rig.h"
#include "flow/submissions.h"
#include "web/page_submit.h"

/* ---- the three ways in ------------------------------------------------ */

/* A string or a list of strings at key (or alt) into v (at most
 * SUB_MAX_LIST); 0, or -1 after a 400. */
static int json_list(struct web_response *r, json_t *doc, const char *key,
		     const char *alt, const char **v, size_t *n)
{
	json_t *x = json_object_get(doc, key), *e;
	char msg[200];
	size_t i;

	if (!x)
		x = json_object_get(doc, alt);
	if (!x || json_is_null(x))
		return 0;
	if (json_is_string(x)) {
		v[(*n)++] = json_string_value(x);
		return 0;
	}
	if (!json_is_array(x) || json_array_size(x) > SUB_MAX_LIST) {
		snprintf(msg, sizeof(msg), "field '%s': expected a list of at "
			 "most %d names", key, SUB_MAX_LIST);
		return web_error_json(r, 400, msg), -1;
	}
	json_array_foreach(x, i, e) {
		if (!json_is_string(e)) {
			snprintf(msg, sizeof(msg), "field '%s[%zu]': "
				 "expected a string", key, i);
			return web_error_json(r, 400, msg), -1;
		}
		v[(*n)++] = json_string_value(e);
	}
	return 0;
}

int sub_json_patches(struct web_response *r, json_t *doc,
		     struct sub_file *file, size_t *n, size_t max)
{
	json_t *x = json_object_get(doc, "patches"), *e, *t;
	char msg[200];
	size_t i;

	if (x && !json_is_array(x))
		return web_error_json(r, 400, "field 'patches': expected a "
				      "list"), -1;
	if (json_array_size(x) > max) {
		snprintf(msg, sizeof(msg), "field 'patches': %zu patch files, "
			 "at most %zu", json_array_size(x), max);
		return web_error_json(r, 413, msg), -1;
	}
	json_array_foreach(x, i, e) {
		t = json_is_string(e) ? e : json_object_get(e, "text");
		if (!json_is_string(t) || *n >= max) {
			snprintf(msg, sizeof(msg), "field 'patches[%zu]': "
				 "expected {\"name\", \"text\"} (at most %zu)",
				 i, max);
			return web_error_json(r, 400, msg), -1;
		}
		file[*n].name = json_string_value(json_object_get(e, "name"));
		if (!file[*n].name)
			file[*n].name = "patch";
		file[*n].text = json_string_value(t);
		file[(*n)++].len = json_string_length(t);
	}
	return 0;
}

/* "patches" (a place left for "text") and "text" (pasted). */
static int json_files(struct web_response *r, json_t *doc,
		      struct sub_input *in)
{
	json_t *t;

	if (sub_json_patches(r, doc, in->file, &in->nfiles,
			     SUB_MAX_FILES - 1))
		return -1;
	t = json_object_get(doc, "text");
	if (json_is_string(t) && json_string_length(t)) {
		in->file[in->nfiles].name = "pasted.patch";
		in->file[in->nfiles].text = json_string_value(t);
		in->file[in->nfiles++].len = json_string_length(t);
	}
	return 0;
}

static int in_from_json(struct web_response *r, json_t *doc,
			struct sub_input *in)
{
	long long maxc = 0;

	if (api_field_str(r, doc, "base", 1, &in->base) ||
	    api_field_str(r, doc, "note", 0, &in->note) ||
	    api_field_int(r, doc, "max_cells", 0, 1, SUB_MAX_CELLS, &maxc) ||
	    api_job_config_fields(r, doc, &in->scale, &in->scheduler,
				  &in->cmdline) ||
	    json_list(r, doc, "rigs", "rig", in->rig, &in->nrigs) ||
	    json_list(r, doc, "suites", "suite", in->suite, &in->nsuites) ||
	    json_files(r, doc, in))
		return -1;
	in->max_cells = (long)maxc;
	return 0;
}

/* Every value of key (also ',' separated) into v; 0 or -1 with err. */
static int query_list(struct query *q, const char *key, const char **v,
		      size_t *n, char *err, size_t errlen)
{
	const char **all = NULL;
	size_t k = query_all(q, key, 1, &all), i;

	for (i = 0; i < k && *n < SUB_MAX_LIST; i++)
		if (*all[i])
			v[(*n)++] = all[i];
	free(all);
	if (i < k) {
		snprintf(err, errlen, "'%s': at most %d names", key,
			 SUB_MAX_LIST);
		return -1;
	}
	return 0;
}

/* A browser sends every form value with its line breaks as CRLF (the
 * HTML form encoding), so a patch read by FileReader or pasted arrives
 * with a CR on each line: take them off, as git am does, so the series
 * is the submitter's file byte for byte (and keys the same build as
 * the same file through the API).  s is the query's own copy. */
static size_t form_patch_text(char *s)
{
	char *w = s, *r = s;

	for (; *r; r++)
		if (!(r[0] == '\r' && r[1] == '\n'))
			*w++ = *r;
	*w = '\0';
	return (size_t)(w - s);
}

/* A form (file_name / file_text pairs, text pasted) or a raw upload (the
 * body, named by ?name=) with its fields in q. */
static int in_from_query(struct req *rq, struct sub_input *in, int raw,
			 char *err, size_t errlen)
{
	const char **nm = NULL, **tx = NULL, *v;
	size_t nn = query_all(&rq->q, "file_name", 0, &nm),
	       nt = query_all(&rq->q, "file_text", 0, &tx), i;
	long n = 0;
	int rc = 0;

	in->base = query_get(&rq->q, "base");
	in->note = query_get(&rq->q, "note");
	in->scheduler = query_get(&rq->q, "scheduler");
	in->cmdline = query_get(&rq->q, "cmdline");
	v = query_get(&rq->q, "max_cells");
	if (v && *v && parse_long(v, 1, SUB_MAX_CELLS, &n)) {
		snprintf(err, errlen, "field 'max_cells': between 1 and %d",
			 SUB_MAX_CELLS);
		rc = -1;
	}
	in->max_cells = n;
	v = query_get(&rq->q, "scale");
	if (!rc && v && *v && parse_double(v, &in->scale)) {
		snprintf(err, errlen, "field 'scale': '%.40s' is not a number",
			 v);
		rc = -1;
	}
	if (!rc && (query_list(&rq->q, "rig", in->rig, &in->nrigs, err,
			       errlen) ||
		    query_list(&rq->q, "suite", in->suite, &in->nsuites, err,
			       errlen)))
		rc = -1;
	if (!rc && !raw && nt > SUB_MAX_FILES - 1) {
		snprintf(err, errlen, "too many patch files: %zu, at most %d",
			 nt, SUB_MAX_FILES - 1);
		rc = -1;
	}
	for (i = 0; !raw && i < nn && i < nt && in->nfiles < SUB_MAX_FILES - 1;
	     i++) {
		in->file[in->nfiles].name = *nm[i] ? nm[i] : "patch";
		in->file[in->nfiles].text = tx[i];
		in->file[in->nfiles++].len = form_patch_text((char *)tx[i]);
	}
	v = raw ? rq->body : query_get(&rq->q, "text");
	if (v && !sub_blank(v, raw ? rq->body_len : strlen(v))) {
		in->file[in->nfiles].name = raw ? query_get(&rq->q, "name") :
					    "pasted.patch";
		if (!in->file[in->nfiles].name)
			in->file[in->nfiles].name = "series.mbox";
		in->file[in->nfiles].text = v;
		in->file[in->nfiles++].len = raw ? rq->body_len :
					     form_patch_text((char *)v);
	}
	free(nm);
	free(tx);
	return rc;
}

/* submission_create for rq: a refused patch recorded (api_patch_refused). */
static enum outcome sub_create(struct req *rq, const struct sub_input *in,
			       int64_t *id, char *err, size_t errlen)
{
	struct caller c = api_caller(rq);
	enum outcome o;

	o = submission_create(rq->d, rq->db, &c, in, id, err, errlen);
	api_patch_refused(rq, o, in->base, err);
	return o;
}

/* POST /api/submissions: JSON, or a raw series with ?base=&rig=... */
int api_submission_add(struct req *rq, struct web_response *r)
{
	struct sub_input in;
	json_t *doc = NULL;
	char err[800] = "";
	enum outcome o;
	int64_t id = 0;
	int rc;

	memset(&in, 0, sizeof(in));
	if (!strcmp(rq->content_type, "application/json")) {
		doc = api_body(rq, r, 1);
		if (!doc)
			return r->status;
		if (in_from_json(r, doc, &in)) {
			rc = r->status;
			goto out;
		}
	} else if (in_from_query(rq, &in, 1, err, sizeof(err))) {
		rc = web_error_json(r, 400, err);
		goto out;
	}
	o = sub_create(rq, &in, &id, err, sizeof(err));
	rc = o != OUT_OK ? api_error(r, o, err) :
	     api_reply_started(r, "/submissions", id);
out:
	json_decref(doc);
	return rc;
}

/* ---- following one ------------------------------------------------- */

static json_t *sub_row_json(const void *elem)
{
	const struct db_submission *s = elem;

	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, "
			 "s:f, s:s, s:s, s:{s:s, s:s}, s:{s:I, s:I}, s:I, "
			 "s:I}", "id", (json_int_t)s->id, "base", s->base,
			 "who", s->who, "state", s->state, "stage", s->stage,
			 "verdict", s->verdict, "error", s->error, "rigs",
			 s->rigs, "suites", s->suites, "max_cells",
			 s->max_cells, "scale", s->scale, "scheduler",
			 s->scheduler, "cmdline", s->cmdline,
			 "kernels", "base", s->kernel[0], "patched",
			 s->kernel[1], "builds", "base",
			 (json_int_t)s->build[0],
			 "patched", (json_int_t)s->build[1], "created",
			 (json_int_t)s->created, "finished",
			 (json_int_t)s->finished);
}

/* Cells done of planned (both sides, every comparison) and headline
 * metrics decided, for the CLI's progress line. */
static void progress_json(const struct sub_view *v, json_t *o)
{
	json_t *cells = json_array();
	long done = 0, planned = 0, dec = 0, total = 0;
	size_t i;

	for (i = 0; i < v->ncells; i++) {
		const struct cmprun_view *c = &v->views[i];

		if (!v->judged[i])
			continue;
		done += c->c.done[0] + c->c.done[1];
		planned += 2L * c->c.planned;
		dec += (long)c->decided;
		total += (long)c->headline;
		json_array_append_new(cells, json_pack("{s:I, s:s, s:s, s:s, "
				      "s:s, s:s}", "comparison",
				      (json_int_t)c->c.id, "rig", c->c.rig,
				      "suite", c->c.suite, "state", c->c.state,
				      "verdict", cmp_verdict_name(c->verdict),
				      "summary",
				      c->summary));
	}
	json_object_set_new(o, "cells", cells);
	json_object_set_new(o, "progress", json_pack("{s:I, s:I, s:I, s:I, "
			    "s:s, s:s, s:i}", "cells_done", (json_int_t)done,
			    "cells_planned", (json_int_t)planned,
			    "headline_decided", (json_int_t)dec,
			    "headline_total", (json_int_t)total, "build_base",
			    v->build[0].id ? v->build[0].state : "not queued",
			    "build_patched", v->build[1].id ?
			    v->build[1].state : "not queued", "ahead",
			    v->ahead));
}

/* GET /api/submissions/ID: the submission with its patches, stages and
 * progress. */
static int submission_one(struct req *rq, struct web_response *r, long id)
{
	struct sub_view sv, *v = &sv;
	json_t *o, *a;
	char err[700];
	size_t i;
	int rc = sub_view_load(rq->db, id, v, err, sizeof(err));

	if (rc) {
		sub_view_release(v);
		return web_error_json(r, http_status_of(rc), err);
	}
	o = sub_row_json(&v->s);
	a = json_array();
	json_object_set_new(o, "note", json_string(v->s.note));
	for (i = 0; i < v->npatches; i++)
		json_array_append_new(a, json_pack("{s:i, s:s, s:s}", "seq",
				      v->patches[i].seq, "name",
				      v->patches[i].name, "subject",
				      v->patches[i].subject));
	json_object_set_new(o, "patches", a);
	a = json_array();
	for (i = 0; i < v->nstages; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:I, s:s}",
				      "stage", v->stages[i].stage, "state",
				      v->stages[i].state, "started",
				      (json_int_t)v->stages[i].started,
				      "finished",
				      (json_int_t)v->stages[i].finished,
				      "log", v->stages[i].log));
	json_object_set_new(o, "stages", a);
	progress_json(v, o);
	json_object_set_new(o, "report", json_string(v->s.report));
	sub_view_release(v);
	return api_reply(r, 200, o);
}

/* GET /api/submissions[/ID] */
int api_submissions(struct req *rq, struct web_response *r)
{
	struct db_submission *v = NULL;
	size_t n = 0;
	long id;
	int rc;

	if (*rq->arg)
		return api_arg_id(rq, r, "submission", &id) ? r->status :
		       submission_one(rq, r, id);
	if (db_submission_list(rq->db, 0, 500, &v, &n))
		return web_error_json(r, 500, "cannot list submissions");
	rc = api_reply_list(r, "submissions", v, n, sizeof(*v),
			    sub_row_json);
	db_submissions_free(v, n);
	return rc;
}

/* POST /api/submissions/ID/cancel */
int api_submission_cancel(struct req *rq, struct web_response *r)
{
	struct caller c = api_caller(rq);
	char err[400] = "";
	enum outcome o;
	long id;

	if (api_arg_id(rq, r, "submission", &id))
		return r->status;
	o = submission_cancel(rq->d, rq->db, &c, id, err, sizeof(err));
	if (o != OUT_OK)
		return api_error(r, o, err);
	return api_reply(r, 200, json_pack("{s:I, s:s}", "id",
					   (json_int_t)id, "state",
					   "cancelled"));
}

/* ---- the pages ------------------------------------------------------ */

static int sub_page_one(struct req *rq, struct web_response *r, long id)
{
	struct web_sub_cell cells[SUB_MAX_LIST * SUB_MAX_LIST];
	struct sub_view v;
	struct web_sub w;
	char err[700];
	size_t i;
	int rc = sub_view_load(rq->db, id, &v, err, sizeof(err));

	if (rc) {
		sub_view_release(&v);
		return web_error_page(r, &rq->q, http_status_of(rc), err);
	}
	memset(&w, 0, sizeof(w));
	w.s = &v.s;
	w.patches = v.patches;
	w.npatches = v.npatches;
	w.stages = v.stages;
	w.nstages = v.nstages;
	for (i = 0; i < v.ncells && i < ALLOC_ARRAY_SIZE(cells); i++) {
		cells[i].cell = &v.cells[i];
		cells[i].c = v.judged[i] ? &v.views[i].c : NULL;
		cells[i].cmp = v.judged[i] ? &v.views[i].cmp : NULL;
		cells[i].verdict = cmp_verdict_name(v.judged[i] ?
						    v.views[i].verdict :
						    V_NONE);
		cells[i].summary = v.judged[i] ? v.views[i].summary : "";
	}
	w.cells = cells;
	w.ncells = i;
	for (i = 0; i < 2; i++)
		w.build[i] = v.build[i].id ? &v.build[i] : NULL;
	w.jobs = v.jobs;
	w.njobs = v.njobs;
	w.ahead = v.ahead;
	w.report = v.s.report;
	if (rq->csrf[0] && (!strcmp(rq->who, v.s.who) ||
			    rq->role == ROLE_OPERATOR))
		w.csrf = rq->csrf;
	rc = web_submission(&w, &rq->q, r);
	sub_view_release(&v);
	return rc;
}

/* GET /submissions, /submissions/ID */
int page_submissions(struct req *rq, struct web_response *r)
{
	struct db_submission *v = NULL;
	size_t n = 0;
	long id;
	int rc;

	if (*rq->arg) {
		if (parse_long(rq->arg, 1, 0x7fffffffL, &id))
			return web_error_page(r, &rq->q, 404,
					      "no such submission");
		return sub_page_one(rq, r, id);
	}
	if (db_submission_list(rq->db, 0, 500, &v, &n))
		return web_error_page(r, &rq->q, 500, "cannot list "
				      "submissions");
	rc = web_submissions(v, n, &rq->q, r);
	db_submissions_free(v, n);
	return rc;
}

/* POST /submissions/ID/cancel from the status page (session + CSRF). */
int page_submission_cancel(struct req *rq, struct web_response *r)
{
	struct caller c = api_caller(rq);
	char err[400] = "";
	enum outcome o;
	long id;

	if (parse_long(rq->arg, 1, 0x7fffffffL, &id))
		return web_error_page(r, &rq->q, 404, "no such submission");
	o = submission_cancel(rq->d, rq->db, &c, id, err, sizeof(err));
	if (o != OUT_OK)
		return web_error_page(r, &rq->q, web_status(o), err);
	snprintf(r->location, sizeof(r->location), "/submissions/%ld", id);
	r->status = 303;
	return 303;
}

/* The form, signed-in only (else to /login and back). */
static int submit_form(struct req *rq, struct web_response *r, int status,
		       const char *error)
{
	struct strbuf bases = STRBUF_INIT;
	struct web_submit_form f;
	int rc;

	sb_init(&bases);
	build_base_list(rq->d, &bases);
	memset(&f, 0, sizeof(f));
	f.who = rq->who;
	f.csrf = rq->csrf;
	f.bases = bases.buf;
	f.rigs = config_get(&rq->d->cfg, "", "submit_rigs");
	f.suites = config_get(&rq->d->cfg, "", "submit_suites");
	f.error = error;
	f.q = error ? &rq->q : NULL;
	rc = web_submit_form(&f, status, r);
	sb_release(&bases);
	return rc;
}

/* GET /submit */
int page_submit_form(struct req *rq, struct web_response *r)
{
	if (rq->role < ROLE_SUBMITTER || !rq->csrf[0]) {
		snprintf(r->location, sizeof(r->location),
			 "/login?next=/submit");
		r->status = 303;
		return 303;
	}
	return submit_form(rq, r, 200, NULL);
}

/* POST /submit: the form's fields; on to the status page. */
int page_submit_post(struct req *rq, struct web_response *r)
{
	struct sub_input in;
	char err[800] = "";
	enum outcome o;
	int64_t id = 0;

	memset(&in, 0, sizeof(in));
	o = in_from_query(rq, &in, 0, err, sizeof(err)) ? OUT_INVALID :
	    sub_create(rq, &in, &id, err, sizeof(err));
	if (o != OUT_OK)
		return submit_form(rq, r, web_status(o), err);
	snprintf(r->location, sizeof(r->location), "/submissions/%lld",
		 (long long)id);
	r->status = 303;
	return 303;
}

/* ---- the queue ------------------------------------------------------ */

#define CONSOLE_TAIL 1024	/* bytes of a console shown, last lines */

/* The last lines of the console log at path into sb ("" if none). */
static void console_tail(const char *path, struct strbuf *sb)
{
	char buf[CONSOLE_TAIL + 1];
	size_t n;
	FILE *f;

	if (!*path)
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	if (fseek(f, -CONSOLE_TAIL, SEEK_END))
		rewind(f);
	n = fread(buf, 1, CONSOLE_TAIL, f);
	fclose(f);
	buf[n] = '\0';
	/* whole lines only, unless the piece is one line */
	sb_adds(sb, strchr(buf, '\n') && n == CONSOLE_TAIL ?
		strchr(buf, '\n') + 1 : buf);
}

/* GET /queue, and /api/queue (its JSON form). */
static int queue(struct req *rq, struct web_response *r, int json)
{
	struct klabd *d = rq->d;
	size_t n = rigmgr_count(d), i;
	struct web_console *con = calloc(n + 1, sizeof(*con));
	struct strbuf *tail = calloc(n + 1, sizeof(*tail));
	char path[sizeof(((struct rig *)0)->console)];
	struct rig *g;
	int rc;

	if (!con || !tail)
		abort();
	for (i = 0; i < n; i++) {
		g = rigmgr_rig(d, i);
		rigmgr_console(g, path, sizeof(path));
		sb_init(&tail[i]);
		console_tail(path, &tail[i]);	/* file reads: unlocked */
		con[i].rig = g->name;
		con[i].tail = tail[i].buf;
	}
	if (json)
		query_add(&rq->q, "format", "json");
	rc = web_queue(rq->db, con, n, &rq->q, r);
	for (i = 0; i < n; i++)
		sb_release(&tail[i]);
	free(tail);
	free(con);
	return rc;
}

int page_queue(struct req *rq, struct web_response *r)
{
	return queue(rq, r, 0);
}

int api_queue(struct req *rq, struct web_response *r)
{
	return queue(rq, r, 1);
}
