// SPDX-License-Identifier: MIT
/*
 * api_track: the tracked kernel lines, Debian's and git branches (POST /
 * GET / DELETE /api/tracks; a git line's heads with it), and the change
 * points of the history (GET /api/changepoints).  The tracking itself
 * runs in the tracker thread (track.c, track_git.c); a new track is
 * checked at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/api.h"
#include "http/api_util.h"
#include "http/auth.h"
#include "db/changepoints.h"
#include "db/track.h"
#include "klabd/klabd.h"
#include "flow/track.h"
#include "flow/bisect.h"
#include "lab/job_check.h"

static json_t *track_json(const void *elem)
{
	const struct db_track *t = elem;
	json_t *o;

	o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s,"
		      " s:I, s:s, s:I, s:f}", "id", (json_int_t)t->id, "kind",
		      t->distro, "distro", t->distro, "line", t->line, "rigs",
		      t->rigs, "suite", t->suite, "last_package",
		      t->last_package, "last_kernel", t->last_kernel,
		      "checks", (json_int_t)t->checks, "last_check",
		      (json_int_t)t->last_check, "last_error", t->last_error,
		      "jobs", (json_int_t)t->jobs, "who", t->who, "created",
		      (json_int_t)t->created, "scale", t->scale);
	if (!strcmp(t->distro, "git"))
		json_object_update_new(o, json_pack("{s:s, s:s, s:s, s:s, s:I,"
			" s:I}", "base", t->base, "branch", t->branch,
			"last_head", t->last_package, "state", *t->state ?
			t->state : "idle", "backlog", (json_int_t)t->backlog,
			"max_cells", (json_int_t)t->max_cells));
	return o;
}

static json_t *head_json(const void *elem)
{
	const struct db_track_head *h = elem;

	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:s, s:s,"
			 " s:s, s:s, s:I, s:s, s:I, s:I}", "id",
			 (json_int_t)h->id, "commit", h->hash, "subject",
			 h->subject, "author", h->author, "kernel", h->kernel,
			 "build", (json_int_t)h->build, "prev",
			 (json_int_t)h->prev, "skipped",
			 (json_int_t)h->skipped, "state", h->state, "verdict",
			 h->verdict, "worse", h->worse, "comparisons",
			 h->comparisons, "bisection", (json_int_t)h->bisection,
			 "error", h->error, "created", (json_int_t)h->created,
			 "updated", (json_int_t)h->updated);
}

/* One track, a git line's heads with it (the newest 100). */
static json_t *track_one_json(struct db *db, const struct db_track *t)
{
	struct db_track_head *v = NULL;
	json_t *o = track_json(t), *a;
	size_t n = 0, i;

	if (strcmp(t->distro, "git") || db_track_heads(db, t->id, 100, &v, &n))
		return o;
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, head_json(&v[i]));
	json_object_set_new(o, "heads", a);
	db_track_heads_free(v, n);
	return o;
}

/* The id in rq->arg, or -1 after a 400. */
static long long track_id(struct req *rq, struct web_response *r)
{
	long id;
	char msg[160];

	if (parse_long(rq->arg, 1, 0x7fffffffL, &id)) {
		snprintf(msg, sizeof(msg), "invalid track id '%.40s'",
			 rq->arg);
		web_error_json(r, 400, msg);
		return -1;
	}
	return id;
}

int api_tracks(struct req *rq, struct web_response *r)
{
	struct db_track *v = NULL, one;
	size_t n = 0;
	long long id;
	char msg[80];
	int rc;

	if (*rq->arg) {
		id = track_id(rq, r);
		if (id < 0)
			return r->status;
		rc = db_track_get(rq->db, id, &one);
		if (rc) {
			snprintf(msg, sizeof(msg), "no track %lld", id);
			return web_error_json(r, http_status_of(rc),
					      rc == DB_NOTFOUND ? msg :
					      "cannot read the track");
		}
		rc = api_reply(r, 200, track_one_json(rq->db, &one));
		db_track_release(&one);
		return rc;
	}
	if (db_track_list(rq->db, &v, &n))
		return web_error_json(r, 500, "cannot list the tracks");
	rc = api_reply_list(r, "tracks", v, n, sizeof(*v), track_json);
	db_tracks_free(v, n);
	return rc;
}

/* The rigs of a track body: "rigs" (an array or a comma-separated
 * string) or "rig"; a heap string, or NULL after a 400. */
static char *track_rigs(struct web_response *r, json_t *doc)
{
	json_t *v = json_object_get(doc, "rigs"), *e;
	struct strbuf sb = STRBUF_INIT;
	const char *s = NULL;
	size_t i;

	sb_init(&sb);
	if (json_is_array(v)) {
		json_array_foreach(v, i, e) {
			s = api_value_ident(r, e, "rigs[]", IDENT_RIG);
			if (!s) {
				sb_release(&sb);
				return NULL;
			}
			sb_addf(&sb, "%s%s", i ? "," : "", s);
		}
		return sb_detach(&sb, NULL);
	}
	if (api_field_str(r, doc, json_is_string(v) ? "rigs" : "rig", 1,
			  &s)) {
		sb_release(&sb);
		return NULL;
	}
	sb_adds(&sb, s);
	return sb_detach(&sb, NULL);
}

/* Each suite of the ',' list is one klabd runs: 0, or -1 with err and
 * *status (400, 404). */
static int suites_check(struct req *rq, const char *suites, int *status,
			char *err, size_t errlen)
{
	char name[IDENT_MAX + 1];
	const char *p = suites;
	struct db_suite su;
	size_t len;

	do {
		*status = 400;
		len = strcspn(p, ",");
		if (!len || len > IDENT_MAX) {
			snprintf(err, errlen, "invalid suite list '%.80s'",
				 suites);
			return -1;
		}
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		if (job_suite_check(rq->d, name, err, errlen))
			return -1;
		*status = 404;
		if (db_suite_get(rq->db, name, &su)) {
			snprintf(err, errlen, "unknown suite '%s'", name);
			return -1;
		}
		db_suite_release(&su);
		p += len + (p[len] == ',');
	} while (*p);
	return 0;
}

/* A git line: base a git base, branch one of its branches. */
static int git_check(struct req *rq, struct db_track *t, int *status,
		     char *err, size_t errlen)
{
	const char *repo = bis_git_repo(rq->d, t->base);
	struct strbuf ref = STRBUF_INIT;
	struct db_bis_cand c;
	int rc;

	*status = 404;
	if (!repo) {
		snprintf(err, errlen, "field 'base': unknown git base '%.64s' "
			 "(a [base NAME] with git = PATH of the configuration)",
			 t->base);
		return -1;
	}
	*status = 400;
	if (!*t->branch || *t->branch == '-' || strchr(t->branch, ' ')) {
		snprintf(err, errlen, "field 'branch': '%.80s' is not a branch "
			 "name", t->branch);
		return -1;
	}
	sb_init(&ref);
	sb_addf(&ref, "refs/heads/%s", t->branch);
	rc = bis_git_commit(repo, "branch", ref.buf, t->base, &c, err,
			    errlen);
	sb_release(&ref);
	if (rc)
		return -1;
	db_bis_cand_release(&c);
	return 0;
}

/* Check the body of a new track into t; 0, or -1 with err (a 400/404). */
static int track_check_body(struct req *rq, struct db_track *t, int *status,
			    char *err, size_t errlen)
{
	struct strbuf rigs = STRBUF_INIT;
	int rc;

	*status = 400;
	if (!strcmp(t->distro, "git")) {
		if (git_check(rq, t, status, err, errlen))
			return -1;
	} else if (strcmp(t->distro, "debian")) {
		snprintf(err, errlen, "unknown distribution '%.40s' (debian, "
			 "or git for a git branch)", t->distro);
		return -1;
	} else if (strcmp(t->line, "newest-6.1") &&
		   strcmp(t->line, "newest-6.12")) {
		snprintf(err, errlen, "unknown kernel line '%.40s' (newest-6.1 "
			 "or newest-6.12)", t->line);
		return -1;
	}
	if (suites_check(rq, t->suite, status, err, errlen))
		return -1;
	*status = 400;
	if (job_config_check(rq->d, t->scale, "", "", err, errlen) !=
	    OUT_OK)
		return -1;
	*status = 404;
	sb_init(&rigs);
	rc = track_rigs_resolve(rq->d, rq->db, t->rigs, &rigs, err, errlen);
	sb_release(&rigs);
	return rc;
}

/* Check and store t, answer with the stored track (201). */
static int track_store(struct req *rq, struct db_track *t,
		       struct web_response *r)
{
	struct db_track got;
	char err[300] = "";
	int64_t id = 0;
	int rc, status;

	if (track_check_body(rq, t, &status, err, sizeof(err)))
		return web_error_json(r, status, err);
	rc = db_track_add(rq->db, t, &id, err, sizeof(err));
	if (rc)
		return web_error_json(r, http_status_of(rc), err);
	auth_audit(rq, "track", t->line, "%s %s on rigs '%s', suite '%s'",
		   t->distro, t->line, t->rigs, t->suite);
	track_kick(rq->d);
	if (db_track_get(rq->db, id, &got))
		return web_error_json(r, 500, "cannot read the new track");
	rc = api_reply(r, 201, track_json(&got));
	db_track_release(&got);
	return rc;
}

int api_track_add(struct req *rq, struct web_response *r)
{
	struct db_track t;
	const char *distro = "debian", *line = NULL, *suite = NULL;
	const char *base = "", *branch = "";
	struct strbuf ln = STRBUF_INIT;
	long long cap = 0;
	double scale = 0;
	char *rigs = NULL;
	json_t *doc;
	int rc, git;

	doc = api_body(rq, r, 1);
	if (!doc)
		return r->status;
	if (api_field_str(r, doc, "kind", 0, &distro) ||
	    api_field_str(r, doc, "distro", 0, &distro))
		goto out_status;
	git = !strcmp(distro, "git");
	if ((git && (api_field_ident(r, doc, "base", IDENT_KERNEL, 1, &base) ||
		     api_field_str(r, doc, "branch", 1, &branch) ||
		     api_field_int(r, doc, "max_cells", 0, 3, SUB_MAX_CELLS,
				   &cap))) ||
	    (!git && api_field_str(r, doc, "line", 1, &line)) ||
	    api_field_str(r, doc, "suite", 1, &suite) ||
	    api_field_num(r, doc, "scale", 0, &scale))
		goto out_status;
	rigs = track_rigs(r, doc);
	if (!rigs)
		goto out_status;
	sb_init(&ln);
	if (git)
		sb_addf(&ln, "%s/%s", base, branch);
	memset(&t, 0, sizeof(t));
	t.distro = (char *)distro;
	t.line = git ? ln.buf : (char *)line;
	t.rigs = rigs;
	t.suite = (char *)suite;
	t.who = rq->who;
	t.base = (char *)base;
	t.branch = (char *)branch;
	t.state = "";
	t.max_cells = cap;
	t.scale = scale;	/* 0: none given, stored as 1 */
	rc = track_store(rq, &t, r);
	free(rigs);
	sb_release(&ln);
	json_decref(doc);
	return rc;
out_status:
	json_decref(doc);
	return r->status;
}

int api_track_delete(struct req *rq, struct web_response *r)
{
	long long id = track_id(rq, r);
	char err[200] = "";
	int rc;

	if (id < 0)
		return r->status;
	rc = db_track_delete(rq->db, id, err, sizeof(err));
	if (rc)
		return web_error_json(r, http_status_of(rc), err);
	auth_audit(rq, "untrack", rq->arg, "track %lld", id);
	return api_reply(r, 200, json_pack("{s:I}", "deleted",
					   (json_int_t)id));
}
