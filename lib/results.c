// SPDX-License-Identifier: MIT
/*
 * results: the result_set container and the JSON round trip of the
 * "klab-results/1" document (docs/RESULTS.md).  The JSON reader is strict:
 * every member it knows must have the right type, every value must be
 * finite, and the first fault is reported with the member's path
 * ("results[3].value").  Unknown members are ignored so the schema can grow.
 * Allocation failure aborts, as everywhere in klab.
 */
#include "results.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ident.h"
#include "import_priv.h"
#include "utf8.h"

#define RESULTS_SCHEMA "klab-results/1"

void result_set_init(struct result_set *rs)
{
	memset(rs, 0, sizeof(*rs));
}

static void result_set_free(struct result_set *rs)
{
	char **const fields[] = { &rs->kernel, &rs->rig, &rs->suite,
				  &rs->format, &rs->error };
	size_t i;

	for (i = 0; i < rs->n; i++) {
		char **const rf[] = { &rs->v[i].kernel, &rs->v[i].metric,
				      &rs->v[i].unit };

		alloc_strs_free(rf, ALLOC_ARRAY_SIZE(rf));
	}
	alloc_strs_free(fields, ALLOC_ARRAY_SIZE(fields));
	free(rs->v);
}

void result_set_release(struct result_set *rs)
{
	if (!rs)
		return;
	result_set_free(rs);
	result_set_hist_release(rs);
	result_set_steps_release(rs);
	result_set_init(rs);
}

void result_set_setstr(char **field, const char *s)
{
	alloc_str_set(field, s);
}

/*
 * Returns the new result, owned by rs.  Returns NULL and adds nothing when
 * metric is NULL or value is not finite (JSON cannot carry NaN or inf).
 */
struct result *result_set_add(struct result_set *rs, const char *kernel,
			      const char *metric, const char *unit,
			      double value, enum metric_dir dir)
{
	struct result *r;

	if (!metric || !isfinite(value))
		return NULL;
	ALLOC_GROW(rs->v, rs->n, rs->alloc);
	r = &rs->v[rs->n++];
	r->kernel = xstrdup(kernel ? kernel : rs->kernel);
	r->metric = xstrdup(metric);
	r->unit = xstrdup(unit ? unit : "");
	r->value = value;
	r->dir = dir;
	return r;
}

int result_is_rate(const char *unit, enum metric_dir dir)
{
	size_t ul = unit ? strlen(unit) : 0;

	return dir == DIR_HIGHER && unit &&
	       ((ul >= 2 && !strcmp(unit + ul - 2, "/s")) ||
		!strcmp(unit, "IOPS"));
}

const char *metric_dir_name(enum metric_dir d)
{
	switch (d) {
	case DIR_HIGHER:
		return "higher";
	case DIR_LOWER:
		return "lower";
	default:
		return "none";
	}
}

int metric_dir_parse(const char *s, enum metric_dir *out)
{
	if (!s)
		return -1;
	if (!strcmp(s, "higher"))
		*out = DIR_HIGHER;
	else if (!strcmp(s, "lower"))
		*out = DIR_LOWER;
	else if (!strcmp(s, "none"))
		*out = DIR_NONE;
	else
		return -1;
	return 0;
}

int import_fail(struct import_error *err, int line, const char *field,
		const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->line = line;
	snprintf(err->field, sizeof(err->field), "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void import_error_format(const struct import_error *err, char *buf,
			 size_t len)
{
	char where[32] = "";

	if (!len)
		return;
	if (err->line > 0)
		snprintf(where, sizeof(where), "line %d: ", err->line);
	if (err->field[0])
		snprintf(buf, len, "%sfield '%s': %s", where, err->field,
			 err->msg);
	else
		snprintf(buf, len, "%s%s", where, err->msg);
}

static json_t *result_to_json(const struct result_set *rs,
			      const struct result *r)
{
	json_t *o = json_object();
	json_t *v = json_real(r->value);

	if (!o || !v) {
		json_decref(o);
		json_decref(v);
		return NULL;
	}
	/* text from outside: repaired by the one UTF-8 rule (lib/utf8.h) */
	json_object_set_new(o, "kernel", utf8_json_string(r->kernel ?
							  r->kernel :
							  rs->kernel));
	json_object_set_new(o, "metric", utf8_json_string(r->metric));
	json_object_set_new(o, "unit", utf8_json_string(r->unit ? r->unit
								: ""));
	json_object_set_new(o, "value", v);
	json_object_set_new(o, "direction",
			    json_string(metric_dir_name(r->dir)));
	return o;
}

/* New reference, or NULL when a value is not finite or memory ran out. */
json_t *result_set_to_json(const struct result_set *rs)
{
	json_t *doc = json_object();
	json_t *arr = json_array();
	size_t i;

	if (!doc || !arr)
		goto out_fail;
	json_object_set_new(doc, "schema", json_string(RESULTS_SCHEMA));
	json_object_set_new(doc, "kernel", utf8_json_string(rs->kernel));
	json_object_set_new(doc, "rig", utf8_json_string(rs->rig));
	json_object_set_new(doc, "suite", utf8_json_string(rs->suite));
	json_object_set_new(doc, "format", utf8_json_string(rs->format));
	json_object_set_new(doc, "incomplete", json_boolean(rs->incomplete));
	json_object_set_new(doc, "error", utf8_json_string(rs->error));
	for (i = 0; i < rs->n; i++) {
		json_t *o = result_to_json(rs, &rs->v[i]);

		if (!o || json_array_append_new(arr, o))
			goto out_fail;
	}
	json_object_set_new(doc, "results", arr);
	if (rs->nhist)
		json_object_set_new(doc, "hist", result_set_hist_to_json(rs));
	if (rs->nsteps)
		json_object_set_new(doc, "steps", result_set_steps_to_json(rs));
	return doc;

out_fail:
	json_decref(arr);
	json_decref(doc);
	return NULL;
}

/* A short free-text string: no control characters, at most max bytes. */
static int text_valid(const char *s, size_t max)
{
	size_t n = strlen(s);
	size_t i;

	if (n > max)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

static int metric_name_valid(const char *s)
{
	return ident_checks(IDENT_METRIC, s, NULL, 0) == 0;
}

enum str_kind { STR_KERNEL, STR_RIG, STR_SUITE, STR_NAME, STR_TEXT };

/* "results[3]" + "value" -> "results[3].value" in place; returns path. */
static const char *path_member(char *path, size_t len, const char *key)
{
	size_t n = strlen(path);

	snprintf(path + n, len - n, ".%s", key);
	return path;
}

/*
 * Check one JSON string value against its kind's rules; path names it in
 * errors.  Returns the string (owned by v), or NULL with err filled in.
 */
static const char *check_str(const json_t *v, const char *path,
			     enum str_kind kind, struct import_error *err)
{
	const char *s;

	if (!json_is_string(v)) {
		import_fail(err, 0, path, "not a string");
		return NULL;
	}
	s = json_string_value(v);
	if (strlen(s) != json_string_length(v)) {
		import_fail(err, 0, path, "contains a NUL byte");
		return NULL;
	}
	if (kind == STR_KERNEL || kind == STR_RIG || kind == STR_SUITE) {
		char why[300];

		if (ident_checks(kind == STR_KERNEL ? IDENT_KERNEL :
				 kind == STR_RIG ? IDENT_RIG : IDENT_SUITE, s,
				 why, sizeof(why))) {
			import_fail(err, 0, path, "%s", why);
			return NULL;
		}
	}
	if (!text_valid(s, kind == STR_TEXT ? 65536 : IMPORT_NAME_MAX)) {
		import_fail(err, 0, path, "too long or has control characters");
		return NULL;
	}
	return s;
}

/*
 * Copy the optional string member key of o into *field (NULL when absent
 * or null).  Returns 0, or -1 with err filled in.
 */
static int get_opt_str(const json_t *o, const char *key, enum str_kind kind,
		       char **field, struct import_error *err)
{
	json_t *v = json_object_get(o, key);
	const char *s;

	if (!v || json_is_null(v))
		return 0;
	s = check_str(v, key, kind, err);
	if (!s)
		return -1;
	result_set_setstr(field, s);
	return 0;
}

/* The string member key of results[i]; NULL with err set when bad. */
static const char *member_str(const json_t *o, size_t i, const char *key,
			      enum str_kind kind, struct import_error *err)
{
	json_t *v = json_object_get(o, key);
	char path[64];

	snprintf(path, sizeof(path), "results[%zu].%s", i, key);
	if (!v) {
		import_fail(err, 0, path, "missing");
		return NULL;
	}
	return check_str(v, path, kind, err);
}

static int result_from_json(struct result_set *rs, const json_t *o, size_t i,
			    struct import_error *err)
{
	char path[64];
	const char *kernel = rs->kernel, *metric, *unit, *dir;
	json_t *v;
	enum metric_dir d;

	snprintf(path, sizeof(path), "results[%zu]", i);
	if (!json_is_object(o))
		return import_fail(err, 0, path, "not an object");
	v = json_object_get(o, "kernel");
	if (v && !json_is_null(v))
		kernel = member_str(o, i, "kernel", STR_KERNEL, err);
	else if (!kernel)
		return import_fail(err, 0, path_member(path, sizeof(path),
				   "kernel"), "missing, and the document "
				   "names no kernel");
	if (!kernel)
		return -1;
	metric = member_str(o, i, "metric", STR_NAME, err);
	if (!metric)
		return -1;
	if (!metric_name_valid(metric))
		return import_fail(err, 0, path_member(path, sizeof(path),
				   "metric"), "invalid metric name");
	unit = member_str(o, i, "unit", STR_NAME, err);
	dir = unit ? member_str(o, i, "direction", STR_NAME, err) : NULL;
	if (!dir)
		return -1;
	if (metric_dir_parse(dir, &d))
		return import_fail(err, 0, path_member(path, sizeof(path),
				   "direction"), "not higher, lower or none");
	v = json_object_get(o, "value");
	if (!v || !json_is_number(v) || !isfinite(json_number_value(v)))
		return import_fail(err, 0, path_member(path, sizeof(path),
				   "value"), v ? "not a finite number"
					       : "missing");
	result_set_add(rs, kernel, metric, unit, json_number_value(v), d);
	return 0;
}

static int doc_head_from_json(struct result_set *rs, const json_t *doc,
			      struct import_error *err)
{
	json_t *v;

	if (!json_is_object(doc))
		return import_fail(err, 0, "", "document is not a JSON object");
	v = json_object_get(doc, "schema");
	if (!v)
		return import_fail(err, 0, "schema", "missing");
	if (!json_is_string(v) || strcmp(json_string_value(v), RESULTS_SCHEMA))
		return import_fail(err, 0, "schema", "not '%s'",
				   RESULTS_SCHEMA);
	if (get_opt_str(doc, "kernel", STR_KERNEL, &rs->kernel, err) ||
	    get_opt_str(doc, "rig", STR_RIG, &rs->rig, err) ||
	    get_opt_str(doc, "suite", STR_SUITE, &rs->suite, err) ||
	    get_opt_str(doc, "format", STR_NAME, &rs->format, err) ||
	    get_opt_str(doc, "error", STR_TEXT, &rs->error, err))
		return -1;
	v = json_object_get(doc, "incomplete");
	if (v && !json_is_null(v) && !json_is_boolean(v))
		return import_fail(err, 0, "incomplete", "not a boolean");
	rs->incomplete = json_is_true(v);
	return 0;
}

/*
 * Replace the contents of rs (which must be initialised) with doc.  On
 * error rs is left empty and err names the member at fault.
 */
int result_set_from_json(struct result_set *rs, const json_t *doc,
			 struct import_error *err)
{
	json_t *arr;
	size_t i;

	result_set_release(rs);
	if (doc_head_from_json(rs, doc, err))
		goto out_clear;
	arr = json_object_get(doc, "results");
	if (!arr) {
		import_fail(err, 0, "results", "missing");
		goto out_clear;
	}
	if (!json_is_array(arr)) {
		import_fail(err, 0, "results", "not an array");
		goto out_clear;
	}
	for (i = 0; i < json_array_size(arr); i++)
		if (result_from_json(rs, json_array_get(arr, i), i, err))
			goto out_clear;
	if (result_set_hist_from_json(rs, json_object_get(doc, "hist"), err) ||
	    result_set_steps_from_json(rs, json_object_get(doc, "steps"),
				       err))
		goto out_clear;
	return 0;

out_clear:
	result_set_release(rs);
	return -1;
}
