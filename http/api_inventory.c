// SPDX-License-Identifier: MIT
/*
 * The lab's records over the JSON API: kernels, rigs and suites, each
 * read (GET /api/kernels[/IDENT], /api/rigs[/NAME], /api/suites) and put
 * by an operator (POST), one put path for the three (entry_put: the
 * body's fields checked, stored, the change in the audit log).
 * Documented in docs/API.md.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "db/db.h"
#include "http/api.h"
#include "http/api_util.h"
#include "http/auth.h"

static json_t *kernel_json(const void *elem)
{
	const struct db_kernel *k = elem;

	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I}",
			 "ident", k->ident, "version", k->version, "base",
			 k->base, "patch_hash", k->patch_hash, "config_hash",
			 k->config_hash, "source", k->source, "provenance",
			 k->provenance, "created", (json_int_t)k->created,
			 "runs", (json_int_t)k->nruns);
}

/*
 * Answer the GET of the entry called name that a db get answered rc for:
 * 200 with to_json(ent), else rc's status with "unknown <what> '<name>'"
 * (or db_msg, when given, for errors other than DB_NOTFOUND).
 */
static int reply_entry(struct web_response *r, int rc, const char *what,
		       const char *name, const char *db_msg,
		       json_t *(*to_json)(const void *elem), const void *ent)
{
	char err[300];

	if (!rc)
		return api_reply(r, 200, to_json(ent));
	snprintf(err, sizeof(err), "unknown %s '%s'", what, name);
	return api_db_error(r, rc, rc != DB_NOTFOUND && db_msg ? db_msg
							      : err);
}

int api_kernels(struct req *rq, struct web_response *r)
{
	struct db_kernel *v = NULL, k;
	size_t n = 0;
	int rc;

	if (*rq->arg) {
		rc = reply_entry(r, db_kernel_get(rq->db, rq->arg, &k),
				 "kernel", rq->arg, "database error",
				 kernel_json, &k);
		db_kernel_release(&k);
		return rc;
	}
	rc = db_kernel_list(rq->db, &v, &n);
	if (rc)
		return api_db_error(r, rc, "cannot list kernels");
	rc = api_reply_list(r, "kernels", v, n, sizeof(*v), kernel_json);
	db_kernels_free(v, n);
	return rc;
}

/* What the PUT of a catalogue entry records in the audit log. */
struct entry_note {
	const char *subject;
	char detail[512];
};

/*
 * The PUT of every catalogue entry (kernel, rig, suite): the JSON body into
 * ent by fields (which answers 400 itself and fills the audit note), ent
 * stored by put, the change audited as action, then 201.  ent borrows the
 * body's strings while it is stored.
 */
static int entry_put(struct req *rq, struct web_response *r,
		     const char *action,
		     int (*fields)(struct web_response *r, json_t *doc,
				   void *ent, struct entry_note *note),
		     int (*put)(struct db *db, void *ent, char *err,
				size_t errlen),
		     void *ent)
{
	json_t *doc = api_body(rq, r, 1);
	struct entry_note note = { NULL, "" };
	char err[300] = "";
	int rc;

	if (!doc)
		return r->status;
	if (fields(r, doc, ent, &note)) {
		json_decref(doc);
		return r->status;
	}
	rc = put(rq->db, ent, err, sizeof(err));
	if (!rc)
		auth_audit(rq, action, note.subject, "%s", note.detail);
	json_decref(doc);
	if (rc)
		return api_db_error(r, rc, err);
	return api_reply(r, 201, json_pack("{s:b}", "ok", 1));
}

/* The fields of a kernel from a request body; 0 or -1 after a 400. */
static int kernel_fields(struct web_response *r, json_t *doc, void *ent,
			 struct entry_note *note)
{
	struct db_kernel *k = ent;
	static const char *const keys[] = { "version", "base", "patch_hash",
					    "config_hash", "source",
					    "provenance" };
	const char *v[6] = { "", "", "", "", "", "" }, *ident = NULL;
	size_t i;

	if (api_field_ident(r, doc, "ident", IDENT_KERNEL, 1, &ident))
		return -1;
	for (i = 0; i < 6; i++)
		if (api_field_str(r, doc, keys[i], 0, &v[i]))
			return -1;
	memset(k, 0, sizeof(*k));
	k->ident = (char *)ident;
	k->version = (char *)v[0];
	k->base = (char *)v[1];
	k->patch_hash = (char *)v[2];
	k->config_hash = (char *)v[3];
	k->source = (char *)v[4];
	k->provenance = (char *)v[5];
	note->subject = k->ident;
	snprintf(note->detail, sizeof(note->detail), "source '%s'", k->source);
	return 0;
}

static int kernel_store(struct db *db, void *ent, char *err, size_t errlen)
{
	return db_kernel_put(db, ent, err, errlen);
}

int api_kernel_put(struct req *rq, struct web_response *r)
{
	struct db_kernel k;

	return entry_put(rq, r, "kernel put", kernel_fields, kernel_store,
			 &k);
}

static json_t *rig_json(const void *elem)
{
	const struct db_rig *g = elem;

	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:I}",
			 "name", g->name, "class", g->klass, "kind", g->kind,
			 "profile",
			 g->profile, "disks", g->disks, "cpus", g->cpus,
			 "memory_mb", g->memory_mb, "state", g->state,
			 "created", (json_int_t)g->created);
}

int api_rigs(struct req *rq, struct web_response *r)
{
	struct db_rig *v = NULL, g;
	size_t n = 0;
	int rc;

	if (*rq->arg) {
		rc = reply_entry(r, db_rig_get(rq->db, rq->arg, &g), "rig",
				 rq->arg, NULL, rig_json, &g);
		db_rig_release(&g);
		return rc;
	}
	if (db_rig_list(rq->db, &v, &n))
		return web_error_json(r, 500, "cannot list rigs");
	rc = api_reply_list(r, "rigs", v, n, sizeof(*v), rig_json);
	db_rigs_free(v, n);
	return rc;
}

/* The fields of a rig from a request body; 0 or -1 after a 400. */
static int rig_fields(struct web_response *r, json_t *doc, void *ent,
		      struct entry_note *note)
{
	struct db_rig *g = ent;
	const char *name = NULL, *kind = "manual", *profile = "";
	long long disks = 0, cpus = 0, mem = 0;

	if (api_field_ident(r, doc, "name", IDENT_RIG, 1, &name) ||
	    api_field_str(r, doc, "kind", 0, &kind) ||
	    api_field_str(r, doc, "profile", 0, &profile) ||
	    api_field_int(r, doc, "disks", 0, 0, 4096, &disks) ||
	    api_field_int(r, doc, "cpus", 0, 0, 4096, &cpus) ||
	    api_field_int(r, doc, "memory_mb", 0, 0, 1 << 24, &mem))
		return -1;
	memset(g, 0, sizeof(*g));
	g->name = (char *)name;
	g->kind = (char *)(*kind ? kind : "manual");
	g->profile = (char *)profile;
	g->state = "idle";
	g->disks = (int)disks;
	g->cpus = (int)cpus;
	g->memory_mb = (int)mem;
	note->subject = g->name;
	snprintf(note->detail, sizeof(note->detail),
		 "kind '%s', profile '%s'", g->kind, g->profile);
	return 0;
}

static int rig_store(struct db *db, void *ent, char *err, size_t errlen)
{
	return db_rig_put(db, ent, err, errlen);
}

int api_rig_put(struct req *rq, struct web_response *r)
{
	struct db_rig g;

	return entry_put(rq, r, "rig put", rig_fields, rig_store, &g);
}

static json_t *suite_json(const void *elem)
{
	const struct db_suite *s = elem;

	return json_pack("{s:s, s:s}", "name", s->name, "description",
			 s->description);
}

int api_suites(struct req *rq, struct web_response *r)
{
	struct db_suite *v = NULL;
	size_t n = 0;
	int rc;

	if (db_suite_list(rq->db, &v, &n))
		return web_error_json(r, 500, "cannot list suites");
	rc = api_reply_list(r, "suites", v, n, sizeof(*v), suite_json);
	db_suites_free(v, n);
	return rc;
}

/* A suite as a PUT names it. */
struct suite_ent {
	const char *name, *desc;
};

static int suite_fields(struct web_response *r, json_t *doc, void *ent,
			struct entry_note *note)
{
	struct suite_ent *s = ent;

	s->name = NULL;
	s->desc = "";
	if (api_field_ident(r, doc, "name", IDENT_SUITE, 1, &s->name) ||
	    api_field_str(r, doc, "description", 0, &s->desc))
		return -1;
	note->subject = s->name;
	snprintf(note->detail, sizeof(note->detail), "%s", s->desc);
	return 0;
}

static int suite_store(struct db *db, void *ent, char *err, size_t errlen)
{
	struct suite_ent *s = ent;

	return db_suite_put(db, s->name, s->desc, err, errlen);
}

int api_suite_put(struct req *rq, struct web_response *r)
{
	struct suite_ent s;

	return entry_put(rq, r, "suite put", suite_fields, suite_store, &s);
}
