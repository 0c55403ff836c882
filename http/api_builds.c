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

#include "http/api_util.h"
#include "lab/build.h"
#include "lab/catalog.h"
#include "db/builds.h"
#include "http/auth.h"
#include "klabd/klabd.h"
#include "lib/alloc.h"
#include "lib/patchcheck.h"

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

/* Remove what build_patches_store wrote: each path, its directory, and
 * the request's directory above them. */
static void patches_remove(const char *paths)
{
	char path[1400], *sl;
	const char *p = paths;
	size_t n;

	while (p && *p) {
		n = strcspn(p, "\n");
		snprintf(path, sizeof(path), "%.*s", (int)n, p);
		unlink(path);
		if ((sl = strrchr(path, '/')) != NULL) {
			*sl = '\0';
			rmdir(path);	/* NN */
			if ((sl = strrchr(path, '/')) != NULL) {
				*sl = '\0';
				rmdir(path);	/* the request's */
			}
		}
		p += n + (p[n] == '\n');
	}
}

/* One patch as DIR/NN/NAME; its path added to paths. */
static int patch_write(const char *dir, size_t i, const char *n,
		       json_t *t, struct strbuf *paths, char *err,
		       size_t errlen)
{
	char name[128], path[1400];
	FILE *f;

	safe_name(n, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%02zu", dir, i + 1);
	if (mkdir(path, 0755)) {
		snprintf(err, errlen, "cannot create '%.400s': %s", path,
			 strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%02zu/%s", dir, i + 1, name);
	f = fopen(path, "wxe");	/* O_CLOEXEC: other threads fork */
	if (!f || fwrite(json_string_value(t), 1, json_string_length(t),
			 f) != json_string_length(t) || fclose(f)) {
		snprintf(err, errlen, "cannot write '%.400s'", path);
		if (f)
			unlink(path);
		return -1;
	}
	sb_addf(paths, "%s%s", paths->len ? "\n" : "", path);
	return 0;
}

/* The caps and the rule of lib/patchcheck.h on a request's patches,
 * before anything is written: 0, or 400, 413 or 422 with err. */
static int patches_precheck(json_t *patches, char *err, size_t errlen)
{
	size_t i, total = 0, line;
	char why[300];
	json_t *p;

	if (json_array_size(patches) > PATCH_MAX_FILES) {
		snprintf(err, errlen, "field 'patches': %zu patch files, at "
			 "most %d", json_array_size(patches), PATCH_MAX_FILES);
		return 413;
	}
	json_array_foreach(patches, i, p) {
		const char *n = json_string_value(json_object_get(p, "name"));
		json_t *t = json_object_get(p, "text");

		if (!n || !json_is_string(t)) {
			snprintf(err, errlen, "patches[%zu]: needs 'name' and "
				 "'text' strings", i);
			return 400;
		}
		total += json_string_length(t);
		if (total > PATCH_MAX_BYTES) {
			snprintf(err, errlen, "field 'patches': over %u bytes "
				 "in all", PATCH_MAX_BYTES);
			return 413;
		}
		if (patch_check(json_string_value(t), json_string_length(t),
				why, sizeof(why), &line)) {
			snprintf(err, errlen, "cannot apply patch '%.200s': "
				 "%s (line %zu)", n, why, line);
			return 422;
		}
	}
	return 0;
}

/* Store each patch under DATA/patches/REQ/NN/NAME, REQ a directory of the
 * request's own; paths '\n'-joined.  On failure nothing stays. */
int build_patches_store(struct klabd *d, json_t *patches,
			 struct strbuf *paths, char *err, size_t errlen)
{
	char dir[1100];
	json_t *p;
	size_t i;

	snprintf(dir, sizeof(dir), "%s/patches", d->data_dir);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create '%.400s': %s", dir,
			 strerror(errno));
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/patches/req-XXXXXX", d->data_dir);
	if (!mkdtemp(dir) || chmod(dir, 0755)) {
		snprintf(err, errlen, "cannot create a directory in "
			 "'%.400s/patches': %s", d->data_dir, strerror(errno));
		return -1;
	}
	json_array_foreach(patches, i, p) {
		if (patch_write(dir, i, json_string_value(json_object_get(p,
				"name")), json_object_get(p, "text"), paths,
				err, errlen)) {
			patches_remove(paths->buf);
			rmdir(dir);
			sb_reset(paths);
			return -1;
		}
	}
	if (!paths->len)
		rmdir(dir);
	return 0;
}

/* build-kernel.sh --check on the base spec: 0 when every patch applies,
 * else err.  *commit: the full commit of a git base, "" for others.  The
 * check is bounded: its own time limit, and at most BUILD_CHECKS_MAX at
 * once (-2 when that many run). */
static int checks_running;

static int patches_check_run(struct klabd *d, const char *spec,
			     const char *paths, char **commit, char *err,
			     size_t errlen)
{
	struct strbuf out = STRBUF_INIT;
	const char **args;
	char *p = xstrdup(paths), lim[16];
	size_t n;
	int rc;

	args = build_args(d, spec, p, &n);
	snprintf(lim, sizeof(lim), "%d", BUILD_CHECK_SECONDS);
	args[n++] = "--check";
	args[n++] = "--time-limit";	/* the last one counts */
	args[n++] = lim;
	args[n] = NULL;
	sb_init(&out);
	rc = catalog_script_timed(d, "build-kernel.sh", args,
				  (BUILD_CHECK_SECONDS + 60) * 1000L, &out,
				  err, errlen);
	*commit = catalog_record_get(out.buf, "base_commit");
	sb_release(&out);
	free(args);
	free(p);
	return rc;
}

int build_patches_check(struct klabd *d, const char *spec,
			 const char *paths, char **commit, char *err,
			 size_t errlen)
{
	int rc;

	if (__atomic_add_fetch(&checks_running, 1, __ATOMIC_SEQ_CST) >
	    BUILD_CHECKS_MAX) {
		__atomic_sub_fetch(&checks_running, 1, __ATOMIC_SEQ_CST);
		*commit = xstrdup("");
		snprintf(err, errlen, "%d patch checks are running, the most "
			 "at once: retry in a minute", BUILD_CHECKS_MAX);
		return -2;
	}
	rc = patches_check_run(d, spec, paths, commit, err, errlen);
	__atomic_sub_fetch(&checks_running, 1, __ATOMIC_SEQ_CST);
	return rc;
}

int build_series_check(struct req *rq, const char *base, const char *spec,
		       json_t *patches, struct strbuf *paths, char **commit,
		       char *err, size_t errlen)
{
	int rc;

	*commit = NULL;
	rc = patches_precheck(patches, err, errlen);
	if (!rc && build_patches_store(rq->d, patches, paths, err, errlen))
		rc = 500;
	if (!rc) {
		rc = build_patches_check(rq->d, spec, paths->buf, commit, err,
					 errlen);
		if (rc == 1 && strstr(err, "no commit"))
			snprintf(err, errlen, "field 'base': no such commit "
				 "in that base");
		if (rc && !err[0])
			snprintf(err, errlen, "the patch check failed");
		rc = !rc ? 0 : rc == 2 ? 422 : rc == -2 ? 503 :
		     rc == 1 && strstr(err, "field 'base'") ? 400 : 500;
		if (rc)
			patches_remove(paths->buf);
	}
	if (rc == 422 || rc == 413) {
		auth_audit(rq, "patch refused", base, "%.400s", err);
		fprintf(stderr, "klabd: patches of '%s' refused: %s\n",
			rq->who[0] ? rq->who : "anonymous", err);
	}
	if (rc)
		sb_reset(paths);
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
	else if ((rc = build_ident_check(rq->d, rq->db, ident,
					 rq->role == ROLE_OPERATOR, err,
					 sizeof(err))))
		rc = web_error_json(r, rc, err);
	else if ((rc = build_series_check(rq, base, spec.buf, patches, &paths,
					  &commit, err, sizeof(err))))
		rc = web_error_json(r, rc, err);
	else if (build_base_queued(base, commit, &queued),
		 db_build_add(rq->db, ident ? ident : "", queued.buf,
			      paths.buf, rq->who, rq->role == ROLE_OPERATOR,
			      &id))
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
