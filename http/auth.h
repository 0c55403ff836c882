/* SPDX-License-Identifier: MIT */
/*
 * auth: who is asking and whether they may.  Users hold bearer tokens with
 * a role (submitter or operator), stored as SHA-256 hashes (db/tokens.h);
 * agents hold per-rig tokens (rig.h); a browser signs in at /login with a
 * user token and gets a session cookie, and every web form it posts
 * carries a CSRF token, an HMAC of the session id under a key drawn at
 * start.  Secrets are always compared with CRYPTO_memcmp.
 *
 * auth_request() is the one check, called by dispatch() for every route
 * with the route's role; handlers then read rq->who and rq->role.
 */
#ifndef KLAB_AUTH_H
#define KLAB_AUTH_H

#include <stddef.h>

#include "http/req.h"
#include "klabd/token.h"

/* Sessions and the CSRF key; NULL with err filled when the kernel has no
 * randomness for us.  auth_destroy() accepts NULL. */
struct auth *auth_create(char *err, size_t errlen);
void auth_destroy(struct auth *a);

/*
 * Decide whether rq may run rt: identifies the caller (bearer token or
 * session cookie), fills rq->who, rq->role, rq->rig and rq->csrf, and
 * checks role, content type and, for forms, the CSRF field.  0 when
 * allowed; otherwise r holds a 401, 403 or 415 and its status is returned.
 */
int auth_request(struct req *rq, const struct route *rt,
		 struct web_response *r);
/*
 * The part of auth_request() the headers decide (caller, role, where a
 * form comes from), run before a body is read so that an upload from a
 * caller who may not post is refused without receiving it.  Same returns.
 */
int auth_caller(struct req *rq, const struct route *rt,
		struct web_response *r);

/* Record who did what (rq->who) in the audit log; detail is printf-like.
 * A failed write is logged to stderr, never fails the request. */
void auth_audit(struct req *rq, const char *action, const char *subject,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
