// SPDX-License-Identifier: MIT
/*
 * Users' side of the lab: queue jobs (kernel x rig x suite, repeated and
 * interleaved), list them with their failure class and console log, bring
 * an offline rig back, and add kernels from Debian's archive.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/api.h"
#include "http/api_util.h"
#include "http/auth.h"
#include "lab/catalog.h"
#include "db/db.h"
#include "db/jobs.h"
#include "klabd/klabd.h"
#include "lab/job_check.h"
#include "lab/rig.h"
#include "lib/config.h"
#include "web/web.h"

static json_t *job_json(const struct db_job *j, int full)
{
	json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:f, s:s, s:s, "
			      "s:s, s:i, s:I, s:I, s:I}", "id",
			      (json_int_t)j->id, "kernel", j->kernel, "rig",
			      j->rig, "suite", j->suite, "scheduler",
			      j->scheduler, "cmdline", j->cmdline, "scale",
			      j->scale, "state", j->state, "failure",
			      j->failure, "error", j->error, "attempts",
			      j->attempts, "created", (json_int_t)j->created,
			      "started", (json_int_t)j->started, "finished",
			      (json_int_t)j->finished);

	if (full) {
		json_object_set_new(o, "console", json_string(j->console));
		json_object_set_new(o, "output", json_string(j->output));
	}
	return o;
}

/* A job as the list shows it. */
static json_t *job_brief_json(const void *elem)
{
	return job_json(elem, 0);
}

/* Queue repeat x kernels jobs in one transaction, their ids into ids,
 * and record who did; 0 or a DB_E* code with err filled. */
static int jobs_insert(struct req *rq, struct db_job_new *jn, json_t *ks,
		       json_int_t repeat, json_t *ids, char *err,
		       size_t errlen)
{
	size_t i, nk = json_array_size(ks);
	json_int_t k;
	int64_t id;
	int rc = db_begin(rq->db) ? DB_ERR : 0;

	for (k = 0; !rc && k < repeat; k++)
		for (i = 0; !rc && i < nk; i++) {
			jn->kernel = json_string_value(json_array_get(ks, i));
			if (!jn->kernel) {
				snprintf(err, errlen, "kernels[%zu]: "
					 "expected a string", i);
				rc = DB_INVALID;
				break;
			}
			rc = db_job_add(rq->db, jn, &id, err, errlen);
			if (!rc)
				json_array_append_new(ids, json_integer(id));
		}
	if (rc) {
		db_rollback(rq->db);
		return rc;
	}
	rc = db_commit(rq->db);
	if (!rc)
		auth_audit(rq, "job add", jn->rig, "%zu jobs, suite '%s', "
			   "cmdline '%s'", json_array_size(ids), jn->suite,
			   jn->cmdline ? jn->cmdline : "");
	return rc;
}

/*
 * The fields of POST /api/jobs, strictly typed; *ks a new reference to the
 * kernels (names checked).  0, or -1 after a 400.
 */
static int job_fields(struct web_response *r, json_t *doc,
		      struct db_job_new *jn, long long *repeat, json_t **ks)
{
	json_t *v = json_object_get(doc, "kernels");
	char what[32];
	size_t i;

	if (api_field_ident(r, doc, "rig", IDENT_RIG, 1, &jn->rig) ||
	    api_field_ident(r, doc, "suite", IDENT_SUITE, 1, &jn->suite) ||
	    api_job_config_fields(r, doc, &jn->scale, &jn->scheduler,
				  &jn->cmdline) ||
	    api_field_int(r, doc, "repeat", 0, 1, 1000, repeat))
		return -1;
	if (v && !json_is_null(v) && !json_is_array(v)) {
		web_error_json(r, 400, "field 'kernels': expected an array");
		return -1;
	}
	if (!v || json_is_null(v)) {
		*ks = json_array();
		if (api_field_ident(r, doc, "kernel", IDENT_KERNEL, 1,
				    &jn->kernel)) {
			json_decref(*ks);
			return -1;
		}
		json_array_append(*ks, json_object_get(doc, "kernel"));
		return 0;
	}
	if (!json_array_size(v)) {
		web_error_json(r, 400, "field 'kernels': is empty");
		return -1;
	}
	for (i = 0; i < json_array_size(v); i++) {
		snprintf(what, sizeof(what), "kernels[%zu]", i);
		if (!api_value_ident(r, json_array_get(v, i), what,
				     IDENT_KERNEL))
			return -1;
	}
	*ks = json_incref(v);
	return 0;
}

/* POST /api/jobs {"kernels":[..] | "kernel", "rig", "suite", "scheduler",
 * "scale", "repeat", "cmdline"}: repetitions interleave the kernels. */
int api_job_add(struct req *rq, struct web_response *r)
{
	json_t *doc = api_body(rq, r, 1), *ks, *ids;
	struct db_job_new jn;
	long long repeat;
	char err[700] = "";
	enum outcome o;
	int rc;

	if (!doc)
		return r->status;
	memset(&jn, 0, sizeof(jn));
	repeat = 1;
	if (job_fields(r, doc, &jn, &repeat, &ks)) {
		json_decref(doc);
		return r->status;
	}
	/* an unknown suite is refused to a job as forbidden (403) */
	o = job_suite_check(rq->d, jn.suite, err, sizeof(err)) ?
	    OUT_FORBIDDEN : job_config_check(rq->d, jn.scale, jn.scheduler,
					     jn.cmdline, err, sizeof(err));
	if (o != OUT_OK) {
		json_decref(ks);
		json_decref(doc);
		return api_error(r, o, err);
	}
	ids = json_array();
	rc = jobs_insert(rq, &jn, ks, repeat ? repeat : 1, ids, err,
			 sizeof(err));
	json_decref(ks);
	json_decref(doc);
	if (rc) {
		json_decref(ids);
		return web_error_json(r, http_status_of(rc), err[0] ? err :
				      "cannot queue jobs");
	}
	rigmgr_kick(rq->d);
	return api_reply(r, 201, json_pack("{s:o}", "jobs", ids));
}

int api_jobs(struct req *rq, struct web_response *r)
{
	struct db_job *v = NULL, j;
	size_t n = 0;
	long id;
	json_t *a;
	int rc;

	if (*rq->arg) {
		if (api_arg_id(rq, r, "job", &id))
			return r->status;
		if (db_job_get(rq->db, id, &j))
			return web_error_json(r, 404, "unknown job");
		a = job_json(&j, 1);
		json_object_set_new(a, "steps",
				    web_job_steps_json(rq->db, j.id));
		db_job_release(&j);
		return api_reply(r, 200, a);
	}
	if (db_job_list(rq->db, query_get(&rq->q, "rig"),
			query_get(&rq->q, "state"), 500, &v, &n))
		return web_error_json(r, 500, "cannot list jobs");
	rc = api_reply_list(r, "jobs", v, n, sizeof(*v), job_brief_json);
	db_jobs_free(v, n);
	return rc;
}

/* GET /api/steps?rig=R&suite=S&limit=N: where cells spend their time,
 * the mean of each step over the newest N (20) done jobs (web_steps). */
int api_steps(struct req *rq, struct web_response *r)
{
	const char *rig = query_get(&rq->q, "rig");
	const char *suite = query_get(&rq->q, "suite");
	const char *ls = query_get(&rq->q, "limit");
	long limit = 20;
	json_t *doc;
	int rc;

	if (ls && parse_long(ls, 1, 100000, &limit))
		return web_error_json(r, 400, "invalid limit");
	rc = web_steps_json(rq->db, rig && *rig ? rig : NULL,
			    suite && *suite ? suite : NULL, (int)limit, &doc);
	if (rc)
		return api_db_error(r, rc, "cannot read the jobs' steps");
	return api_reply(r, 200, doc);
}

/* POST /api/rigs/NAME/online */
int api_rig_online(struct req *rq, struct web_response *r)
{
	struct caller c = api_caller(rq);
	char err[300];
	struct rig *g;
	enum outcome o;

	o = rigmgr_bring_online(rq->d, rq->db, &c, rq->arg, "over the api",
				&g, err, sizeof(err));
	if (o != OUT_OK)
		return api_error(r, o, err);
	return api_reply(r, 200, json_pack("{s:b, s:s}", "ok", 1, "rig",
					   g->name));
}

/* GET /api/catalog/available: Debian's kernels, as text */
int api_catalog_available(struct req *rq, struct web_response *r)
{
	struct strbuf out = STRBUF_INIT;
	char err[600] = "";
	int rc;

	sb_init(&out);
	rc = catalog_available(rq->d, &out, err, sizeof(err));
	r->status = rc ? 502 : 200;
	r->content_type = "text/plain; charset=utf-8";
	sb_add(&r->body, out.buf, out.len);
	sb_release(&out);
	return rc ? web_error_json(r, 502, err) : 200;
}

/* POST /api/catalog/debian {"spec": ..} */
int api_catalog_debian(struct req *rq, struct web_response *r)
{
	char err[600] = "", *ident = NULL;
	const char *spec = NULL;
	json_t *doc;
	int rc;

	doc = api_body(rq, r, 1);
	if (!doc)
		return r->status;
	if (api_field_str(r, doc, "spec", 1, &spec)) {
		json_decref(doc);
		return r->status;
	}
	rc = catalog_add_debian(rq->d, rq->db, spec, &ident, err,
				sizeof(err));
	if (!rc)
		auth_audit(rq, "kernel add", ident, "debian '%s'", spec);
	json_decref(doc);
	if (rc)
		return web_error_json(r, 400, err[0] ? err :
				      "cannot fetch the kernel");
	rc = api_reply(r, 201, json_pack("{s:s}", "ident", ident));
	free(ident);
	return rc;
}
