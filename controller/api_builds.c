// SPDX-License-Identifier: MIT
/*
 * Build requests over HTTP: POST /api/builds checks the patch series at
 * once (refusing one that does not apply, naming patch, file and hunk) and
 * queues the build; GET /api/builds[/ID[/log]] follows it.  The base is a
 * name the configuration knows (build_base_resolve), never a path; a git
 * base is queued at the exact commit the check found.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_util.h"
#include "build.h"
#include "catalog.h"
#include "db/builds.h"
#include "auth.h"
#include "klabd.h"
#include "lib/sha256.h"

/* A patch name safe as a file name: [A-Za-z0-9._-], not starting with '.' */
static void safe_name(const char *in, char *out, size_t len)
{
	size_t i, j = 0;

	for (i = 0; in[i] && j + 1 < len; i++) {
		char c = in[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		    (c == '.' && j))
			out[j++] = c;
	}
	if (!j)
		j = (size_t)snprintf(out, len, "patch");
	out[j] = '\0';
}

/* Store each patch under DATA/patches/SHA12/NAME; paths '\n'-joined. */
int build_patches_store(struct klabd *d, json_t *patches,
			 struct strbuf *paths, char *err, size_t errlen)
{
	char dir[1100], name[128], sha[65], path[1400];
	json_t *p;
	size_t i;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/patches", d->data_dir);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create '%.400s': %s", dir,
			 strerror(errno));
		return -1;
	}
	json_array_foreach(patches, i, p) {
		const char *n = json_string_value(json_object_get(p, "name"));
		json_t *t = json_object_get(p, "text");

		if (!n || !json_is_string(t)) {
			snprintf(err, errlen, "patches[%zu]: needs 'name' and "
				 "'text' strings", i);
			return -1;
		}
		safe_name(n, name, sizeof(name));
		sha256_hex(json_string_value(t), json_string_length(t), sha);
		/* DATA/patches/SHA12/NAME: errors name the user's file */
		snprintf(path, sizeof(path), "%s/%.12s", dir, sha);
		if (mkdir(path, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "cannot create '%.400s': %s",
				 path, strerror(errno));
			return -1;
		}
		snprintf(path, sizeof(path), "%s/%.12s/%s", dir, sha, name);
		f = fopen(path, "we");	/* O_CLOEXEC: other threads fork */
		if (!f || fwrite(json_string_value(t), 1, json_string_length(t),
				 f) != json_string_length(t) || fclose(f)) {
			snprintf(err, errlen, "cannot write '%.400s'", path);
			return -1;
		}
		sb_addf(paths, "%s%s", paths->len ? "\n" : "", path);
	}
	return 0;
}

/* build-kernel.sh --check on the base spec: 0 when every patch applies,
 * else err.  *commit: the full commit of a git base, "" for others. */
int build_patches_check(struct klabd *d, const char *spec,
			 const char *paths, char **commit, char *err,
			 size_t errlen)
{
	struct strbuf out = STRBUF_INIT;
	const char *args[80];
	char *p = strdup(paths);
	size_t n = build_args(d, spec, p, args, 78);
	int rc;

	args[n++] = "--check";
	args[n] = NULL;
	sb_init(&out);
	rc = catalog_script(d, "build-kernel.sh", args, &out, err, errlen);
	*commit = catalog_record_get(out.buf, "base_commit");
	sb_release(&out);
	free(p);
	return rc;
}

/* What the queue stores: the request's base, a git base at its commit. */
void build_base_queued(const char *base, const char *commit,
			struct strbuf *sb)
{
	if (*commit)
		sb_addf(sb, "%.*s@%s", (int)strcspn(base, "@"), base, commit);
	else
		sb_addf(sb, "%s", base);
}

int api_build_add(struct req *rq, struct web_response *r)
{
	json_t *doc = api_body(rq, r, 0), *patches;
	struct strbuf paths = STRBUF_INIT, spec = STRBUF_INIT,
		      queued = STRBUF_INIT;
	const char *base = NULL, *ident = NULL;
	char err[700] = "", *commit = NULL;
	int64_t id;
	int rc;

	if (!doc)
		return r->status;
	sb_init(&paths);
	sb_init(&spec);
	sb_init(&queued);
	patches = json_object_get(doc, "patches");
	if (api_field_str(r, doc, "base", 1, &base) ||
	    api_field_ident(r, doc, "ident", IDENT_KERNEL, 0, &ident))
		rc = r->status;
	else if (build_base_resolve(rq->d, base, &spec, err, sizeof(err)))
		rc = web_error_json(r, 400, err);
	else if (patches && !json_is_array(patches))
		rc = web_error_json(r, 400, "field 'patches': expected a list");
	else if (build_patches_store(rq->d, patches, &paths, err, sizeof(err)))
		rc = web_error_json(r, 400, err);
	else if ((rc = build_patches_check(rq->d, spec.buf, paths.buf, &commit, err,
				     sizeof(err))) == 1 && strstr(err, "no commit"))
		rc = web_error_json(r, 400, "field 'base': no such commit in "
				    "that base");
	else if (rc)
		rc = web_error_json(r, rc == 2 ? 422 : 500, err[0] ? err :
				    "the patch check failed");
	else if (build_base_queued(base, commit, &queued),
		 db_build_add(rq->db, ident ? ident : "", queued.buf,
			      paths.buf, &id))
		rc = web_error_json(r, 500, "cannot queue the build");
	else {
		build_kick(rq->d);
		auth_audit(rq, "build add", base, "build %lld, ident '%s'",
			   (long long)id, ident ? ident : "");
		rc = api_reply(r, 202, json_pack("{s:I}", "build", (json_int_t)id));
	}
	free(commit);
	sb_release(&queued);
	sb_release(&spec);
	sb_release(&paths);
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
