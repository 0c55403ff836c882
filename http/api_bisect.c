// SPDX-License-Identifier: MIT
/*
 * Bisections over HTTP: POST /api/bisections (a JSON request: kind
 * series with base and patches, debian with good and bad, or git with
 * base (a configured git base's name), good and bad commits; rig, suite,
 * metrics, max_cells and the job configuration: scale, scheduler,
 * cmdline), GET /api/bisections[/ID], the pages /bisections[/ID], the
 * form /bisections/new of a Debian line or a git range and its POST
 * /bisections, and POST /submissions/ID/bisect, the "Bisect" button of a
 * finished submission whose verdict is worse, for its submitter or an
 * operator (its series on its base, its first rig and suite with that
 * cell's job configuration, the metric posted: the page fills in the
 * first it found worse).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/api.h"
#include "http/api_util.h"
#include "http/auth.h"
#include "flow/bisect.h"
#include "judge/decision.h"
#include "lib/alloc.h"
#include "web/page_bisect.h"

/* "metrics": a name or a list of names. */
static int json_metrics(struct web_response *r, json_t *doc,
			struct bis_input *in)
{
	json_t *x = json_object_get(doc, "metrics"), *e;
	size_t i;

	if (!x)
		x = json_object_get(doc, "metric");
	if (json_is_string(x)) {
		in->metric[in->nmetrics++] = json_string_value(x);
		return 0;
	}
	if (x && (!json_is_array(x) || json_array_size(x) > BIS_MAX_METRICS))
		return web_error_json(r, 400, "field 'metrics': expected a "
				      "list of at most 8 names"), -1;
	json_array_foreach(x, i, e) {
		if (!json_is_string(e))
			return web_error_json(r, 400, "field 'metrics': "
					      "expected strings"), -1;
		in->metric[in->nmetrics++] = json_string_value(e);
	}
	return 0;
}

/* bisection_create for rq: a refused patch recorded (api_patch_refused). */
static enum outcome bis_create(struct req *rq, const struct bis_input *in,
			       int64_t *id, char *err, size_t errlen)
{
	struct caller c = api_caller(rq);
	enum outcome o;

	o = bisection_create(rq->d, rq->db, &c, in, id, err, errlen);
	api_patch_refused(rq, o, in->base, err);
	return o;
}

/* bis_create for a page: 0, or the status of its refusal. */
static int bis_create_status(struct req *rq, const struct bis_input *in,
			     int64_t *id, char *err, size_t errlen)
{
	enum outcome o = bis_create(rq, in, id, err, errlen);

	return o == OUT_OK ? 0 : web_status(o);
}

/* POST /api/bisections */
int api_bisection_add(struct req *rq, struct web_response *r)
{
	struct bis_input in;
	long long maxc = 0;
	char err[800] = "";
	enum outcome o;
	json_t *doc;
	int64_t id = 0;
	int rc;

	memset(&in, 0, sizeof(in));
	doc = api_body(rq, r, 1);
	if (!doc)
		return r->status;
	if (api_field_str(r, doc, "kind", 1, &in.kind) ||
	    api_field_str(r, doc, "base", 0, &in.base) ||
	    api_field_str(r, doc, "good", 0, &in.good) ||
	    api_field_str(r, doc, "bad", 0, &in.bad) ||
	    api_field_str(r, doc, "rig", 1, &in.rig) ||
	    api_field_str(r, doc, "suite", 1, &in.suite) ||
	    api_field_int(r, doc, "max_cells", 0, 1, SUB_MAX_CELLS, &maxc) ||
	    api_job_config_fields(r, doc, &in.scale, &in.scheduler,
				  &in.cmdline) ||
	    json_metrics(r, doc, &in) ||
	    sub_json_patches(r, doc, in.file, &in.nfiles, SUB_MAX_FILES)) {
		rc = r->status;
		goto out;
	}
	in.max_cells = (long)maxc;
	o = bis_create(rq, &in, &id, err, sizeof(err));
	rc = o != OUT_OK ? api_error(r, o, err) :
	     api_reply_started(r, "/bisections", id);
out:
	json_decref(doc);
	return rc;
}

static json_t *bis_row_json(const void *elem)
{
	const struct db_bisection *b = elem;

	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:f, "
			 "s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:I, s:I}",
			 "id", (json_int_t)b->id, "kind", b->kind, "base",
			 b->base, "good", b->good, "bad", b->bad, "rig",
			 b->rig, "suite", b->suite, "metrics", b->metrics,
			 "max_cells", b->max_cells, "scale", b->scale,
			 "scheduler", b->scheduler, "cmdline", b->cmdline,
			 "state", b->state, "phase", b->phase,
			 "answer", b->answer, "outcome", b->outcome, "error",
			 b->error, "who", b->who, "created",
			 (json_int_t)b->created, "finished",
			 (json_int_t)b->finished);
}

/* GET /api/bisections/ID: the bisection with its candidates and steps. */
static int bisection_one(struct req *rq, struct web_response *r, long id)
{
	struct bis_view bv, *v = &bv;
	json_t *o, *c, *s;
	char err[400];
	size_t i;
	int rc = bis_view_load(rq->db, id, v, err, sizeof(err));

	if (rc) {
		bis_view_release(v);
		return web_error_json(r, http_status_of(rc), err);
	}
	o = bis_row_json(&v->b);
	c = json_array();
	s = json_array();
	for (i = 0; i < v->ncands; i++)
		json_array_append_new(c, json_pack("{s:i, s:s, s:s, s:s, s:s}",
			"index", v->cands[i].idx, "label", v->cands[i].label,
			"subject", v->cands[i].subject, "author",
			v->cands[i].author, "kernel", v->cands[i].kernel));
	for (i = 0; i < v->nsteps; i++) {
		const struct db_bis_step *t = &v->steps[i];

		json_array_append_new(s, json_pack("{s:s, s:i, s:s, s:I, s:I, "
			"s:s, s:s, s:s, s:i}", "purpose", t->purpose, "index",
			t->idx, "kernel", t->kernel, "build",
			(json_int_t)t->build, "comparison",
			(json_int_t)t->comparison, "mark", t->mark, "reason",
			t->reason, "delta", t->delta, "cells", t->cells));
	}
	json_object_set_new(o, "candidates", c);
	json_object_set_new(o, "steps", s);
	json_object_set_new(o, "range", json_pack("{s:i, s:i}", "good",
			    (int)v->good, "bad", (int)v->bad));
	json_object_set_new(o, "steps_left", json_integer((json_int_t)
							  v->steps_left));
	json_object_set_new(o, "report", json_string(v->b.report));
	bis_view_release(v);
	return api_reply(r, 200, o);
}

/* GET /api/bisections, /api/bisections/ID */
int api_bisections(struct req *rq, struct web_response *r)
{
	struct db_bisection *v = NULL;
	size_t n = 0;
	long id;
	int rc;

	if (*rq->arg)
		return api_arg_id(rq, r, "bisection", &id) ? r->status :
		       bisection_one(rq, r, id);
	if (db_bisection_list(rq->db, 0, 500, &v, &n))
		return web_error_json(r, 500, "cannot list bisections");
	rc = api_reply_list(r, "bisections", v, n, sizeof(*v), bis_row_json);
	db_bisections_free(v, n);
	return rc;
}

/* The session's CSRF token when it may start a bisection, else NULL. */
static const char *form_csrf(const struct req *rq)
{
	return rq->role >= ROLE_SUBMITTER && rq->csrf[0] ? rq->csrf : NULL;
}

/* GET /bisections, /bisections/ID, /bisections/new */
int page_bisections(struct req *rq, struct web_response *r)
{
	struct db_bisection *v = NULL;
	struct web_bisect w;
	struct bis_view bv;
	char err[400];
	size_t n = 0;
	long id;
	int rc;

	if (!*rq->arg) {
		if (db_bisection_list(rq->db, 0, 500, &v, &n))
			return web_error_page(r, &rq->q, 500, "cannot list "
					      "bisections");
		rc = web_bisections(v, n, &rq->q, r);
		db_bisections_free(v, n);
		return rc;
	}
	if (!strcmp(rq->arg, "new"))
		return web_bisect_form(&rq->q, form_csrf(rq), 0, NULL, r);
	if (parse_long(rq->arg, 1, 0x7fffffffL, &id))
		return web_error_page(r, &rq->q, 404, "no such bisection");
	rc = bis_view_load(rq->db, id, &bv, err, sizeof(err));
	if (rc) {
		bis_view_release(&bv);
		return web_error_page(r, &rq->q, http_status_of(rc), err);
	}
	memset(&w, 0, sizeof(w));
	w.b = &bv.b;
	w.cands = bv.cands;
	w.ncands = bv.ncands;
	w.steps = bv.steps;
	w.nsteps = bv.nsteps;
	w.good = bv.good;
	w.bad = bv.bad;
	w.steps_left = bv.steps_left;
	rc = web_bisection(&w, &rq->q, r);
	bis_view_release(&bv);
	return rc;
}

/* bisection_create names the API's field 'metrics'; the forms have
 * one 'metric'. */
static void form_field_name(char *err)
{
	static const char api[] = "field 'metrics':";

	if (!strncmp(err, api, sizeof(api) - 1))	/* drop the 's' */
		memmove(err + 13, err + 14, strlen(err + 14) + 1);
}

/* The request of a worse submission's "Bisect" button: its series (the
 * stored files) on its base, its first rig x suite with the job
 * configuration its comparison ran with, metric as posted. */
static int bis_from_sub(const struct sub_view *v, const char *metric,
			struct bis_input *in, struct strbuf *texts,
			char *err, size_t errlen)
{
	const char *p = v->s.files;
	struct strbuf *t;
	char path[1400];
	size_t n;

	memset(in, 0, sizeof(*in));
	if (strcmp(v->s.state, "finished") ||
	    cmp_verdict_of(v->s.verdict) != V_WORSE || !v->ncells) {
		snprintf(err, errlen, "submission %lld is not a finished "
			 "submission found worse", (long long)v->s.id);
		return 409;
	}
	in->kind = "series";
	in->base = v->s.base;
	in->rig = v->cells[0].rig;
	in->suite = v->cells[0].suite;
	if (v->judged[0]) {
		in->scale = v->views[0].c.scale;
		in->scheduler = v->views[0].c.scheduler;
		in->cmdline = v->views[0].c.cmdline;
	}
	if (metric && *metric)
		in->metric[in->nmetrics++] = metric;
	while (*p && in->nfiles < SUB_MAX_FILES) {
		n = strcspn(p, "\n");
		snprintf(path, sizeof(path), "%.*s", (int)n, p);
		p += n + (p[n] == '\n');
		t = &texts[in->nfiles];
		sb_init(t);
		in->nfiles++;	/* the caller releases t in every case */
		if (sb_read_file(t, path)) {
			snprintf(err, errlen, "cannot read the stored patch "
				 "'%.300s'", path);
			return 500;
		}
		in->file[in->nfiles - 1].name = "series";
		in->file[in->nfiles - 1].text = t->buf;
		in->file[in->nfiles - 1].len = t->len;
	}
	return 0;
}

/* Only a submission's submitter or an operator bisects it: 0, or 403
 * with err naming the owner (as submission_cancel). */
static int bis_sub_owner(const struct req *rq, const struct sub_view *v,
			 char *err, size_t errlen)
{
	if (!strcmp(v->s.who, rq->who) || rq->role == ROLE_OPERATOR)
		return 0;
	snprintf(err, errlen, "submission %lld is '%.100s''s: only its "
		 "submitter or an operator may bisect it",
		 (long long)v->s.id, v->s.who);
	return 403;
}

/* POST /submissions/ID/bisect (the page's button, session + CSRF) */
int page_bisect_submission(struct req *rq, struct web_response *r)
{
	struct strbuf *texts = calloc(SUB_MAX_FILES, sizeof(*texts));
	struct bis_input in;
	struct sub_view v;
	char err[800] = "";
	int64_t bid = 0;
	size_t i;
	long id;
	int rc;

	if (!texts)
		abort();
	memset(&in, 0, sizeof(in));
	if (parse_long(rq->arg, 1, 0x7fffffffL, &id)) {
		free(texts);
		return web_error_page(r, &rq->q, 404, "no such submission");
	}
	rc = sub_view_load(rq->db, id, &v, err, sizeof(err));
	if (rc)
		rc = http_status_of(rc);
	else
		rc = bis_sub_owner(rq, &v, err, sizeof(err));
	if (!rc)
		rc = bis_from_sub(&v, query_get(&rq->q, "metric"), &in, texts,
				  err, sizeof(err));
	if (!rc)
		rc = bis_create_status(rq, &in, &bid, err, sizeof(err));
	for (i = 0; i < in.nfiles; i++)
		sb_release(&texts[i]);
	free(texts);
	sub_view_release(&v);
	if (rc) {
		form_field_name(err);
		return web_error_page(r, &rq->q, rc, err);
	}
	snprintf(r->location, sizeof(r->location), "/bisections/%lld",
		 (long long)bid);
	r->status = 303;
	return 303;
}

/* POST /bisections (the form of /bisections/new, session + CSRF): on to
 * the new bisection, or the form again with the error and the values. */
int page_bisection_post(struct req *rq, struct web_response *r)
{
	const char *mc = query_get(&rq->q, "max_cells"),
		   *sc = query_get(&rq->q, "scale");
	struct bis_input in;
	char err[800] = "";
	int64_t id = 0;
	long n = 0;
	int rc = 0;

	memset(&in, 0, sizeof(in));
	in.kind = "debian";
	if (query_get(&rq->q, "kind") && !strcmp(query_get(&rq->q, "kind"),
						  "git")) {
		in.kind = "git";
		in.base = query_get(&rq->q, "base");
	}
	in.good = query_get(&rq->q, "good");
	in.bad = query_get(&rq->q, "bad");
	in.rig = query_get(&rq->q, "rig");
	in.suite = query_get(&rq->q, "suite");
	in.metric[0] = query_get(&rq->q, "metric");
	in.nmetrics = in.metric[0] && *in.metric[0];
	in.scheduler = query_get(&rq->q, "scheduler");
	in.cmdline = query_get(&rq->q, "cmdline");
	if (mc && *mc && parse_long(mc, 3, SUB_MAX_CELLS, &n)) {
		snprintf(err, sizeof(err), "field 'max_cells': a number of "
			 "cells a side, 3 to %d", SUB_MAX_CELLS);
		rc = 400;
	}
	if (!rc && sc && *sc && parse_double(sc, &in.scale)) {
		snprintf(err, sizeof(err), "field 'scale': '%.40s' is not a "
			 "number", sc);
		rc = 400;
	}
	in.max_cells = n;
	if (!rc)
		rc = bis_create_status(rq, &in, &id, err, sizeof(err));
	if (rc) {
		form_field_name(err);
		return web_bisect_form(&rq->q, rq->csrf, rc, err, r);
	}
	snprintf(r->location, sizeof(r->location), "/bisections/%lld",
		 (long long)id);
	r->status = 303;
	return 303;
}
