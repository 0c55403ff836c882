// SPDX-License-Identifier: MIT
/*
 * db: opening and closing the database, its pragmas (WAL, foreign keys,
 * a 5 s busy timeout that remembers when it gave up, synchronous=NORMAL),
 * the cache of prepared statements, transactions and the row counts for
 * the home page and the benchmark.  Migrations are in migrate.c, each
 * table family in its own db_*.c file.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "db_int.h"

#define BUSY_TIMEOUT_MS 5000
#define BUSY_STEP_MS 10
#define DB_PAGE_SIZE 4096	/* sqlite's default, klab.db's page size */
#define PAGECACHE_MIB 8LL	/* the slab of all page caches (sqlite_setup) */

static const char sql_begin[] = "BEGIN IMMEDIATE";
static const char sql_commit[] = "COMMIT";
static const char sql_rollback[] = "ROLLBACK";

sqlite3_stmt *db_stmt(struct db *db, enum db_stmt_id id, const char *sql)
{
	sqlite3_stmt *st = db->st[id];

	if (st) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return st;
	}
	if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &st, NULL) != SQLITE_OK)
		return NULL;
	db->st[id] = st;
	return st;
}

void db_stmt_done(sqlite3_stmt *st)
{
	if (!st)
		return;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

int db_exec_stmt(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_DONE || rc == SQLITE_ROW)
		rc = 0;
	else
		rc = sqlite3_reset(st);
	db_stmt_done(st);
	return rc;
}

/* sqlite3's busy handler: wait BUSY_TIMEOUT_MS in steps, then give up
 * and remember it, so a caller can say "busy" rather than "failed". */
static int db_busy_wait(void *arg, int count)
{
	struct db *db = arg;
	struct timespec ts = { 0, BUSY_STEP_MS * 1000 * 1000 };

	if (count >= BUSY_TIMEOUT_MS / BUSY_STEP_MS) {
		db->busy = 1;
		return 0;
	}
	nanosleep(&ts, NULL);
	return 1;
}

int db_busy_take(struct db *db)
{
	int busy = db && db->busy;

	if (db)
		db->busy = 0;
	return busy;
}

static int set_pragmas(struct db *db, char *err, size_t errlen)
{
	static const char *const pragmas[] = {
		"PRAGMA journal_mode=WAL",
		"PRAGMA foreign_keys=ON",
		"PRAGMA synchronous=NORMAL",
	};
	size_t i;

	if (sqlite3_busy_handler(db->h, db_busy_wait, db) != SQLITE_OK)
		goto out_err;
	for (i = 0; i < sizeof(pragmas) / sizeof(pragmas[0]); i++) {
		if (sqlite3_exec(db->h, pragmas[i], NULL, NULL, NULL) !=
		    SQLITE_OK)
			goto out_err;
	}
	return DB_OK;

out_err:
	return db_seterr(err, errlen, DB_ERR, "cannot open database '%s': %s",
			 db->path, sqlite3_errmsg(db->h));
}

/*
 * Before sqlite's first use: no memory statistics, which sqlite keeps
 * under one global mutex taken by every allocation of every connection
 * (the threads of a loaded klabd queued on it).  And one slab of
 * PAGECACHE_MIB for the page caches of all connections, outside malloc:
 * a page cache fills and is given back (klabd_housekeep) again and again,
 * and from glibc's arenas that churn of 4 KiB lines between long-lived
 * allocations fragmented them, so klabd's RSS crept up while the memory
 * in use stayed flat (docs/PERFORMANCE.md, "Soak").  Lines beyond the
 * slab come from malloc as before.  Refused, harmlessly, when sqlite was
 * already initialised by someone else.
 */
static void sqlite_setup(void)
{
	int hdr = 0, sz, n;
	void *slab;

	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &hdr) != SQLITE_OK)
		return;
	sz = (DB_PAGE_SIZE + hdr + 7) & ~7;
	n = (int)((PAGECACHE_MIB << 20) / sz);
	slab = mmap(NULL, (size_t)sz * n, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (slab == MAP_FAILED)
		return;
	if (sqlite3_config(SQLITE_CONFIG_PAGECACHE, slab, sz, n) != SQLITE_OK)
		munmap(slab, (size_t)sz * n);
}

struct db *db_open(const char *path, char *err, size_t errlen)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct db *db;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
		    SQLITE_OPEN_NOMUTEX;

	if (!path || !*path) {
		db_seterr(err, errlen, DB_INVALID, "no database path given");
		return NULL;
	}
	pthread_once(&once, sqlite_setup);
	db = calloc(1, sizeof(*db));
	if (!db)
		abort();
	db->path = db_xstrdup(path);
	if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
		db_seterr(err, errlen, DB_ERR,
			  "cannot open database '%s': %s", path,
			  db->h ? sqlite3_errmsg(db->h) : "out of memory");
		goto out_close;
	}
	sqlite3_extended_result_codes(db->h, 0);
	if (set_pragmas(db, err, errlen) != DB_OK)
		goto out_close;
	if (db_migrate(db, err, errlen) != DB_OK)
		goto out_close;
	return db;

out_close:
	db_close(db);
	return NULL;
}

void db_close(struct db *db)
{
	size_t i;

	if (!db)
		return;
	for (i = 0; i < ST__COUNT; i++)
		sqlite3_finalize(db->st[i]);
	db_qcache_clear(db);
	db_metric_cache_clear(db);
	free(db->metrics);
	db_map_release(&db->metric_map);
	sqlite3_close(db->h);
	free(db->path);
	free(db);
}

/* A connection's current figure op of sqlite3_db_status, 0 on error. */
static long long db_status_now(struct db *db, int op)
{
	int cur = 0, hi = 0;

	if (sqlite3_db_status(db->h, op, &cur, &hi, 0) != SQLITE_OK)
		return 0;
	return cur;
}

long long db_cache_bytes(struct db *db)
{
	return db_status_now(db, SQLITE_DBSTATUS_CACHE_USED);
}

long long db_stmt_bytes(struct db *db)
{
	return db_status_now(db, SQLITE_DBSTATUS_STMT_USED);
}

void db_release_memory(struct db *db)
{
	sqlite3_db_release_memory(db->h);
}

long long db_pagecache_lines(void)
{
	sqlite3_int64 cur = 0, hi = 0;

	sqlite3_status64(SQLITE_STATUS_PAGECACHE_USED, &cur, &hi, 0);
	return cur;
}

int db_user_version(struct db *db)
{
	return (int)db_scalar(db, ST_USER_VERSION, "PRAGMA user_version",
			      NULL, DB_ERR);
}

int db_begin(struct db *db)
{
	sqlite3_stmt *st = db_stmt(db, ST_BEGIN, sql_begin);

	if (!st || db_exec_stmt(st) != 0)
		return DB_ERR;
	return DB_OK;
}

int db_commit(struct db *db)
{
	sqlite3_stmt *st = db_stmt(db, ST_COMMIT, sql_commit);

	if (!st || db_exec_stmt(st) != 0) {
		db_rollback(db);
		return DB_ERR;
	}
	return DB_OK;
}

void db_rollback(struct db *db)
{
	sqlite3_stmt *st;

	/* What our transaction added to the metric cache is gone too. */
	db_metric_cache_clear(db);
	if (sqlite3_get_autocommit(db->h))
		return;
	st = db_stmt(db, ST_ROLLBACK, sql_rollback);
	if (st)
		db_exec_stmt(st);
}

/* Run the cached statement id (sql): 0, or -1. */
static int unit_exec(struct db *db, enum db_stmt_id id, const char *sql)
{
	sqlite3_stmt *st = db_stmt(db, id, sql);

	return st && db_exec_stmt(st) == 0 ? 0 : -1;
}

/* One savepoint name serves every unit: RELEASE and ROLLBACK TO act on
 * the newest of that name, and units nest in order. */
int db_unit_open(struct db *db, int *own)
{
	*own = sqlite3_get_autocommit(db->h);
	if (*own)
		return db_begin(db);
	return unit_exec(db, ST_SAVEPOINT, "SAVEPOINT db_unit") ? DB_ERR
								 : DB_OK;
}

int db_unit_close(struct db *db, int own, int ok)
{
	if (own) {
		if (ok)
			return db_commit(db);
		db_rollback(db);
		return DB_OK;
	}
	if (!ok) {
		/* what the unit added to the metric cache is gone too */
		db_metric_cache_clear(db);
		unit_exec(db, ST_ROLLBACK_TO, "ROLLBACK TO db_unit");
	}
	return unit_exec(db, ST_RELEASE, "RELEASE db_unit") ? DB_ERR : DB_OK;
}

static const struct {
	const char *what;
	enum db_stmt_id id;
	const char *sql;
} counts[] = {
	{ "kernels", ST_COUNT_KERNELS, "SELECT count(*) FROM kernels" },
	{ "rigs", ST_COUNT_RIGS, "SELECT count(*) FROM rigs" },
	{ "suites", ST_COUNT_SUITES, "SELECT count(*) FROM suites" },
	{ "metrics", ST_COUNT_METRICS, "SELECT count(*) FROM metrics" },
	{ "runs", ST_COUNT_RUNS, "SELECT count(*) FROM runs" },
	{ "results", ST_COUNT_RESULTS, "SELECT count(*) FROM results" },
	{ "raw_outputs", ST_COUNT_RAW, "SELECT count(*) FROM raw_outputs" },
	{ "alerts", ST_COUNT_ALERTS, "SELECT count(*) FROM alerts" },
	{ "raw_blobs", ST_COUNT_BLOBS, "SELECT count(*) FROM raw_blobs" },
	{ "imports", ST_COUNT_IMPORTS, "SELECT count(*) FROM imports" },
};

/* Rows in the table named by what; DB_INVALID for an unknown name. */
int64_t db_count(struct db *db, const char *what)
{
	size_t i;

	if (!what)
		return DB_INVALID;
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (strcmp(counts[i].what, what) == 0)
			break;
	}
	if (i == sizeof(counts) / sizeof(counts[0]))
		return DB_INVALID;
	return db_scalar(db, counts[i].id, counts[i].sql, NULL, DB_ERR);
}
