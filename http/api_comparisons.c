// SPDX-License-Identifier: MIT
/*
 * Comparison runs over HTTP: POST /api/comparisons starts one (its first
 * look's cells queued at once, the driver of comparisons.c does the
 * rest), GET /api/comparisons lists them, GET /api/comparisons/ID and the
 * page /comparisons/ID show one with its verdict table.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/api.h"
#include "http/api_util.h"
#include "http/auth.h"
#include "flow/comparisons.h"
#include "klabd/klabd.h"
#include "flow/driver.h"
#include "lab/job_check.h"
#include "lab/rig.h"
#include "web/report.h"

#define MAX_CELLS_DEFAULT 20
#define MAX_CELLS_LIMIT 200

/* The floors of a request, checked, one a line into sb; 0 or -1 after a
 * 400. */
static int floor_fields(struct web_response *r, json_t *doc,
			struct strbuf *sb)
{
	json_t *v = json_object_get(doc, "floor"), *e;
	struct vd_policy pol;
	char msg[300];
	size_t i;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v)) {
		web_error_json(r, 400, "field 'floor': expected an array");
		return -1;
	}
	vd_policy_default(&pol);
	json_array_foreach(v, i, e) {
		const char *s = json_string_value(e);

		if (!s || strchr(s, '\n') || vd_policy_add_floor(&pol, s)) {
			snprintf(msg, sizeof(msg), "field 'floor[%zu]': "
				 "expected [SUITE/]GLOB:PCT (at most %d)", i,
				 VD_MAX_FLOORS);
			web_error_json(r, 400, msg);
			return -1;
		}
		sb_addf(sb, "%s\n", s);
	}
	return 0;
}

/* The fields of POST /api/comparisons into c (strings point into doc);
 * 0, or -1 after a 400. */
static int cmp_fields(struct web_response *r, json_t *doc,
		      struct db_comparison *c, struct strbuf *floors)
{
	const char *s[6] = { NULL };
	long long maxc = MAX_CELLS_DEFAULT;
	double maxs = -1;

	if (api_field_ident(r, doc, "base", IDENT_KERNEL, 1, &s[0]) ||
	    api_field_ident(r, doc, "candidate", IDENT_KERNEL, 1, &s[1]) ||
	    api_field_ident(r, doc, "rig", IDENT_RIG, 1, &s[2]) ||
	    api_field_ident(r, doc, "suite", IDENT_SUITE, 1, &s[3]) ||
	    api_job_config_fields(r, doc, &c->scale, &s[4], &s[5]) ||
	    api_field_int(r, doc, "max_cells", 0, 1, MAX_CELLS_LIMIT, &maxc) ||
	    api_field_num(r, doc, "max_seconds", 0, &maxs) ||
	    api_field_bool(r, doc, "stop_on_worse", 0, &c->stop_on_worse) ||
	    floor_fields(r, doc, floors))
		return -1;
	if (maxs < -1 || (maxs >= 0 && maxs < 1)) {
		web_error_json(r, 400, "field 'max_seconds': at least 1");
		return -1;
	}
	c->base = (char *)s[0];
	c->candidate = (char *)s[1];
	c->rig = (char *)s[2];
	c->suite = (char *)s[3];
	c->scheduler = (char *)s[4];
	c->cmdline = (char *)s[5];
	c->max_cells = (int)maxc;
	c->max_seconds = maxs;
	c->floors = floors->buf;
	return 0;
}

/* What a request may not ask for: 0, or an HTTP status with err set. */
static int cmp_refuse(struct req *rq, struct db_comparison *c,
		      struct vd_plan *plan, char *err, size_t errlen)
{
	enum outcome o;

	if (!strcmp(c->base, c->candidate)) {
		snprintf(err, errlen, "base and candidate are the same catalog "
			 "entry '%s': an A/A comparison needs two entries of "
			 "the kernel", c->base);
		return 400;
	}
	if (!rig_class_resolve(rq->d, c->rig, NULL, 0)) {
		snprintf(err, errlen, "unknown rig '%.100s' (no rig or "
			 "class of that name)", c->rig);
		return 404;
	}
	if (job_suite_check(rq->d, c->suite, err, errlen))
		return 403;
	o = job_config_check(rq->d, c->scale, c->scheduler, c->cmdline, err,
			     errlen);
	if (o != OUT_OK)
		return web_status(o);
	vd_plan_default(plan);
	if (c->max_seconds < 0)
		c->max_seconds = plan->max_seconds;
	if (vd_plan_set_cap(plan, (size_t)c->max_cells)) {
		snprintf(err, errlen, "field 'max_cells': at least %zu (the "
			 "first look)", plan->looks[0]);
		return 400;
	}
	c->planned = (int)plan->looks[0];
	return 0;
}

/* The comparison and its first look's cells, in one transaction. */
static int cmp_insert(struct req *rq, struct db_comparison *c, char *err,
		      size_t errlen)
{
	int rc = db_begin(rq->db) ? DB_ERR : DB_OK;

	c->who = rq->who;
	if (!rc)
		rc = db_comparison_add(rq->db, c, &c->id, err, errlen);
	if (!rc)
		rc = cmprun_queue(rq->db, c, c->planned, err, errlen);
	if (rc) {
		db_rollback(rq->db);
		return rc;
	}
	return db_commit(rq->db);
}

/* POST /api/comparisons {"base", "candidate", "rig", "suite", ...} */
int api_comparison_add(struct req *rq, struct web_response *r)
{
	json_t *doc = api_body(rq, r, 1);
	struct strbuf floors = STRBUF_INIT;
	struct db_comparison c;
	struct vd_plan plan;
	char err[600] = "";
	int rc;

	if (!doc)
		return r->status;
	sb_init(&floors);
	memset(&c, 0, sizeof(c));
	if (cmp_fields(r, doc, &c, &floors)) {
		rc = r->status;
		goto out;
	}
	rc = cmp_refuse(rq, &c, &plan, err, sizeof(err));
	if (rc) {
		rc = web_error_json(r, rc, err);
		goto out;
	}
	rc = cmp_insert(rq, &c, err, sizeof(err));
	if (rc) {
		rc = web_error_json(r, http_status_of(rc), err[0] ? err :
				    "cannot start the comparison");
		goto out;
	}
	auth_audit(rq, "comparison add", c.rig, "comparison %lld: '%s' "
		   "against '%s', suite '%s', max_cells %d", (long long)c.id,
		   c.candidate, c.base, c.suite, c.max_cells);
	rigmgr_kick(rq->d);
	driver_kick(rq->d->cmprun);
	rc = api_reply(r, 201, json_pack("{s:I, s:i, s:i, s:s}", "id",
					 (json_int_t)c.id, "planned",
					 c.planned, "max_cells", c.max_cells,
					 "state", "queued"));
out:
	json_decref(doc);
	sb_release(&floors);
	return rc;
}

static json_t *row_json(const void *elem)
{
	const struct db_comparison *c = elem;

	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:s, "
			 "s:{s:i, s:i}, s:{s:i, s:i}, s:i, s:i, s:i, s:f, "
			 "s:b, s:i, s:s, s:I, s:I}", "id", (json_int_t)c->id,
			 "state",
			 c->state, "base", c->base, "candidate", c->candidate,
			 "rig", c->rig, "suite", c->suite, "scheduler",
			 c->scheduler, "scale", c->scale, "cmdline",
			 c->cmdline, "cells", "base", c->done[0], "candidate",
			 c->done[1], "failed", "base", c->failed[0],
			 "candidate", c->failed[1], "borrowed", c->borrowed,
			 "planned", c->planned,
			 "max_cells", c->max_cells, "max_seconds",
			 c->max_seconds, "stop_on_worse", c->stop_on_worse,
			 "open", c->open, "error", c->error,
			 "created", (json_int_t)c->created, "finished",
			 (json_int_t)c->finished);
}

/* The headline metrics, decided (with their verdicts) and open. */
static void metrics_json(const struct cmprun_view *v, json_t *o)
{
	json_t *dec = json_object(), *open = json_array();
	size_t i;

	for (i = 0; v->cmp.nk == 2 && i < v->cmp.nm; i++) {
		const struct cmp_metric *m = &v->cmp.m[i];
		enum cmp_verdict vd = m->cells[1].verdict;

		if (!cmprun_headline(m))
			continue;
		if (cmp_verdict_decided(vd))
			json_object_set_new(dec, m->name, json_string(
					    cmp_verdict_name(vd)));
		else
			json_array_append_new(open, json_string(m->name));
	}
	json_object_set_new(o, "headline", json_pack("{s:I, s:I, s:I}",
			    "total", (json_int_t)v->headline, "decided",
			    (json_int_t)v->decided, "open",
			    (json_int_t)v->open));
	json_object_set_new(o, "metrics_decided", dec);
	json_object_set_new(o, "metrics_open", open);
}

static int comparison_one(struct req *rq, struct web_response *r, long id)
{
	struct cmprun_view v;
	char err[700] = "";
	json_t *o;
	int rc = cmprun_view_load(rq->db, id, &v, err, sizeof(err));

	if (rc) {
		cmprun_view_release(&v);
		return web_error_json(r, http_status_of(rc), err);
	}
	o = row_json(&v.c);
	json_object_set_new(o, "verdict",
			    json_string(cmp_verdict_name(v.verdict)));
	json_object_set_new(o, "summary", json_string(v.summary));
	metrics_json(&v, o);
	json_object_set_new(o, "comparison", report_json(&v.cmp));
	cmprun_view_release(&v);
	return api_reply(r, 200, o);
}

/* GET /api/comparisons[/ID] */
int api_comparisons(struct req *rq, struct web_response *r)
{
	struct db_comparison *v = NULL;
	size_t n = 0;
	long id;
	int rc;

	if (*rq->arg)
		return api_arg_id(rq, r, "comparison", &id) ? r->status :
		       comparison_one(rq, r, id);
	if (db_comparison_list(rq->db, 0, 500, &v, &n))
		return web_error_json(r, 500, "cannot list comparisons");
	rc = api_reply_list(r, "comparisons", v, n, sizeof(*v), row_json);
	db_comparisons_free(v, n);
	return rc;
}

/* GET /comparisons/ID */
int page_comparison(struct req *rq, struct web_response *r)
{
	struct cmprun_view v;
	char err[700] = "";
	long id;
	int rc;

	if (parse_long(rq->arg, 1, 0x7fffffffL, &id))
		return web_error_page(r, &rq->q, 404, "no such comparison");
	rc = cmprun_view_load(rq->db, id, &v, err, sizeof(err));
	if (rc)
		rc = web_error_page(r, &rq->q, http_status_of(rc), err);
	else
		rc = web_comparison(&v.c, &v.cmp, cmp_verdict_name(v.verdict),
				    v.summary, &rq->q, r);
	cmprun_view_release(&v);
	return rc;
}
