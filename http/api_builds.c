// SPDX-License-Identifier: MIT
/*
 * Build requests over HTTP: POST /api/builds checks the patch series at
 * once (build_series_check, lab/build_check.c: refusing one that does
 * not apply, naming patch, file and hunk) and queues the build; GET
 * /api/builds[/ID[/log]] follows it.  The base is a name the
 * configuration knows (build_base_resolve), never a path; a git base is
 * queued at the exact commit the check found.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/builds.h"
#include "http/api.h"
#include "http/api_util.h"
#include "http/auth.h"
#include "klabd/klabd.h"
#include "lab/build.h"
#include "lib/alloc.h"

/* The request's "patches" as build_series_check takes them, *n of them
 * (heap; texts borrowed from patches).  An entry without a string name
 * or text keeps NULL there: build_series_check refuses it in its turn. */
static struct build_patch *patches_of(json_t *patches, size_t *n)
{
	struct build_patch *p;
	json_t *e, *t;
	size_t i;

	*n = json_array_size(patches);
	p = xcalloc(*n, sizeof(*p));
	json_array_foreach(patches, i, e) {
		t = json_object_get(e, "text");
		p[i].name = json_string_value(json_object_get(e, "name"));
		p[i].text = json_is_string(t) ? json_string_value(t) : NULL;
		p[i].len = json_is_string(t) ? json_string_length(t) : 0;
	}
	return p;
}

/* The series of a request on base (spec its build-kernel.sh --base)
 * checked and stored: its paths, and the base as the queue takes it. */
static enum outcome build_series(struct req *rq, const char *base,
				 const char *spec, json_t *patches,
				 struct strbuf *paths, struct strbuf *queued,
				 char *err, size_t errlen)
{
	char *commit = NULL;
	struct build_patch *p;
	enum outcome o;
	size_t n;

	p = patches_of(patches, &n);
	o = build_series_check(rq->d, spec, p, n, paths, &commit, err, errlen);
	api_patch_refused(rq, o, base, err);
	if (o == OUT_OK)
		build_base_queued(base, commit ? commit : "", queued);
	free(commit);
	free(p);
	return o;
}

/* Queue the build of a request whose base resolved to spec. */
static int build_queue(struct req *rq, struct web_response *r,
		       const char *base, const char *ident, const char *spec,
		       json_t *patches)
{
	struct strbuf paths = STRBUF_INIT, queued = STRBUF_INIT;
	int operator = rq->role == ROLE_OPERATOR;
	char err[700] = "";
	enum outcome o;
	int64_t id;
	int rc;

	sb_init(&paths);
	sb_init(&queued);
	o = build_ident_check(rq->d, rq->db, ident, operator, err,
			      sizeof(err));
	if (o == OUT_OK)
		o = build_series(rq, base, spec, patches, &paths, &queued, err,
				 sizeof(err));
	if (o != OUT_OK) {
		rc = api_error(r, o, err);
	} else if (db_build_add(rq->db, ident ? ident : "", queued.buf,
				paths.buf, rq->who, operator, &id)) {
		rc = web_error_json(r, 500, "cannot queue the build");
	} else {
		build_kick(rq->d);
		auth_audit(rq, "build add", base, "build %lld, ident '%s'",
			   (long long)id, ident ? ident : "");
		rc = api_reply(r, 202, json_pack("{s:I}", "build",
						 (json_int_t)id));
	}
	sb_release(&queued);
	sb_release(&paths);
	return rc;
}

int api_build_add(struct req *rq, struct web_response *r)
{
	json_t *doc = api_body(rq, r, 0), *patches;
	struct strbuf spec = STRBUF_INIT;
	const char *base = NULL, *ident = NULL;
	char err[700] = "";
	int rc;

	if (!doc)
		return r->status;
	sb_init(&spec);
	patches = json_object_get(doc, "patches");
	if (api_field_str(r, doc, "base", 1, &base) ||
	    api_field_ident(r, doc, "ident", IDENT_KERNEL, 0, &ident))
		rc = r->status;
	else if (build_base_resolve(rq->d, base, &spec, err, sizeof(err)))
		rc = web_error_json(r, 400, err);
	else if (patches && !json_is_array(patches))
		rc = web_error_json(r, 400, "field 'patches': expected a list");
	else
		rc = build_queue(rq, r, base, ident, spec.buf, patches);
	sb_release(&spec);
	json_decref(doc);
	return rc;
}

static json_t *build_json(const void *elem)
{
	const struct db_build *b = elem;

	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I}",
			 "id", (json_int_t)b->id, "ident", b->ident, "base",
			 b->base, "patches", b->patches, "state", b->state,
			 "error", b->error, "record", b->record, "created",
			 (json_int_t)b->created, "finished",
			 (json_int_t)b->finished);
}

int api_builds(struct req *rq, struct web_response *r)
{
	struct db_build *v = NULL;
	size_t n = 0;
	int rc;

	if (db_build_list(rq->db, 200, &v, &n))
		return web_error_json(r, 500, "cannot list builds");
	rc = api_reply_list(r, "builds", v, n, sizeof(*v), build_json);
	db_builds_free(v, n);
	return rc;
}

/* The build of /api/builds/ID[/...]: 0 with *b filled, else an error. */
static int build_of(struct req *rq, struct web_response *r,
		    struct db_build *b)
{
	long id;

	if (api_arg_id(rq, r, "build", &id))
		return r->status;
	if (db_build_get(rq->db, id, b))
		return web_error_json(r, 404, "unknown build");
	return 0;
}

int api_build_get(struct req *rq, struct web_response *r)
{
	struct db_build b;
	int rc = build_of(rq, r, &b);

	if (rc)
		return rc;
	rc = api_reply(r, 200, build_json(&b));
	db_build_release(&b);
	return rc;
}

int api_build_log(struct req *rq, struct web_response *r)
{
	struct db_build b;
	int rc = build_of(rq, r, &b);

	if (rc)
		return rc;
	r->status = 200;
	r->content_type = "text/plain; charset=utf-8";
	if (!*b.log || sb_read_file(&r->body, b.log))
		rc = web_error_json(r, 404, "no build log");
	else
		rc = 200;
	db_build_release(&b);
	return rc;
}
