// SPDX-License-Identifier: MIT
/*
 * The HTTP layer of klabd: libmicrohttpd with a thread per connection (so
 * agents can long-poll), request bodies gathered up to the upload limit,
 * one route table dispatching to API handlers and pages, and a pool of
 * database handles shared by the request threads.
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth.h"
#include "klabd.h"
#include "web/web.h"

static int page_home(struct req *rq, struct web_response *r)
{
	return web_home(rq->db, &rq->q, rq->arg, r);
}

static int page_kernels(struct req *rq, struct web_response *r)
{
	return web_kernels(rq->db, &rq->q, rq->arg, r);
}

static int page_runs(struct req *rq, struct web_response *r)
{
	return web_runs(rq->db, &rq->q, rq->arg, r);
}

static int page_rigs(struct req *rq, struct web_response *r)
{
	/* a signed-in operator gets the forms, with the session's CSRF */
	return web_rigs_forms(rq->db, &rq->q, rq->role == ROLE_OPERATOR &&
			      rq->csrf[0] ? rq->csrf : NULL, r);
}

static int page_compare(struct req *rq, struct web_response *r)
{
	return web_compare(rq->db, &rq->q, rq->arg, r);
}

static int page_history(struct req *rq, struct web_response *r)
{
	return web_history(rq->db, &rq->q, rq->arg, r);
}

static int page_style(struct req *rq, struct web_response *r)
{
	return web_style(rq->db, &rq->q, rq->arg, r);
}

/* Shorthands for the role column. */
#define OPEN ROLE_OPEN
#define READ ROLE_READ
#define AGENT ROLE_AGENT
#define SUBMIT ROLE_SUBMITTER
#define OPER ROLE_OPERATOR
#define FORM "application/x-www-form-urlencoded"
#define IMPORT_TYPES "application/json text/plain application/octet-stream"

/* The whole map of klabd: every path it answers, who may call it and, for
 * posts, the content types it reads (NULL: application/json). */
static const struct route routes[] = {
	{ "GET", "/api/health", OPEN, api_health, NULL },
	{ "POST", "/api/import", SUBMIT, api_import, IMPORT_TYPES },
	{ "GET", "/api/kernels", READ, api_kernels, NULL },
	{ "GET", "/api/kernels/**", READ, api_kernels, NULL },
	{ "POST", "/api/kernels", OPER, api_kernel_put, NULL },
	{ "GET", "/api/rigs", READ, api_rigs, NULL },
	{ "GET", "/api/rigs/*", READ, api_rigs, NULL },
	{ "POST", "/api/rigs", OPER, api_rig_put, NULL },
	{ "POST", "/api/rigs/*/online", OPER, api_rig_online, NULL },
	{ "POST", "/api/agent/register", AGENT, api_agent_register, NULL },
	{ "GET", "/api/agent/next", AGENT, api_agent_next, NULL },
	{ "POST", "/api/agent/next", AGENT, api_agent_next, NULL },
	{ "POST", "/api/agent/jobs/*/kexec", AGENT, api_agent_kexec, NULL },
	{ "POST", "/api/agent/jobs/*/results", AGENT, api_agent_results, NULL },
	{ "POST", "/api/agent/jobs/*/fail", AGENT, api_agent_fail, NULL },
	{ "GET", "/api/agent/files/*", AGENT, api_agent_file, NULL },
	{ "POST", "/api/jobs", SUBMIT, api_job_add, NULL },
	{ "GET", "/api/jobs", READ, api_jobs, NULL },
	{ "GET", "/api/jobs/*", READ, api_jobs, NULL },
	{ "GET", "/api/catalog/available", READ, api_catalog_available, NULL },
	{ "POST", "/api/catalog/debian", OPER, api_catalog_debian, NULL },
	{ "POST", "/api/builds", SUBMIT, api_build_add, NULL },
	{ "GET", "/api/builds", READ, api_builds, NULL },
	{ "GET", "/api/builds/*", READ, api_build_get, NULL },
	{ "GET", "/api/builds/*/log", READ, api_build_log, NULL },
	{ "GET", "/api/suites", READ, api_suites, NULL },
	{ "POST", "/api/suites", OPER, api_suite_put, NULL },
	{ "GET", "/api/runs", READ, api_runs, NULL },
	{ "GET", "/api/runs/*", READ, api_runs, NULL },
	{ "GET", "/api/runs/*/raw/**", READ, api_run_raw, NULL },
	{ "GET", "/api/metrics", READ, api_metrics, NULL },
	{ "GET", "/api/compare", READ, api_compare, NULL },
	{ "GET", "/api/history", READ, api_history, NULL },
	{ "GET", "/api/audit", OPER, api_audit, NULL },
	{ "GET", "/", READ, page_home, NULL },
	{ "GET", "/kernels", READ, page_kernels, NULL },
	{ "GET", "/kernels/**", READ, page_kernels, NULL },
	{ "GET", "/runs", READ, page_runs, NULL },
	{ "GET", "/runs/*", READ, page_runs, NULL },
	{ "GET", "/rigs", READ, page_rigs, NULL },
	{ "POST", "/rigs/*/online", OPER, web_rig_online_post, FORM },
	{ "GET", "/compare", READ, page_compare, NULL },
	{ "GET", "/history", READ, page_history, NULL },
	{ "GET", "/login", OPEN, web_login_form, NULL },
	{ "POST", "/login", OPEN, web_login_post, FORM },
	{ "GET", "/style.css", OPEN, page_style, NULL },
};

int http_status_of(int dbrc)
{
	return db_http_status(dbrc);
}

struct db *klabd_db_get(struct klabd *d, char *err, size_t errlen)
{
	struct db *db = NULL;

	pthread_mutex_lock(&d->pool_lock);
	if (d->npool)
		db = d->pool[--d->npool];
	pthread_mutex_unlock(&d->pool_lock);
	if (!db)
		db = db_open(d->db_path, err, errlen);
	return db;
}

void klabd_db_put(struct klabd *d, struct db *db)
{
	if (!db)
		return;
	pthread_mutex_lock(&d->pool_lock);
	if (d->npool >= 8) {
		/* a burst of clients is over: keep a few handles, not all */
		pthread_mutex_unlock(&d->pool_lock);
		db_close(db);
		return;
	}
	if (d->npool == d->pool_alloc) {
		size_t na = d->pool_alloc ? d->pool_alloc * 2 : 8;
		struct db **p = realloc(d->pool, na * sizeof(*p));

		if (!p) {
			pthread_mutex_unlock(&d->pool_lock);
			db_close(db);
			return;
		}
		d->pool = p;
		d->pool_alloc = na;
	}
	d->pool[d->npool++] = db;
	pthread_mutex_unlock(&d->pool_lock);
}

/* Per-request state kept by libmicrohttpd between callbacks. */
struct conn_ctx {
	struct strbuf body;
	int too_large;
	size_t seen;
};

/*
 * Match path against pattern: '*' takes one non-empty segment, a final
 * '**' the non-empty rest.  The first two captures go to buf (NUL
 * separated) and *arg, *arg2.  1 on a match.
 */
static int route_match(const char *pat, const char *path, char *buf,
		       size_t len, const char **arg, const char **arg2)
{
	const char **cap[2] = { arg, arg2 };
	size_t used = 0, n;
	int ncap = 0;

	while (*pat) {
		if (pat[0] != '*') {
			if (*pat++ != *path++)
				return 0;
			continue;
		}
		n = pat[1] == '*' ? strlen(path) : strcspn(path, "/");
		if (!n || used + n + 1 > len || ncap == 2)
			return 0;
		memcpy(buf + used, path, n);
		buf[used + n] = '\0';
		*cap[ncap++] = buf + used;
		used += n + 1;
		path += n;
		pat += pat[1] == '*' ? 2 : 1;
	}
	return *path == '\0';
}

/* Find the route for method and path.  405 via *bad_method. */
static const struct route *route_find(const char *method, const char *path,
				      char *buf, size_t len, const char **arg,
				      const char **arg2, int *bad_method)
{
	size_t i;

	*bad_method = 0;
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		const struct route *rt = &routes[i];

		*arg = *arg2 = "";
		if (!route_match(rt->pattern, path, buf, len, arg, arg2))
			continue;
		if (strcmp(method, rt->method) &&
		    !(strcmp(method, "HEAD") == 0 && !strcmp(rt->method, "GET"))) {
			*bad_method = 1;
			continue;
		}
		return rt;
	}
	*arg = *arg2 = "";
	return NULL;
}

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind,
				   const char *key, size_t key_size,
				   const char *value, size_t value_size)
{
	char *v;
	size_t i;

	if (!value || strlen(value) == value_size) {
		query_add(cls, key, value ? value : "");
		return MHD_YES;
	}
	/* a %00 would cut the value: keep it visible, as query_parse does */
	v = malloc(value_size + 1);
	if (!v)
		return MHD_NO;
	for (i = 0; i < value_size; i++)
		v[i] = value[i] ? value[i] : '?';
	v[value_size] = '\0';
	query_add(cls, key, v);
	free(v);
	return MHD_YES;
}

/* Queue r: its body, or the file r->fd (handed over to libmicrohttpd). */
static enum MHD_Result send_response(struct MHD_Connection *conn,
				     struct web_response *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t len;
	char *body;

	if (r->fd >= 0) {
		resp = MHD_create_response_from_fd(r->fd_size, r->fd);
		if (!resp)
			return MHD_NO;	/* r->fd closed by the release */
		r->fd = -1;
	} else {
		body = sb_detach(&r->body, &len);
		resp = MHD_create_response_from_buffer(len, body,
						       MHD_RESPMEM_MUST_FREE);
		if (!resp) {
			free(body);
			return MHD_NO;
		}
	}
	MHD_add_response_header(resp, "Content-Type", r->content_type ?
				r->content_type : "text/plain; charset=utf-8");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	/* no page of ours in another site's frame: no clickjacked forms */
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	if (r->location[0])
		MHD_add_response_header(resp, "Location", r->location);
	if (r->cookie[0])
		MHD_add_response_header(resp, "Set-Cookie", r->cookie);
	ret = MHD_queue_response(conn, (unsigned)r->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void content_type_of(struct MHD_Connection *conn, char *buf,
			    size_t len)
{
	const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						     "Content-Type");
	size_t n;

	buf[0] = '\0';
	if (!ct)
		return;
	n = strcspn(ct, "; \t");
	if (n >= len)
		n = len - 1;
	memcpy(buf, ct, n);
	buf[n] = '\0';
	for (n = 0; buf[n]; n++)
		if (buf[n] >= 'A' && buf[n] <= 'Z')
			buf[n] = (char)(buf[n] - 'A' + 'a');
}

static void dispatch(struct klabd *d, struct MHD_Connection *conn,
		     const char *url, const char *method,
		     struct conn_ctx *ctx, struct web_response *r)
{
	const struct route *rt;
	const char *sid;
	struct req rq;
	char ct[128], err[256], args[1024];
	int bad_method;

	memset(&rq, 0, sizeof(rq));
	rt = route_find(method, url, args, sizeof(args), &rq.arg, &rq.arg2,
			&bad_method);
	if (!rt) {
		web_error_json(r, bad_method ? 405 : 404, bad_method ?
			       "method not allowed" : "no such page");
		return;
	}
	if (ctx->too_large) {
		snprintf(err, sizeof(err),
			 "upload of %zu bytes exceeds the limit of %lld bytes",
			 ctx->seen, d->max_upload);
		web_error_json(r, 413, err);
		return;
	}
	rq.d = d;
	rq.method = method;
	rq.path = url;
	rq.conn = conn;
	rq.body = ctx->body.buf;
	rq.body_len = ctx->body.len;
	content_type_of(conn, ct, sizeof(ct));
	rq.content_type = ct;
	rq.auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					      "Authorization");
	rq.fetch_site = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						    "Sec-Fetch-Site");
	sid = MHD_lookup_connection_value(conn, MHD_COOKIE_KIND,
					  "klab_session");
	snprintf(rq.session, sizeof(rq.session), "%s", sid ? sid : "");
	query_init(&rq.q);
	MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, collect_arg,
				    &rq.q);
	if (!strcmp(ct, "application/x-www-form-urlencoded"))
		query_parse(&rq.q, rq.body, rq.body_len);
	rq.db = klabd_db_get(d, err, sizeof(err));
	if (!rq.db)
		web_error_json(r, 500, err);
	else if (!auth_request(&rq, rt, r))
		rt->fn(&rq, r);
	klabd_db_put(d, rq.db);
	query_release(&rq.q);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct klabd *d = cls;
	struct conn_ctx *ctx = *con_cls;
	struct web_response r;
	enum MHD_Result ret;

	if (!ctx) {
		const char *cl = MHD_lookup_connection_value(conn,
				MHD_HEADER_KIND, "Content-Length");
		long long n;

		ctx = calloc(1, sizeof(*ctx));
		if (!ctx)
			return MHD_NO;
		sb_init(&ctx->body);
		if (cl && !config_parse_size(cl, &n) && n > d->max_upload) {
			ctx->too_large = 1;
			ctx->seen = (size_t)n;
		}
		*con_cls = ctx;
		return MHD_YES;
	}
	if (*upload_size) {
		if (!ctx->too_large &&
		    ctx->body.len + *upload_size > (size_t)d->max_upload)
			ctx->too_large = 1;
		if (!ctx->too_large)
			sb_add(&ctx->body, upload, *upload_size);
		ctx->seen += *upload_size;
		*upload_size = 0;
		return MHD_YES;
	}
	web_response_init(&r);
	dispatch(d, conn, url, method, ctx, &r);
	if (!strcmp(method, "HEAD"))
		sb_reset(&r.body);
	ret = send_response(conn, &r);
	web_response_release(&r);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn,
			 void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct conn_ctx *ctx = *con_cls;

	if (!ctx)
		return;
	sb_release(&ctx->body);
	free(ctx);
	*con_cls = NULL;
}

int http_start(struct klabd *d, char *err, size_t errlen)
{
	struct sockaddr_in sa;
	const union MHD_DaemonInfo *info;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)d->port);
	if (inet_pton(AF_INET, d->host, &sa.sin_addr) != 1) {
		snprintf(err, errlen, "invalid listen address '%s'", d->host);
		return -1;
	}
	d->mhd = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
				  MHD_USE_INTERNAL_POLLING_THREAD |
				  MHD_USE_ERROR_LOG,
				  0, NULL, NULL, on_request, d,
				  MHD_OPTION_SOCK_ADDR, &sa,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, d,
				  MHD_OPTION_CONNECTION_TIMEOUT, 120U,
				  MHD_OPTION_LISTENING_ADDRESS_REUSE, 1U,
				  MHD_OPTION_END);
	if (!d->mhd) {
		snprintf(err, errlen, "cannot listen on %s:%d", d->host,
			 d->port);
		return -1;
	}
	info = MHD_get_daemon_info(d->mhd, MHD_DAEMON_INFO_BIND_PORT);
	if (info && info->port)
		d->port = info->port;
	return 0;
}

void http_stop(struct klabd *d)
{
	size_t i;

	if (d->mhd)
		MHD_stop_daemon(d->mhd);
	d->mhd = NULL;
	for (i = 0; i < d->npool; i++)
		db_close(d->pool[i]);
	free(d->pool);
	d->pool = NULL;
	d->npool = d->pool_alloc = 0;
}
