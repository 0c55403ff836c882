// SPDX-License-Identifier: MIT
/*
 * The JSON API of klabd: health and status, import results, read runs,
 * metrics, comparisons and history (kernels, rigs and suites are
 * api_inventory.c's).  Documented in docs/API.md.  Every error is a
 * 4xx/5xx with {"error": "..."} naming the problem.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "http/api.h"
#include "http/api_import_mail.h"
#include "http/api_util.h"
#include "http/auth.h"
#include "judge/compare.h"
#include "klabd/klabd.h"
#include "lib/import.h"
#include "lib/sha256.h"
#include "lab/rig.h"
#include "lab/rig_conf.h"
#include "flow/track.h"

/* Defaults of the import limits (config keys max_import_kernels and
 * max_import_results): the largest import stays well under a second of
 * the database's write lock (docs/PERFORMANCE.md). */
#define IMPORT_MAX_KERNELS 1000
#define IMPORT_MAX_RESULTS 200000
#include "web/compare_hist.h"
#include "web/report.h"
#include "web/web.h"

int api_health(struct req *rq, struct web_response *r)
{
	return api_reply(r, 200, json_pack("{s:b, s:s, s:I}", "ok", 1,
					    "version", KLAB_VERSION,
					    "results",
					    (json_int_t)db_count(rq->db,
								 "results")));
}

int api_status(struct req *rq, struct web_response *r)
{
	struct klabd_mem m;

	klabd_mem(rq->d, &m);
	return api_reply(r, 200,
			 json_pack("{s:{s:I, s:I, s:I, s:I}, "
				   "s:{s:I, s:I, s:I, s:I}}",
				   "malloc", "heap", (json_int_t)m.heap,
				   "in_use", (json_int_t)m.in_use,
				   "free", (json_int_t)m.free,
				   "mmapped", (json_int_t)m.mmapped,
				   "db_pool", "idle", (json_int_t)m.pool_idle,
				   "cache_bytes", (json_int_t)m.pool_cache,
				   "stmt_bytes", (json_int_t)m.pool_stmt,
				   "slab_lines", (json_int_t)m.slab_used));
}

static const char *suite_for_format(const struct result_set *rs)
{
	if (rs->suite)
		return rs->suite;
	if (!rs->format || !strcmp(rs->format, "klab"))
		return "manual";
	return rs->format;
}

static int import_reply(struct web_response *r, int status,
			const struct result_set *rs, const char *rig,
			const char *suite, int64_t *ids, size_t nids,
			json_t *kinds)
{
	json_t *runs = json_array(), *kernels = json_array(),
	       *seen = json_object();
	size_t i;

	for (i = 0; i < nids; i++)
		json_array_append_new(runs, json_integer(ids[i]));
	for (i = 0; i < rs->n; i++) {
		const char *k = rs->v[i].kernel ? rs->v[i].kernel : rs->kernel;

		if (json_object_get(seen, k))
			continue;
		json_object_set_new(seen, k, json_true());
		json_array_append_new(kernels, json_string(k));
	}
	json_decref(seen);
	return api_reply(r, status, json_pack("{s:o, s:o, s:I, s:s, s:s, s:s, "
		"s:o}", "runs", runs, "kernels", kernels, "results",
		(json_int_t)rs->n, "format", rs->format ? rs->format : "",
		"rig", rig, "suite", suite, "kinds", kinds));
}

/* A config key of the import limits; dflt when unset or invalid. */
static size_t import_limit(struct req *rq, const char *key, long dflt)
{
	const char *v = config_get(&rq->d->cfg, "", key);
	long n;

	if (!v || parse_long(v, 0, 100000000L, &n))
		return (size_t)dflt;
	return (size_t)n;
}

/*
 * The idempotency key of an import into key: "key:" and the client's
 * Idempotency-Key header, else "sha256:" and the hash of the upload and
 * its parameters.  0, or -1 after a 400 for a bad header.
 */
static int import_key(struct req *rq, struct web_response *r, char *key,
		      size_t keylen)
{
	static const char *const params[] = { "format", "kernel", "rig",
					      "suite", "name" };
	const char *h = rq->idem_key;
	char hex[SHA256_HEX_LEN + 1];
	struct sha256 c;
	size_t i;

	if (h) {
		for (i = 0; h[i]; i++)
			if ((unsigned char)h[i] <= 0x20 ||
			    (unsigned char)h[i] >= 0x7f)
				break;
		if (!*h || h[i] || i > 200) {
			web_error_json(r, 400, "header 'Idempotency-Key': "
				       "expected 1 to 200 printable ASCII "
				       "characters");
			return -1;
		}
		snprintf(key, keylen, "key:%s", h);
		return 0;
	}
	sha256_init(&c);
	sha256_update(&c, rq->body, rq->body_len);
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		const char *v = query_get(&rq->q, params[i]);

		sha256_update(&c, "", 1);
		sha256_update(&c, params[i], strlen(params[i]));
		sha256_update(&c, "=", 1);
		if (v)
			sha256_update(&c, v, strlen(v));
	}
	sha256_final_hex(&c, hex);
	snprintf(key, keylen, "sha256:%s", hex);
	return 0;
}

/* Parse the upload; 0, or -1 after a 400 naming what was wrong. */
static int import_parse(struct req *rq, struct web_response *r,
			struct result_set *rs, struct import_report *rep)
{
	const char *fmtname = query_get(&rq->q, "format"),
		   *name = query_get(&rq->q, "name");
	enum import_format fmt = IMPORT_AUTO;
	struct import_error ie;
	char err[512], msg[400];

	if (fmtname && import_format_parse(fmtname, &fmt) < 0) {
		snprintf(err, sizeof(err), "unknown format '%s'", fmtname);
		web_error_json(r, 400, err);
		return -1;
	}
	if (!rq->body_len) {
		web_error_json(r, 400, "empty upload");
		return -1;
	}
	memset(&ie, 0, sizeof(ie));
	if (import_text_report(rq->body, rq->body_len, fmt, query_get(&rq->q,
			       "kernel"), rs, rep, &ie) < 0) {
		import_error_format(&ie, msg, sizeof(msg));
		snprintf(err, sizeof(err), "%s: %s", name ? name : "upload",
			 msg);
		web_error_json(r, 400, err);
		return -1;
	}
	return 0;
}

int api_import(struct req *rq, struct web_response *r)
{
	const char *ct = rq->content_type;
	struct db_import_opts o;
	struct result_set rs;
	struct import_report rep;
	struct import_kind_runs kr[IMPORT_MAX_PARTS];
	int64_t *ids = NULL;
	size_t nids = 0;
	char err[512], key[260], rawname[IDENT_MAX + 1], *conf = NULL;
	char suites[64];
	struct rig *g;
	int rc, per_kind;

	if (*ct && strcmp(ct, "text/plain") && strcmp(ct, "application/json") &&
	    strcmp(ct, "application/octet-stream")) {
		snprintf(err, sizeof(err), "unsupported content type '%s': "
			 "send text/plain or application/json", ct);
		return web_error_json(r, 415, err);
	}
	if (import_key(rq, r, key, sizeof(key)))
		return r->status;
	result_set_init(&rs);
	if (import_parse(rq, r, &rs, &rep)) {
		result_set_release(&rs);
		return r->status;
	}
	memset(&o, 0, sizeof(o));
	o.rig = query_get(&rq->q, "rig");
	if (!o.rig)
		o.rig = rs.rig ? rs.rig : "default";
	o.suite = query_get(&rq->q, "suite");
	/* a mail of several kinds: each kind into its own suite */
	per_kind = !o.suite && rep.nparts > 1;
	if (!o.suite)
		o.suite = suite_for_format(&rs);
	snprintf(rawname, sizeof(rawname), "%s", query_get(&rq->q, "name") &&
		 *query_get(&rq->q, "name") ? query_get(&rq->q, "name") :
		 "upload");
	ident_sanitize(rawname);
	o.raw_name = rawname;
	o.raw = rq->body;
	o.raw_len = rq->body_len;
	o.idem_key = key;
	o.max_kernels = import_limit(rq, "max_import_kernels",
				     IMPORT_MAX_KERNELS);
	o.max_results = import_limit(rq, "max_import_results",
				     IMPORT_MAX_RESULTS);
	/* a configured rig's configuration; else none is recorded */
	g = rigmgr_find(rq->d, o.rig);
	if (g)
		conf = rig_conf_text(rq->d, g, NULL);
	o.rigconf = conf;
	err[0] = '\0';
	rc = import_store_kinds(rq->db, &rs, &rep, &o, per_kind, kr, &ids,
				&nids, err, sizeof(err));
	free(conf);
	if (per_kind && (rc == DB_OK || rc == DB_REPEATED))
		o.suite = import_kinds_suites(&rep, kr, suites, sizeof(suites));
	if (rc == DB_OK)
		track_results_stored(rq->d, o.rig, o.suite);
	if (rc == DB_OK)
		auth_audit(rq, "import", o.raw_name, "%zu runs of %zu results, "
			   "rig '%s', suite '%s'", nids, rs.n, o.rig, o.suite);
	if (rc == DB_OK || rc == DB_REPEATED)
		rc = import_reply(r, rc == DB_OK ? 201 : 200, &rs, o.rig,
				  o.suite, ids, nids,
				  import_kinds_json(&rs, &rep, kr, ids));
	else
		rc = api_db_error(r, rc, err);
	free(ids);
	result_set_release(&rs);
	return rc;
}

static json_t *run_json(const void *elem)
{
	const struct db_run *u = elem;

	return json_pack("{s:I, s:s, s:s, s:s, s:i, s:s, s:s, s:I, s:I, s:I, "
			 "s:I, s:{s:s, s:s}}", "id", (json_int_t)u->id,
			 "kernel", u->kernel,
			 "rig", u->rig, "suite", u->suite, "repetition",
			 u->repetition, "status", u->status, "error", u->error,
			 "started", (json_int_t)u->started, "finished",
			 (json_int_t)u->finished, "results",
			 (json_int_t)u->nresults, "job",
			 (json_int_t)u->job_id, "rigconf", "hash",
			 u->rigconf_hash, "text", u->rigconf);
}

/* GET /api/runs/ID/raw/NAME */
int api_run_raw(struct req *rq, struct web_response *r)
{
	const char *name = rq->arg2;
	long id;
	char *data = NULL, err[300];
	size_t len = 0;
	int rc;

	if (api_arg_id(rq, r, "run", &id))
		return r->status;
	rc = db_raw_get(rq->db, id, name, &data, &len);
	if (rc) {
		snprintf(err, sizeof(err), "run %lld has no raw output '%s'",
			 (long long)id, name);
		return api_db_error(r, rc, err);
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
		return api_db_error(r, rc, err);
	}
	k[0] = u.kernel;
	rc = db_samples(rq->db, k, 1, u.rig, u.suite, NULL, &s, &n, err,
			sizeof(err));
	if (rc) {
		db_run_release(&u);
		return api_db_error(r, rc, err);
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
	json_object_set_new(doc, "repetitions", web_run_reps_json(rq->db, id));
	json_object_set_new(doc, "steps", web_job_steps_json(rq->db,
							     u.job_id));
	db_run_release(&u);
	return api_reply(r, 200, doc);
}

int api_runs(struct req *rq, struct web_response *r)
{
	struct db_run *v = NULL;
	size_t n = 0;
	long limit = 100, id;
	const char *ls = query_get(&rq->q, "limit");
	int rc;

	if (*rq->arg)
		return api_arg_id(rq, r, "run", &id) ? r->status :
		       run_one(rq, r, id);
	if (ls && parse_long(ls, 0, 1000000, &limit))
		return web_error_json(r, 400, "invalid limit");
	if (db_run_list(rq->db, query_get(&rq->q, "kernel"),
			query_get(&rq->q, "rig"), query_get(&rq->q, "suite"),
			(int)limit, &v, &n))
		return web_error_json(r, 500, "cannot list runs");
	rc = api_reply_list(r, "runs", v, n, sizeof(*v), run_json);
	db_runs_free(v, n);
	return rc;
}

static json_t *metric_json(const void *elem)
{
	const struct db_metric *m = elem;

	return json_pack("{s:s, s:s, s:s}", "name", m->name, "unit", m->unit,
			 "direction", metric_dir_name(m->dir));
}

int api_metrics(struct req *rq, struct web_response *r)
{
	struct db_metric *v = NULL;
	size_t n = 0;
	int rc;

	if (db_metric_list(rq->db, &v, &n))
		return web_error_json(r, 500, "cannot list metrics");
	rc = api_reply_list(r, "metrics", v, n, sizeof(*v), metric_json);
	db_metrics_free(v, n);
	return rc;
}

int api_compare(struct req *rq, struct web_response *r)
{
	const char **k = NULL, *base = query_get(&rq->q, "base");
	struct comparison c;
	json_t *doc;
	struct cmp_opts o;
	size_t nk, i, bi = 0;
	char err[700] = "";
	int rc;

	nk = query_all(&rq->q, "k", 1, &k);
	if (nk < 1) {
		free(k);
		return web_error_json(r, 400,
				      "name kernels to compare with k=");
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
		return api_db_error(r, rc, err);
	doc = report_json(&c);
	if (query_get(&rq->q, "hist") &&
	    !strcmp(query_get(&rq->q, "hist"), "1"))
		json_object_set_new(doc, "hist", compare_hist_json(rq->db, &c));
	rc = api_reply(r, 200, doc);
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
		return api_db_error(r, rc, err);
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:f, s:I, s:i, s:I, "
				      "s:s}", "kernel", s[i].kernel, "value",
				      s[i].value, "run",
				      (json_int_t)s[i].run_id,
				      "repetition", s[i].repetition, "time",
				      (json_int_t)s[i].time, "rigconf",
				      s[i].rigconf ? s[i].rigconf : ""));
	rc = api_reply(r, 200, json_pack("{s:s, s:s, s:s, s:o}", "metric",
			metric, "unit", n ? s[0].unit : "", "direction",
			n ? metric_dir_name(s[0].dir) : "none", "points", a));
	db_samples_free(s, n);
	return rc;
}
