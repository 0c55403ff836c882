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
#include "lib/config.h"
#include "lib/query.h"
#include "web/web.h"

#define KLAB_VERSION "0.1"

struct klabd {
	char *db_path;
	char *host;		/* listen address, loopback by default */
	int port;		/* 0: pick a free one (printed at start) */
	long long max_upload;	/* bytes, default 16 MiB */
	char *data_dir;		/* kernels, images, rig dirs, logs */
	char *top_dir;		/* klab's source/install tree (suites, scripts) */
	char *rig_bin_dir;	/* agent + workloads put into rig images */
	char *public_url;	/* how agents reach us, for the rig cmdline */
	int fault_downloads;	/* testing: refuse this many agent downloads */
	struct config cfg;
	struct MHD_Daemon *mhd;
	volatile sig_atomic_t stop;
	int stopping;	/* shutting down: read and set with __atomic */

	pthread_mutex_t pool_lock;	/* db handles for request threads */
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
	pthread_mutex_t image_lock;	/* base_image, serialises image builds */
	char *base_image;		/* rig base initramfs, built on demand */
	struct cat_file *files;		/* sha256 -> path, for downloads */
	size_t nfiles;
};

struct req {
	struct klabd *d;
	const char *method;
	const char *path;
	const char *arg;	/* path after the route prefix, "" if none */
	struct query q;		/* URL query, plus a form body when posted */
	const char *body;
	size_t body_len;
	const char *content_type;	/* without parameters, "" if none */
	const char *auth;	/* Authorization header or NULL */
	struct db *db;
	void *conn;		/* struct MHD_Connection */
};

struct route {
	const char *method;	/* "GET" also serves HEAD */
	const char *prefix;
	int exact;		/* 1: path must equal prefix */
	int (*fn)(struct req *rq, struct web_response *r);
};

/* config_schema.c: the keys klabd's configuration may hold */
extern const struct config_key klabd_config_schema[];

/* http.c */
int http_start(struct klabd *d, char *err, size_t errlen);
void http_stop(struct klabd *d);
struct db *klabd_db_get(struct klabd *d, char *err, size_t errlen);
void klabd_db_put(struct klabd *d, struct db *db);

/* api.c: JSON API handlers, listed in the route table */
int api_health(struct req *rq, struct web_response *r);
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
int api_agent(struct req *rq, struct web_response *r);
int api_job_add(struct req *rq, struct web_response *r);
int api_jobs(struct req *rq, struct web_response *r);
int api_rig_action(struct req *rq, struct web_response *r);
int api_catalog(struct req *rq, struct web_response *r);
int api_build_add(struct req *rq, struct web_response *r);
int api_builds(struct req *rq, struct web_response *r);

/* api_util.c: answer with a JSON document (takes the reference); parse
 * the request body as a JSON object or answer 400 (415 when strict and
 * the content type is not application/json) and return NULL. */
struct json_t;
int api_reply(struct web_response *r, int status, struct json_t *doc);
struct json_t *api_body(struct req *rq, struct web_response *r, int strict);

/* Map a DB_E* code to an HTTP status. */
int http_status_of(int dbrc);

#endif
