// SPDX-License-Identifier: MIT
/*
 * The agent side of the API (docs/AGENT.md) and the job queue: agents
 * register, long-poll for work, announce kexec, upload results (stored
 * once per job, acknowledged only when stored) and report failures; users
 * queue jobs and bring rigs back online.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "db/jobs.h"
#include "klabd.h"
#include "lib/import.h"
#include "rig.h"

/* The rig whose token authorises this request, or NULL after a 401. */
static struct rig *agent_rig(struct req *rq, struct web_response *r)
{
	struct rig *g = NULL;

	if (rq->auth && !strncmp(rq->auth, "Bearer ", 7))
		g = rigmgr_by_token(rq->d, rq->auth + 7);
	if (!g)
		web_error_json(r, 401, "unknown or missing rig token");
	return g;
}

static int agent_register(struct req *rq, struct web_response *r,
			  struct rig *g)
{
	json_t *doc = api_body(rq, r, 0);
	const char *rel;
	char err[300] = "";
	int rc;

	if (!doc)
		return r->status;
	rel = json_string_value(json_object_get(doc, "kernel_release"));
	rc = rigmgr_checkin(g, json_integer_value(json_object_get(doc, "job")),
			    rel ? rel : "?", err, sizeof(err));
	json_decref(doc);
	if (rc)
		return web_error_json(r, rc, err);
	return api_reply(r, 200, json_pack("{s:b, s:s}", "ok", 1, "rig", g->name));
}

static json_t *job_json(struct req *rq, struct rig *g, struct db_job *j,
			char *err, size_t errlen)
{
	char *release, *image, *initrd, ksha[65], isha[65], url[2][100];
	struct strbuf suite = STRBUF_INIT, cmd = STRBUF_INIT;
	json_t *doc = NULL;

	if (catalog_boot(rq->d, rq->db, j->kernel, &release, &image, &initrd,
			 err, errlen))
		return NULL;
	sb_init(&suite);
	sb_init(&cmd);
	sb_addf(&suite, "%s/workloads/suites/%s.suite", rq->d->top_dir,
		j->suite);
	if (catalog_file_register(rq->d, image, ksha) ||
	    catalog_file_register(rq->d, initrd, isha)) {
		snprintf(err, errlen, "cannot read the boot files of '%s'",
			 j->kernel);
		goto out;
	}
	snprintf(url[0], sizeof(url[0]), "/api/agent/files/%s", ksha);
	snprintf(url[1], sizeof(url[1]), "/api/agent/files/%s", isha);
	sb_addf(&cmd, "console=ttyS0,115200 klab.disks=%d%s%s", g->disks,
		*j->cmdline ? " " : "", j->cmdline);
	{
		struct strbuf text = STRBUF_INIT;

		sb_init(&text);
		sb_read_file(&text, suite.buf);
		doc = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, "
				"s:s, s:s, s:f, s:[], s:i}", "id",
				(json_int_t)j->id, "kernel", j->kernel,
				"release", release, "kernel_url", url[0],
				"kernel_sha256", ksha, "initrd_url", url[1],
				"initrd_sha256", isha, "cmdline", cmd.buf,
				"suite", j->suite, "suite_text", text.buf,
				"scheduler", j->scheduler, "scale", j->scale,
				"disks", "timeout", g->job_timeout);
		sb_release(&text);
	}
out:
	free(release);
	free(image);
	free(initrd);
	sb_release(&suite);
	sb_release(&cmd);
	return doc;
}

static int agent_next(struct req *rq, struct web_response *r, struct rig *g)
{
	const char *w = query_get(&rq->q, "wait");
	struct db_job j;
	int64_t id = 0;
	long wait_s = 30;
	char err[512] = "";
	json_t *doc;

	if (w && parse_long(w, 0, 300, &wait_s))
		return web_error_json(r, 400, "invalid wait");
	rigmgr_next_job(g, (int)wait_s, &id);
	if (!id) {
		r->status = 204;
		return 204;
	}
	if (db_job_get(rq->db, id, &j))
		return web_error_json(r, 500, "job vanished");
	doc = job_json(rq, g, &j, err, sizeof(err));
	db_job_release(&j);
	if (!doc) {
		/* the controller's fault: never blamed on the kernel */
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		rigmgr_job_fail(g, id, "infra", why, "", err, sizeof(err));
		return web_error_json(r, 500, why);
	}
	return api_reply(r, 200, json_pack("{s:o}", "job", doc));
}

/* Store the raw outputs the agent attached ("raw": {name: text}). */
static void store_raws(struct req *rq, json_t *raw, const int64_t *ids,
		       size_t n)
{
	const char *name;
	json_t *v;
	size_t i;

	json_object_foreach(raw, name, v) {
		if (!json_is_string(v))
			continue;
		for (i = 0; i < n; i++)
			db_raw_put(rq->db, ids[i], name, json_string_value(v),
				   json_string_length(v));
	}
}

static int ack(struct web_response *r, int status, const int64_t *ids,
	       size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_integer(ids[i]));
	return api_reply(r, status, json_pack("{s:b, s:o}", "stored", 1, "runs",
					  a));
}

static int agent_results(struct req *rq, struct web_response *r,
			 struct rig *g, struct db_job *j)
{
	struct db_import_opts o;
	struct import_error ie;
	struct result_set rs;
	int64_t *ids = NULL;
	size_t n = 0, i;
	char err[600] = "", msg[400];
	json_t *doc;
	int rc;

	/* idempotent: a repeated upload gets the same acknowledgement */
	if (!db_job_runs(rq->db, j->id, &ids, &n) && n) {
		rigmgr_job_done(g, j->id);
		rc = ack(r, 200, ids, n);
		free(ids);
		return rc;
	}
	free(ids);
	result_set_init(&rs);
	memset(&ie, 0, sizeof(ie));
	if (import_klab(rq->body, rq->body_len, j->kernel, &rs, &ie) < 0) {
		import_error_format(&ie, msg, sizeof(msg));
		snprintf(err, sizeof(err), "job %lld results: %s",
			 (long long)j->id, msg);
		result_set_release(&rs);
		return web_error_json(r, 400, err);
	}
	for (i = 0; i < rs.n; i++)
		if (rs.v[i].kernel && strcmp(rs.v[i].kernel, j->kernel)) {
			snprintf(err, sizeof(err), "results for kernel '%s', "
				 "job %lld is for '%s'", rs.v[i].kernel,
				 (long long)j->id, j->kernel);
			result_set_release(&rs);
			return web_error_json(r, 403, err);
		}
	result_set_setstr(&rs.kernel, j->kernel);
	memset(&o, 0, sizeof(o));
	o.rig = g->name;
	o.suite = j->suite;
	o.raw_name = "results.json";
	o.raw = rq->body;
	o.raw_len = rq->body_len;
	o.job_id = j->id;
	rc = db_import(rq->db, &rs, &o, &ids, &n, err, sizeof(err));
	result_set_release(&rs);
	if (rc) {
		free(ids);
		return web_error_json(r, http_status_of(rc), err);
	}
	doc = json_loadb(rq->body, rq->body_len, 0, NULL);
	store_raws(rq, json_object_get(doc, "raw"), ids, n);
	json_decref(doc);
	rigmgr_job_done(g, j->id);
	rc = ack(r, 201, ids, n);
	free(ids);
	return rc;
}

static int agent_fail(struct req *rq, struct web_response *r, struct rig *g,
		      struct db_job *j)
{
	json_t *doc = api_body(rq, r, 0);
	const char *klass, *error, *output;
	char err[300] = "";
	int rc;

	if (!doc)
		return r->status;
	klass = json_string_value(json_object_get(doc, "class"));
	error = json_string_value(json_object_get(doc, "error"));
	output = json_string_value(json_object_get(doc, "output"));
	if (!klass || (strcmp(klass, "infra") && strcmp(klass, "kernel") &&
		       strcmp(klass, "benchmark"))) {
		json_decref(doc);
		return web_error_json(r, 400, "field 'class' must be 'infra', "
				      "'kernel' or 'benchmark'");
	}
	rc = rigmgr_job_fail(g, j->id, klass, error ? error : "",
			     output ? output : "", err, sizeof(err));
	json_decref(doc);
	if (rc)
		return web_error_json(r, rc, err);
	return api_reply(r, 200, json_pack("{s:b}", "ok", 1));
}

/* /api/agent/jobs/ID/(kexec|results|fail) */
static int agent_job(struct req *rq, struct web_response *r, struct rig *g,
		     const char *rest)
{
	char idbuf[24], err[300] = "";
	const char *slash = strchr(rest, '/');
	struct db_job j;
	long id;
	int rc;

	snprintf(idbuf, sizeof(idbuf), "%.*s", slash ? (int)(slash - rest) :
		 0, rest);
	if (!slash || parse_long(idbuf, 1, 0x7fffffffL, &id))
		return web_error_json(r, 404, "no such page");
	if (db_job_get(rq->db, id, &j))
		return web_error_json(r, 404, "unknown job");
	if (strcmp(j.rig, g->name)) {
		snprintf(err, sizeof(err), "job %ld was not given to rig '%s'",
			 id, g->name);
		rc = web_error_json(r, 403, err);
	} else if (!strcmp(slash, "/kexec")) {
		rc = rigmgr_kexec(g, id, err, sizeof(err));
		rc = rc ? web_error_json(r, rc, err) :
			api_reply(r, 200, json_pack("{s:b}", "ok", 1));
	} else if (!strcmp(slash, "/results")) {
		rc = agent_results(rq, r, g, &j);
	} else if (!strcmp(slash, "/fail")) {
		rc = agent_fail(rq, r, g, &j);
	} else {
		rc = web_error_json(r, 404, "no such page");
	}
	db_job_release(&j);
	return rc;
}

int api_agent(struct req *rq, struct web_response *r)
{
	struct rig *g = agent_rig(rq, r);

	if (!g)
		return r->status;
	if (!strcmp(rq->arg, "register") && !strcmp(rq->method, "POST"))
		return agent_register(rq, r, g);
	if (!strcmp(rq->arg, "next"))
		return agent_next(rq, r, g);
	if (!strncmp(rq->arg, "jobs/", 5) && !strcmp(rq->method, "POST"))
		return agent_job(rq, r, g, rq->arg + 5);
	return web_error_json(r, 404, "no such page");
}
