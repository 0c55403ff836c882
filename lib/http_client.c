// SPDX-License-Identifier: MIT
/*
 * The one libcurl client of klab.  See http_client.h.
 */
#include "http_client.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reply_ctx {
	const struct http_request *rq;
	struct strbuf *sb;
};

static size_t on_data(char *data, size_t size, size_t n, void *arg)
{
	struct reply_ctx *rc = arg;
	size_t len = size * n;

	if (rc->rq->sink)
		return rc->rq->sink(data, len, rc->rq->sink_arg);
	if (rc->rq->max_reply && rc->sb->len + len > rc->rq->max_reply)
		return 0;
	sb_add(rc->sb, data, len);
	return len;
}

/* The request's headers: its token and its body's type. */
static struct curl_slist *request_headers(const struct http_request *rq)
{
	struct curl_slist *h = NULL;
	struct strbuf s = STRBUF_INIT;
	size_t i;

	sb_init(&s);
	if (rq->token) {
		sb_addf(&s, "Authorization: Bearer %s", rq->token);
		h = curl_slist_append(h, s.buf);
		sb_reset(&s);
	}
	if (rq->body && rq->content_type) {
		sb_addf(&s, "Content-Type: %s", rq->content_type);
		h = curl_slist_append(h, s.buf);
	}
	for (i = 0; rq->headers && rq->headers[i]; i++)
		h = curl_slist_append(h, rq->headers[i]);
	sb_release(&s);
	return h;
}

/* The transfer's progress: a non-zero *cancel aborts it. */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow,
		       curl_off_t ultotal, curl_off_t ulnow)
{
	const int *cancel = arg;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return __atomic_load_n(cancel, __ATOMIC_RELAXED) != 0;
}

int http_request_perform(const struct http_request *rq, struct strbuf *reply,
			 long *status, char *err, size_t errlen)
{
	struct reply_ctx ctx = { rq, reply };
	struct curl_slist *hdrs = request_headers(rq);
	CURL *c = curl_easy_init();
	CURLcode cc;

	if (!c)
		abort();
	*status = 0;
	curl_easy_setopt(c, CURLOPT_URL, rq->url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	if (rq->connect_timeout)
		curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT,
				 rq->connect_timeout);
	if (rq->timeout)
		curl_easy_setopt(c, CURLOPT_TIMEOUT, rq->timeout);
	if (rq->user_agent)
		curl_easy_setopt(c, CURLOPT_USERAGENT, rq->user_agent);
	if (rq->no_proxy)
		curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	if (hdrs)
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	if (rq->cancel) {
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, (void *)rq->cancel);
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	}
	if (rq->body || strcmp(rq->method, "GET")) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body ? rq->body :
				 "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)(rq->body ? rq->body_len : 0));
	}
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &ctx);
	cc = curl_easy_perform(c);
	if (cc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	else
		snprintf(err, errlen, "%s", curl_easy_strerror(cc));
	curl_easy_cleanup(c);
	curl_slist_free_all(hdrs);
	return cc == CURLE_OK ? 0 : -1;
}
