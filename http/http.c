// SPDX-License-Identifier: MIT
/*
 * The HTTP layer of klabd: libmicrohttpd on epoll (poll where epoll is
 * missing) with a small pool of threads, bounded by a connection limit, a
 * per-address limit, an idle timeout (struct http_limits) and a deadline
 * for each request's headers (http_conn.c, against slowloris); request
 * bodies gathered up to max_upload, each counted against upload_memory
 * before it is kept (413 and 503 come before the body); agents' long
 * polls parked as suspended connections (http_poll.c), not threads; each
 * request dispatched through the route table (routes.c), on a database
 * handle of klabd's pool (klabd/pool.c); libmicrohttpd's own log cut to a
 * line a minute.
 */
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "http/api_util.h"
#include "http/auth.h"
#include "http/http.h"
#include "lab/catalog.h"
#include "http/http_conn.h"
#include "http/http_poll.h"
#include "klabd/klabd.h"
#include "web/web.h"

#define LOG_EVERY 60		/* s between two lines of libmicrohttpd's log */
#define FD_SPARE 256		/* descriptors beyond two per connection */
#define RETRY_AFTER "5"		/* s, with a 503 for uploads in flight */
#define DRAIN_MS 2000		/* at stop, for requests under way */

/* What the HTTP layer counts across connections. */
struct http_stats {
	pthread_mutex_t lock;
	long long upload_used;		/* bytes kept for bodies in flight */
	int requests;			/* requests begun and not completed */
	unsigned long log_skipped;		/* log lines not shown yet */
	time_t log_last;		/* CLOCK_MONOTONIC s of the last line */
	int log_shown;
};

/* Per-request state kept by libmicrohttpd between callbacks. */
struct conn_ctx {
	struct strbuf body;
	int too_large;
	size_t seen;		/* the Content-Length of a refused upload */
	long long reserved;	/* bytes of upload_memory held for body */
	int declared;		/* the body's size came with the headers */
	int headers_only;	/* dispatch() checks the caller, runs nothing */
	struct http_poll poll;
};

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

/* Queue r: its body, or the file r->fd (handed over to libmicrohttpd);
 * retry_after (NULL: none) goes with a 503. */
static enum MHD_Result queue_response(struct MHD_Connection *conn,
				      struct web_response *r,
				      const char *retry_after)
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
	if (retry_after)
		MHD_add_response_header(resp, "Retry-After", retry_after);
	ret = MHD_queue_response(conn, (unsigned)r->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result send_response(struct MHD_Connection *conn,
				     struct web_response *r)
{
	return queue_response(conn, r, NULL);
}

/* The media type of a Content-Type value (NULL: none), lower case. */
static void content_type_norm(const char *ct, char *buf, size_t len)
{
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

/* Under 1 MiB free on the file system of path (a full disk). */
static int disk_full(const char *path)
{
	struct statvfs v;

	return path && statvfs(path, &v) == 0 &&
	       (unsigned long long)v.f_bavail * v.f_frsize < (1ULL << 20);
}

/* A request failed (5xx): when the cause is one that passes by itself,
 * say which, so agents retry and users know: another process holds the
 * database (503), the disk of the database or data directory is full
 * (507). */
static void error_cause(struct klabd *d, struct db *db,
			struct web_response *r)
{
	char msg[1200];

	if (db_busy_take(db)) {
		web_error_json(r, 503, "the database is busy (locked by "
			       "another process), retry later");
	} else if (disk_full(d->db_path) || disk_full(d->data_dir)) {
		snprintf(msg, sizeof(msg), "the disk is full (database '%s', "
			 "data directory '%s'): not done, retry "
			 "once space is freed", d->db_path, d->data_dir);
		web_error_json(r, 507, msg);
	}
}

/*
 * Route, authorise and run c.  From libmicrohttpd, conn and ctx are the
 * request's (its long poll, an upload refused for its size, a check of
 * the headers alone); from http_handle() both are NULL.
 */
static void dispatch_call(struct klabd *d, const struct http_call *c,
			  struct MHD_Connection *conn, struct conn_ctx *ctx,
			  struct web_response *r)
{
	const struct route *rt;
	struct req rq;
	char ct[128], err[256], args[1024];
	int bad_method;

	memset(&rq, 0, sizeof(rq));
	rt = route_find(c->method, c->url, args, sizeof(args), &rq.arg,
			&rq.arg2, &bad_method);
	if (!rt) {
		web_error_json(r, bad_method ? 405 : 404, bad_method ?
			       "method not allowed" : "no such page");
		return;
	}
	if (ctx && ctx->too_large) {
		snprintf(err, sizeof(err),
			 "upload of %zu bytes exceeds the limit of %lld bytes",
			 ctx->seen, d->max_upload);
		web_error_json(r, 413, err);
		return;
	}
	rq.d = d;
	rq.method = c->method;
	rq.path = c->url;
	rq.conn = conn;
	rq.poll = ctx ? &ctx->poll : NULL;	/* NULL: a poll never parks */
	rq.body = c->body ? c->body : "";
	rq.body_len = c->body ? c->body_len : 0;
	content_type_norm(c->content_type, ct, sizeof(ct));
	rq.content_type = ct;
	rq.auth = c->auth;
	rq.fetch_site = c->fetch_site;
	rq.idem_key = c->idem_key;
	snprintf(rq.session, sizeof(rq.session), "%s",
		 c->session ? c->session : "");
	query_init(&rq.q);
	if (conn)
		MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND,
					    collect_arg, &rq.q);
	else if (c->query)
		query_parse(&rq.q, c->query, strlen(c->query));
	if (!strcmp(ct, "application/x-www-form-urlencoded"))
		query_parse(&rq.q, rq.body, rq.body_len);
	rq.db = klabd_db_get(d, err, sizeof(err));
	if (!rq.db)
		web_error_json(r, 500, err);
	else if (ctx && ctx->headers_only) {
		if (!auth_caller(&rq, rt, r))
			r->status = 0;	/* allowed: read the body */
	} else if (!auth_request(&rq, rt, r)) {
		db_busy_take(rq.db);
		rt->fn(&rq, r);
		if (r->status >= 500 && r->fd < 0)
			error_cause(d, rq.db, r);
		/* a page says who is signed in, with a way out */
		web_page_session(r, rq.who, rq.csrf[0] ? rq.csrf : NULL);
	}
	klabd_db_put(d, rq.db);
	query_release(&rq.q);
}

static const char *header_of(struct MHD_Connection *conn, const char *name)
{
	return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

/* A request from libmicrohttpd, read into a struct http_call. */
static void dispatch(struct klabd *d, struct MHD_Connection *conn,
		     const char *url, const char *method,
		     struct conn_ctx *ctx, struct web_response *r)
{
	struct http_call c;

	memset(&c, 0, sizeof(c));
	c.method = method;
	c.url = url;
	c.content_type = header_of(conn, "Content-Type");
	c.auth = header_of(conn, "Authorization");
	c.fetch_site = header_of(conn, "Sec-Fetch-Site");
	c.idem_key = header_of(conn, "Idempotency-Key");
	c.session = MHD_lookup_connection_value(conn, MHD_COOKIE_KIND,
						"klab_session");
	c.body = ctx->body.buf;
	c.body_len = ctx->body.len;
	dispatch_call(d, &c, conn, ctx, r);
}

int http_handle(struct klabd *d, const struct http_call *c,
		struct web_response *r)
{
	dispatch_call(d, c, NULL, NULL, r);
	return r->status;
}

/* Count requests under way (+1 begun, -1 completed); returns how many. */
static int requests_add(struct klabd *d, int n)
{
	struct http_stats *st = d->hstats;
	int now;

	pthread_mutex_lock(&st->lock);
	st->requests += n;
	now = st->requests;
	pthread_mutex_unlock(&st->lock);
	return now;
}

/* At stop: let requests under way (resumed long polls) be answered. */
static void requests_drain(struct klabd *d)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < DRAIN_MS / 10 && requests_add(d, 0) > 0; i++)
		nanosleep(&nap, NULL);
}

/* Count n more bytes of bodies in flight; -1 past upload_memory. */
static int upload_reserve(struct klabd *d, long long n)
{
	struct http_stats *st = d->hstats;
	int rc = -1;

	pthread_mutex_lock(&st->lock);
	if (st->upload_used + n <= d->lim.upload_memory) {
		st->upload_used += n;
		rc = 0;
	}
	pthread_mutex_unlock(&st->lock);
	return rc;
}

static void upload_release(struct klabd *d, long long n)
{
	struct http_stats *st = d->hstats;

	pthread_mutex_lock(&st->lock);
	st->upload_used -= n;
	pthread_mutex_unlock(&st->lock);
}

/*
 * Room for need bytes of body: a declared body gets its whole reservation
 * at once, a chunked one doubles within max_upload.  Every byte is
 * counted before it is allocated; -1 when upload_memory is used up.
 */
static int body_grow(struct klabd *d, struct conn_ctx *ctx, size_t need)
{
	size_t cap = ctx->body.alloc ? ctx->body.alloc - 1 : 0;
	char *p;

	cap = cap ? 2 * cap : 64 * 1024;
	if (cap < need)
		cap = need;
	if (cap > (size_t)d->max_upload)
		cap = (size_t)d->max_upload;
	if (cap < (size_t)ctx->reserved)
		cap = (size_t)ctx->reserved;
	if ((long long)cap > ctx->reserved) {
		if (upload_reserve(d, (long long)cap - ctx->reserved))
			return -1;
		ctx->reserved = (long long)cap;
	}
	p = realloc(ctx->body.alloc ? ctx->body.buf : NULL, cap + 1);
	if (!p)
		abort();
	p[ctx->body.len] = '\0';
	ctx->body.buf = p;
	ctx->body.alloc = cap + 1;
	return 0;
}

/* A piece of the body; MHD_NO cuts off a chunked body over the limits. */
static enum MHD_Result request_body(struct klabd *d, struct conn_ctx *ctx,
				    const char *data, size_t *size)
{
	size_t need = ctx->body.len + *size;

	if (need > (size_t)d->max_upload)
		return MHD_NO;
	if (need + 1 > ctx->body.alloc && body_grow(d, ctx, need))
		return MHD_NO;
	sb_add(&ctx->body, data, *size);
	*size = 0;
	return MHD_YES;
}

/* Dispatch and queue the answer, or suspend a parked long poll. */
static enum MHD_Result answer(struct klabd *d, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      struct conn_ctx *ctx)
{
	struct web_response r;
	enum MHD_Result ret = MHD_YES;

	web_response_init(&r);
	dispatch(d, conn, url, method, ctx, &r);
	if (ctx->poll.parked) {
		http_poll_suspend(&ctx->poll);
	} else {
		if (!strcmp(method, "HEAD"))
			sb_reset(&r.body);
		ret = send_response(conn, &r);
	}
	web_response_release(&r);
	return ret;
}

/* 503 before the body: the uploads in flight hold upload_memory. */
static enum MHD_Result send_busy(struct klabd *d, struct MHD_Connection *conn,
				 long long n)
{
	struct web_response r;
	enum MHD_Result ret;
	char msg[200];

	snprintf(msg, sizeof(msg), "upload of %lld bytes refused: uploads in "
		 "flight use the upload memory of %lld bytes, retry later", n,
		 d->lim.upload_memory);
	web_response_init(&r);
	web_error_json(&r, 503, msg);
	ret = queue_response(conn, &r, RETRY_AFTER);
	web_response_release(&r);
	return ret;
}

/*
 * Before a body is read: 1 when the route does not exist or the caller may
 * not use it (the refusal is queued now, so the body is never received).
 */
static int caller_refused(struct klabd *d, struct MHD_Connection *conn,
			  const char *url, const char *method,
			  struct conn_ctx *ctx)
{
	struct web_response r;
	int refused;

	web_response_init(&r);
	ctx->headers_only = 1;
	dispatch(d, conn, url, method, ctx, &r);
	ctx->headers_only = 0;
	refused = r.status != 0;
	if (refused && send_response(conn, &r) != MHD_YES)
		refused = 1;
	web_response_release(&r);
	return refused;
}

/*
 * The first call, headers only.  An upload over max_upload, or over what
 * is left of upload_memory, is answered now: libmicrohttpd then sends no
 * "100 Continue", reads no body and closes the connection.
 */
static enum MHD_Result request_begin(struct klabd *d,
				     struct MHD_Connection *conn,
				     const char *url, const char *method,
				     void **con_cls)
{
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						     "Content-Length");
	struct conn_ctx *ctx = calloc(1, sizeof(*ctx));
	long long n;

	if (!ctx)
		return MHD_NO;
	sb_init(&ctx->body);
	http_poll_init(&ctx->poll, d, conn);
	*con_cls = ctx;
	requests_add(d, 1);
	if (!cl || config_parse_size(cl, &n) || n == 0)
		return MHD_YES;	/* no body, or a chunked one */
	ctx->declared = 1;
	http_guard_body(d, conn, (unsigned long long)n);
	if (n > d->max_upload) {
		ctx->too_large = 1;
		ctx->seen = (size_t)n;
		return answer(d, conn, url, method, ctx);
	}
	if (caller_refused(d, conn, url, method, ctx))
		return MHD_YES;	/* answered from the headers */
	if (upload_reserve(d, n))
		return send_busy(d, conn, n);
	ctx->reserved = n;
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct klabd *d = cls;
	struct conn_ctx *ctx = *con_cls;

	if (!ctx)
		return request_begin(d, conn, url, method, con_cls);
	if (*upload_size) {
		if (!ctx->declared)	/* chunked: time for what came */
			http_guard_body(d, conn, *upload_size);
		return request_body(d, ctx, upload, upload_size);
	}
	http_guard_request(d, conn, 1);	/* all in: no deadline now */
	http_poll_resumed(&ctx->poll);
	return answer(d, conn, url, method, ctx);
}

static void on_completed(void *cls, struct MHD_Connection *conn,
			 void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct klabd *d = cls;
	struct conn_ctx *ctx = *con_cls;

	http_guard_request(d, conn, 0);
	if (!ctx)
		return;
	http_poll_resumed(&ctx->poll);
	if (ctx->reserved)
		upload_release(d, ctx->reserved);
	sb_release(&ctx->body);
	free(ctx);
	*con_cls = NULL;
	requests_add(d, -1);
}

/* libmicrohttpd's messages (refused connections...): a line a minute. */
__attribute__((format(printf, 2, 0)))
static void http_log(void *cls, const char *fmt, va_list ap)
{
	struct klabd *d = cls;
	struct http_stats *st = d->hstats;
	unsigned long skipped = 0;
	struct timespec now;
	char msg[300];
	size_t n;
	int show = 0;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&st->lock);
	if (!st->log_shown || now.tv_sec - st->log_last >= LOG_EVERY) {
		show = 1;
		skipped = st->log_skipped;
		st->log_skipped = 0;
		st->log_last = now.tv_sec;
		st->log_shown = 1;
	} else {
		st->log_skipped++;
	}
	pthread_mutex_unlock(&st->lock);
	if (show && skipped)
		fprintf(stderr, "klabd: http: %s (%lu more messages since "
			"the last one shown)\n", msg, skipped);
	else if (show)
		fprintf(stderr, "klabd: http: %s\n", msg);
}

/* Two descriptors per connection (socket, streamed file) and spares. */
static int http_nofile(struct klabd *d, char *err, size_t errlen)
{
	rlim_t want = 2 * (rlim_t)d->lim.max_conns + FD_SPARE;
	struct rlimit rl;
	int n;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return 0;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ?
		rl.rlim_max : want;
	if (setrlimit(RLIMIT_NOFILE, &rl) || getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur >= want)
		return 0;
	n = (int)((rl.rlim_cur > FD_SPARE ? rl.rlim_cur - FD_SPARE : 0) / 2);
	if (n < d->lim.threads) {
		snprintf(err, errlen, "only %llu file descriptors allowed: too "
			 "few for max_connections",
			 (unsigned long long)rl.rlim_cur);
		return -1;
	}
	fprintf(stderr, "klabd: only %llu file descriptors allowed: "
		"max_connections lowered from %d to %d\n",
		(unsigned long long)rl.rlim_cur, d->lim.max_conns, n);
	d->lim.max_conns = n;
	return 0;
}

/* Defaults for what the configuration left out, then the checks. */
static int http_limits_set(struct klabd *d, char *err, size_t errlen)
{
	struct http_limits *l = &d->lim;

	if (!l->threads)
		l->threads = 8;
	if (!l->max_conns)
		l->max_conns = 4096;	/* 32 addresses at max_per_ip */
	if (!l->max_per_ip)
		l->max_per_ip = 128;
	if (!l->timeout)
		l->timeout = 30;
	if (!l->header_timeout)
		l->header_timeout = 10;
	if (!l->upload_memory)
		l->upload_memory = 4 * d->max_upload;
	if (l->upload_memory < d->max_upload) {
		snprintf(err, errlen, "upload_memory (%lld bytes) is below "
			 "max_upload (%lld bytes)", l->upload_memory,
			 d->max_upload);
		return -1;
	}
	if (l->max_conns < l->threads) {
		snprintf(err, errlen, "max_connections (%d) is below "
			 "http_threads (%d)", l->max_conns, l->threads);
		return -1;
	}
	return http_nofile(d, err, errlen);
}

/* epoll where libmicrohttpd has it, else poll; never select(). */
static unsigned int http_flags(void)
{
	unsigned int f = MHD_USE_INTERNAL_POLLING_THREAD |
		MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;

	if (MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES)
		return f | MHD_USE_EPOLL;
	return f | MHD_USE_POLL;
}

int http_start(struct klabd *d, char *err, size_t errlen)
{
	const union MHD_DaemonInfo *info;
	int fd;

	if (http_limits_set(d, err, errlen))
		return -1;
	fd = http_listen(d->host, d->port, err, errlen);
	if (fd < 0)
		return -1;
	d->hstats = calloc(1, sizeof(*d->hstats));
	if (!d->hstats)
		abort();
	pthread_mutex_init(&d->hstats->lock, NULL);
	if (http_park_start(d, err, errlen) ||
	    http_guard_start(d, err, errlen)) {
		close(fd);
		return -1;
	}
	d->mhd = MHD_start_daemon(http_flags(), 0, http_guard_accept,
		d->guard, on_request, d,
		MHD_OPTION_EXTERNAL_LOGGER, http_log, d,
		MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, d,
		MHD_OPTION_NOTIFY_CONNECTION, http_guard_notify, d->guard,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)d->lim.threads,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)d->lim.max_conns,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned int)d->lim.max_per_ip,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)d->lim.timeout,
		MHD_OPTION_END);
	if (!d->mhd) {
		/* the socket may be closed by now: left as it is */
		snprintf(err, errlen, "cannot serve on %s:%d", d->host,
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
	/* libmicrohttpd must not stop with a suspended connection; the
	 * resumed polls answer 204 while it still runs */
	http_park_stop(d);
	if (d->mhd) {
		requests_drain(d);
		MHD_stop_daemon(d->mhd);
	}
	d->mhd = NULL;
	http_guard_stop(d);	/* its callbacks ran until here */
	http_park_free(d);
	if (d->hstats) {
		pthread_mutex_destroy(&d->hstats->lock);
		free(d->hstats);
		d->hstats = NULL;
	}
	klabd_db_close_idle(d);
}
