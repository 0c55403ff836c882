// SPDX-License-Identifier: MIT
/*
 * What klabd hears of a job: its results (results.json with every
 * repetition's document, the raw outputs klab-run left and its log, the
 * suite text's hash), posted until klabd acknowledges them (again without
 * the raw outputs when they are too large), or a failure with its class
 * at /api/agent/jobs/ID/fail.  job.c runs the job; see agent.h and
 * docs/AGENT.md.
 */
#include "agent/agent.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/proc.h"
#include "lib/sha256.h"

#define JOB_RAW_CAP (1L << 20)		/* bytes kept of one raw output */

int job_fail(const struct agent_config *cfg, long id, const char *cls,
	     const char *error, const char *output)
{
	json_t *body = json_object(), *reply = NULL;
	char path[64], err[512];
	long status = 0;
	int rc;

	agent_log("job %ld: %s failure: %s", id, cls, error);
	json_object_set_new(body, "class", json_string(cls));
	json_object_set_new(body, "error", job_raw_text(error, strlen(error),
							JOB_RAW_CAP));
	if (output)
		json_object_set_new(body, "output",
				    job_raw_text(output, strlen(output),
						 JOB_RAW_CAP));
	snprintf(path, sizeof(path), "/api/agent/jobs/%ld/fail", id);
	rc = http_json_retry(cfg, "POST", path, body, 60, 0, &status, &reply,
			     err, sizeof(err));
	if (rc == 0 && (status < 200 || status > 299)) {
		http_reply_error(status, reply, err, sizeof(err));
		rc = -1;
	}
	if (rc)
		agent_log("job %ld: cannot report the failure: %s", id, err);
	json_decref(reply);
	json_decref(body);
	return rc;
}

/* Read at most cap bytes of path into a raw JSON string. */
static json_t *job_read_raw(const char *path, size_t cap)
{
	struct stat st;
	json_t *s = NULL;
	char *buf;
	size_t n;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
		buf = malloc(cap ? cap : 1);
		if (!buf)
			abort();
		n = fread(buf, 1, cap, f);
		if (n == cap && (size_t)st.st_size > n)
			n = (size_t)st.st_size;	/* cut: the note says so */
		s = job_raw_text(buf, n, cap);
		free(buf);
	}
	fclose(f);
	return s;
}

/* Add every non-empty file below dir to raw as "prefix/name". */
static void job_raw_dir(json_t *raw, const char *dir, const char *prefix,
			int depth)
{
	struct strbuf path = STRBUF_INIT, name = STRBUF_INIT;
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);
	json_t *s;

	sb_init(&path);
	sb_init(&name);
	for (e = d ? readdir(d) : NULL; e; e = readdir(d)) {
		/* results.json and rep-N.json go up as documents */
		if (e->d_name[0] == '.' ||
		    (!*prefix && (!strcmp(e->d_name, "results.json") ||
				  !strncmp(e->d_name, "rep-", 4))))
			continue;
		sb_reset(&path);
		sb_addf(&path, "%s/%s", dir, e->d_name);
		sb_reset(&name);
		sb_addf(&name, "%s%s%s", prefix, *prefix ? "/" : "", e->d_name);
		if (lstat(path.buf, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth > 1)
			job_raw_dir(raw, path.buf, name.buf, depth - 1);
		if (!S_ISREG(st.st_mode) || !st.st_size)
			continue;
		s = job_read_raw(path.buf, JOB_RAW_CAP);
		if (s)
			json_object_set_new(raw, name.buf, s);
	}
	if (d)
		closedir(d);
	sb_release(&path);
	sb_release(&name);
}

/* "raw": every file klab-run left in out but results.json, and its log. */
static json_t *job_collect_raw(const char *out, const char *runlog)
{
	json_t *raw = json_object(), *s;

	job_raw_dir(raw, out, "", JOB_RAW_DEPTH);
	s = job_read_raw(runlog, JOB_RAW_CAP);
	if (s)
		json_object_set_new(raw, JOB_RUN_LOG, s);
	return raw;
}

/* POST the results until klabd answers; 0 when it stored them. */
static int job_upload(const struct agent_config *cfg, const struct job *job,
		      json_t *doc)
{
	json_t *reply = NULL;
	char path[64], err[1024];
	long status = 0;
	int i;

	snprintf(path, sizeof(path), "/api/agent/jobs/%ld/results", job->id);
	for (i = 0; i < 2; i++) {
		agent_log("job %ld: uploading results (%zu raw outputs)",
			  job->id,
			  json_object_size(json_object_get(doc, "raw")));
		json_decref(reply);
		http_json_retry(cfg, "POST", path, doc, 300, 0, &status, &reply,
				err, sizeof(err));
		if (status >= 200 && status <= 299) {
			agent_log("job %ld: results stored (HTTP %ld)", job->id,
				  status);
			json_decref(reply);
			return 0;
		}
		if (status != 413 || !json_object_get(doc, "raw"))
			break;
		agent_log("job %ld: upload too large, retrying without the raw "
			  "outputs", job->id);
		json_object_del(doc, "raw");
	}
	http_reply_error(status, reply, err, sizeof(err));
	json_decref(reply);
	return job_fail(cfg, job->id, "benchmark", err, NULL) ? -1 : 1;
}

/* "suite_sha256": the hash of the suite text the run was handed, which
 * klabd records with the run's configuration, so that cells of an edited
 * suite file are never pooled with the old file's (docs/VERDICTS.md). */
static void job_suite_hash(const struct job *job, json_t *doc)
{
	char hex[SHA256_HEX_LEN + 1];

	if (!job->suite_text)
		return;
	sha256_hex(job->suite_text, strlen(job->suite_text), hex);
	json_object_set_new(doc, "suite_sha256", json_string(hex));
}

/* "repetitions": every DIR/rep-N.json klab-run wrote, in order. */
static json_t *job_collect_reps(const char *out)
{
	struct strbuf path = STRBUF_INIT;
	json_t *reps = json_array(), *doc;
	unsigned n;

	sb_init(&path);
	for (n = 1; n <= 1000; n++) {
		sb_reset(&path);
		sb_addf(&path, "%s/rep-%u.json", out, n);
		doc = json_load_file(path.buf, 0, NULL);
		if (!doc)
			break;
		if (json_is_object(doc))
			json_array_append(reps, doc);
		json_decref(doc);
	}
	sb_release(&path);
	return reps;
}

static json_t *job_step(const char *name, double secs)
{
	return json_pack("{s:s, s:i, s:f}", "step", name, "rep", 0, "secs",
			 secs > 0 ? secs : 0);
}

/*
 * "steps": a kexec boot's kernel start to agent start and agent start to
 * check-in (the guest's clock), the agent's preparation, klab-run's own
 * steps (results.json has them), what they leave of klab-run's time, the
 * unmount and the collecting of the upload (from t0, proc_now_ms):
 * docs/AGENT.md.
 */
static void job_steps(json_t *doc, const struct job_times *t, long long t0)
{
	json_t *own = json_object_get(doc, "steps"), *all = json_array(), *s;
	double sum = 0;
	size_t i;

	if (t->kernel > 0 || t->agent > 0) {
		json_array_append_new(all, job_step("boot.kernel", t->kernel));
		json_array_append_new(all, job_step("boot.agent", t->agent));
	}
	json_array_append_new(all, job_step("prepare", t->prepare));
	json_array_foreach(json_is_array(own) ? own : NULL, i, s) {
		sum += json_number_value(json_object_get(s, "secs"));
		json_array_append(all, s);
	}
	json_array_append_new(all, job_step("klab-run.rest", t->run - sum));
	json_array_append_new(all, job_step("finish", t->finish));
	json_array_append_new(all, job_step("collect", (double)(proc_now_ms() -
					    t0) / 1000));
	json_object_set_new(doc, "steps", all);
}

int job_upload_results(const struct agent_config *cfg, const struct job *job,
		       json_t *doc, const char *out, const char *runlog,
		       const struct job_times *t)
{
	long long t0 = proc_now_ms();

	json_object_set_new(doc, "raw", job_collect_raw(out, runlog));
	json_object_set_new(doc, "repetitions", job_collect_reps(out));
	job_suite_hash(job, doc);
	job_steps(doc, t, t0);
	return job_upload(cfg, job, doc) < 0 ? -1 : 0;
}
