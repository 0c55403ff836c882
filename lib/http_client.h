/* SPDX-License-Identifier: MIT */
/*
 * http_client: the one libcurl client of klab, used by the CLI (klab) and
 * the agent (klab-agent).  One request per call on a fresh easy handle:
 * neither makes enough requests for connection reuse to matter.  The
 * caller chooses method, bearer token, body, timeouts and where the reply
 * goes (a strbuf, capped, or a sink function such as a hashing writer);
 * retries and their backoff stay with the caller.
 */
#ifndef KLAB_HTTP_CLIENT_H
#define KLAB_HTTP_CLIENT_H

#include <stddef.h>

#include "strbuf.h"

struct http_request {
	const char *url;		/* the full URL */
	const char *method;		/* "GET", "POST", ... */
	const char *token;		/* sent as a Bearer token; NULL: none */
	const char *body;		/* NULL: no body */
	size_t body_len;
	const char *content_type;	/* of the body */
	long timeout;			/* seconds, whole request; 0: none */
	long connect_timeout;		/* seconds, 0: libcurl's default */
	const char *user_agent;		/* NULL: libcurl's */
	int no_proxy;			/* 1: ignore *_proxy variables */
	size_t max_reply;		/* bytes into the strbuf, 0: no cap */
	/* NULL: the reply goes to the strbuf; else every piece goes here and
	 * a return other than n aborts the transfer */
	size_t (*sink)(const char *data, size_t n, void *arg);
	void *sink_arg;
	/* more "Name: value" lines, NULL-ended */
	const char *const *headers;
	const int *cancel;		/* non-zero: abort the transfer */
};

/*
 * Perform rq; the reply body is appended to reply (which may be NULL when
 * rq->sink is set).  0 with *status set to the HTTP status, or -1 with
 * err holding libcurl's reason (the caller names the request).
 */
int http_request_perform(const struct http_request *rq, struct strbuf *reply,
			 long *status, char *err, size_t errlen);

#endif
