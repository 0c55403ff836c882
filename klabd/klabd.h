/* SPDX-License-Identifier: MIT */
/*
 * klabd: the controller daemon's configuration, and a pointer to each
 * room's state, whose fields only that room sees (the HTTP server,
 * http/; the rig manager, the builder and the catalog, lab/; the drivers
 * and the tracker, flow/).  Also the pool of database handles every
 * thread takes from (pool.c).  HTTP's own types (the request, the route
 * table, the handlers) are in http/req.h and http/api.h: no room below
 * http/ sees them.
 */
#ifndef KLAB_KLABD_H
#define KLAB_KLABD_H

#include <pthread.h>
#include <stddef.h>

#include "db/db.h"
#include "klabd/events.h"
#include "lib/config.h"

#define KLAB_VERSION "0.1"

struct auth;
struct builder;
struct catalog;
struct driver;
struct http_guard;
struct http_park;
struct http_stats;
struct klabd_pool;
struct MHD_Daemon;
struct rigmgr;
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
	/* the configuration: the file, then the command line (klabd.c) */
	struct config cfg;
	char *db_path;
	char *host;		/* listen address, loopback by default */
	int port;		/* 0: pick a free one (printed at start) */
	long long max_upload;	/* bytes, default 16 MiB */
	char *data_dir;		/* kernels, images, rig dirs, logs */
	/* klab's source/install tree (suites, scripts) */
	char *top_dir;
	char *rig_bin_dir;	/* agent + workloads put into rig images */
	char *public_url;	/* how agents reach us, for the rig cmdline */
	int read_token;		/* read_access = token: GETs need a token */
	char *cmdline_allow;	/* job_cmdline_allow, NULL: the default */
	int fault_downloads;	/* testing: refuse this many agent downloads */
	struct http_limits lim;
	/* the kernel builder's settings (lab/build.c) */
	char *build_cache;		/* NULL: build-kernel.sh's default */
	char *build_fragment;		/* config fragment, NULL: the lab's */
	char *build_must_have;		/* NULL: build-kernel.sh's list */
	char *build_jobs, *build_time_limit;	/* NULL: defaults */
	int max_builds;			/* builds at once, default 1 */

	/* klabd's own state */
	int lock_fd;			/* the flock on DB.lock, -1: none */
	int stopping;	/* shutting down: read and set with __atomic */
	struct klabd_pool *pool;	/* pool.c: idle database handles */
	struct klabd_events events;	/* events.h: who hears what */

	/* each room's state, opaque to the others */
	struct MHD_Daemon *mhd;		/* http/http.c: the server */
	struct http_stats *hstats;	/* http.c: bodies in flight, log */
	struct http_park *park;		/* http_poll.c: parked long polls */
	struct http_guard *guard;	/* http_conn.c: slowloris guard */
	struct auth *auth;	/* http/auth.c: sessions, the CSRF key */
	struct rigmgr *rigmgr;		/* lab/rigmgr.c: the rigs, the lock */
	struct builder *builder;	/* lab/build.c: the build workers */
	struct catalog *catalog;	/* lab/catalog*.c: files, boot files */
	struct driver *cmprun;		/* flow/comparisons.c: the driver */
	struct tracker *tracker;	/* flow/track.c: lines, change points */
	struct driver *subrun;		/* flow/submissions.c: the driver */
	struct driver *bisrun;		/* flow/bisect.c: the driver */
};

/* config_schema.c: the keys klabd's configuration may hold */
extern const struct config_key klabd_config_schema[];

/* pool.c: the pool of database handles.  klabd opens KLABD_POOL_START
 * at start, what a lab's request and driver threads use at once outside
 * bursts, and hands out the oldest idle one: each handle parses the
 * schema and prepares its statements as first needed, memory that
 * should be taken in the warm-up (every handle sees every statement
 * within a few hundred jobs), not at a burst hours later.  A burst opens
 * more; at most KLABD_POOL_MAX stay idle, the rest are closed. */
#define KLABD_POOL_START 4
#define KLABD_POOL_MAX 8
/* An empty pool, and the pool freed with its idle handles (after every
 * thread that takes one stopped); destroy accepts NULL. */
struct klabd_pool *klabd_pool_create(void);
void klabd_pool_destroy(struct klabd_pool *p);
struct db *klabd_db_get(struct klabd *d, char *err, size_t errlen);
/* klabd_db_get for a background thread: a failure is logged as
 * "klabd: WHAT: cause" and gives NULL. */
struct db *klabd_db_get_logged(struct klabd *d, const char *what);
void klabd_db_put(struct klabd *d, struct db *db);
/* The database file and its WAL files owner only (they hold token
 * hashes and results). */
void klabd_db_private(const char *path);
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

#endif
