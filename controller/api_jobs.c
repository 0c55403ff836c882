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

#include "api_util.h"
#include "catalog.h"
#include "db/jobs.h"
#include "klabd.h"
#include "rig.h"

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
	    api_field_str(r, doc, "scheduler", 0, &jn->scheduler) ||
	    api_field_str(r, doc, "cmdline", 0, &jn->cmdline) ||
	    api_field_num(r, doc, "scale", 0, &jn->scale) ||
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
	size_t i, nk;
	int64_t id;
	char err[300] = "";
	int rc = 0, k;

	if (!doc)
		return r->status;
	memset(&jn, 0, sizeof(jn));
	repeat = 1;
	if (job_fields(r, doc, &jn, &repeat, &ks)) {
		json_decref(doc);
		return r->status;
	}
	nk = json_array_size(ks);
	ids = json_array();
	if (db_begin(rq->db))
		rc = DB_ERR;
	for (k = 0; !rc && k < (repeat ? repeat : 1); k++)
		for (i = 0; !rc && i < nk; i++) {
			jn.kernel = json_string_value(json_array_get(ks, i));
			rc = db_job_add(rq->db, &jn, &id, err, sizeof(err));
			if (!rc)
				json_array_append_new(ids, json_integer(id));
		}
	if (rc)
		db_rollback(rq->db);
	else
		rc = db_commit(rq->db);
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
	size_t n = 0, i;
	long id;
	json_t *a;

	if (*rq->arg) {
		if (parse_long(rq->arg, 1, 0x7fffffffL, &id))
			return web_error_json(r, 400, "invalid job id");
		if (db_job_get(rq->db, id, &j))
			return web_error_json(r, 404, "unknown job");
		a = job_json(&j, 1);
		db_job_release(&j);
		return api_reply(r, 200, a);
	}
	if (db_job_list(rq->db, query_get(&rq->q, "rig"),
			query_get(&rq->q, "state"), 500, &v, &n))
		return web_error_json(r, 500, "cannot list jobs");
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, job_json(&v[i], 0));
	db_jobs_free(v, n);
	return api_reply(r, 200, json_pack("{s:o}", "jobs", a));
}

/* POST /api/rigs/NAME/online */
int api_rig_action(struct req *rq, struct web_response *r)
{
	char name[256], err[300];
	const char *slash = strchr(rq->arg, '/');
	struct rig *g;

	snprintf(name, sizeof(name), "%.*s", slash ? (int)(slash - rq->arg) :
		 0, rq->arg);
	if (!slash || strcmp(slash, "/online"))
		return web_error_json(r, 404, "no such page");
	g = rigmgr_find(rq->d, name);
	if (!g) {
		snprintf(err, sizeof(err), "unknown rig '%s'", name);
		return web_error_json(r, 404, err);
	}
	rigmgr_online(g);
	return api_reply(r, 200, json_pack("{s:b, s:s}", "ok", 1, "rig", g->name));
}

/* GET /api/catalog/available; POST /api/catalog/debian {"spec": ..} */
int api_catalog(struct req *rq, struct web_response *r)
{
	struct strbuf out = STRBUF_INIT;
	char err[600] = "", *ident = NULL;
	const char *spec = NULL;
	json_t *doc;
	int rc;

	if (!strcmp(rq->arg, "available") && !strcmp(rq->method, "GET")) {
		sb_init(&out);
		rc = catalog_available(rq->d, &out, err, sizeof(err));
		r->status = rc ? 502 : 200;
		r->content_type = "text/plain; charset=utf-8";
		sb_add(&r->body, out.buf, out.len);
		sb_release(&out);
		return rc ? web_error_json(r, 502, err) : 200;
	}
	if (strcmp(rq->arg, "debian") || strcmp(rq->method, "POST"))
		return web_error_json(r, 404, "no such page");
	doc = api_body(rq, r, 1);
	if (!doc)
		return r->status;
	if (api_field_str(r, doc, "spec", 1, &spec)) {
		json_decref(doc);
		return r->status;
	}
	rc = catalog_add_debian(rq->d, rq->db, spec, &ident, err,
				sizeof(err));
	json_decref(doc);
	if (rc)
		return web_error_json(r, 400, err[0] ? err :
				      "cannot fetch the kernel");
	rc = api_reply(r, 201, json_pack("{s:s}", "ident", ident));
	free(ident);
	return rc;
}
