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

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog.h"
#include "klabd.h"
#include "rig.h"
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
	return web_rigs(rq->db, &rq->q, rq->arg, r);
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

static const struct route routes[] = {
	{ "GET", "/api/health", 1, api_health },
	{ "POST", "/api/import", 1, api_import },
	{ "GET", "/api/kernels", 0, api_kernels },
	{ "POST", "/api/kernels", 1, api_kernel_put },
	{ "GET", "/api/rigs", 0, api_rigs },
	{ "POST", "/api/rigs", 1, api_rig_put },
	{ "POST", "/api/rigs", 0, api_rig_action },
	{ "GET", "/api/agent", 0, api_agent },
	{ "POST", "/api/agent", 0, api_agent },
	{ "POST", "/api/jobs", 1, api_job_add },
	{ "GET", "/api/jobs", 0, api_jobs },
	{ "GET", "/api/catalog", 0, api_catalog },
	{ "POST", "/api/builds", 1, api_build_add },
	{ "GET", "/api/builds", 0, api_builds },
	{ "POST", "/api/catalog", 0, api_catalog },
	{ "GET", "/api/suites", 0, api_suites },
	{ "POST", "/api/suites", 1, api_suite_put },
	{ "GET", "/api/runs", 0, api_runs },
	{ "GET", "/api/metrics", 1, api_metrics },
	{ "GET", "/api/compare", 1, api_compare },
	{ "GET", "/api/history", 1, api_history },
	{ "GET", "/", 1, page_home },
	{ "GET", "/kernels", 0, page_kernels },
	{ "GET", "/runs", 0, page_runs },
	{ "GET", "/rigs", 0, page_rigs },
	{ "GET", "/compare", 1, page_compare },
	{ "GET", "/history", 1, page_history },
	{ "GET", "/style.css", 1, page_style },
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

/* Find the route; *arg gets the rest of the path.  405 via *bad_method. */
static const struct route *route_find(const char *method, const char *path,
				      const char **arg, int *bad_method)
{
	size_t i;

	*bad_method = 0;
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		const struct route *rt = &routes[i];
		size_t pl = strlen(rt->prefix);
		const char *rest;

		if (strncmp(path, rt->prefix, pl))
			continue;
		rest = path + pl;
		if (rt->exact ? *rest != '\0' : (*rest && *rest != '/'))
			continue;
		if (strcmp(method, rt->method) &&
		    !(strcmp(method, "HEAD") == 0 && !strcmp(rt->method, "GET"))) {
			*bad_method = 1;
			continue;
		}
		*arg = *rest == '/' ? rest + 1 : rest;
		return rt;
	}
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

static enum MHD_Result send_response(struct MHD_Connection *conn,
				     struct web_response *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t len;
	char *body = sb_detach(&r->body, &len);

	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", r->content_type ?
				r->content_type : "text/plain; charset=utf-8");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (r->location[0])
		MHD_add_response_header(resp, "Location", r->location);
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
	struct req rq;
	char ct[128], err[256];
	int bad_method;

	memset(&rq, 0, sizeof(rq));
	rt = route_find(method, url, &rq.arg, &bad_method);
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
	query_init(&rq.q);
	MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, collect_arg,
				    &rq.q);
	if (!strcmp(ct, "application/x-www-form-urlencoded"))
		query_parse(&rq.q, rq.body, rq.body_len);
	rq.db = klabd_db_get(d, err, sizeof(err));
	if (!rq.db)
		web_error_json(r, 500, err);
	else
		rt->fn(&rq, r);
	klabd_db_put(d, rq.db);
	query_release(&rq.q);
}

/* GET /api/agent/files/SHA256: kernels and images, streamed from disk. */
static enum MHD_Result send_file(struct klabd *d, struct MHD_Connection *conn,
				 const char *sha)
{
	const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						       "Authorization");
	struct web_response r;
	struct MHD_Response *resp;
	const char *path = catalog_file_path(d, sha);
	enum MHD_Result ret;
	struct stat st;
	int fd = -1, bad = 0;

	web_response_init(&r);
	if (!auth || strncmp(auth, "Bearer ", 7) ||
	    !rigmgr_by_token(d, auth + 7))
		bad = web_error_json(&r, 401, "unknown or missing rig token");
	else if (d->fault_downloads > 0 &&
		 __atomic_fetch_sub(&d->fault_downloads, 1, __ATOMIC_SEQ_CST) > 0)
		bad = web_error_json(&r, 503, "download refused "
				     "(fault_downloads is set)");
	else if (!path || (fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st))
		bad = web_error_json(&r, 404, "no such file");
	if (bad) {
		if (fd >= 0)
			close(fd);
		ret = send_response(conn, &r);
		web_response_release(&r);
		return ret;
	}
	web_response_release(&r);
	resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
	if (!resp) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type",
				"application/octet-stream");
	ret = MHD_queue_response(conn, 200, resp);
	MHD_destroy_response(resp);
	return ret;
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
	if (!strncmp(url, "/api/agent/files/", 17) && !strcmp(method, "GET"))
		return send_file(d, conn, url + 17);
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
