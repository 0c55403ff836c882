// SPDX-License-Identifier: MIT
/*
 * What every JSON handler of klabd shares: writing a JSON answer and
 * reading a JSON request body, with errors that say what was wrong; the
 * statuses of the services' outcomes (klabd/outcome.h), in one table.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/api_util.h"
#include "http/auth.h"
#include "klabd/klabd.h"

int api_reply(struct web_response *r, int status, json_t *doc)
{
	char *s = json_dumps(doc, JSON_COMPACT | JSON_ENSURE_ASCII);

	json_decref(doc);
	if (!s)
		return web_error_json(r, 500, "cannot encode json");
	r->status = status;
	r->content_type = "application/json";
	sb_reset(&r->body);
	sb_adds(&r->body, s);
	sb_addc(&r->body, '\n');
	free(s);
	return status;
}

int api_reply_list(struct web_response *r, const char *key, const void *v,
		   size_t n, size_t size, json_t *(*to_json)(const void *elem))
{
	const unsigned char *p = v;
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, to_json(p + i * size));
	return api_reply(r, 200, json_pack("{s:o}", key, a));
}

int api_arg_id(struct req *rq, struct web_response *r, const char *what,
	       long *id)
{
	char msg[64];

	if (!parse_long(rq->arg, 1, 0x7fffffffL, id))
		return 0;
	snprintf(msg, sizeof(msg), "invalid %s id", what);
	return web_error_json(r, 400, msg);
}

int api_reply_started(struct web_response *r, const char *dir, int64_t id)
{
	char url[64];

	snprintf(url, sizeof(url), "%s/%lld", dir, (long long)id);
	return api_reply(r, 201, json_pack("{s:I, s:s, s:s}", "id",
					   (json_int_t)id, "state", "running",
					   "url", url));
}

/* The path of the first string under v holding a NUL, into path; 1 when
 * found.  Depth-limited: request bodies are shallow. */
static int find_nul(json_t *v, char *path, size_t len, int depth)
{
	size_t n = strlen(path), i;
	const char *key;
	json_t *e;

	if (json_is_string(v))
		return strlen(json_string_value(v)) != json_string_length(v);
	if (depth > 8)
		return 0;
	json_object_foreach(v, key, e) {
		snprintf(path + n, len - n, "%s%.60s", n ? "." : "", key);
		if (find_nul(e, path, len, depth + 1))
			return 1;
	}
	json_array_foreach(v, i, e) {
		snprintf(path + n, len - n, "[%zu]", i);
		if (find_nul(e, path, len, depth + 1))
			return 1;
	}
	path[n] = '\0';
	return 0;
}

json_t *api_body(struct req *rq, struct web_response *r, int strict)
{
	char path[256] = "";
	json_error_t je;
	json_t *doc;
	char err[300];

	if (strict && strcmp(rq->content_type, "application/json")) {
		web_error_json(r, 415, "send application/json");
		return NULL;
	}
	doc = json_loadb(rq->body, rq->body_len, JSON_ALLOW_NUL, &je);
	if (!json_is_object(doc)) {
		snprintf(err, sizeof(err), "invalid json at line %d: %s",
			 je.line, doc ? "expected an object" : je.text);
		json_decref(doc);
		web_error_json(r, 400, err);
		return NULL;
	}
	/* a \u0000 would cut a string short where it is read */
	if (find_nul(doc, path, sizeof(path), 0)) {
		snprintf(err, sizeof(err), "field '%s': has a NUL (\\u0000)",
			 path);
		json_decref(doc);
		web_error_json(r, 400, err);
		return NULL;
	}
	return doc;
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* The field's value, NULL when absent or null (-1 in *rc if required). */
static json_t *field(struct web_response *r, json_t *doc, const char *key,
		     int required, int *rc)
{
	json_t *v = json_object_get(doc, key);
	char err[200];

	*rc = 0;
	if (v && !json_is_null(v))
		return v;
	if (required) {
		snprintf(err, sizeof(err), "field '%s' is required", key);
		web_error_json(r, 400, err);
		*rc = -1;
	}
	return NULL;
}

static int wrong_type(struct web_response *r, const char *key,
		      const char *want, const json_t *v)
{
	char err[200];

	snprintf(err, sizeof(err), "field '%s': expected %s, got %s", key,
		 want, type_name(v));
	web_error_json(r, 400, err);
	return -1;
}

/* A string without NUL, or NULL after a 400 naming what. */
static const char *string_of(struct web_response *r, json_t *v,
			     const char *what)
{
	char err[200];
	size_t n;

	if (!json_is_string(v)) {
		wrong_type(r, what, "a string", v);
		return NULL;
	}
	n = strlen(json_string_value(v));
	if (n != json_string_length(v)) {
		snprintf(err, sizeof(err), "field '%s': has a NUL at byte %zu",
			 what, n + 1);
		web_error_json(r, 400, err);
		return NULL;
	}
	return json_string_value(v);
}

int api_field_str(struct web_response *r, json_t *doc, const char *key,
		  int required, const char **out)
{
	int rc;
	json_t *v = field(r, doc, key, required, &rc);
	const char *s;

	if (!v)
		return rc;
	s = string_of(r, v, key);
	if (!s)
		return -1;
	*out = s;
	return 0;
}

const char *api_value_ident(struct web_response *r, json_t *v,
			    const char *what, enum ident_kind kind)
{
	const char *s = string_of(r, v, what);
	char why[300], err[400];

	if (s && ident_checks(kind, s, why, sizeof(why))) {
		snprintf(err, sizeof(err), "field '%s': %s", what, why);
		web_error_json(r, 400, err);
		return NULL;
	}
	return s;
}

int api_field_ident(struct web_response *r, json_t *doc, const char *key,
		    enum ident_kind kind, int required, const char **out)
{
	int rc;
	json_t *v = field(r, doc, key, required, &rc);
	const char *s;

	if (!v)
		return rc;
	s = api_value_ident(r, v, key, kind);
	if (!s)
		return -1;
	*out = s;
	return 0;
}

enum field_type { FT_INT, FT_NUM, FT_BOOL };

/*
 * Field key of type t into *out (a json_int_t, a double or an int): 0, 1
 * when it is absent and not required (*out untouched), -1 after a 400.
 */
static int typed_field(struct web_response *r, json_t *doc, const char *key,
		       int required, enum field_type t, void *out)
{
	static const char *const want[] = {
		"an integer", "a number", "a boolean",
	};
	int rc, ok;
	json_t *v = field(r, doc, key, required, &rc);

	if (!v)
		return rc ? rc : 1;
	ok = t == FT_INT ? json_is_integer(v) :
	     t == FT_NUM ? json_is_number(v) : json_is_boolean(v);
	if (!ok)
		return wrong_type(r, key, want[t], v);
	if (t == FT_INT)
		*(json_int_t *)out = json_integer_value(v);
	else if (t == FT_NUM)
		*(double *)out = json_number_value(v);
	else
		*(int *)out = json_is_true(v);
	return 0;
}

int api_field_int(struct web_response *r, json_t *doc, const char *key,
		  int required, long long min, long long max, long long *out)
{
	char err[200];
	json_int_t n = 0;
	int rc = typed_field(r, doc, key, required, FT_INT, &n);

	if (rc)
		return rc > 0 ? 0 : rc;
	if (n < min || n > max) {
		snprintf(err, sizeof(err), "field '%s': %lld is not in "
			 "%lld..%lld", key, (long long)n, min, max);
		web_error_json(r, 400, err);
		return -1;
	}
	*out = n;
	return 0;
}

int api_field_num(struct web_response *r, json_t *doc, const char *key,
		  int required, double *out)
{
	int rc = typed_field(r, doc, key, required, FT_NUM, out);

	return rc > 0 ? 0 : rc;
}

int api_field_bool(struct web_response *r, json_t *doc, const char *key,
		   int required, int *out)
{
	int rc = typed_field(r, doc, key, required, FT_BOOL, out);

	return rc > 0 ? 0 : rc;
}

int api_job_config_fields(struct web_response *r, json_t *doc,
			  double *scale, const char **scheduler,
			  const char **cmdline)
{
	*scale = 0;
	*scheduler = *cmdline = "";
	if (api_field_num(r, doc, "scale", 0, scale) ||
	    api_field_str(r, doc, "scheduler", 0, scheduler) ||
	    api_field_str(r, doc, "cmdline", 0, cmdline))
		return -1;
	return 0;
}

int http_status_of(int dbrc)
{
	return web_status(outcome_of_db(dbrc));
}

int api_db_error(struct web_response *r, int rc, const char *err)
{
	return web_error_json(r, http_status_of(rc), err[0] ? err :
			      "database error");
}

int api_error(struct web_response *r, enum outcome o, const char *err)
{
	return web_error_json(r, web_status(o), err);
}

struct caller api_caller(const struct req *rq)
{
	struct caller c = { rq->who, rq->role == ROLE_OPERATOR };

	return c;
}

void api_patch_refused(struct req *rq, enum outcome o, const char *base,
		       const char *err)
{
	if (o != OUT_REFUSED && o != OUT_TOOBIG)
		return;
	auth_audit(rq, "patch refused", base, "%.400s", err);
	fprintf(stderr, "klabd: patches of '%s' refused: %s\n",
		rq->who[0] ? rq->who : "anonymous", err);
}
