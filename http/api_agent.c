// SPDX-License-Identifier: MIT
/*
 * The agent side of the API (docs/AGENT.md) and the job queue: agents
 * register, long-poll for work, announce kexec, upload results (read
 * once, lib/upload.h; stored once per job with each repetition's own
 * values and the raw outputs in one transaction, acknowledged only when
 * stored; a run that did not complete ends its job as a benchmark
 * failure) and report failures; users queue jobs and bring rigs back
 * online.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

#include "http/api.h"
#include "http/api_util.h"
#include "lab/catalog.h"
#include "db/jobs.h"
#include "db/reps.h"
#include "http/http_poll.h"
#include "klabd/klabd.h"
#include "lib/alloc.h"
#include "lib/upload.h"
#include "lab/rig.h"
#include "lab/rig_conf.h"
#include "flow/track.h"

/* The agent routes run only with a rig token (ROLE_AGENT): dispatch()
 * has checked it and put the rig in rq->rig. */
int api_agent_register(struct req *rq, struct web_response *r)
{
	struct rig *g = rq->rig;
	json_t *doc = api_body(rq, r, 0);
	const char *rel = "?";
	long long job = 0;
	char err[300] = "";
	enum outcome o;

	if (!doc)
		return r->status;
	if (api_field_str(r, doc, "kernel_release", 0, &rel) ||
	    api_field_int(r, doc, "job", 0, 0, INT64_MAX, &job)) {
		json_decref(doc);
		return r->status;
	}
	o = rigmgr_checkin(g, job, rel, err, sizeof(err));
	json_decref(doc);
	if (o != OUT_OK)
		return api_error(r, o, err);
	return api_reply(r, 200, json_pack("{s:b, s:s}", "ok", 1, "rig",
					   g->name));
}

/*
 * The job as its rig gets it: 0 with *doc, the rig granted its boot
 * files; 1 while they are being prepared (catalog_prep.c); -1 with err.
 */
static int job_json(struct req *rq, struct rig *g, struct db_job *j,
		    json_t **doc, char *err, size_t errlen)
{
	struct strbuf suite = STRBUF_INIT, cmd = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT;
	struct catalog_boot b;
	char url[2][100];
	int rc;

	*doc = NULL;
	rc = catalog_boot_offer(rq->d, rq->db, j->kernel, g->name, &b, err,
				errlen);
	if (rc)
		return rc;
	sb_init(&suite);
	sb_init(&cmd);
	sb_init(&text);
	sb_addf(&suite, "%s/workloads/suites/%s.suite", rq->d->top_dir,
		j->suite);
	snprintf(url[0], sizeof(url[0]), "/api/agent/files/%s", b.kexec_sha);
	snprintf(url[1], sizeof(url[1]), "/api/agent/files/%s", b.initrd_sha);
	sb_addf(&cmd, "console=ttyS0,115200 klab.disks=%d%s%s", g->disks,
		*j->cmdline ? " " : "", j->cmdline);
	sb_read_file(&text, suite.buf);
	*doc = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, "
			 "s:s, s:s, s:f, s:[], s:i}", "id", (json_int_t)j->id,
			 "kernel", j->kernel, "release", b.release,
			 "kernel_url", url[0], "kernel_sha256", b.kexec_sha,
			 "initrd_url", url[1], "initrd_sha256", b.initrd_sha,
			 "cmdline", cmd.buf, "suite", j->suite, "suite_text",
			 text.buf, "scheduler", j->scheduler, "scale",
			 j->scale, "disks", "timeout", g->job_timeout);
	sb_release(&text);
	sb_release(&suite);
	sb_release(&cmd);
	catalog_boot_release(&b);
	if (*doc)
		return 0;
	snprintf(err, errlen, "cannot make the JSON of job %lld",
		 (long long)j->id);
	return -1;
}

/* A poll that is parked past its wait for a job's boot files looks
 * again after this long (the catalog's thread wakes it when they are
 * ready: this is the safety net). */
#define BOOT_FILES_RECHECK_MS 30000

/* No job to answer with: park when w waits and the wait goes on (or the
 * job's boot files are being prepared), else 204. */
static int agent_no_job(struct req *rq, struct web_response *r,
			struct rig_waiter *w, int queued, long left,
			int preparing)
{
	if (queued && preparing)
		return http_poll_park_more(rq, BOOT_FILES_RECHECK_MS);
	if (queued && left > 0)
		return http_poll_park(rq);
	if (queued)
		rigmgr_wait_cancel(rq->d, w);
	r->status = 204;
	return 204;
}

/* The job in hand, as JSON into *doc: job_json, with w queued before a
 * second look while its boot files are being prepared (klabd restarted
 * under the job), so that their readiness wakes the poll.  0, 1 while
 * they are (*queued says whether w waits), or -1 with err. */
static int held_job_json(struct req *rq, struct rig *g, struct db_job *j,
			 struct rig_waiter *w, int *queued, json_t **doc,
			 char *err, size_t errlen)
{
	int rc = job_json(rq, g, j, doc, err, errlen);

	*queued = 0;
	if (rc <= 0 || !w || !rigmgr_wait(rq->d, w))
		return rc;
	*queued = 1;
	rc = job_json(rq, g, j, doc, err, errlen);
	if (rc <= 0) {
		rigmgr_wait_cancel(rq->d, w);
		*queued = 0;
	}
	return rc;
}

/*
 * A long poll: the job in hand or a queued one; when there is none, the
 * request is parked (http_poll.h) until the rig manager wakes it or the
 * wait runs out, and runs again from here; 204 once the wait is over or
 * the manager has stopped.  A job is answered with once its boot files
 * are ready: while the catalog's thread prepares them the poll stays
 * parked, past its wait too, and no thread waits.
 */
int api_agent_next(struct req *rq, struct web_response *r)
{
	struct rig *g = rq->rig;
	const char *ws = query_get(&rq->q, "wait");
	struct rig_waiter *w;
	struct db_job j;
	int64_t id = 0;
	long wait_s = 30, left;
	char err[512] = "";
	json_t *doc;
	int queued, preparing, rc;

	if (ws && parse_long(ws, 0, 300, &wait_s))
		return web_error_json(r, 400, "invalid wait");
	left = http_poll_left(rq, wait_s);
	w = http_poll_waiter(rq);
	queued = rigmgr_next_job(g, &id, &preparing, w);
	if (!id)
		return agent_no_job(rq, r, w, queued, left, preparing);
	if (db_job_get(rq->db, id, &j))
		return web_error_json(r, 500, "job vanished");
	rc = held_job_json(rq, g, &j, w, &queued, &doc, err, sizeof(err));
	db_job_release(&j);
	if (rc > 0)
		return agent_no_job(rq, r, w, queued, left, 1);
	if (rc < 0) {
		/* the controller's fault: never blamed on the kernel */
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		rigmgr_job_fail(g, id, "infra", why, "", err, sizeof(err));
		return web_error_json(r, 500, why);
	}
	return api_reply(r, 200, json_pack("{s:o}", "job", doc));
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

/* 403 for an upload about a job the rig does not hold now. */
static int not_held(struct web_response *r, struct rig *g,
		    const struct db_job *j)
{
	char err[300];

	snprintf(err, sizeof(err), "job %lld is not held by rig '%s' now "
		 "(job state '%s')", (long long)j->id, g->name, j->state);
	return web_error_json(r, 403, err);
}

/*
 * Results are due for the job the rig holds now, and for one it was given
 * before klabd restarted: db_job_requeue_stale() put that back in the
 * queue (started, never failed) while the agent carried on.  A job never
 * handed out (not started) or requeued after a failure is not due.
 */
static int results_due(struct rig *g, const struct db_job *j)
{
	if (rigmgr_holds(g, j->id))
		return 1;
	return !strcmp(j->state, "queued") && j->started > 0 &&
	       !*j->failure;
}

static void step_add(struct db_job_step *v, size_t *n, const char *name,
		     long long ms)
{
	v[*n].name = (char *)name;
	v[*n].rep = 0;
	v[*n].secs = ms > 0 ? (double)ms / 1000 : 0;
	(*n)++;
}

/*
 * Where the job's time went (docs/RESULTS.md, "steps"): klabd's own,
 * from hand-out to the kexec announced ("handout": the agent's download
 * and kexec -l) and on to the check-in ("boot"; "kexec", up to the new
 * kernel's start, when the agent timed the rest: boot.kernel and
 * boot.agent), then the agent's steps of the upload, then what is left
 * from the check-in (or the hand-out, without a kexec) to now ("upload":
 * the agent's poll, the upload and its parsing).  A job kept over a
 * restart of klabd has the agent's only.
 */
static int results_steps(struct db *db, const struct rig_job_times *tp,
			 int64_t job, const struct upload *u, char *err,
			 size_t errlen)
{
	const struct rig_job_times t = *tp;
	struct db_job_step *v = xcalloc(u->rs.nsteps + 3, sizeof(*v));
	double booted = 0;
	long long base;
	size_t n = 0, i;
	int rc;

	/* the agent timed the boot from the new kernel's start: klabd's
	 * part is what comes before it (kexec -e, the jump, decompression) */
	for (i = 0; i < u->rs.nsteps; i++)
		if (!u->rs.steps[i].rep &&
		    (!strcmp(u->rs.steps[i].name, "boot.kernel") ||
		     !strcmp(u->rs.steps[i].name, "boot.agent")))
			booted += u->rs.steps[i].secs;
	if (t.assigned && t.kexec)
		step_add(v, &n, "handout", t.kexec - t.assigned);
	if (t.kexec && t.checkin)
		step_add(v, &n, booted ? "kexec" : "boot", t.checkin - t.kexec -
			 (long long)(booted * 1000));
	for (i = 0; i < u->rs.nsteps; i++, n++) {
		v[n].name = u->rs.steps[i].name;
		v[n].rep = u->rs.steps[i].rep;
		v[n].secs = u->rs.steps[i].secs;
	}
	base = t.checkin ? t.checkin : t.kexec ? 0 : t.assigned;
	if (base)
		step_add(v, &n, "upload", t.now - base - (long long)
			 ((result_set_steps_secs(&u->rs) - booted) * 1000));
	rc = db_job_steps_put(db, job, v, n);
	free(v);
	if (rc != DB_OK)
		snprintf(err, errlen, "cannot store the steps of job %lld",
			 (long long)job);
	return rc;
}

/*
 * The run, its repetitions, its raw outputs (each linked to every run
 * the upload made) and the job's steps (klabd's from t, taken before the
 * transaction: no rig lock inside it), all or nothing: an agent told
 * "stored" has all of it stored, and a failure stores none of it.
 */
static int results_store(struct req *rq, const struct rig_job_times *t,
			 const struct upload *u,
			 const struct db_import_opts *o, int64_t **ids,
			 size_t *n, char *err, size_t errlen)
{
	size_t i, k;
	int rc;

	if (db_begin(rq->db) != DB_OK) {
		snprintf(err, errlen, "cannot store the results of job %lld",
			 (long long)o->job_id);
		return DB_ERR;
	}
	rc = db_import(rq->db, &u->rs, o, ids, n, err, errlen);
	for (i = 0; rc == DB_OK && *n == 1 && i < u->nreps; i++)
		rc = db_run_reps_add(rq->db, (*ids)[0], (int)i + 1,
				     !u->reps[i].incomplete &&
				     !u->reps[i].error, &u->reps[i], err,
				     errlen);
	for (i = 0; rc == DB_OK && i < u->nraw; i++)
		for (k = 0; rc == DB_OK && k < *n; k++) {
			rc = db_raw_put(rq->db, (*ids)[k], u->raw[i].name,
					u->raw[i].text, u->raw[i].len);
			if (rc != DB_OK)
				snprintf(err, errlen, "cannot store the raw "
					 "output '%s' of job %lld",
					 u->raw[i].name, (long long)o->job_id);
		}
	if (rc == DB_OK)
		rc = results_steps(rq->db, t, o->job_id, u, err, errlen);
	if (rc == DB_OK && db_commit(rq->db) != DB_OK) {
		snprintf(err, errlen, "cannot store the results of job %lld",
			 (long long)o->job_id);
		rc = DB_ERR;
	}
	if (rc != DB_OK)
		db_rollback(rq->db);
	return rc;
}

/*
 * The job ends: done when its run completed, else failed as a benchmark
 * failure with the run's error and the end of klab-run's log.
 */
static void results_end_job(struct rig *g, const struct db_job *j,
			    int complete, const char *error,
			    const struct upload *u)
{
	const struct upload_raw *log = u ? upload_raw_find(u, "klab-run.log")
					 : NULL;
	const char *out = log ? log->text : "";
	size_t len = strlen(out);
	char err[300];

	if (complete) {
		rigmgr_job_done(g, j->id);
		return;
	}
	if (len > 65536)
		out += len - 65536;
	if (rigmgr_job_fail(g, j->id, "benchmark", error && *error ? error :
			    "the run did not complete", out, err, sizeof(err)))
		fprintf(stderr, "klabd: job %lld: %s\n", (long long)j->id, err);
}

/* A repeated upload: the job ends as the stored run says. */
static int results_repeated(struct req *rq, struct web_response *r,
			    struct rig *g, struct db_job *j, int64_t *ids,
			    size_t n)
{
	struct db_run run;
	int rc, complete = 1;

	memset(&run, 0, sizeof(run));
	if (db_run_get(rq->db, ids[0], &run) == DB_OK)
		complete = !strcmp(run.status, "done");
	if (complete || rigmgr_holds(g, j->id))
		results_end_job(g, j, complete, run.error, NULL);
	db_run_release(&run);
	rc = ack(r, 200, ids, n);
	free(ids);
	return rc;
}

/* The upload read once (lib/upload.h): 0, or -1 after a 400 (not a
 * klab-results/1 upload) or 403 (another kernel's results). */
static int results_parse(struct req *rq, struct web_response *r,
			 const struct db_job *j, struct upload *u)
{
	char err[600];
	enum upload_fault f;

	f = upload_parse(u, rq->body, rq->body_len, (long long)j->id,
			 j->kernel, err, sizeof(err));
	if (f == UPLOAD_OK)
		return 0;
	web_error_json(r, f == UPLOAD_FOREIGN ? 403 : 400, err);
	return -1;
}

static int agent_results(struct req *rq, struct web_response *r,
			 struct rig *g, struct db_job *j)
{
	struct db_import_opts o;
	struct rig_job_times t;
	struct upload u;
	int64_t *ids = NULL;
	size_t n = 0;
	char err[600] = "", *conf;
	int rc;

	/* idempotent: a repeated upload gets the same acknowledgement */
	if (!db_job_runs(rq->db, j->id, &ids, &n) && n)
		return results_repeated(rq, r, g, j, ids, n);
	free(ids);
	ids = NULL;
	if (!results_due(g, j))
		return not_held(r, g, j);
	if (results_parse(rq, r, j, &u))
		goto out;
	result_set_setstr(&u.rs.kernel, j->kernel);
	memset(&o, 0, sizeof(o));
	o.rig = g->name;
	o.suite = j->suite;
	o.raw_name = "results.json";
	o.raw = u.stored;
	o.raw_len = u.stored_len;
	o.job_id = j->id;
	/* the rig as configured for the job, and the machine it reported */
	conf = rig_conf_text(rq->d, g, json_object_get(u.doc, "machine"));
	conf = rig_conf_with_suite(conf, json_string_value(
				   json_object_get(u.doc, "suite_sha256")));
	o.rigconf = conf;
	rigmgr_job_times(g, j->id, &t);
	rc = results_store(rq, &t, &u, &o, &ids, &n, err, sizeof(err));
	free(conf);
	if (rc) {
		web_error_json(r, http_status_of(rc), err);
		goto out;
	}
	results_end_job(g, j, !u.rs.incomplete && !u.rs.error, u.rs.error,
			&u);
	track_results_stored(rq->d, o.rig, o.suite);
	ack(r, 201, ids, n);
out:
	free(ids);
	upload_release(&u);
	return r->status;
}

static int agent_fail(struct req *rq, struct web_response *r, struct rig *g,
		      struct db_job *j)
{
	json_t *doc;
	const char *klass = NULL, *error = NULL, *output = NULL;
	char err[300] = "";
	enum outcome o;

	if (!rigmgr_holds(g, j->id))
		return not_held(r, g, j);
	doc = api_body(rq, r, 0);
	if (!doc)
		return r->status;
	if (api_field_str(r, doc, "class", 1, &klass) ||
	    api_field_str(r, doc, "error", 0, &error) ||
	    api_field_str(r, doc, "output", 0, &output)) {
		json_decref(doc);
		return r->status;
	}
	if ((strcmp(klass, "infra") && strcmp(klass, "kernel") &&
		       strcmp(klass, "benchmark"))) {
		json_decref(doc);
		return web_error_json(r, 400, "field 'class' must be 'infra', "
				      "'kernel' or 'benchmark'");
	}
	o = rigmgr_job_fail(g, j->id, klass, error ? error : "",
			    output ? output : "", err, sizeof(err));
	json_decref(doc);
	if (o != OUT_OK)
		return api_error(r, o, err);
	return api_reply(r, 200, json_pack("{s:b}", "ok", 1));
}

/* The job of /api/agent/jobs/ID/...: 0 with *j filled when the caller's
 * rig holds it, else the error status (r filled). */
static int agent_job(struct req *rq, struct web_response *r,
		     struct db_job *j)
{
	char err[300];
	long id;

	if (parse_long(rq->arg, 1, 0x7fffffffL, &id))
		return web_error_json(r, 404, "no such page");
	if (db_job_get(rq->db, id, j))
		return web_error_json(r, 404, "unknown job");
	if (strcmp(j->rig, rq->rig->name)) {
		snprintf(err, sizeof(err), "job %ld was not given to rig '%s'",
			 id, rq->rig->name);
		db_job_release(j);
		return web_error_json(r, 403, err);
	}
	return 0;
}

static int agent_kexec(struct req *rq, struct web_response *r,
		       struct rig *g, struct db_job *j)
{
	char err[300] = "";
	enum outcome o;

	if (!rigmgr_holds(g, j->id))
		return not_held(r, g, j);
	o = rigmgr_kexec(g, j->id, err, sizeof(err));
	return o != OUT_OK ? api_error(r, o, err) :
		api_reply(r, 200, json_pack("{s:b}", "ok", 1));
}

/* Run fn on the job of the path, when the caller's rig holds it. */
static int with_job(struct req *rq, struct web_response *r,
		    int (*fn)(struct req *, struct web_response *,
			      struct rig *, struct db_job *))
{
	struct db_job j;
	int rc = agent_job(rq, r, &j);

	if (rc)
		return rc;
	rc = fn(rq, r, rq->rig, &j);
	db_job_release(&j);
	return rc;
}

int api_agent_kexec(struct req *rq, struct web_response *r)
{
	return with_job(rq, r, agent_kexec);
}

int api_agent_results(struct req *rq, struct web_response *r)
{
	return with_job(rq, r, agent_results);
}

int api_agent_fail(struct req *rq, struct web_response *r)
{
	return with_job(rq, r, agent_fail);
}

/* GET /api/agent/files/SHA256: kernels and images, streamed from disk by
 * the send step (r->fd); only to a rig that was handed a job booting them
 * (job_json), 403 for any other. */
int api_agent_file(struct req *rq, struct web_response *r)
{
	struct klabd *d = rq->d;
	const char *rig = rq->rig ? rq->rig->name : NULL;
	char err[300];
	const char *path;
	struct stat st;
	enum outcome o;
	int fd;

	path = catalog_file_path(d, rq->arg, rig, &o);
	if (!path && o == OUT_FORBIDDEN) {
		snprintf(err, sizeof(err), "file '%.64s' boots no job handed "
			 "to rig '%s'", rq->arg, rig ? rig : "");
		return web_error_json(r, 403, err);
	}
	if (d->fault_downloads > 0 &&
	    __atomic_fetch_sub(&d->fault_downloads, 1, __ATOMIC_SEQ_CST) > 0)
		return web_error_json(r, 503, "download refused "
				      "(fault_downloads is set)");
	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return web_error_json(r, 404, "no such file");
	if (fstat(fd, &st)) {
		close(fd);
		return web_error_json(r, 404, "no such file");
	}
	r->fd = fd;
	r->fd_size = (unsigned long long)st.st_size;
	r->status = 200;
	r->content_type = "application/octet-stream";
	return 200;
}
