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

#include "auth.h"
#include "db/tokens.h"
#include "lib/rand.h"
#include "lib/sha256.h"
#include "rig.h"

#define AUTH_SESSIONS 256
#define AUTH_SESSION_TTL (12 * 3600)	/* seconds */
#define FORM_TYPE "application/x-www-form-urlencoded"

struct session {
	char id[AUTH_HEX_LEN + 1];	/* "" when the slot is free */
	char who[216];
	int role;
	time_t expires;			/* CLOCK_MONOTONIC seconds */
};

struct auth {
	pthread_mutex_t lock;
	unsigned char key[AUTH_TOKEN_BYTES];	/* the CSRF HMAC key */
	struct session s[AUTH_SESSIONS];
};

void auth_hash_hex(const char *secret, char out[AUTH_HEX_LEN + 1])
{
	sha256_hex(secret, strlen(secret), out);
}

int auth_hex_equal(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (n != strlen(b))
		return 0;
	return CRYPTO_memcmp(a, b, n) == 0;
}

const char *auth_role_name(int role)
{
	switch (role) {
	case ROLE_AGENT: return "agent";
	case ROLE_SUBMITTER: return "submitter";
	case ROLE_OPERATOR: return "operator";
	default: return "";
	}
}

int auth_role_parse(const char *s)
{
	if (s && !strcmp(s, "submitter"))
		return ROLE_SUBMITTER;
	if (s && !strcmp(s, "operator"))
		return ROLE_OPERATOR;
	return -1;
}

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
	pthread_mutex_init(&a->lock, NULL);
	return a;
}

void auth_destroy(struct auth *a)
{
	if (!a)
		return;
	pthread_mutex_destroy(&a->lock);
	OPENSSL_cleanse(a, sizeof(*a));
	free(a);
}

static time_t now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* A new session for who; its id into id.  0 or -1. */
static int session_new(struct auth *a, const char *who, int role,
		       char id[AUTH_HEX_LEN + 1])
{
	time_t now = now_mono();
	size_t i, pick = 0;

	if (rand_hex(id, AUTH_TOKEN_BYTES))
		return -1;
	pthread_mutex_lock(&a->lock);
	for (i = 0; i < AUTH_SESSIONS; i++) {
		if (!a->s[i].id[0] || a->s[i].expires < now) {
			pick = i;
			break;
		}
		if (a->s[i].expires < a->s[pick].expires)
			pick = i;	/* full: the oldest goes */
	}
	snprintf(a->s[pick].id, sizeof(a->s[pick].id), "%s", id);
	snprintf(a->s[pick].who, sizeof(a->s[pick].who), "%s", who);
	a->s[pick].role = role;
	a->s[pick].expires = now + AUTH_SESSION_TTL;
	pthread_mutex_unlock(&a->lock);
	return 0;
}

/* The session's user into rq; 0 when it is live, -1 otherwise. */
static int session_get(struct auth *a, struct req *rq)
{
	time_t now = now_mono();
	int found = -1;
	size_t i;

	if (strlen(rq->session) != AUTH_HEX_LEN)
		return -1;
	pthread_mutex_lock(&a->lock);
	for (i = 0; i < AUTH_SESSIONS; i++) {
		if (!a->s[i].id[0] || a->s[i].expires < now ||
		    !auth_hex_equal(a->s[i].id, rq->session))
			continue;
		snprintf(rq->who, sizeof(rq->who), "%s", a->s[i].who);
		rq->role = a->s[i].role;
		found = 0;
	}
	pthread_mutex_unlock(&a->lock);
	return found;
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

/* The user whose token is secret into rq; 0, or -1 when unknown.  Every
 * stored hash is compared, in constant time, whatever matched before. */
static int user_by_token(struct req *rq, const char *secret)
{
	char h[AUTH_HEX_LEN + 1];
	struct db_token *v = NULL;
	size_t n = 0, i;
	int found = -1;

	if (!*secret || db_token_list(rq->db, &v, &n))
		return -1;
	auth_hash_hex(secret, h);
	for (i = 0; i < n; i++) {
		if (!auth_hex_equal(v[i].hash, h) || found == 0)
			continue;
		snprintf(rq->who, sizeof(rq->who), "%s", v[i].name);
		rq->role = auth_role_parse(v[i].role);
		found = rq->role < 0 ? -1 : 0;
	}
	db_tokens_free(v, n);
	return found;
}

static int type_listed(const char *types, const char *ct)
{
	size_t n = strlen(ct);
	const char *p = types;

	while (n && (p = strstr(p, ct))) {
		if ((p == types || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return 1;
		p += n;
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
		if (user_by_token(rq, bearer))
			rq->role = ROLE_OPEN;
		return;
	}
	if (rq->session[0] && !session_get(rq->d->auth, rq)) {
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
	    (!field || !rq->csrf[0] || !auth_hex_equal(field, rq->csrf)))
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

static const char *safe_next(const char *next)
{
	/* only a path on this site: no "//host" or "scheme:" */
	if (!next || next[0] != '/' || next[1] == '/' || next[1] == '\\' ||
	    strpbrk(next, "\r\n"))
		return "/rigs";
	return next;
}

int web_login_form(struct req *rq, struct web_response *r)
{
	return web_login(NULL, query_get(&rq->q, "next"), r);
}

/* POST /login token=T[&next=/path]: a session cookie, then back. */
int web_login_post(struct req *rq, struct web_response *r)
{
	const char *tok = query_get(&rq->q, "token");
	const char *next = safe_next(query_get(&rq->q, "next"));
	char sid[AUTH_HEX_LEN + 1];

	if (!tok || user_by_token(rq, tok)) {
		web_login("unknown token", next, r);
		r->status = 401;
		return 401;
	}
	if (session_new(rq->d->auth, rq->who, rq->role, sid))
		return web_error_json(r, 500, "cannot draw a session id");
	snprintf(r->cookie, sizeof(r->cookie), "klab_session=%s; Path=/; "
		 "HttpOnly; SameSite=Strict", sid);
	snprintf(r->location, sizeof(r->location), "%s", next);
	auth_audit(rq, "login", rq->who, "session for role '%s'",
		   auth_role_name(rq->role));
	r->status = 303;
	return 303;
}

/* POST /rigs/NAME/online from the rigs page (operator, session + CSRF). */
int web_rig_online_post(struct req *rq, struct web_response *r)
{
	if (!api_rig_bring_online(rq, r, "from the rigs page"))
		return r->status;
	snprintf(r->location, sizeof(r->location), "/rigs");
	r->status = 303;
	return 303;
}
