/* SPDX-License-Identifier: MIT */
/*
 * req: the request object every route handler receives, and the route
 * table that maps a method and a path to a handler (routes.c, as git.c's
 * command table).  HTTP types live in http/ only: the rooms below it
 * (klabd/, lab/, flow/) take plain inputs and a caller (klabd/outcome.h),
 * and web/ renders what a handler gives it.
 */
#ifndef KLAB_HTTP_REQ_H
#define KLAB_HTTP_REQ_H

#include <stddef.h>

#include "lib/query.h"
#include "web/web.h"

struct db;
struct http_poll;
struct klabd;
struct rig;

struct req {
	struct klabd *d;
	const char *method;
	const char *path;
	const char *arg;	/* the path's first '*' segment, "" if none */
	const char *arg2;	/* its second, "" if none */
	struct query q;		/* URL query, plus a form body when posted */
	const char *body;
	size_t body_len;
	const char *content_type;	/* without parameters, "" if none */
	const char *auth;	/* Authorization header or NULL */
	const char *fetch_site;	/* Sec-Fetch-Site header or NULL */
	const char *idem_key;	/* Idempotency-Key header or NULL */
	struct db *db;
	void *conn;		/* struct MHD_Connection */
	/* who is asking, filled by auth_request() before the handler runs */
	char who[216];		/* token name, "rig:NAME", "" when anonymous */
	int role;		/* enum auth_role of the caller */
	struct rig *rig;	/* the agent's rig on ROLE_AGENT routes */
	char session[72];	/* session id from the cookie, "" if none */
	char csrf[72];		/* the session's CSRF token, "" if none */
	struct http_poll *poll;	/* the connection's long poll (http_poll.h) */
};

/*
 * One row per route: the method, the path pattern ('*' matches one path
 * segment, a final '**' the rest of the path), who may call it (enum
 * auth_role) and, for POSTs, the content types it accepts (space-separated;
 * NULL means "application/json"; "application/x-www-form-urlencoded" marks
 * a web form, authorised by a session cookie and a CSRF field).
 */
struct route {
	const char *method;	/* "GET" also serves HEAD */
	const char *pattern;
	int role;
	int (*fn)(struct req *rq, struct web_response *r);
	const char *types;
};

/* routes.c: the route table, *n rows (for the API fuzzer), and the route
 * of method and path: '*' captures into buf (len bytes) for *arg and
 * *arg2; NULL when none matches (*bad_method: the path has routes for
 * other methods, a 405). */
const struct route *http_routes(size_t *n);
const struct route *route_find(const char *method, const char *path,
			       char *buf, size_t len, const char **arg,
			       const char **arg2, int *bad_method);

#endif
