// SPDX-License-Identifier: MIT
/*
 * upload: an agent's results upload read once (see upload.h).  The body
 * is parsed by jansson once; the repetitions and the document itself go
 * to import_klab_doc as the values they are, never serialised and read
 * again.  Allocation failure aborts, as everywhere in klab.
 */
#include "upload.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ident.h"
#include "import.h"
#include "import_priv.h"

/* "raw": {name: text}, every name a raw output name, every text a
 * string; into u->raw. */
static enum upload_fault raws_parse(struct upload *u, json_t *raw, char *err,
				    size_t errlen)
{
	const char *name;
	char why[300];
	json_t *v;

	if (!raw)
		return UPLOAD_OK;
	if (!json_is_object(raw)) {
		snprintf(err, errlen, "field 'raw': expected an object");
		return UPLOAD_INVALID;
	}
	u->raw = xcalloc(json_object_size(raw) + 1, sizeof(*u->raw));
	json_object_foreach(raw, name, v) {
		if (ident_checks(IDENT_RAW, name, why, sizeof(why))) {
			snprintf(err, errlen, "field 'raw': %s", why);
			return UPLOAD_INVALID;
		}
		if (!json_is_string(v)) {
			snprintf(err, errlen, "field 'raw.%s': expected a "
				 "string", name);
			return UPLOAD_INVALID;
		}
		u->raw[u->nraw].name = name;
		u->raw[u->nraw].text = json_string_value(v);
		u->raw[u->nraw].len = json_string_length(v);
		u->nraw++;
	}
	return UPLOAD_OK;
}

/* "repetitions": klab-results/1 documents, into u->reps (rep i + 1
 * each). */
static enum upload_fault reps_parse(struct upload *u, json_t *arr,
				    const char *kernel, char *err,
				    size_t errlen)
{
	struct import_error ie;
	char msg[400];
	size_t i;

	if (!arr)
		return UPLOAD_OK;
	if (!json_is_array(arr) || json_array_size(arr) > UPLOAD_MAX_REPS) {
		snprintf(err, errlen, "field 'repetitions': expected an array "
			 "of at most %d documents", UPLOAD_MAX_REPS);
		return UPLOAD_INVALID;
	}
	u->reps = xcalloc(json_array_size(arr) + 1, sizeof(*u->reps));
	for (i = 0; i < json_array_size(arr); i++) {
		result_set_init(&u->reps[i]);
		u->nreps++;
		memset(&ie, 0, sizeof(ie));
		if (import_klab_doc(json_array_get(arr, i), kernel,
				    &u->reps[i], &ie) < 0) {
			import_error_format(&ie, msg, sizeof(msg));
			snprintf(err, errlen, "field 'repetitions[%zu]': %s",
				 i, msg);
			return UPLOAD_INVALID;
		}
	}
	return UPLOAD_OK;
}

/* The document's own results, every one of the job's kernel. */
static enum upload_fault results_parse(struct upload *u, long long job,
				       const char *kernel,
				       const struct import_error *load,
				       char *err, size_t errlen)
{
	struct import_error ie = *load;
	char msg[400];
	size_t i;

	if (!u->doc || import_klab_doc(u->doc, kernel, &u->rs, &ie) < 0) {
		import_error_format(&ie, msg, sizeof(msg));
		snprintf(err, errlen, "job %lld results: %s", job, msg);
		return UPLOAD_INVALID;
	}
	for (i = 0; i < u->rs.n; i++)
		if (u->rs.v[i].kernel && strcmp(u->rs.v[i].kernel, kernel)) {
			snprintf(err, errlen, "results for kernel '%s', job "
				 "%lld is for '%s'", u->rs.v[i].kernel, job,
				 kernel);
			return UPLOAD_FOREIGN;
		}
	return UPLOAD_OK;
}

/* "results.json": the body as it came, or without its raw outputs,
 * which are stored under their own names (as the agent sends it after a
 * 413, compact). */
static void stored_text(struct upload *u, const char *body, size_t len)
{
	json_t *d;

	u->stored = body;
	u->stored_len = len;
	if (!json_object_get(u->doc, "raw"))
		return;
	d = json_copy(u->doc);
	if (!d || json_object_del(d, "raw"))
		abort();
	u->stored_own = json_dumps(d, JSON_COMPACT);
	json_decref(d);
	if (!u->stored_own)
		abort();
	u->stored = u->stored_own;
	u->stored_len = strlen(u->stored_own);
}

enum upload_fault upload_parse(struct upload *u, const char *body,
			       size_t len, long long job, const char *kernel,
			       char *err, size_t errlen)
{
	struct import_error load;
	enum upload_fault f;

	memset(u, 0, sizeof(*u));
	result_set_init(&u->rs);
	memset(&load, 0, sizeof(load));
	u->doc = import_json_load(body, len, 0, &load);
	f = raws_parse(u, json_object_get(u->doc, "raw"), err, errlen);
	if (f == UPLOAD_OK)
		f = reps_parse(u, json_object_get(u->doc, "repetitions"),
			       kernel, err, errlen);
	if (f == UPLOAD_OK)
		f = results_parse(u, job, kernel, &load, err, errlen);
	if (f == UPLOAD_OK)
		stored_text(u, body, len);
	return f;
}

void upload_release(struct upload *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nreps; i++)
		result_set_release(&u->reps[i]);
	free(u->reps);
	free(u->raw);
	free(u->stored_own);
	result_set_release(&u->rs);
	json_decref(u->doc);
	memset(u, 0, sizeof(*u));
}

const struct upload_raw *upload_raw_find(const struct upload *u,
					 const char *name)
{
	size_t i;

	for (i = 0; i < u->nraw; i++)
		if (!strcmp(u->raw[i].name, name))
			return &u->raw[i];
	return NULL;
}
