/* SPDX-License-Identifier: MIT */
/*
 * klabd: the controller daemon's shared state and the request object every
 * route handler receives.  Routes live in one table (http.c), handlers in
 * one file per resource (api_*.c for JSON, web/ for pages), as in git.c.
 */
#ifndef KLAB_KLABD_H
#define KLAB_KLABD_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>

#include "db/db.h"
#include "klabd/events.h"
#include "lib/config.h"
#include "lib/query.h"
#include "web/web.h"

#define KLAB_VERSION "0.1"

struct http_guard;
struct http_park;
struct http_poll;
struct http_stats;
struct rig_waiter;
struct driver;
struct tracker;

/*
 * What the HTTP layer may use (http.c; the keys are in docs/RIGS.md).
 * libmicrohttpd runs a pool of threads on epoll; each limit is one of its
 * options or klabd's own accounting of request bodies.
 */
struct http_limits {
	int threads;		/* http_threads: pool threads, default 8 */
	int max_conns;		/* max_connections, default 4096 */
	int max_per_ip;		/* max_connections_per_ip, default 128 */
	int timeout;		/* connection_timeout: idle s, default 30 */
	int header_timeout;	/* s to send a request's headers, default 10 */
	/* upload_memory: bodies in flight, 0: 4 x max_upload */
	long long upload_memory;
};

struct klabd {
	char *db_path;
	char *host;		/* listen address, loopback by default */
	int port;		/* 0: pick a free one (printed at start) */
	long long max_upload;	/* bytes, default 16 MiB */
	char *data_dir;		/* kernels, images, rig dirs, logs */
	/* klab's source/install tree (suites, scripts) */
	char *top_dir;
	char *rig_bin_dir;	/* agent + workloads put into rig images */
	char *public_url;	/* how agents reach us, for the rig cmdline */
	struct auth *auth;	/* sessions and the CSRF key (auth.c) */
	int read_token;		/* read_access = token: GETs need a token */
	char *cmdline_allow;	/* job_cmdline_allow, NULL: the default */
	int fault_downloads;	/* testing: refuse this many agent downloads */
	struct config cfg;
	struct MHD_Daemon *mhd;
	struct http_limits lim;
	struct http_stats *hstats;	/* http.c: bodies in flight, log */
	struct http_park *park;		/* http_poll.c: parked long polls */
	struct http_guard *guard;	/* http_conn.c: slowloris guard */
	int lock_fd;			/* the flock on DB.lock, -1: none */
	volatile sig_atomic_t stop;
	int stopping;	/* shutting down: read and set with __atomic */

	pthread_mutex_t pool_lock;	/* db handles, KLABD_POOL_MAX idle */
	struct db **pool;
	size_t npool, pool_alloc;

	/* the rig manager (rigmgr.c) */
	struct rig **rigs;
	size_t nrigs;
	pthread_t mgr;
	int mgr_running;	/* 0: long polls end, the manager stops */
	int mgr_init, mgr_started;
	pthread_mutex_t mgr_lock;
	pthread_cond_t mgr_cond;	/* new jobs / state changes */
	struct rig_waiter *waiters;	/* parked long polls, woken with it */

	/* the kernel builder (build.c) */
	char *build_cache;		/* NULL: build-kernel.sh's default */
	char *build_fragment;		/* config fragment, NULL: the lab's */
	char *build_must_have;		/* NULL: build-kernel.sh's list */
	char *build_jobs, *build_time_limit;	/* NULL: defaults */
	int max_builds;			/* builds at once, default 1 */
	int build_init, build_running, nbuilders;
	pthread_t builders[8];
	pthread_mutex_t build_lock;
	pthread_cond_t build_cond;

	/* the kernel catalog (catalog.c) */
	pthread_mutex_t cat_lock;	/* files */
	pthread_mutex_t image_lock;	/* prep's table, nothing slow */
	struct cat_prep *prep;		/* catalog_prep.c: its thread, table */
	char *base_image;		/* rig base initramfs (prep's thread) */
	struct cat_file *files;		/* sha256 -> path, for downloads */
	size_t nfiles;

	struct driver *cmprun;		/* comparisons.c: the driver */
	struct tracker *tracker;	/* track.c: lines, change points */
	struct driver *subrun;		/* submissions.c: the driver */
	struct driver *bisrun;		/* bisect.c: the driver */
	struct klabd_events events;	/* events.h: who hears what */
};

struct rig;

struct req {
	struct klabd *d;
	const char *method;
	const char *path;
	const char *arg;	/* the path's first '*' segment, "" if none */
	const char *arg2;	/* its second, "" if none */
	struct query q;		/* URL query, plus a form body when posted */
	const char *body;
	size_t body_len;
	const char *content_type;	/* without parameters, "" if none */
	const char *auth;	/* Authorization header or NULL */
	const char *fetch_site;	/* Sec-Fetch-Site header or NULL */
	const char *idem_key;	/* Idempotency-Key header or NULL */
	struct db *db;
	void *conn;		/* struct MHD_Connection */
	/* who is asking, filled by auth_request() before the handler runs */
	char who[216];		/* token name, "rig:NAME", "" when anonymous */
	int role;		/* enum auth_role of the caller */
	struct rig *rig;	/* the agent's rig on ROLE_AGENT routes */
	char session[72];	/* session id from the cookie, "" if none */
	char csrf[72];		/* the session's CSRF token, "" if none */
	struct http_poll *poll;	/* the connection's long poll (http_poll.h) */
};

/*
 * One row per route: the method, the path pattern ('*' matches one path
 * segment, a final '**' the rest of the path), who may call it (enum
 * auth_role) and, for POSTs, the content types it accepts (space-separated;
 * NULL means "application/json"; "application/x-www-form-urlencoded" marks
 * a web form, authorised by a session cookie and a CSRF field).
 */
struct route {
	const char *method;	/* "GET" also serves HEAD */
	const char *pattern;
	int role;
	int (*fn)(struct req *rq, struct web_response *r);
	const char *types;
};

/* config_schema.c: the keys klabd's configuration may hold */
extern const struct config_key klabd_config_schema[];

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

/* http.c */
int http_start(struct klabd *d, char *err, size_t errlen);
void http_stop(struct klabd *d);
/* Route, authorise and answer c in r, as for a request over HTTP but
 * without a connection: a long poll answers at once.  Returns r->status
 * (the body of a HEAD is not cut). */
int http_handle(struct klabd *d, const struct http_call *c,
		struct web_response *r);
/* routes.c: the route table, *n rows (for the API fuzzer), and the route
 * of method and path: '*' captures into buf (len bytes) for *arg and
 * *arg2; NULL when none matches (*bad_method: the path has routes for
 * other methods, a 405). */
const struct route *http_routes(size_t *n);
const struct route *route_find(const char *method, const char *path,
			       char *buf, size_t len, const char **arg,
			       const char **arg2, int *bad_method);
/* pool.c: the pool of database handles.  klabd opens KLABD_POOL_START
 * at start, what a lab's request and driver threads use at once outside
 * bursts, and hands out the oldest idle one: each handle parses the
 * schema and prepares its statements as first needed, memory that
 * should be taken in the warm-up (every handle sees every statement
 * within a few hundred jobs), not at a burst hours later.  A burst opens
 * more; at most KLABD_POOL_MAX stay idle, the rest are closed. */
#define KLABD_POOL_START 4
#define KLABD_POOL_MAX 8
struct db *klabd_db_get(struct klabd *d, char *err, size_t errlen);
/* klabd_db_get for a background thread: a failure is logged as
 * "klabd: WHAT: cause" and gives NULL. */
struct db *klabd_db_get_logged(struct klabd *d, const char *what);
void klabd_db_put(struct klabd *d, struct db *db);
/* The database file and its WAL files owner only (they hold token
 * hashes and results). */
void klabd_db_private(const char *path);
/* token.c: `klabd token ...` (argv from "token"); the exit status. */
int token_main(int argc, char **argv);
/* Close the idle handles (at stop, after HTTP; a handle taken and put
 * back later is closed by the next call). */
void klabd_db_close_idle(struct klabd *d);
/* What klabd's memory holds: glibc's arenas (mallinfo2) and the pooled
 * database handles' page caches. */
struct klabd_mem {
	long long heap, in_use, free, mmapped;	/* bytes */
	long long pool_idle, pool_cache;	/* handles, bytes */
	long long pool_stmt;	/* bytes of their prepared statements */
	long long slab_used;	/* page cache lines taken from db/'s slab */
};
void klabd_mem(struct klabd *d, struct klabd_mem *m);
/* Once a minute from main(): the idle handles give back their page
 * caches (each fills up to cache_size as the database grows and would
 * keep it for good) and glibc the free pages of its arenas. */
void klabd_housekeep(struct klabd *d);

/* api.c: JSON API handlers, listed in the route table */
int api_health(struct req *rq, struct web_response *r);
int api_status(struct req *rq, struct web_response *r);
int api_import(struct req *rq, struct web_response *r);
int api_kernels(struct req *rq, struct web_response *r);
int api_kernel_put(struct req *rq, struct web_response *r);
int api_rigs(struct req *rq, struct web_response *r);
int api_rig_put(struct req *rq, struct web_response *r);
int api_suites(struct req *rq, struct web_response *r);
int api_suite_put(struct req *rq, struct web_response *r);
int api_runs(struct req *rq, struct web_response *r);
int api_metrics(struct req *rq, struct web_response *r);
int api_compare(struct req *rq, struct web_response *r);
int api_history(struct req *rq, struct web_response *r);

/* api_agent.c, api_jobs.c: the lab */
int api_agent_register(struct req *rq, struct web_response *r);
int api_agent_next(struct req *rq, struct web_response *r);
int api_agent_kexec(struct req *rq, struct web_response *r);
int api_agent_results(struct req *rq, struct web_response *r);
int api_agent_fail(struct req *rq, struct web_response *r);
int api_agent_file(struct req *rq, struct web_response *r);
int api_job_add(struct req *rq, struct web_response *r);
int api_jobs(struct req *rq, struct web_response *r);
int api_rig_online(struct req *rq, struct web_response *r);
/* Register (or describe anew) every suite of workloads/suites/ in the
 * database, as its file names and describes it; how many.  (A job's
 * suite and configuration are checked by lab/job_check.h.) */
int api_suites_register(const struct klabd *d, struct db *db);
/* comparisons.c: comparison runs with adaptive repetition */
int api_comparison_add(struct req *rq, struct web_response *r);
int api_comparisons(struct req *rq, struct web_response *r);
int page_comparison(struct req *rq, struct web_response *r);
/* One pass of the comparison driver (d->cmprun, arg a struct klabd):
 * steps every unfinished comparison run, so a restart resumes them;
 * driver_kick(d->cmprun) after a change. */
long cmprun_pass(void *arg);
int api_catalog_available(struct req *rq, struct web_response *r);
int api_catalog_debian(struct req *rq, struct web_response *r);
int api_build_add(struct req *rq, struct web_response *r);
int api_builds(struct req *rq, struct web_response *r);
int api_build_get(struct req *rq, struct web_response *r);
int api_build_log(struct req *rq, struct web_response *r);
int api_run_raw(struct req *rq, struct web_response *r);
/* auth.c: the audit log, signing in and out */
int api_audit(struct req *rq, struct web_response *r);
int web_login_form(struct req *rq, struct web_response *r);
int web_login_post(struct req *rq, struct web_response *r);
int web_logout_post(struct req *rq, struct web_response *r);
int web_rig_online_post(struct req *rq, struct web_response *r);

/* api_util.c: answer with a JSON document (takes the reference); parse
 * the request body as a JSON object or answer 400 (415 when strict and
 * the content type is not application/json) and return NULL. */
struct json_t;
int api_reply(struct web_response *r, int status, struct json_t *doc);
struct json_t *api_body(struct req *rq, struct web_response *r, int strict);
/* The ID of the path (rq->arg, 1 .. 2^31-1) into *id: 0, or 400 with r
 * filled ("invalid WHAT id"). */
int api_arg_id(struct req *rq, struct web_response *r, const char *what,
	       long *id);
/* Answer 200 with {"key": [...]}, each of the n elements of v (size bytes
 * apart) made JSON by to_json; v stays the caller's. */
int api_reply_list(struct web_response *r, const char *key, const void *v,
		   size_t n, size_t size,
		   struct json_t *(*to_json)(const void *elem));
/* Answer 201 {"id", "state": "running", "url": "DIR/ID"} for a run just
 * started (a submission, a bisection). */
int api_reply_started(struct web_response *r, const char *dir, int64_t id);

/* Map a DB_E* code to an HTTP status. */
int http_status_of(int dbrc);

#endif
