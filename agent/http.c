// SPDX-License-Identifier: MIT
/*
 * The agent's HTTP client: JSON requests to klabd with the rig's Bearer
 * token (libcurl + jansson), the same retried with a capped exponential
 * backoff, and downloads to a file checked against their sha256.  One
 * easy handle per request: the agent makes a few requests a minute, so
 * connection reuse is not worth state.  See agent.h.
 */
#include "agent/agent.h"

#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/sha256.h"

#define HTTP_CONNECT_TIMEOUT 10L
#define HTTP_MAX_REPLY (16L << 20)

struct http_file {
	FILE *f;
	struct sha256 sha;
	unsigned long long bytes;
};

static size_t http_to_sb(char *data, size_t size, size_t n, void *arg)
{
	struct strbuf *sb = arg;

	if (sb->len + size * n > (size_t)HTTP_MAX_REPLY)
		return 0;
	sb_add(sb, data, size * n);
	return size * n;
}

static size_t http_to_file(char *data, size_t size, size_t n, void *arg)
{
	struct http_file *hf = arg;

	sha256_update(&hf->sha, data, size * n);
	hf->bytes += size * n;
	return fwrite(data, size, n, hf->f) * size;
}

/* A handle for cfg->url + path with the token header in *hdrs. */
static CURL *http_easy(const struct agent_config *cfg, const char *path,
		       long timeout, struct curl_slist **hdrs)
{
	struct strbuf s = STRBUF_INIT;
	CURL *c = curl_easy_init();

	if (!c)
		abort();
	sb_init(&s);
	sb_addf(&s, "%s%s", cfg->url, path);
	curl_easy_setopt(c, CURLOPT_URL, s.buf);
	sb_reset(&s);
	sb_addf(&s, "Authorization: Bearer %s", cfg->token ? cfg->token : "");
	*hdrs = curl_slist_append(*hdrs, s.buf);
	sb_release(&s);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, *hdrs);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, HTTP_CONNECT_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_USERAGENT, "klab-agent");
	return c;
}

static int http_perform(CURL *c, const char *method, const char *path,
			long *status, char *err, size_t errlen)
{
	CURLcode rc = curl_easy_perform(c);

	if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s '%s': %s", method, path,
			 curl_easy_strerror(rc));
		return -1;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	return 0;
}

int http_json(const struct agent_config *cfg, const char *method,
	      const char *path, json_t *body, long timeout, long *status,
	      json_t **reply, char *err, size_t errlen)
{
	struct curl_slist *hdrs = NULL;
	struct strbuf in = STRBUF_INIT;
	char *data = NULL;
	CURL *c;
	int rc;

	sb_init(&in);
	if (reply)
		*reply = NULL;
	if (body) {
		data = json_dumps(body, JSON_COMPACT);
		if (!data)
			abort();
		hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
	}
	c = http_easy(cfg, path, timeout, &hdrs);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (data)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, data);
	else if (strcmp(method, "GET"))
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, http_to_sb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &in);
	rc = http_perform(c, method, path, status, err, errlen);
	if (rc == 0 && reply && in.len)
		*reply = json_loadb(in.buf, in.len, 0, NULL);
	curl_easy_cleanup(c);
	curl_slist_free_all(hdrs);
	free(data);
	sb_release(&in);
	return rc;
}

static int http_retryable(long status)
{
	return status >= 500 || status == 408 || status == 429;
}

int http_json_retry(const struct agent_config *cfg, const char *method,
		    const char *path, json_t *body, long timeout,
		    unsigned attempts, long *status, json_t **reply,
		    char *err, size_t errlen)
{
	unsigned i;
	int rc;

	for (i = 1;; i++) {
		rc = http_json(cfg, method, path, body, timeout, status, reply,
			       err, errlen);
		if (rc == 0 && !http_retryable(*status))
			return 0;
		if (rc == 0) {
			http_reply_error(*status, reply ? *reply : NULL, err,
					 errlen);
			if (reply) {
				json_decref(*reply);
				*reply = NULL;
			}
		}
		if (attempts && i >= attempts)
			return rc;
		agent_log("%s %s: %s (attempt %u)", method, path, err, i);
		agent_backoff(cfg, i);
	}
}

void http_reply_error(long status, const json_t *reply, char *err,
		      size_t errlen)
{
	const char *msg = json_string_value(json_object_get(reply, "error"));

	if (msg)
		snprintf(err, errlen, "klabd answered %ld: %s", status, msg);
	else
		snprintf(err, errlen, "klabd answered %ld", status);
}

/* One download attempt into part; 0 when status and hash are right. */
static int http_fetch(const struct agent_config *cfg, const char *path,
		      const char *part, const char *sha, char *err,
		      size_t errlen)
{
	struct curl_slist *hdrs = NULL;
	struct http_file hf;
	char got[SHA256_HEX_LEN + 1];
	long status = 0;
	CURL *c;
	int rc;

	hf.f = fopen(part, "we");
	if (!hf.f) {
		snprintf(err, errlen, "cannot create '%s': %s", part,
			 strerror(errno));
		return -1;
	}
	sha256_init(&hf.sha);
	hf.bytes = 0;
	c = http_easy(cfg, path, 3600L, &hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, http_to_file);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &hf);
	rc = http_perform(c, "GET", path, &status, err, errlen);
	curl_easy_cleanup(c);
	curl_slist_free_all(hdrs);
	if (fclose(hf.f) && rc == 0) {
		snprintf(err, errlen, "cannot write '%s': %s", part,
			 strerror(errno));
		rc = -1;
	}
	if (rc == 0 && status != 200) {
		snprintf(err, errlen, "GET '%s': klabd answered %ld", path,
			 status);
		rc = -1;
	}
	sha256_final_hex(&hf.sha, got);
	if (rc == 0 && strcmp(got, sha)) {
		snprintf(err, errlen, "GET '%s': sha256 %s of %llu bytes, "
			 "expected %s", path, got, hf.bytes, sha);
		rc = -1;
	}
	return rc;
}

int http_download(const struct agent_config *cfg, const char *path,
		  const char *dest, const char *sha256, unsigned attempts,
		  char *err, size_t errlen)
{
	char got[SHA256_HEX_LEN + 1], part[1024];
	unsigned i;

	if (sha256_file_hex(dest, got) == 0 && !strcmp(got, sha256)) {
		agent_log("have '%s' already (sha256 %.12s)", dest, got);
		return 0;
	}
	snprintf(part, sizeof(part), "%s.part", dest);
	for (i = 1; i <= attempts; i++) {
		if (http_fetch(cfg, path, part, sha256, err, errlen) == 0) {
			if (rename(part, dest) == 0)
				return 0;
			snprintf(err, errlen, "cannot rename '%s': %s", part,
				 strerror(errno));
		}
		unlink(part);
		agent_log("download %s: %s (attempt %u of %u)", path, err, i,
			  attempts);
		if (i < attempts)
			agent_backoff(cfg, i);
	}
	return -1;
}
