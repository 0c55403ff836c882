/* SPDX-License-Identifier: MIT */
/*
 * api_util: strict reads of the fields of a JSON request body, shared by
 * every API handler.  A field of the wrong type is never coerced: the
 * request is answered 400 naming the field and both types ("field
 * 'disks': expected an integer, got a string").  Strings with an embedded
 * NUL (\u0000) are refused; names are checked with lib/ident.h.
 *
 * Each reader returns 0 with *out set, or leaves *out untouched when the
 * field is absent or null and not required; on any error it fills r with
 * the 400 answer and returns -1 (the handler then returns r->status).
 */
#ifndef KLAB_API_UTIL_H
#define KLAB_API_UTIL_H

#include <jansson.h>
#include <stdint.h>

#include "http/req.h"
#include "klabd/outcome.h"
#include "lib/ident.h"

/* Answer with a JSON document (takes the reference); parse the request
 * body as a JSON object or answer 400 (415 when strict and the content
 * type is not application/json) and return NULL. */
int api_reply(struct web_response *r, int status, json_t *doc);
json_t *api_body(struct req *rq, struct web_response *r, int strict);
/* The ID of the path (rq->arg, 1 .. 2^31-1) into *id: 0, or 400 with r
 * filled ("invalid WHAT id"). */
int api_arg_id(struct req *rq, struct web_response *r, const char *what,
	       long *id);
/* Answer 200 with {"key": [...]}, each of the n elements of v (size bytes
 * apart) made JSON by to_json; v stays the caller's. */
int api_reply_list(struct web_response *r, const char *key, const void *v,
		   size_t n, size_t size, json_t *(*to_json)(const void *elem));
/* Answer 201 {"id", "state": "running", "url": "DIR/ID"} for a run just
 * started (a submission, a bisection). */
int api_reply_started(struct web_response *r, const char *dir, int64_t id);

int api_field_str(struct web_response *r, json_t *doc, const char *key,
		  int required, const char **out);
int api_field_ident(struct web_response *r, json_t *doc, const char *key,
		    enum ident_kind kind, int required, const char **out);
int api_field_int(struct web_response *r, json_t *doc, const char *key,
		  int required, long long min, long long max, long long *out);
int api_field_num(struct web_response *r, json_t *doc, const char *key,
		  int required, double *out);
int api_field_bool(struct web_response *r, json_t *doc, const char *key,
		   int required, int *out);
/*
 * The job configuration every way of queueing cells takes (a job, a
 * comparison run, a bisection): "scale" (absent: 0, the suite's own),
 * "scheduler" and "cmdline" (absent: "", the rig's default and nothing
 * added), strings borrowed from doc; checked by job_config_check
 * (lab/job_check.h).  0, or -1 after a 400.
 */
int api_job_config_fields(struct web_response *r, json_t *doc,
			  double *scale, const char **scheduler,
			  const char **cmdline);
/* A JSON string value as a name of kind (for array elements); what names
 * it in errors ("kernels[2]").  The string, or NULL after a 400. */
const char *api_value_ident(struct web_response *r, json_t *v,
			    const char *what, enum ident_kind kind);


/* A service's answer as HTTP: the JSON error of o with the message err,
 * its status from the one table (web_status, web/web.h). */
int api_error(struct web_response *r, enum outcome o, const char *err);
/* Who rq is, as a service of flow/ and lab/ takes it (rq's strings). */
struct caller api_caller(const struct req *rq);
/*
 * After a call that checked a request's series on base (a build, a
 * submission, a bisection): when it refused a patch (OUT_REFUSED,
 * OUT_TOOBIG) the refusal goes into the audit log ("patch refused") and
 * klabd's log, naming the caller; any other outcome records nothing.
 */
void api_patch_refused(struct req *rq, enum outcome o, const char *base,
		       const char *err);
/* The HTTP status of a DB_* code of db/db.h (outcome_of_db, then the
 * one table, web_status); the JSON error of rc with the message err
 * ("database error" when err is ""). */
int http_status_of(int dbrc);
int api_db_error(struct web_response *r, int rc, const char *err);
/*
 * api_submissions.c: the "patches" of a JSON request ([{"name", "text"}
 * or "text", ...]) into file[*n], file[*n + 1] ... (file[max - 1] the
 * last), borrowed from doc; 0, or -1 after a 400.  For submissions and
 * bisections.
 */
struct sub_file;
int sub_json_patches(struct web_response *r, json_t *doc,
		     struct sub_file *file, size_t *n, size_t max);

#endif
