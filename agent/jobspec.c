// SPDX-License-Identifier: MIT
/*
 * The job document klabd hands a rig (docs/AGENT.md, call 2) parsed into
 * struct job with every member checked, and raw outputs turned into JSON
 * strings that are safe to upload (capped, valid UTF-8 by lib/utf8.h).
 * Pure functions; see agent.h.
 */
#include "agent/agent.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/utf8.h"

/* Copy string member key into *dst; optional members may be null. */
static int job_str(const json_t *obj, const char *key, int required,
		   char **dst, char *err, size_t errlen)
{
	const json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v)) {
		if (!required)
			return 0;
		snprintf(err, errlen, "job: missing member '%s'", key);
		return -1;
	}
	if (!json_is_string(v)) {
		snprintf(err, errlen, "job: member '%s' is not a string", key);
		return -1;
	}
	*dst = strdup(json_string_value(v));
	if (!*dst)
		abort();
	return 0;
}

int job_name_ok(const char *s)
{
	if (!s || !*s || s[0] == '.')
		return 0;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+", *s))
			return 0;
	return 1;
}

static int job_disks(const json_t *obj, struct job *job, char *err,
		     size_t errlen)
{
	const json_t *v = json_object_get(obj, "disks"), *d;
	size_t i, n = json_is_array(v) ? json_array_size(v) : 0;

	if (v && !json_is_null(v) && !json_is_array(v)) {
		snprintf(err, errlen, "job: member 'disks' is not an array");
		return -1;
	}
	job->disks = calloc(n + 1, sizeof(*job->disks));
	if (!job->disks)
		abort();
	json_array_foreach(v, i, d) {
		if (!json_is_string(d) || !*json_string_value(d) ||
		    strchr(json_string_value(d), ',')) {
			snprintf(err, errlen, "job: disks[%zu] is not a disk",
				 i);
			return -1;
		}
		job->disks[i] = strdup(json_string_value(d));
		if (!job->disks[i])
			abort();
	}
	return 0;
}

/* id, scale and timeout; the numbers of the job. */
static int job_numbers(const json_t *obj, struct job *job, char *err,
		       size_t errlen)
{
	const json_t *id = json_object_get(obj, "id");
	const json_t *scale = json_object_get(obj, "scale");
	const json_t *timeout = json_object_get(obj, "timeout");

	if (!json_is_integer(id) || json_integer_value(id) <= 0) {
		snprintf(err, errlen, "job: member 'id' is not a job id");
		return -1;
	}
	job->id = (long)json_integer_value(id);
	job->scale = 1.0;
	if (scale && !json_is_null(scale)) {
		if (!json_is_number(scale) || json_number_value(scale) <= 0) {
			snprintf(err, errlen, "job: member 'scale' is not a "
				 "positive number");
			return -1;
		}
		job->scale = json_number_value(scale);
	}
	job->timeout = 3600;
	if (timeout && !json_is_null(timeout)) {
		if (!json_is_integer(timeout) ||
		    json_integer_value(timeout) <= 0) {
			snprintf(err, errlen, "job: member 'timeout' is not a "
				 "positive integer");
			return -1;
		}
		job->timeout = (long)json_integer_value(timeout);
	}
	return 0;
}

static int job_strings(const json_t *obj, struct job *job, char *err,
		       size_t errlen)
{
	if (job_str(obj, "kernel", 1, &job->kernel, err, errlen) ||
	    job_str(obj, "release", 1, &job->release, err, errlen) ||
	    job_str(obj, "kernel_url", 1, &job->kernel_url, err, errlen) ||
	    job_str(obj, "kernel_sha256", 1, &job->kernel_sha256, err,
		    errlen) ||
	    job_str(obj, "initrd_url", 0, &job->initrd_url, err, errlen) ||
	    job_str(obj, "initrd_sha256", 0, &job->initrd_sha256, err,
		    errlen) ||
	    job_str(obj, "cmdline", 0, &job->cmdline, err, errlen) ||
	    job_str(obj, "suite", 1, &job->suite, err, errlen) ||
	    job_str(obj, "suite_text", 1, &job->suite_text, err, errlen) ||
	    job_str(obj, "scheduler", 0, &job->scheduler, err, errlen))
		return -1;
	if (!job->initrd_url != !job->initrd_sha256) {
		snprintf(err, errlen, "job: 'initrd_url' and 'initrd_sha256' "
			 "go together");
		return -1;
	}
	return 0;
}

/* The members that end up in file names and argv. */
static int job_check_names(struct job *job, char *err, size_t errlen)
{
	if (!job_name_ok(job->suite)) {
		snprintf(err, errlen, "job: invalid suite name '%s'",
			 job->suite);
		return -1;
	}
	if (!job_name_ok(job->kernel)) {
		snprintf(err, errlen, "job: invalid kernel '%s'", job->kernel);
		return -1;
	}
	if (strlen(job->kernel_sha256) != 64 ||
	    (job->initrd_sha256 && strlen(job->initrd_sha256) != 64)) {
		snprintf(err, errlen, "job: a sha256 is not 64 hex digits");
		return -1;
	}
	if (job->scheduler && !*job->scheduler) {
		free(job->scheduler);
		job->scheduler = NULL;
	}
	return 0;
}

int job_parse(const json_t *obj, struct job *job, char *err, size_t errlen)
{
	memset(job, 0, sizeof(*job));
	if (!json_is_object(obj)) {
		snprintf(err, errlen, "job: not an object");
		return -1;
	}
	if (job_numbers(obj, job, err, errlen) ||
	    job_strings(obj, job, err, errlen) ||
	    job_disks(obj, job, err, errlen) ||
	    job_check_names(job, err, errlen)) {
		job_release(job);
		return -1;
	}
	return 0;
}

static void job_strs_free(struct job *job)
{
	char **const fields[] = { &job->kernel, &job->release,
				  &job->kernel_url, &job->kernel_sha256,
				  &job->initrd_url, &job->initrd_sha256,
				  &job->cmdline, &job->suite, &job->suite_text,
				  &job->scheduler };

	alloc_strs_free(fields, ALLOC_ARRAY_SIZE(fields));
}

void job_release(struct job *job)
{
	char **d;

	if (!job)
		return;
	job_strs_free(job);
	for (d = job->disks; d && *d; d++)
		free(*d);
	free(job->disks);
	memset(job, 0, sizeof(*job));
}

json_t *job_raw_text(const char *data, size_t len, size_t cap)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *s;

	sb_init(&sb);
	/* cut first: a character cut in two at cap is repaired as bad bytes */
	utf8_repair_add(&sb, data, len < cap ? len : cap);
	if (len > cap)
		sb_addf(&sb, "\n[klab-agent: cut at %zu of %zu bytes]\n", cap,
			len);
	s = utf8_json_stringn(sb.buf, sb.len);
	sb_release(&sb);
	return s;
}
