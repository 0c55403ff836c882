/* SPDX-License-Identifier: MIT */
/*
 * db: the data access layer.  The only place in klab with SQL in it.
 *
 * struct db is an opaque handle on one sqlite file (WAL mode, foreign keys
 * on, busy timeout set, migrations applied by PRAGMA user_version when it is
 * opened).  One handle is used by one thread at a time; klabd opens one per
 * worker thread.
 *
 * Return codes: DB_OK (0) or a negative DB_E* code; when an err buffer is
 * given it receives a message in the house style ("unknown rig 'foo'").
 * Strings in returned structs are heap copies owned by the caller: free them
 * with the matching *_release / *_free function.
 */
#ifndef KLAB_DB_H
#define KLAB_DB_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/results.h"

struct db;

/* What a db_* call answers; klabd/outcome.h's outcome_of_db reads it
 * as a service's outcome. */
enum {
	DB_OK = 0,
	DB_ERR = -1,		/* sqlite or I/O failure */
	DB_NOTFOUND = -2,	/* unknown kernel / rig / suite / run */
	DB_INVALID = -3,	/* the request itself is wrong */
	DB_CONFLICT = -4,	/* exists already with different values */
	DB_TOOBIG = -5,		/* over a configured limit */
	DB_REPEATED = 1,	/* an idempotent repeat: stored before */
};

/* 1 when a statement gave up waiting for another connection's lock
 * (SQLITE_BUSY after the busy timeout) since the last call; clears it. */
int db_busy_take(struct db *db);

/* Open (creating if needed) and migrate.  NULL on error, with err set. */
struct db *db_open(const char *path, char *err, size_t errlen);
void db_close(struct db *db);	/* accepts NULL */
/* The bytes this handle's page cache holds (SQLITE_DBSTATUS_CACHE_USED),
 * and giving them back; only for a handle no other thread is using. */
long long db_cache_bytes(struct db *db);
/* The bytes of this handle's prepared statements (SQLITE_DBSTATUS_STMT_USED:
 * the fixed ones and db_query's cache, prepared as first needed). */
long long db_stmt_bytes(struct db *db);
void db_release_memory(struct db *db);
/* Page cache lines of all handles in the slab db_open sets up. */
long long db_pagecache_lines(void);
int db_user_version(struct db *db);
/* Run fn inside one transaction (BEGIN IMMEDIATE .. COMMIT / ROLLBACK). */
int db_begin(struct db *db);
int db_commit(struct db *db);
void db_rollback(struct db *db);
/*
 * A unit of work that may run inside a caller's transaction or alone:
 * db_unit_open makes it a savepoint in the caller's transaction, else a
 * BEGIN IMMEDIATE transaction of its own (*own set).  Never a bare
 * savepoint: that is a deferred transaction, and one that reads before
 * it writes gets SQLITE_BUSY at once, past the busy handler, when
 * another connection wrote meanwhile.  db_unit_close releases (ok) or
 * rolls back; DB_ERR when the release or commit failed (a commit that
 * failed is rolled back; a release that failed is left for a
 * db_unit_close that rolls back).
 */
int db_unit_open(struct db *db, int *own);
int db_unit_close(struct db *db, int own, int ok);

/* ---- kernels ------------------------------------------------------ */
struct db_kernel {
	int64_t id;
	char *ident;		/* "2.4.22-axboe-2l", "6.1.192+elv-lowlat" */
	char *version;		/* "6.1.192", may be "" */
	char *base;		/* base kernel identifier, "" if none */
	char *patch_hash;	/* sha256 hex of the patch series, "" */
	char *config_hash;	/* sha256 hex of the merged .config, "" */
	char *source;		/* "import", "debian", "build" */
	char *provenance;	/* free text: package name, URL, build id */
	int64_t created;	/* unix seconds */
	int64_t nruns;		/* filled by list/get */
	char *build_key;	/* the build that made it, "" when none */
};

/*
 * A build's kernel into the catalogue under k->ident, with k->build_key:
 * a new name, or one a build of the same key holds, or any with force
 * (an operator's build, or the lab's own).  DB_CONFLICT with err when the
 * name is another kernel's: an existing ident is never taken over.
 */
int db_kernel_claim(struct db *db, const struct db_kernel *k, int force,
		    char *err, size_t errlen);
/* Insert, or update the non-empty fields of an existing kernel. */
int db_kernel_put(struct db *db, const struct db_kernel *k, char *err,
		  size_t errlen);
int db_kernel_get(struct db *db, const char *ident, struct db_kernel *out);
/* Newest first. */
int db_kernel_list(struct db *db, struct db_kernel **out, size_t *n);
void db_kernel_release(struct db_kernel *k);
void db_kernels_free(struct db_kernel *v, size_t n);

/* ---- rigs --------------------------------------------------------- */
struct db_rig {
	int64_t id;
	char *name;
	char *kind;		/* "manual", "qemu", "remote" */
	char *profile;		/* "scsi", "ide", "manydisk", "" */
	int disks, cpus, memory_mb;
	char *state;		/* "idle", "booting", "running", ... */
	int64_t created;
	char *klass;		/* its class (rig pools), "" when not driven
				 * by klabd; read only: db_rig_set_class */
};

int db_rig_put(struct db *db, const struct db_rig *r, char *err,
	       size_t errlen);
int db_rig_get(struct db *db, const char *name, struct db_rig *out);
int db_rig_list(struct db *db, struct db_rig **out, size_t *n);
int db_rig_set_state(struct db *db, const char *name, const char *state);
void db_rig_release(struct db_rig *r);
void db_rigs_free(struct db_rig *v, size_t n);

/* ---- suites ------------------------------------------------------- */
struct db_suite {
	int64_t id;
	char *name;
	char *description;
};

int db_suite_put(struct db *db, const char *name, const char *description,
		 char *err, size_t errlen);
int db_suite_get(struct db *db, const char *name, struct db_suite *out);
int db_suite_list(struct db *db, struct db_suite **out, size_t *n);
void db_suite_release(struct db_suite *s);
void db_suites_free(struct db_suite *v, size_t n);

/* ---- import ------------------------------------------------------- */
struct db_import_opts {
	const char *rig;	/* must exist: DB_NOTFOUND otherwise */
	const char *suite;	/* must exist: DB_NOTFOUND otherwise */
	const char *raw_name;	/* e.g. file name; NULL: no raw output */
	const char *raw;	/* raw output, stored once for all runs */
	size_t raw_len;
	int64_t job_id;		/* 0: not from a job */
	/* The rig's configuration for these runs, a canonical text
	 * (lib/rigconf.h); NULL or "": not recorded. */
	const char *rigconf;
	/* NULL: not idempotent.  Else the import is recorded under this key
	 * (an Idempotency-Key, or a hash of the content and parameters) and
	 * a later import under the same key of the same raw content stores
	 * nothing and answers DB_REPEATED with the first import's run ids;
	 * of another content, DB_CONFLICT. */
	const char *idem_key;
	/* 0: no limit.  Else a set with more distinct kernels or results is
	 * refused (DB_TOOBIG, err naming the limit and the count) before
	 * anything is written. */
	size_t max_kernels, max_results;
};

/*
 * Store rs in one transaction: kernels are created as needed, one run is
 * created per distinct kernel in rs (repetition = previous count + 1 for
 * that kernel x rig x suite), every result is attached to its kernel's
 * run.  All or nothing.  *run_ids (may be NULL) receives a malloc'd array
 * of the new run ids, *nruns their count.  DB_OK, DB_REPEATED (see
 * idem_key: *run_ids are then the earlier ones) or a negative DB_E*.
 */
int db_import(struct db *db, const struct result_set *rs,
	      const struct db_import_opts *o, int64_t **run_ids,
	      size_t *nruns, char *err, size_t errlen);

/* ---- runs --------------------------------------------------------- */
struct db_run {
	int64_t id;
	char *kernel, *rig, *suite;
	int repetition;
	char *status;		/* "done", "incomplete", "failed" */
	char *error;		/* "" when none */
	int64_t started, finished;
	int64_t nresults;
	int64_t job_id;
	char *rigconf;		/* canonical text, "" when not recorded */
	char *rigconf_hash;	/* its short hash, "" when not recorded */
};

/* Newest first; kernel/rig/suite NULL means any. limit <= 0: no limit. */
int db_run_list(struct db *db, const char *kernel, const char *rig,
		const char *suite, int limit, struct db_run **out, size_t *n);
int db_run_get(struct db *db, int64_t id, struct db_run *out);
void db_run_release(struct db_run *r);
void db_runs_free(struct db_run *v, size_t n);

/* ---- samples: what compare and history pages read ----------------- */
struct db_sample {
	char *kernel;
	char *metric;
	char *unit;
	enum metric_dir dir;
	double value;
	int64_t run_id;
	int repetition;
	int64_t time;		/* run finished, unix seconds */
	char *rigconf;		/* db_history only: the run's rig configuration
				 * hash, "" when none was recorded */
};

/*
 * Every result of the named kernels on rig x suite (NULL: any rig / suite),
 * restricted to metrics starting with metric_prefix (NULL: all), ordered by
 * kernel (in the order given), metric, repetition.  An unknown kernel, rig
 * or suite is DB_NOTFOUND with err naming it.
 */
int db_samples(struct db *db, const char *const *kernels, size_t nk,
	       const char *rig, const char *suite, const char *metric_prefix,
	       struct db_sample **out, size_t *n, char *err, size_t errlen);
/*
 * One metric over time (ordered by run time, then run id), at most limit
 * points (the newest; <= 0: all); rig/suite NULL: any.
 */
int db_history(struct db *db, const char *metric, const char *rig,
	       const char *suite, int limit, struct db_sample **out,
	       size_t *n, char *err, size_t errlen);
void db_samples_free(struct db_sample *v, size_t n);

/* Every metric name with its unit and direction, sorted by name. */
struct db_metric {
	char *name, *unit;
	enum metric_dir dir;
};
int db_metric_list(struct db *db, struct db_metric **out, size_t *n);
void db_metrics_free(struct db_metric *v, size_t n);

/* ---- raw outputs -------------------------------------------------- */
int db_raw_put(struct db *db, int64_t run_id, const char *name,
	       const void *data, size_t len);
/* *data is malloc'd (NUL-terminated for convenience). */
int db_raw_get(struct db *db, int64_t run_id, const char *name, char **data,
	       size_t *len);
/* Names of the raw outputs of a run, sorted; its latency histograms
 * among them as "hist/<phase>.json" (db_hist.c), read as their JSON. */
int db_raw_list(struct db *db, int64_t run_id, char ***names, size_t *n);

/* ---- latency histograms (db_hist.c) ------------------------------- */
struct db_hist {
	char *phase;		/* "iops", "tiobench.seq_read" */
	struct lathist h;
};

/* The histograms of a run, as numbers (no text is parsed), in the order
 * of their raw output names; one that breaks lathist's rules is left
 * out.  DB_OK with *out (free it with db_hists_free) or DB_ERR. */
int db_hist_list(struct db *db, int64_t run_id, struct db_hist **out,
		 size_t *n);
void db_hists_free(struct db_hist *v, size_t n);

/* Counts for the home page and the benchmark. */
int64_t db_count(struct db *db, const char *what);	/* "results", ... */

#endif
