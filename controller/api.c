// SPDX-License-Identifier: MIT
/*
 * The JSON API of klabd: import results, read kernels, rigs, suites, runs,
 * metrics, comparisons and history.  Documented in docs/API.md.  Every
 * error is a 4xx/5xx with {"error": "..."} naming the problem.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "judge/compare.h"
#include "klabd.h"
#include "lib/import.h"
#include "web/report.h"

static int reply_db_error(struct web_response *r, int rc, const char *err)
{
	return web_error_json(r, http_status_of(rc), err[0] ? err :
			      "database error");
}

int api_health(struct req *rq, struct web_response *r)
{
	return api_reply(r, 200, json_pack("{s:b, s:s, s:I}", "ok", 1,
					    "version", KLAB_VERSION,
					    "results",
					    (json_int_t)db_count(rq->db,
								 "results")));
}

static const char *suite_for_format(const struct result_set *rs)
{
	if (rs->suite)
		return rs->suite;
	if (!rs->format || !strcmp(rs->format, "klab"))
		return "manual";
	return rs->format;
}

static int import_reply(struct web_response *r, const struct result_set *rs,
			const char *rig, const char *suite, int64_t *ids,
			size_t nids)
{
	json_t *runs = json_array(), *kernels = json_array();
	size_t i, j;

	for (i = 0; i < nids; i++)
		json_array_append_new(runs, json_integer(ids[i]));
	for (i = 0; i < rs->n; i++) {
		const char *k = rs->v[i].kernel ? rs->v[i].kernel : rs->kernel;
		int seen = 0;

		for (j = 0; j < json_array_size(kernels); j++)
			seen |= !strcmp(json_string_value(
					json_array_get(kernels, j)), k);
		if (!seen)
			json_array_append_new(kernels, json_string(k));
	}
	return api_reply(r, 201, json_pack("{s:o, s:o, s:I, s:s, s:s, s:s}",
		"runs", runs, "kernels", kernels, "results",
		(json_int_t)rs->n, "format", rs->format ? rs->format : "",
		"rig", rig, "suite", suite));
}

int api_import(struct req *rq, struct web_response *r)
{
	const char *ct = rq->content_type, *fmtname = query_get(&rq->q,
								"format");
	enum import_format fmt = IMPORT_AUTO;
	struct db_import_opts o;
	struct import_error ie;
	struct result_set rs;
	int64_t *ids = NULL;
	size_t nids = 0;
	char err[512];
	int rc;

	if (*ct && strcmp(ct, "text/plain") && strcmp(ct, "application/json") &&
	    strcmp(ct, "application/octet-stream")) {
		snprintf(err, sizeof(err), "unsupported content type '%s': "
			 "send text/plain or application/json", ct);
		return web_error_json(r, 415, err);
	}
	if (fmtname && import_format_parse(fmtname, &fmt) < 0) {
		snprintf(err, sizeof(err), "unknown format '%s'", fmtname);
		return web_error_json(r, 400, err);
	}
	if (!rq->body_len)
		return web_error_json(r, 400, "empty upload");
	result_set_init(&rs);
	memset(&ie, 0, sizeof(ie));
	if (import_text(rq->body, rq->body_len, fmt, query_get(&rq->q,
			"kernel"), &rs, &ie) < 0) {
		char msg[400];

		import_error_format(&ie, msg, sizeof(msg));
		snprintf(err, sizeof(err), "%s: %s", query_get(&rq->q, "name") ?
			 query_get(&rq->q, "name") : "upload", msg);
		result_set_release(&rs);
		return web_error_json(r, 400, err);
	}
	memset(&o, 0, sizeof(o));
	o.rig = query_get(&rq->q, "rig");
	if (!o.rig)
		o.rig = rs.rig ? rs.rig : "default";
	o.suite = query_get(&rq->q, "suite");
	if (!o.suite)
		o.suite = suite_for_format(&rs);
	o.raw_name = query_get(&rq->q, "name") ? query_get(&rq->q, "name") :
		"upload";
	o.raw = rq->body;
	o.raw_len = rq->body_len;
	err[0] = '\0';
	rc = db_import(rq->db, &rs, &o, &ids, &nids, err, sizeof(err));
	if (rc == DB_OK)
		auth_audit(rq, "import", o.raw_name, "%zu runs of %zu results, "
			   "rig '%s', suite '%s'", nids, rs.n, o.rig, o.suite);
	if (rc == DB_OK)
		rc = import_reply(r, &rs, o.rig, o.suite, ids, nids);
	else
		rc = reply_db_error(r, rc, err);
	free(ids);
	result_set_release(&rs);
	return rc;
}

static json_t *kernel_json(const struct db_kernel *k)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I}",
			 "ident", k->ident, "version", k->version, "base",
			 k->base, "patch_hash", k->patch_hash, "config_hash",
			 k->config_hash, "source", k->source, "provenance",
			 k->provenance, "created", (json_int_t)k->created,
			 "runs", (json_int_t)k->nruns);
}

int api_kernels(struct req *rq, struct web_response *r)
{
	struct db_kernel *v = NULL, k;
	json_t *a;
	size_t n = 0, i;
	char err[300];
	int rc;

	if (*rq->arg) {
		rc = db_kernel_get(rq->db, rq->arg, &k);
		if (rc) {
			snprintf(err, sizeof(err), "unknown kernel '%s'",
				 rq->arg);
			return reply_db_error(r, rc, rc == DB_NOTFOUND ? err :
					      "database error");
		}
		rc = api_reply(r, 200, kernel_json(&k));
		db_kernel_release(&k);
		return rc;
	}
	rc = db_kernel_list(rq->db, &v, &n);
	if (rc)
		return reply_db_error(r, rc, "cannot list kernels");
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, kernel_json(&v[i]));
	db_kernels_free(v, n);
	return api_reply(r, 200, json_pack("{s:o}", "kernels", a));
}

static char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return (char *)(json_is_string(v) ? json_string_value(v) : "");
}

int api_kernel_put(struct req *rq, struct web_response *r)
{
	json_t *doc = api_body(rq, r, 1);
	struct db_kernel k;
	char err[300] = "";
	int rc;

	if (!doc)
		return r->status;
	memset(&k, 0, sizeof(k));
	k.ident = jstr(doc, "ident");
	k.version = jstr(doc, "version");
	k.base = jstr(doc, "base");
	k.patch_hash = jstr(doc, "patch_hash");
	k.config_hash = jstr(doc, "config_hash");
	k.source = jstr(doc, "source");
	k.provenance = jstr(doc, "provenance");
	if (!*k.ident) {
		json_decref(doc);
		return web_error_json(r, 400, "field 'ident' is required");
	}
	rc = db_kernel_put(rq->db, &k, err, sizeof(err));
	if (!rc)
		auth_audit(rq, "kernel put", k.ident, "source '%s'", k.source);
	json_decref(doc);
	if (rc)
		return reply_db_error(r, rc, err);
	return api_reply(r, 201, json_pack("{s:b}", "ok", 1));
}

static json_t *rig_json(const struct db_rig *g)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:I}",
			 "name", g->name, "kind", g->kind, "profile",
			 g->profile, "disks", g->disks, "cpus", g->cpus,
			 "memory_mb", g->memory_mb, "state", g->state,
			 "created", (json_int_t)g->created);
}

int api_rigs(struct req *rq, struct web_response *r)
{
	struct db_rig *v = NULL, g;
	size_t n = 0, i;
	char err[300];
	json_t *a;
	int rc;

	if (*rq->arg) {
		rc = db_rig_get(rq->db, rq->arg, &g);
		if (rc) {
			snprintf(err, sizeof(err), "unknown rig '%s'", rq->arg);
			return reply_db_error(r, rc, err);
		}
		rc = api_reply(r, 200, rig_json(&g));
		db_rig_release(&g);
		return rc;
	}
	if (db_rig_list(rq->db, &v, &n))
		return web_error_json(r, 500, "cannot list rigs");
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, rig_json(&v[i]));
	db_rigs_free(v, n);
	return api_reply(r, 200, json_pack("{s:o}", "rigs", a));
}

int api_rig_put(struct req *rq, struct web_response *r)
{
	json_t *doc = api_body(rq, r, 1);
	struct db_rig g;
	char err[300] = "";
	int rc;

	if (!doc)
		return r->status;
	memset(&g, 0, sizeof(g));
	g.name = jstr(doc, "name");
	g.kind = *jstr(doc, "kind") ? jstr(doc, "kind") : "manual";
	g.profile = jstr(doc, "profile");
	g.state = "idle";
	g.disks = (int)json_integer_value(json_object_get(doc, "disks"));
	g.cpus = (int)json_integer_value(json_object_get(doc, "cpus"));
	g.memory_mb = (int)json_integer_value(json_object_get(doc,
							      "memory_mb"));
	if (!*g.name) {
		json_decref(doc);
		return web_error_json(r, 400, "field 'name' is required");
	}
	rc = db_rig_put(rq->db, &g, err, sizeof(err));
	if (!rc)
		auth_audit(rq, "rig put", g.name, "kind '%s', profile '%s'",
			   g.kind, g.profile);
	json_decref(doc);
	if (rc)
		return reply_db_error(r, rc, err);
	return api_reply(r, 201, json_pack("{s:b}", "ok", 1));
}

int api_suites(struct req *rq, struct web_response *r)
{
	struct db_suite *v = NULL;
	size_t n = 0, i;
	json_t *a;

	if (db_suite_list(rq->db, &v, &n))
		return web_error_json(r, 500, "cannot list suites");
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "name",
				      v[i].name, "description",
				      v[i].description));
	db_suites_free(v, n);
	return api_reply(r, 200, json_pack("{s:o}", "suites", a));
}

int api_suite_put(struct req *rq, struct web_response *r)
{
	json_t *doc = api_body(rq, r, 1);
	char err[300] = "";
	int rc;

	if (!doc)
		return r->status;
	if (!*jstr(doc, "name")) {
		json_decref(doc);
		return web_error_json(r, 400, "field 'name' is required");
	}
	rc = db_suite_put(rq->db, jstr(doc, "name"), jstr(doc, "description"),
			  err, sizeof(err));
	if (!rc)
		auth_audit(rq, "suite put", jstr(doc, "name"), "%s",
			   jstr(doc, "description"));
	json_decref(doc);
	if (rc)
		return reply_db_error(r, rc, err);
	return api_reply(r, 201, json_pack("{s:b}", "ok", 1));
}

static json_t *run_json(const struct db_run *u)
{
	return json_pack("{s:I, s:s, s:s, s:s, s:i, s:s, s:s, s:I, s:I, s:I, "
			 "s:I}", "id", (json_int_t)u->id, "kernel", u->kernel,
			 "rig", u->rig, "suite", u->suite, "repetition",
			 u->repetition, "status", u->status, "error", u->error,
			 "started", (json_int_t)u->started, "finished",
			 (json_int_t)u->finished, "results",
			 (json_int_t)u->nresults, "job",
			 (json_int_t)u->job_id);
}

/* GET /api/runs/ID/raw/NAME */
int api_run_raw(struct req *rq, struct web_response *r)
{
	const char *name = rq->arg2;
	long id;
	char *data = NULL, err[300];
	size_t len = 0;
	int rc;

	if (parse_long(rq->arg, 1, 0x7fffffffL, &id))
		return web_error_json(r, 400, "invalid run id");
	rc = db_raw_get(rq->db, id, name, &data, &len);
	if (rc) {
		snprintf(err, sizeof(err), "run %lld has no raw output '%s'",
			 (long long)id, name);
		return reply_db_error(r, rc, err);
	}
	r->status = 200;
	r->content_type = "text/plain; charset=utf-8";
	sb_add(&r->body, data, len);
	free(data);
	return 200;
}

/* The run with its results and the names of its raw outputs. */
static int run_one(struct req *rq, struct web_response *r, int64_t id)
{
	struct db_sample *s = NULL;
	const char *k[1];
	struct db_run u;
	size_t n = 0, i;
	char err[300] = "", **names = NULL;
	json_t *doc, *res, *raws;
	int rc = db_run_get(rq->db, id, &u);

	if (rc) {
		snprintf(err, sizeof(err), "unknown run %lld", (long long)id);
		return reply_db_error(r, rc, err);
	}
	k[0] = u.kernel;
	rc = db_samples(rq->db, k, 1, u.rig, u.suite, NULL, &s, &n, err,
			sizeof(err));
	if (rc) {
		db_run_release(&u);
		return reply_db_error(r, rc, err);
	}
	res = json_array();
	for (i = 0; i < n; i++)
		if (s[i].run_id == id)
			json_array_append_new(res, json_pack(
				"{s:s, s:s, s:f, s:s}", "metric", s[i].metric,
				"unit", s[i].unit, "value", s[i].value,
				"direction", metric_dir_name(s[i].dir)));
	db_samples_free(s, n);
	raws = json_array();
	if (!db_raw_list(rq->db, id, &names, &n)) {
		for (i = 0; i < n; i++) {
			json_array_append_new(raws, json_string(names[i]));
			free(names[i]);
		}
		free(names);
	}
	doc = run_json(&u);
	json_object_set_new(doc, "results", res);
	json_object_set_new(doc, "raw", raws);
	db_run_release(&u);
	return api_reply(r, 200, doc);
}

int api_runs(struct req *rq, struct web_response *r)
{
	struct db_run *v = NULL;
	size_t n = 0, i;
	long limit = 100, id;
	const char *ls = query_get(&rq->q, "limit");
	json_t *a;

	if (*rq->arg) {
		if (parse_long(rq->arg, 1, 0x7fffffffL, &id))
			return web_error_json(r, 400, "invalid run id");
		return run_one(rq, r, id);
	}
	if (ls && parse_long(ls, 0, 1000000, &limit))
		return web_error_json(r, 400, "invalid limit");
	if (db_run_list(rq->db, query_get(&rq->q, "kernel"),
			query_get(&rq->q, "rig"), query_get(&rq->q, "suite"),
			(int)limit, &v, &n))
		return web_error_json(r, 500, "cannot list runs");
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, run_json(&v[i]));
	db_runs_free(v, n);
	return api_reply(r, 200, json_pack("{s:o}", "runs", a));
}

int api_metrics(struct req *rq, struct web_response *r)
{
	struct db_metric *v = NULL;
	size_t n = 0, i;
	json_t *a;

	if (db_metric_list(rq->db, &v, &n))
		return web_error_json(r, 500, "cannot list metrics");
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "name",
				      v[i].name, "unit", v[i].unit,
				      "direction", metric_dir_name(v[i].dir)));
	db_metrics_free(v, n);
	return api_reply(r, 200, json_pack("{s:o}", "metrics", a));
}

int api_compare(struct req *rq, struct web_response *r)
{
	const char **k = NULL, *base = query_get(&rq->q, "base");
	struct comparison c;
	struct cmp_opts o;
	size_t nk, i, bi = 0;
	char err[700] = "";
	int rc;

	nk = query_all(&rq->q, "k", 1, &k);
	if (nk < 1) {
		free(k);
		return web_error_json(r, 400, "name kernels to compare with k=");
	}
	for (i = 0; base && i < nk; i++)
		if (!strcmp(k[i], base))
			bi = i;
	if (base && strcmp(k[bi], base)) {
		free(k);
		snprintf(err, sizeof(err), "baseline '%s' is not among the "
			 "compared kernels", base);
		return web_error_json(r, 400, err);
	}
	rc = cmp_opts_from_query(&o, &rq->q, err, sizeof(err));
	if (!rc)
		rc = compare_build(rq->db, k, nk, bi, query_get(&rq->q, "rig"),
				   query_get(&rq->q, "suite"), &o, &c, err,
				   sizeof(err));
	free(k);
	if (rc)
		return reply_db_error(r, rc, err);
	rc = api_reply(r, 200, report_json(&c));
	compare_release(&c);
	return rc;
}

int api_history(struct req *rq, struct web_response *r)
{
	const char *metric = query_get(&rq->q, "metric"),
		   *ls = query_get(&rq->q, "limit");
	struct db_sample *s = NULL;
	size_t n = 0, i;
	long limit = 0;
	char err[300] = "";
	json_t *a;
	int rc;

	if (!metric || !*metric)
		return web_error_json(r, 400, "name a metric with metric=");
	if (ls && parse_long(ls, 0, 10000000, &limit))
		return web_error_json(r, 400, "invalid limit");
	rc = db_history(rq->db, metric, query_get(&rq->q, "rig"),
			query_get(&rq->q, "suite"), (int)limit, &s, &n, err,
			sizeof(err));
	if (rc)
		return reply_db_error(r, rc, err);
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:f, s:I, s:i, s:I}",
				      "kernel", s[i].kernel, "value",
				      s[i].value, "run", (json_int_t)s[i].run_id,
				      "repetition", s[i].repetition, "time",
				      (json_int_t)s[i].time));
	rc = api_reply(r, 200, json_pack("{s:s, s:s, s:s, s:o}", "metric",
			metric, "unit", n ? s[0].unit : "", "direction",
			n ? metric_dir_name(s[0].dir) : "none", "points", a));
	db_samples_free(s, n);
	return rc;
}
