// SPDX-License-Identifier: MIT
/*
 * Identity and roles for klabd: user tokens (hashed, compared in constant
 * time), rig tokens (through the rig manager), browser sessions with a
 * CSRF token for web forms, the content-type rule that keeps cross-site
 * simple forms out of the API, and the audit log.  See auth.h and the
 * "Identity, roles and forms" section of docs/SECURITY.md.
 */
#include <errno.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http/api.h"
#include "http/api_util.h"
#include "http/auth.h"
#include "klabd/klabd.h"
#include "db/tokens.h"
#include "lib/rand.h"
#include "lib/sha256.h"
#include "lab/rig.h"
#include "http/session.h"

#define FORM_TYPE "application/x-www-form-urlencoded"

struct auth {
	unsigned char key[AUTH_TOKEN_BYTES];	/* the CSRF HMAC key */
	struct session_table *sessions;
};

struct auth *auth_create(char *err, size_t errlen)
{
	struct auth *a = calloc(1, sizeof(*a));

	if (!a)
		abort();
	if (rand_bytes(a->key, sizeof(a->key))) {
		snprintf(err, errlen, "cannot draw the csrf key: %s",
			 strerror(errno));
		free(a);
		return NULL;
	}
	a->sessions = session_table_create();
	return a;
}

void auth_destroy(struct auth *a)
{
	if (!a)
		return;
	session_table_destroy(a->sessions);
	OPENSSL_cleanse(a, sizeof(*a));
	free(a);
}

static time_t now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void csrf_of(struct auth *a, const char *sid,
		    char out[AUTH_HEX_LEN + 1])
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!HMAC(EVP_sha256(), a->key, sizeof(a->key),
		  (const unsigned char *)sid, strlen(sid), mac, &n) ||
	    n != SHA256_DIGEST_LEN)
		abort();
	hex_encode(mac, n, out);
}

/* The user whose token's stored hash is h into rq: 0; 1 when no token has
 * it, -1 when the tokens cannot be read.  Every stored hash is compared,
 * in constant time, whatever matched before. */
static int user_by_hash(struct req *rq, const char *h)
{
	struct db_token *v = NULL;
	size_t n = 0, i;
	int found = 1;

	if (db_token_list(rq->db, &v, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!secret_equal(v[i].hash, h) || found == 0)
			continue;
		snprintf(rq->who, sizeof(rq->who), "%s", v[i].name);
		rq->role = auth_role_parse(v[i].role);
		found = rq->role < 0 ? 1 : 0;
	}
	db_tokens_free(v, n);
	return found;
}

/* The user whose token is secret into rq, its hash into h; as
 * user_by_hash(), an empty secret is nobody's (1). */
static int user_by_token(struct req *rq, const char *secret,
			 char h[AUTH_HEX_LEN + 1])
{
	if (!*secret)
		return 1;
	secret_hash_hex(secret, h);
	return user_by_hash(rq, h);
}

/* The user of the cookie's session into rq: 0 while the session is live
 * and its token still exists; a session whose token was revoked ends
 * here, at its first use after the revocation. */
static int user_by_session(struct req *rq)
{
	struct auth *a = rq->d->auth;
	char h[AUTH_HEX_LEN + 1];
	int rc;

	if (session_find(a->sessions, rq->session, now_mono(), h))
		return -1;
	rc = user_by_hash(rq, h);
	if (!rc)
		return 0;
	rq->who[0] = '\0';
	rq->role = ROLE_OPEN;
	if (rc > 0)	/* the token is gone, not just unreadable now */
		session_close(a->sessions, rq->session);
	return -1;
}

static int type_listed(const char *types, const char *ct)
{
	size_t n = strlen(ct);
	const char *p;

	if (!n)
		return 0;
	for (p = strstr(types, ct); p; p = strstr(p + n, ct)) {
		if ((p == types || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return 1;
	}
	return 0;
}

/* Who is calling: a rig (agent routes), a user token, or a session. */
static void identify(struct req *rq, const struct route *rt)
{
	const char *bearer = NULL;

	rq->who[0] = '\0';
	rq->role = ROLE_OPEN;
	rq->csrf[0] = '\0';
	if (rq->auth && !strncmp(rq->auth, "Bearer ", 7))
		bearer = rq->auth + 7;
	if (bearer || rt->role == ROLE_AGENT)
		rq->session[0] = '\0';	/* one identity per request */
	if (rt->role == ROLE_AGENT) {
		rq->rig = bearer ? rigmgr_by_token(rq->d, bearer) : NULL;
		if (rq->rig) {
			snprintf(rq->who, sizeof(rq->who), "rig:%s",
				 rq->rig->name);
			rq->role = ROLE_AGENT;
		}
		return;
	}
	if (bearer) {
		char h[AUTH_HEX_LEN + 1];

		if (user_by_token(rq, bearer, h))
			rq->role = ROLE_OPEN;
		return;
	}
	if (rq->session[0] && !user_by_session(rq)) {
		csrf_of(rq->d->auth, rq->session, rq->csrf);
		return;
	}
	rq->session[0] = '\0';
}

static int deny(struct web_response *r, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int deny(struct web_response *r, int status, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return web_error_json(r, status, msg);
}

/* The role part of auth_request(), caller identified. */
static int check_role(struct req *rq, const struct route *rt, int form,
		      struct web_response *r)
{
	if (rt->role == ROLE_OPEN)
		return 0;
	if (rt->role == ROLE_READ)
		return rq->d->read_token && !rq->who[0] ? deny(r, 401,
			"reading needs a token (read_access = token): send "
			"'Authorization: Bearer TOKEN' or sign in at /login") :
			0;
	if (rt->role == ROLE_AGENT)
		return rq->rig ? 0 : deny(r, 401, "unknown or missing rig "
					  "token");
	if (form && !rq->session[0])
		return deny(r, 401, "not signed in: sign in at /login");
	if (!form && rq->session[0])
		rq->who[0] = '\0';	/* cookies never authorise the API */
	if (!rq->who[0])
		return deny(r, 401, "%s: send 'Authorization: Bearer TOKEN' "
			    "(klabd token add NAME --role ROLE)", rq->auth ?
			    "unknown token" : "missing token");
	if (rq->role < rt->role)
		return deny(r, 403, "token '%s' has role '%s': %s %s needs "
			    "role '%s'", rq->who, auth_role_name(rq->role),
			    rq->method, rq->path, auth_role_name(rt->role));
	return 0;
}

int auth_caller(struct req *rq, const struct route *rt,
		struct web_response *r)
{
	const char *types = rt->types ? rt->types : "application/json";
	int form = !strcmp(rq->method, "POST") && type_listed(types, FORM_TYPE);

	/* a browser says where a form post comes from: only our pages */
	if (form && rq->fetch_site && strcmp(rq->fetch_site, "same-origin"))
		return deny(r, 403, "form posted from another site "
			    "(Sec-Fetch-Site: %s)", rq->fetch_site);
	identify(rq, rt);
	return check_role(rq, rt, form, r);
}

int auth_request(struct req *rq, const struct route *rt,
		 struct web_response *r)
{
	const char *types = rt->types ? rt->types : "application/json";
	int post = !strcmp(rq->method, "POST");
	int form = post && type_listed(types, FORM_TYPE);
	const char *field;
	int rc;

	rc = auth_caller(rq, rt, r);
	if (rc)
		return rc;
	/* a body is read only as a type the route documents: a cross-site
	 * simple form (text/plain, urlencoded, multipart) never reaches an
	 * API handler, and forms only reach form routes */
	if (post && rq->body_len && !type_listed(types, rq->content_type))
		return deny(r, 415, "unsupported content type '%s' for %s: "
			    "send %s", rq->content_type, rq->path, types);
	/* a form acting for a signed-in user proves it came from our page */
	field = query_get(&rq->q, "csrf");
	if (form && rt->role >= ROLE_SUBMITTER &&
	    (!field || !rq->csrf[0] || !secret_equal(field, rq->csrf)))
		return deny(r, 403, "missing or wrong csrf token: reload the "
			    "page and try again");
	return 0;
}

void auth_audit(struct req *rq, const char *action, const char *subject,
		const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (db_audit_add(rq->db, rq->who[0] ? rq->who : "anonymous",
			 auth_role_name(rq->role), action, subject ? subject :
			 "", detail))
		fprintf(stderr, "klabd: cannot write audit row '%s %s'\n",
			action, subject ? subject : "");
}

/* GET /api/audit?limit=N (operators): newest first. */
int api_audit(struct req *rq, struct web_response *r)
{
	const char *ls = query_get(&rq->q, "limit");
	struct db_audit *v = NULL;
	size_t n = 0, i;
	long limit = 200;
	json_t *a;

	if (ls && parse_long(ls, 1, 100000, &limit))
		return web_error_json(r, 400, "invalid limit");
	if (db_audit_list(rq->db, (int)limit, &v, &n))
		return web_error_json(r, 500, "cannot list the audit log");
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:I, s:I, s:s, s:s, s:s, "
			"s:s, s:s}", "id", (json_int_t)v[i].id, "at",
			(json_int_t)v[i].at, "who", v[i].who, "role",
			v[i].role, "action", v[i].action, "subject",
			v[i].subject, "detail", v[i].detail));
	db_audits_free(v, n);
	return api_reply(r, 200, json_pack("{s:o}", "audit", a));
}

/* Where to go after signing in: next when it is a path on this site
 * (query_local_path) that fits the Location header, dflt when absent,
 * else "/". */
static const char *safe_next(const char *next, const char *dflt)
{
	if (!next)
		return dflt;
	if (!query_local_path(next) ||
	    strlen(next) >= sizeof(((struct web_response *)0)->location))
		return "/";
	return next;
}

int web_login_form(struct req *rq, struct web_response *r)
{
	const char *next = query_get(&rq->q, "next");

	return web_login(NULL, next ? safe_next(next, NULL) : NULL, r);
}

/* The cookie that replaces the session's in the browser, or ends it. */
static void session_cookie(struct web_response *r, const char *sid)
{
	snprintf(r->cookie, sizeof(r->cookie), "klab_session=%s; Path=/; "
		 "HttpOnly; SameSite=Strict%s", sid, *sid ? "" :
		 "; Max-Age=0");
}

/* POST /login token=T[&next=/path]: a session cookie, then back. */
int web_login_post(struct req *rq, struct web_response *r)
{
	const char *tok = query_get(&rq->q, "token");
	const char *next = safe_next(query_get(&rq->q, "next"), "/rigs");
	char sid[AUTH_HEX_LEN + 1], h[AUTH_HEX_LEN + 1], msg[160];
	int rc;

	if (!tok || user_by_token(rq, tok, h)) {
		web_login("unknown token", next, r);
		r->status = 401;
		return 401;
	}
	rc = session_open(rq->d->auth->sessions, h, now_mono(), sid);
	if (rc == SESSION_FULL) {
		/* never by signing someone else out */
		snprintf(msg, sizeof(msg), "cannot sign in now: all %d "
			 "sessions are held by other signed-in users, "
			 "try again later", SESSION_SLOTS);
		web_login(msg, next, r);
		r->status = 503;
		return 503;
	}
	if (rc)
		return web_error_json(r, 500, "cannot draw a session id");
	session_cookie(r, sid);
	snprintf(r->location, sizeof(r->location), "%s", next);
	auth_audit(rq, "login", rq->who, "session for role '%s'",
		   auth_role_name(rq->role));
	r->status = 303;
	return 303;
}

/* POST /logout (session + CSRF): the session ends, the cookie goes. */
int web_logout_post(struct req *rq, struct web_response *r)
{
	session_close(rq->d->auth->sessions, rq->session);
	session_cookie(r, "");
	snprintf(r->location, sizeof(r->location), "/login");
	auth_audit(rq, "logout", rq->who, "session ended");
	r->status = 303;
	return 303;
}

/* POST /rigs/NAME/online from the rigs page (operator, session + CSRF). */
int web_rig_online_post(struct req *rq, struct web_response *r)
{
	struct caller c = api_caller(rq);
	char err[300];
	struct rig *g;
	enum outcome o;

	o = rigmgr_bring_online(rq->d, rq->db, &c, rq->arg,
				"from the rigs page", &g, err, sizeof(err));
	if (o != OUT_OK)
		return api_error(r, o, err);
	snprintf(r->location, sizeof(r->location), "/rigs");
	r->status = 303;
	return 303;
}
