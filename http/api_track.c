// SPDX-License-Identifier: MIT
/*
 * api_track: the tracked kernel lines (POST / GET / DELETE /api/tracks)
 * and the change points of the history (GET /api/changepoints).  The
 * tracking itself runs in the tracker thread (track.c); a new track is
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
#include "lab/job_check.h"

static json_t *track_json(const void *elem)
{
	const struct db_track *t = elem;

	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s,"
			 " s:I, s:s, s:I}", "id", (json_int_t)t->id,
			 "distro", t->distro, "line", t->line, "rigs",
			 t->rigs, "suite", t->suite, "last_package",
			 t->last_package, "last_kernel", t->last_kernel,
			 "checks", (json_int_t)t->checks, "last_check",
			 (json_int_t)t->last_check, "last_error",
			 t->last_error, "jobs", (json_int_t)t->jobs, "who",
			 t->who, "created", (json_int_t)t->created);
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
		rc = api_reply(r, 200, track_json(&one));
		db_track_release(&one);
		return rc;
	}
	if (db_track_list(rq->db, &v, &n))
		return web_error_json(r, 500, "cannot list the tracks");
	rc = api_reply_list(r, "tracks", v, n, sizeof(*v), track_json);
	db_tracks_free(v, n);
	return rc;
}

/* Each rig of the comma-separated list exists: 0, or -1 with err. */
static int rigs_check(struct db *db, const char *rigs, char *err,
		      size_t errlen)
{
	char name[IDENT_MAX + 1];
	const char *p = rigs;
	struct db_rig g;
	size_t len;

	if (!*rigs) {
		snprintf(err, errlen, "field 'rigs' names no rig");
		return -1;
	}
	while (*p) {
		len = strcspn(p, ",");
		if (!len || len > IDENT_MAX) {
			snprintf(err, errlen, "invalid rig list '%.80s'", rigs);
			return -1;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		if (db_rig_get(db, name, &g)) {
			snprintf(err, errlen, "unknown rig '%s'", name);
			return -1;
		}
		db_rig_release(&g);
		p += len + (p[len] == ',');
	}
	return 0;
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

/* Check the body of a new track into t; 0, or -1 with err (a 400/404). */
static int track_check_body(struct req *rq, struct db_track *t, int *status,
			    char *err, size_t errlen)
{
	struct db_suite su;

	*status = 400;
	if (strcmp(t->distro, "debian")) {
		snprintf(err, errlen, "unknown distribution '%.40s' (debian)",
			 t->distro);
		return -1;
	}
	if (strcmp(t->line, "newest-6.1") && strcmp(t->line, "newest-6.12")) {
		snprintf(err, errlen, "unknown kernel line '%.40s' (newest-6.1 "
			 "or newest-6.12)", t->line);
		return -1;
	}
	if (job_suite_check(rq->d, t->suite, err, errlen))
		return -1;
	*status = 404;
	if (db_suite_get(rq->db, t->suite, &su)) {
		snprintf(err, errlen, "unknown suite '%s'", t->suite);
		return -1;
	}
	db_suite_release(&su);
	return rigs_check(rq->db, t->rigs, err, errlen);
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
	char *rigs = NULL;
	json_t *doc;
	int rc;

	doc = api_body(rq, r, 1);
	if (!doc)
		return r->status;
	if (api_field_str(r, doc, "distro", 0, &distro) ||
	    api_field_str(r, doc, "line", 1, &line) ||
	    api_field_str(r, doc, "suite", 1, &suite)) {
		json_decref(doc);
		return r->status;
	}
	rigs = track_rigs(r, doc);
	if (!rigs) {
		json_decref(doc);
		return r->status;
	}
	memset(&t, 0, sizeof(t));
	t.distro = (char *)distro;
	t.line = (char *)line;
	t.rigs = rigs;
	t.suite = (char *)suite;
	t.who = rq->who;
	rc = track_store(rq, &t, r);
	free(rigs);
	json_decref(doc);
	return rc;
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
