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
		rc = reply_db_error(r, rc, err);
	free(ids);
	result_set_release(&rs);
	return rc;
}

static json_t *kernel_json(const void *elem)
{
	const struct db_kernel *k = elem;

	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I}",
			 "ident", k->ident, "version", k->version, "base",
			 k->base, "patch_hash", k->patch_hash, "config_hash",
			 k->config_hash, "source", k->source, "provenance",
			 k->provenance, "created", (json_int_t)k->created,
			 "runs", (json_int_t)k->nruns);
}

/*
 * Answer the GET of the entry called name that a db get answered rc for:
 * 200 with to_json(ent), else rc's status with "unknown <what> '<name>'"
 * (or db_msg, when given, for errors other than DB_NOTFOUND).
 */
static int reply_entry(struct web_response *r, int rc, const char *what,
		       const char *name, const char *db_msg,
		       json_t *(*to_json)(const void *elem), const void *ent)
{
	char err[300];

	if (!rc)
		return api_reply(r, 200, to_json(ent));
	snprintf(err, sizeof(err), "unknown %s '%s'", what, name);
	return reply_db_error(r, rc, rc != DB_NOTFOUND && db_msg ? db_msg
							      : err);
}

int api_kernels(struct req *rq, struct web_response *r)
{
	struct db_kernel *v = NULL, k;
	size_t n = 0;
	int rc;

	if (*rq->arg) {
		rc = reply_entry(r, db_kernel_get(rq->db, rq->arg, &k),
				 "kernel", rq->arg, "database error",
				 kernel_json, &k);
		db_kernel_release(&k);
		return rc;
	}
	rc = db_kernel_list(rq->db, &v, &n);
	if (rc)
		return reply_db_error(r, rc, "cannot list kernels");
	rc = api_reply_list(r, "kernels", v, n, sizeof(*v), kernel_json);
	db_kernels_free(v, n);
	return rc;
}

/* What the PUT of a catalogue entry records in the audit log. */
struct entry_note {
	const char *subject;
	char detail[512];
};

/*
 * The PUT of every catalogue entry (kernel, rig, suite): the JSON body into
 * ent by fields (which answers 400 itself and fills the audit note), ent
 * stored by put, the change audited as action, then 201.  ent borrows the
 * body's strings while it is stored.
 */
static int entry_put(struct req *rq, struct web_response *r,
		     const char *action,
		     int (*fields)(struct web_response *r, json_t *doc,
				   void *ent, struct entry_note *note),
		     int (*put)(struct db *db, void *ent, char *err,
				size_t errlen),
		     void *ent)
{
	json_t *doc = api_body(rq, r, 1);
	struct entry_note note = { NULL, "" };
	char err[300] = "";
	int rc;

	if (!doc)
		return r->status;
	if (fields(r, doc, ent, &note)) {
		json_decref(doc);
		return r->status;
	}
	rc = put(rq->db, ent, err, sizeof(err));
	if (!rc)
		auth_audit(rq, action, note.subject, "%s", note.detail);
	json_decref(doc);
	if (rc)
		return reply_db_error(r, rc, err);
	return api_reply(r, 201, json_pack("{s:b}", "ok", 1));
}

/* The fields of a kernel from a request body; 0 or -1 after a 400. */
static int kernel_fields(struct web_response *r, json_t *doc, void *ent,
			 struct entry_note *note)
{
	struct db_kernel *k = ent;
	static const char *const keys[] = { "version", "base", "patch_hash",
					    "config_hash", "source",
					    "provenance" };
	const char *v[6] = { "", "", "", "", "", "" }, *ident = NULL;
	size_t i;

	if (api_field_ident(r, doc, "ident", IDENT_KERNEL, 1, &ident))
		return -1;
	for (i = 0; i < 6; i++)
		if (api_field_str(r, doc, keys[i], 0, &v[i]))
			return -1;
	memset(k, 0, sizeof(*k));
	k->ident = (char *)ident;
	k->version = (char *)v[0];
	k->base = (char *)v[1];
	k->patch_hash = (char *)v[2];
	k->config_hash = (char *)v[3];
	k->source = (char *)v[4];
	k->provenance = (char *)v[5];
	note->subject = k->ident;
	snprintf(note->detail, sizeof(note->detail), "source '%s'", k->source);
	return 0;
}

static int kernel_store(struct db *db, void *ent, char *err, size_t errlen)
{
	return db_kernel_put(db, ent, err, errlen);
}

int api_kernel_put(struct req *rq, struct web_response *r)
{
	struct db_kernel k;

	return entry_put(rq, r, "kernel put", kernel_fields, kernel_store,
			 &k);
}

static json_t *rig_json(const void *elem)
{
	const struct db_rig *g = elem;

	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:I}",
			 "name", g->name, "kind", g->kind, "profile",
			 g->profile, "disks", g->disks, "cpus", g->cpus,
			 "memory_mb", g->memory_mb, "state", g->state,
			 "created", (json_int_t)g->created);
}

int api_rigs(struct req *rq, struct web_response *r)
{
	struct db_rig *v = NULL, g;
	size_t n = 0;
	int rc;

	if (*rq->arg) {
		rc = reply_entry(r, db_rig_get(rq->db, rq->arg, &g), "rig",
				 rq->arg, NULL, rig_json, &g);
		db_rig_release(&g);
		return rc;
	}
	if (db_rig_list(rq->db, &v, &n))
		return web_error_json(r, 500, "cannot list rigs");
	rc = api_reply_list(r, "rigs", v, n, sizeof(*v), rig_json);
	db_rigs_free(v, n);
	return rc;
}

/* The fields of a rig from a request body; 0 or -1 after a 400. */
static int rig_fields(struct web_response *r, json_t *doc, void *ent,
		      struct entry_note *note)
{
	struct db_rig *g = ent;
	const char *name = NULL, *kind = "manual", *profile = "";
	long long disks = 0, cpus = 0, mem = 0;

	if (api_field_ident(r, doc, "name", IDENT_RIG, 1, &name) ||
	    api_field_str(r, doc, "kind", 0, &kind) ||
	    api_field_str(r, doc, "profile", 0, &profile) ||
	    api_field_int(r, doc, "disks", 0, 0, 4096, &disks) ||
	    api_field_int(r, doc, "cpus", 0, 0, 4096, &cpus) ||
	    api_field_int(r, doc, "memory_mb", 0, 0, 1 << 24, &mem))
		return -1;
	memset(g, 0, sizeof(*g));
	g->name = (char *)name;
	g->kind = (char *)(*kind ? kind : "manual");
	g->profile = (char *)profile;
	g->state = "idle";
	g->disks = (int)disks;
	g->cpus = (int)cpus;
	g->memory_mb = (int)mem;
	note->subject = g->name;
	snprintf(note->detail, sizeof(note->detail),
		 "kind '%s', profile '%s'", g->kind, g->profile);
	return 0;
}

static int rig_store(struct db *db, void *ent, char *err, size_t errlen)
{
	return db_rig_put(db, ent, err, errlen);
}

int api_rig_put(struct req *rq, struct web_response *r)
{
	struct db_rig g;

	return entry_put(rq, r, "rig put", rig_fields, rig_store, &g);
}

static json_t *suite_json(const void *elem)
{
	const struct db_suite *s = elem;

	return json_pack("{s:s, s:s}", "name", s->name, "description",
			 s->description);
}

int api_suites(struct req *rq, struct web_response *r)
{
	struct db_suite *v = NULL;
	size_t n = 0;
	int rc;

	if (db_suite_list(rq->db, &v, &n))
		return web_error_json(r, 500, "cannot list suites");
	rc = api_reply_list(r, "suites", v, n, sizeof(*v), suite_json);
	db_suites_free(v, n);
	return rc;
}

/* A suite as a PUT names it. */
struct suite_ent {
	const char *name, *desc;
};

static int suite_fields(struct web_response *r, json_t *doc, void *ent,
			struct entry_note *note)
{
	struct suite_ent *s = ent;

	s->name = NULL;
	s->desc = "";
	if (api_field_ident(r, doc, "name", IDENT_SUITE, 1, &s->name) ||
	    api_field_str(r, doc, "description", 0, &s->desc))
		return -1;
	note->subject = s->name;
	snprintf(note->detail, sizeof(note->detail), "%s", s->desc);
	return 0;
}

static int suite_store(struct db *db, void *ent, char *err, size_t errlen)
{
	struct suite_ent *s = ent;

	return db_suite_put(db, s->name, s->desc, err, errlen);
}

int api_suite_put(struct req *rq, struct web_response *r)
{
	struct suite_ent s;

	return entry_put(rq, r, "suite put", suite_fields, suite_store, &s);
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
	json_object_set_new(doc, "repetitions", web_run_reps_json(rq->db, id));
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
		return reply_db_error(r, rc, err);
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
		return reply_db_error(r, rc, err);
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
