// SPDX-License-Identifier: MIT
/*
 * klab's calls to klabd over its HTTP API (lib/http_client.c, libcurl):
 * where klabd is and the token every request carries, a GET or POST and
 * the server's error message, and the helpers every command builds on
 * (a query string, a JSON document posted, a page printed, a document
 * followed until its work ends).
 */
#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/http_client.h"
#include "lib/strbuf.h"
#include "cli/klab.h"

static const char *base_url = "http://127.0.0.1:8080";
static char *token;	/* Bearer token for every request, or NULL */

/* The token: --token, else $KLAB_TOKEN, else the first line of
 * $XDG_CONFIG_HOME/klab/token (~/.config/klab/token).  NULL if none. */
static char *token_load(const char *opt)
{
	const char *env = getenv("KLAB_TOKEN"), *dir = getenv(
		"XDG_CONFIG_HOME"), *home = getenv("HOME");
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	char *tok = NULL;

	if (opt)
		return strdup(opt);
	if (env && *env)
		return strdup(env);
	sb_init(&path);
	sb_init(&text);
	if (dir && *dir)
		sb_addf(&path, "%s/klab/token", dir);
	else if (home && *home)
		sb_addf(&path, "%s/.config/klab/token", home);
	if (path.len && !sb_read_file(&text, path.buf)) {
		text.buf[strcspn(text.buf, "\r\n")] = '\0';
		if (*text.buf)
			tok = strdup(text.buf);
	}
	sb_release(&path);
	sb_release(&text);
	return tok;
}

void cli_http_init(const char *url, const char *opt_token)
{
	if (url)
		base_url = url;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	token = token_load(opt_token);
}

void cli_http_release(void)
{
	curl_global_cleanup();
	free(token);
	token = NULL;
}

/* GET (body NULL) or POST; returns EX_OK, EX_CONNECT. */
int http_do(const char *path, const struct strbuf *query,
		   const char *body, size_t len, const char *ctype,
		   struct http_result *res)
{
	return http_call(body ? "POST" : "GET", path, query, body, len, ctype,
			 res);
}

int http_call(const char *method, const char *path,
	      const struct strbuf *query, const char *body, size_t len,
	      const char *ctype, struct http_result *res)
{
	struct strbuf url = STRBUF_INIT;
	struct http_request rq;
	char err[256];
	int rc;

	sb_init(&url);
	sb_addf(&url, "%s%s%s%s", base_url, path, query && query->len ? "?" :
		"", query && query->len ? query->buf : "");
	sb_init(&res->body);
	memset(&rq, 0, sizeof(rq));
	rq.url = url.buf;
	rq.method = method;
	rq.token = token;
	rq.body = body;
	rq.body_len = len;
	rq.content_type = ctype;
	rq.no_proxy = 1;
	rc = http_request_perform(&rq, &res->body, &res->status, err,
				  sizeof(err));
	if (rc)
		fprintf(stderr, "klab: cannot reach klabd at %s: %s\n",
			base_url, err);
	sb_release(&url);
	return rc ? EX_CONNECT : EX_OK;
}

/* Print the server's error message; returns EX_SERVER. */
int server_error(const struct http_result *res)
{
	json_t *doc = json_loadb(res->body.buf, res->body.len, 0, NULL);
	const char *msg = json_string_value(json_object_get(doc, "error"));

	fprintf(stderr, "klab: %s (HTTP %ld)\n", msg ? msg : res->body.buf,
		res->status);
	json_decref(doc);
	return EX_SERVER;
}

void qadd(struct strbuf *q, const char *key, const char *value)
{
	if (!value)
		return;
	if (q->len)
		sb_addc(q, '&');
	sb_add_urlenc(q, key);
	sb_addc(q, '=');
	sb_add_urlenc(q, value);
}

/* POST a JSON document (taking it); the exit code of the exchange. */
static int post_doc(const char *path, json_t *doc, struct http_result *res)
{
	char *body = json_dumps(doc, JSON_COMPACT);
	int rc;

	json_decref(doc);
	rc = http_do(path, NULL, body, strlen(body), "application/json", res);
	free(body);
	return rc;
}

/* POST a JSON document; print the reply (or a field of it). */
int post_json(const char *path, json_t *doc, int ok_status,
		     const char *field)
{
	struct http_result res;
	json_t *reply;
	char *body;
	int rc;

	rc = post_doc(path, doc, &res);
	if (rc == EX_OK && res.status != ok_status)
		rc = server_error(&res);
	else if (rc == EX_OK && field) {
		reply = json_loadb(res.body.buf, res.body.len, 0, NULL);
		body = json_dumps(json_object_get(reply, field),
				  JSON_ENCODE_ANY | JSON_COMPACT);
		printf("%s\n", body ? body : "");
		free(body);
		json_decref(reply);
	} else if (rc == EX_OK) {
		fwrite(res.body.buf, 1, res.body.len, stdout);
	}
	sb_release(&res.body);
	return rc;
}

int post_created(const char *path, json_t *doc, const char *what,
		 long *id)
{
	struct http_result res;
	json_t *reply;
	int rc;

	rc = post_doc(path, doc, &res);
	if (rc == EX_OK && res.status != 201)
		rc = server_error(&res);
	if (rc == EX_OK) {
		reply = json_loadb(res.body.buf, res.body.len, 0, NULL);
		*id = (long)json_integer_value(json_object_get(reply, "id"));
		json_decref(reply);
		printf("%s %ld\n", what, *id);
		fflush(stdout);
	}
	sb_release(&res.body);
	return rc;
}

int get_json(const char *path, json_t **doc)
{
	struct http_result res;
	int rc = http_do(path, NULL, NULL, 0, NULL, &res);

	*doc = NULL;
	if (rc == EX_OK && res.status != 200)
		rc = server_error(&res);
	if (rc == EX_OK) {
		*doc = json_loadb(res.body.buf, res.body.len, 0, NULL);
		if (!*doc) {
			fprintf(stderr, "klab: klabd sent no JSON for %s\n",
				path);
			rc = EX_SERVER;
		}
	}
	sb_release(&res.body);
	return rc;
}

int cli_follow(const char *path, int (*progress)(json_t *doc, char *line,
						 size_t len), json_t **doc)
{
	char line[600], last[600] = "";
	int tty = isatty(2), done = 0, rc;

	*doc = NULL;
	while (!done) {
		json_decref(*doc);
		rc = get_json(path, doc);
		if (rc)
			return rc;
		done = progress(*doc, line, sizeof(line));
		if (strcmp(line, last))
			fprintf(stderr, tty ? "\r%s\033[K" : "%s\n", line);
		snprintf(last, sizeof(last), "%s", line);
		if (!done)
			sleep(1);
	}
	if (tty)
		fputc('\n', stderr);
	return EX_OK;
}

int get_print_text(const char *path)
{
	struct strbuf q = STRBUF_INIT;
	int rc;

	sb_init(&q);
	qadd(&q, "format", "text");
	rc = get_print(path, &q);
	sb_release(&q);
	return rc;
}

int get_print(const char *path, const struct strbuf *q)
{
	struct http_result res;
	int rc = http_do(path, q, NULL, 0, NULL, &res);

	if (rc == EX_OK && res.status != 200)
		rc = server_error(&res);
	else if (rc == EX_OK)
		fwrite(res.body.buf, 1, res.body.len, stdout);
	sb_release(&res.body);
	return rc;
}
