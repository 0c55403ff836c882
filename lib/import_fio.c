// SPDX-License-Identifier: MIT
/*
 * import_fio: fio --output-format=json (and json+, whose extra latency bins
 * are ignored).  Per job and per direction that moved data (read, write,
 * trim with io_bytes > 0): iops, bw, completion and total latency mean and
 * max, completion latency percentiles 50/90/99/99.9; per job usr and sys
 * CPU.  fio 3 reports latencies in nanoseconds (clat_ns, lat_ns), fio 2 in
 * microseconds (clat, lat): both become microseconds.  Lines fio or a shell
 * printed before the JSON ("note: both iodepth >= 1 ...") are skipped.
 * Job names become metric path parts, so they are reduced to [A-Za-z0-9_-].
 */
#include "import.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "import_priv.h"

#define JOBNAME_MAX 64

struct fjob {
	struct iacc *acc;
	const char *kernel;
	char name[JOBNAME_MAX + 1];
	size_t idx;
	struct import_error *err;
};

/* Number member key of o; path names o in errors.  0 or -1. */
static int get_num(const struct fjob *j, const json_t *o, const char *path,
		   const char *key, double *v)
{
	json_t *m = json_object_get(o, key);
	char field[64];

	snprintf(field, sizeof(field), "%s.%s", path, key);
	if (!m)
		return import_fail(j->err, 0, field, "missing");
	if (!json_is_number(m))
		return import_fail(j->err, 0, field, "not a number");
	*v = json_number_value(m);
	return 0;
}

static void add(const struct fjob *j, const char *dir, const char *key,
		const char *unit, double v, enum metric_dir d)
{
	char metric[IMPORT_NAME_MAX + 1];

	if (dir)
		snprintf(metric, sizeof(metric), "fio.%s.%s.%s", j->name, dir,
			 key);
	else
		snprintf(metric, sizeof(metric), "fio.%s.%s", j->name, key);
	iacc_add(j->acc, j->kernel, metric, unit, v, d, (int)j->idx);
}

/* The number key of o as the metric of the same name; 0 or -1. */
static int get_add(const struct fjob *j, const json_t *o, const char *path,
		   const char *dir, const char *key, const char *unit,
		   enum metric_dir d)
{
	double v;

	if (get_num(j, o, path, key, &v))
		return -1;
	add(j, dir, key, unit, v, d);
	return 0;
}

static const struct {
	const char *key, *suffix;
} pcts[] = {
	{ "50.000000", "clat_p50" },
	{ "90.000000", "clat_p90" },
	{ "99.000000", "clat_p99" },
	{ "99.900000", "clat_p99_9" },
};

/* clat or lat statistics of one direction: mean, max, percentiles. */
static int latency(const struct fjob *j, const json_t *d, const char *path,
		   const char *dir, const char *what)
{
	char key[16], sub[64], metric[32];
	const json_t *o, *p;
	double scale = 1e-3, v;
	size_t i;

	snprintf(key, sizeof(key), "%s_ns", what);
	o = json_object_get(d, key);
	if (!o) {	/* fio 2: microseconds */
		snprintf(key, sizeof(key), "%s", what);
		o = json_object_get(d, key);
		scale = 1.0;
	}
	snprintf(sub, sizeof(sub), "%s.%s", path, key);
	if (!json_is_object(o))
		return import_fail(j->err, 0, sub, o ? "not an object"
						      : "missing");
	snprintf(metric, sizeof(metric), "%s_mean", what);
	if (get_num(j, o, sub, "mean", &v))
		return -1;
	add(j, dir, metric, "us", v * scale, DIR_LOWER);
	snprintf(metric, sizeof(metric), "%s_max", what);
	if (get_num(j, o, sub, "max", &v))
		return -1;
	add(j, dir, metric, "us", v * scale, DIR_LOWER);
	p = json_object_get(o, "percentile");
	if (strcmp(what, "clat") || !json_is_object(p))
		return 0;
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		json_t *m = json_object_get(p, pcts[i].key);

		if (json_is_number(m))
			add(j, dir, pcts[i].suffix, "us",
			    json_number_value(m) * scale, DIR_LOWER);
	}
	return 0;
}

static int direction(const struct fjob *j, const json_t *job,
		     const char *dir)
{
	const json_t *d = json_object_get(job, dir);
	char path[64];
	double v;

	snprintf(path, sizeof(path), "jobs[%zu].%s", j->idx, dir);
	if (!d)
		return 0;
	if (!json_is_object(d))
		return import_fail(j->err, 0, path, "not an object");
	if (get_num(j, d, path, "io_bytes", &v))
		return -1;
	if (v <= 0)
		return 0;
	if (get_add(j, d, path, dir, "iops", "IOPS", DIR_HIGHER) ||
	    get_add(j, d, path, dir, "bw", "KiB/s", DIR_HIGHER))
		return -1;
	return latency(j, d, path, dir, "clat") ||
	       latency(j, d, path, dir, "lat") ? -1 : 0;
}

/* The job's name as a metric path part; 0 or -1. */
static int job_name(struct fjob *j, const json_t *job)
{
	const json_t *n = json_object_get(job, "jobname");
	char field[64];
	const char *s;
	size_t i, len;

	snprintf(field, sizeof(field), "jobs[%zu].jobname", j->idx);
	if (!json_is_string(n))
		return import_fail(j->err, 0, field, n ? "not a string"
						      : "missing");
	s = json_string_value(n);
	len = json_string_length(n);
	if (len == 0 || len > JOBNAME_MAX)
		return import_fail(j->err, 0, field, "empty or longer than "
				   "%d bytes", JOBNAME_MAX);
	for (i = 0; i < len; i++) {
		char c = s[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || c == '-';

		j->name[i] = ok ? c : '_';
	}
	j->name[len] = '\0';
	return 0;
}

static int one_job(struct fjob *j, const json_t *job, int *failed)
{
	static const char *const dirs[] = { "read", "write", "trim" };
	char path[32];
	json_t *e;
	size_t i;

	snprintf(path, sizeof(path), "jobs[%zu]", j->idx);
	if (!json_is_object(job))
		return import_fail(j->err, 0, path, "not an object");
	if (job_name(j, job))
		return -1;
	for (i = 0; i < 3; i++)
		if (direction(j, job, dirs[i]))
			return -1;
	if (get_add(j, job, path, NULL, "usr_cpu", "%", DIR_LOWER) ||
	    get_add(j, job, path, NULL, "sys_cpu", "%", DIR_LOWER))
		return -1;
	e = json_object_get(job, "error");
	if (json_is_integer(e) && json_integer_value(e) != 0)
		*failed = 1;
	return 0;
}

/* Two jobs with the same (reduced) name would mix their numbers. */
static int check_dup_jobs(struct iacc *acc, struct import_error *err)
{
	size_t a, b;
	const char *m;

	if (!iacc_find_dup(acc, &a, &b))
		return 0;
	m = acc->rs.v[b].metric + 4;
	return import_fail(err, 0, "jobname", "jobs[%d] and jobs[%d] are "
			   "both named '%.*s': give jobs distinct names or "
			   "use group_reporting", acc->line[a], acc->line[b],
			   (int)strcspn(m, "."), m);
}

/* The text names no kernel: results go to kernel, else out->kernel. */
int import_fio(const char *buf, size_t len, const char *kernel,
	       struct result_set *out, struct import_error *err)
{
	struct iacc acc;
	struct fjob j;
	json_t *doc, *jobs;
	int failed = 0;

	memset(&j, 0, sizeof(j));
	j.kernel = import_default_kernel(kernel, out);
	if (!j.kernel)
		return import_fail(err, 0, "kernel", "fio output names no "
				   "kernel and none was given");
	doc = import_json_load(buf, len, 1, err);
	if (!doc)
		return -1;
	iacc_init(&acc);
	j.acc = &acc;
	j.err = err;
	jobs = json_object_get(doc, "jobs");
	if (!json_is_array(jobs)) {
		import_fail(err, 0, "jobs", jobs ? "not an array" : "missing");
		goto out_fail;
	}
	for (j.idx = 0; j.idx < json_array_size(jobs); j.idx++)
		if (one_job(&j, json_array_get(jobs, j.idx), &failed))
			goto out_fail;
	if (check_dup_jobs(&acc, err))
		goto out_fail;
	json_decref(doc);
	if (acc.rs.n && failed)
		out->incomplete = 1;
	return iacc_finish(&acc, out, err, "fio");

out_fail:
	json_decref(doc);
	iacc_release(&acc);
	return -1;
}
