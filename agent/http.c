// SPDX-License-Identifier: MIT
/*
 * The agent's HTTP client: JSON requests to klabd with the rig's Bearer
 * token (lib/http_client.c + jansson), the same retried with a capped
 * exponential backoff, and downloads to a file checked against their
 * sha256, through the rig's boot-file cache when it has one (cache.h):
 * a verified entry is used without a request.  See agent.h.
 */
#include "agent/agent.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/cache.h"
#include "lib/http_client.h"
#include "lib/sha256.h"

#define HTTP_CONNECT_TIMEOUT 10L
#define HTTP_MAX_REPLY (16L << 20)

struct http_file {
	FILE *f;
	struct sha256 sha;
	unsigned long long bytes;
	int werr;	/* a write to the file failed (a full disk) */
};

/* http_fetch and the downloads: a failure of our own disk (create, write,
 * rename), as against klabd's or the network's (-1). */
#define HTTP_LOCAL (-2)

static size_t http_to_file(const char *data, size_t n, void *arg)
{
	struct http_file *hf = arg;

	size_t w;

	sha256_update(&hf->sha, data, n);
	hf->bytes += n;
	w = fwrite(data, 1, n, hf->f);
	if (w != n)
		hf->werr = 1;
	return w;
}

/* A request for cfg->url + path with the rig's token; url is its buffer. */
static void http_request_for(const struct agent_config *cfg,
			     const char *method, const char *path,
			     long timeout, struct strbuf *url,
			     struct http_request *rq)
{
	sb_addf(url, "%s%s", cfg->url, path);
	memset(rq, 0, sizeof(*rq));
	rq->url = url->buf;
	rq->method = method;
	rq->token = cfg->token ? cfg->token : "";
	rq->timeout = timeout;
	rq->connect_timeout = HTTP_CONNECT_TIMEOUT;
	rq->user_agent = "klab-agent";
	rq->max_reply = HTTP_MAX_REPLY;
}

static int http_perform(const struct http_request *rq, const char *path,
			struct strbuf *in, long *status, char *err,
			size_t errlen)
{
	char why[256];

	if (http_request_perform(rq, in, status, why, sizeof(why))) {
		snprintf(err, errlen, "%s '%s': %s", rq->method, path, why);
		return -1;
	}
	return 0;
}

int http_json(const struct agent_config *cfg, const char *method,
	      const char *path, json_t *body, long timeout, long *status,
	      json_t **reply, char *err, size_t errlen)
{
	struct strbuf in = STRBUF_INIT, url = STRBUF_INIT;
	struct http_request rq;
	char *data = NULL;
	int rc;

	sb_init(&in);
	sb_init(&url);
	if (reply)
		*reply = NULL;
	http_request_for(cfg, method, path, timeout, &url, &rq);
	if (body) {
		data = json_dumps(body, JSON_COMPACT);
		if (!data)
			abort();
		rq.body = data;
		rq.body_len = strlen(data);
		rq.content_type = "application/json";
	}
	rc = http_perform(&rq, path, &in, status, err, errlen);
	if (rc == 0 && reply && in.len)
		*reply = json_loadb(in.buf, in.len, 0, NULL);
	free(data);
	sb_release(&in);
	sb_release(&url);
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
		      const char *part, const char *sha,
		      unsigned long long *bytes, char *err, size_t errlen)
{
	struct strbuf url = STRBUF_INIT;
	struct http_request rq;
	struct http_file hf;
	char got[SHA256_HEX_LEN + 1];
	long status = 0;
	int rc;

	hf.f = fopen(part, "we");
	if (!hf.f) {
		snprintf(err, errlen, "cannot create '%s': %s", part,
			 strerror(errno));
		return HTTP_LOCAL;
	}
	sha256_init(&hf.sha);
	hf.bytes = 0;
	hf.werr = 0;
	sb_init(&url);
	http_request_for(cfg, "GET", path, 3600L, &url, &rq);
	rq.sink = http_to_file;
	rq.sink_arg = &hf;
	rc = http_perform(&rq, path, NULL, &status, err, errlen);
	sb_release(&url);
	*bytes += hf.bytes;
	if ((fclose(hf.f) || hf.werr) && (rc == 0 || hf.werr)) {
		snprintf(err, errlen, "cannot write '%s': %s", part,
			 hf.werr ? "short write (disk full?)" :
				   strerror(errno));
		return HTTP_LOCAL;
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

/* http_download, adding the bytes received (every attempt) to *bytes. */
static int http_download_counted(const struct agent_config *cfg,
				 const char *path, const char *dest,
				 const char *sha256, unsigned attempts,
				 unsigned long long *bytes, char *err,
				 size_t errlen)
{
	char got[SHA256_HEX_LEN + 1], part[1024];
	unsigned i;
	int rc = -1;

	if (sha256_file_hex(dest, got) == 0 && !strcmp(got, sha256)) {
		agent_log("have '%s' already (sha256 %.12s)", dest, got);
		return 0;
	}
	snprintf(part, sizeof(part), "%s.part", dest);
	for (i = 1; i <= attempts; i++) {
		rc = http_fetch(cfg, path, part, sha256, bytes, err, errlen);
		if (rc == 0) {
			if (rename(part, dest) == 0)
				return 0;
			snprintf(err, errlen, "cannot rename '%s': %s", part,
				 strerror(errno));
			rc = HTTP_LOCAL;
		}
		unlink(part);
		agent_log("download %s: %s (attempt %u of %u)", path, err, i,
			  attempts);
		/* our disk, not klabd: no use waiting */
		if (rc == HTTP_LOCAL)
			break;
		if (i < attempts)
			agent_backoff(cfg, i);
	}
	return rc;
}

int http_download(const struct agent_config *cfg, const char *path,
		  const char *dest, const char *sha256, unsigned attempts,
		  char *err, size_t errlen)
{
	unsigned long long bytes = 0;

	return http_download_counted(cfg, path, dest, sha256, attempts,
				     &bytes, err, errlen);
}

/* Keep the cache under its limit; keep's entries stay. */
static void http_cache_trim(const struct agent_config *cfg,
			    unsigned long long limit, const char *const *keep)
{
	unsigned long long left = 0;
	char err[512];
	int n;

	n = cache_evict(cfg->cache_dir, limit, keep, &left, err, sizeof(err));
	if (n < 0)
		agent_log("%s", err);
	else if (n > 0)
		agent_log("cache '%s': evicted %d least recently used "
			  "entries, %llu bytes left", cfg->cache_dir, n, left);
}

/* Download into the cache; on failure (a full disk) once more after
 * evicting everything but keep. */
static int http_cache_fill(const struct agent_config *cfg, const char *path,
			   const char *dest, const char *sha256,
			   const char *const *keep, unsigned attempts,
			   unsigned long long *bytes, char *err,
			   size_t errlen)
{
	int rc = http_download_counted(cfg, path, dest, sha256, attempts,
				       bytes, err, errlen);

	if (rc != HTTP_LOCAL)	/* done, or klabd/the network failed */
		return rc;
	agent_log("cache '%s': %s; evicting and trying again",
		  cfg->cache_dir, err);
	http_cache_trim(cfg, 0, keep);
	return http_download_counted(cfg, path, dest, sha256, 1, bytes, err,
				     errlen);
}

int http_download_cached(const struct agent_config *cfg, const char *what,
			 const char *path, const char *sha256,
			 const char *const *keep, unsigned attempts,
			 struct strbuf *dest, unsigned long long *bytes,
			 char *err, size_t errlen)
{
	size_t mark = dest->len;
	int st;

	if (!cfg->cache_dir || !cache_key_ok(sha256))
		goto out_plain;
	st = cache_entry_check(cfg->cache_dir, sha256, dest);
	if (st == CACHE_HIT) {
		agent_log("%s %.12s: verified cache entry '%s', nothing to "
			  "download", what, sha256, dest->buf);
		return 0;
	}
	if (st == CACHE_CORRUPT)
		agent_log("%s %.12s: cache entry '%s' does not match its "
			  "sha256: removed, downloading it again", what,
			  sha256, dest->buf);
	st = http_cache_fill(cfg, path, dest->buf, sha256, keep, attempts,
			     bytes, err, errlen);
	if (st == 0) {
		http_cache_trim(cfg, cache_limit(cfg->cache_dir,
						 cfg->cache_max), keep);
		return 0;
	}
	if (st != HTTP_LOCAL)	/* klabd refused: the plain path would too */
		return -1;
	agent_log("%s %.12s: cannot keep it in cache '%s': %s", what,
		  sha256, cfg->cache_dir, err);
	dest->len = mark;
	dest->buf[mark] = '\0';
out_plain:
	sb_addf(dest, "%s/%s-%s", cfg->workdir, what, sha256);
	return http_download_counted(cfg, path, dest->buf, sha256, attempts,
				     bytes, err, errlen);
}
