/* SPDX-License-Identifier: MIT */
/*
 * http: klabd's HTTP server (http.c, libmicrohttpd on epoll with a pool of
 * threads; the limits are struct http_limits of klabd.h).  klabd.c starts
 * it after the lab's state is ready and stops it before the threads that
 * requests reach; the API fuzzer calls http_handle without a socket.
 */
#ifndef KLAB_HTTP_H
#define KLAB_HTTP_H

#include <stddef.h>

#include "web/web.h"

struct klabd;

/*
 * What klabd reads of a request, for http_handle(): NULL is a header, a
 * query or a body that was not sent.  libmicrohttpd's requests are read
 * into one too.
 */
struct http_call {
	const char *method;
	const char *url;		/* the path, without the query */
	const char *query;		/* "a=1&b=%20", NULL: none */
	const char *content_type;	/* Content-Type */
	const char *auth;		/* Authorization */
	const char *session;		/* the klab_session cookie */
	const char *fetch_site;		/* Sec-Fetch-Site */
	const char *idem_key;		/* Idempotency-Key */
	const char *body;
	size_t body_len;
};

int http_start(struct klabd *d, char *err, size_t errlen);
void http_stop(struct klabd *d);
/* Route, authorise and answer c in r, as for a request over HTTP but
 * without a connection: a long poll answers at once.  Returns r->status
 * (the body of a HEAD is not cut). */
int http_handle(struct klabd *d, const struct http_call *c,
		struct web_response *r);

#endif
