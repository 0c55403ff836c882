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

#include "klabd/klabd.h"
#include "lib/ident.h"

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
 * added), strings borrowed from doc; checked by api_job_config_check
 * (klabd.h).  0, or -1 after a 400.
 */
int api_job_config_fields(struct web_response *r, json_t *doc,
			  double *scale, const char **scheduler,
			  const char **cmdline);
/* A JSON string value as a name of kind (for array elements); what names
 * it in errors ("kernels[2]").  The string, or NULL after a 400. */
const char *api_value_ident(struct web_response *r, json_t *v,
			    const char *what, enum ident_kind kind);

#endif
