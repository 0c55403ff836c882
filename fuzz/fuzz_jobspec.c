// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for agent/jobspec.c, the agent's reader of the job
 * document klabd hands a rig (docs/AGENT.md).  The input is parsed as
 * JSON; an object goes to job_parse, which must either fail with a
 * message and an empty job, or yield a job whose members that reach file
 * names and argv are safe.  The same bytes then go through job_raw_text,
 * which must always make a valid JSON string (jansson refuses invalid
 * UTF-8) of bounded length: at most three bytes (U+FFFD, lib/utf8.h) for
 * each byte kept, plus the line that says where it was cut.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void job_check(const struct job *job)
{
	size_t i;

	if (job->id <= 0 || !job->kernel || !job->release ||
	    !job->kernel_url || !job->kernel_sha256 || !job->suite ||
	    !job->suite_text || !job->disks || job->scale <= 0 ||
	    job->timeout <= 0)
		abort();
	if (!job_name_ok(job->suite) || !job_name_ok(job->kernel) ||
	    strlen(job->kernel_sha256) != 64 || !job->initrd_url !=
	    !job->initrd_sha256 || (job->scheduler && !job->scheduler[0]))
		abort();
	for (i = 0; job->disks[i]; i++)
		if (!job->disks[i][0] || strchr(job->disks[i], ','))
			abort();
}

static void raw_check(const uint8_t *data, size_t size)
{
	size_t cap = size ? data[0] * 4 : 0;
	size_t kept = size < cap ? size : cap;
	json_t *s = job_raw_text((const char *)data, size, cap);

	if (!s || !json_is_string(s))
		abort();
	if (json_string_length(s) > 3 * kept + 80)
		abort();
	json_decref(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc, *obj;
	struct job job;
	char err[256];

	raw_check(data, size);
	doc = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
	if (!doc)
		return 0;
	/* a whole /api/agent/next answer, or the job object itself */
	obj = json_object_get(doc, "job");
	if (!obj)
		obj = doc;
	err[0] = '\0';
	if (job_parse(obj, &job, err, sizeof(err))) {
		if (!err[0] || job.kernel || job.disks || job.id)
			abort();
	} else {
		job_check(&job);
		job_release(&job);
	}
	json_decref(doc);
	return 0;
}
