/* SPDX-License-Identifier: MIT */
/*
 * db_int: what the files of db/ share and nobody else sees.  The fields of
 * struct db, the cache of prepared statements (one slot per statement, each
 * prepared on first use and kept for the life of the handle), the metric
 * cache that makes db_import fast, and small helpers for errors, strings
 * and bindings.
 *
 * Every SQL statement lives in the db/ source file of its concern and reaches
 * sqlite through db_stmt(); values are always bound, never pasted in.
 */
#ifndef KLAB_DB_INT_H
#define KLAB_DB_INT_H

#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "../lib/ident.h"

/*
 * The ids of the rigs a name p (an SQL parameter such as "?2") means
 * (issue 31, migration 23): the rigs of class p, or, when no rig has
 * class p, the rig named p.  The one home of that rule in SQL;
 * rig_class_resolve (lab/rig_conf.c) applies it to the configuration,
 * which klabd writes into rigs.class at start.
 */
#define DB_RIGS_NAMED(p) \
	"(SELECT id FROM rigs WHERE class = " p " UNION ALL SELECT id FROM " \
	"rigs WHERE name = " p " AND NOT EXISTS (SELECT 1 FROM rigs WHERE " \
	"class = " p "))"

/* One slot per cached statement; the SQL text sits next to its user. */
enum db_stmt_id {
	ST_BEGIN, ST_COMMIT, ST_ROLLBACK,
	ST_SAVEPOINT, ST_RELEASE, ST_ROLLBACK_TO,
	ST_USER_VERSION,
	ST_KERNEL_PUT, ST_KERNEL_GET, ST_KERNEL_LIST, ST_KERNEL_ID,
	ST_KERNEL_ADD,
	ST_RIG_PUT, ST_RIG_GET, ST_RIG_LIST, ST_RIG_STATE, ST_RIG_ID,
	ST_RIG_CLASS, ST_RIG_NAMED,
	ST_SUITE_PUT, ST_SUITE_GET, ST_SUITE_LIST, ST_SUITE_ID,
	ST_METRIC_FIND, ST_METRIC_ADD, ST_METRIC_LIST, ST_METRIC_ID,
	ST_RUN_COUNT, ST_RUN_ADD, ST_RESULT_ADD,
	ST_RUN_LIST, ST_RUN_GET, ST_RUN_EXISTS,
	ST_SAMPLES, ST_HISTORY,
	ST_RAW_PUT, ST_RAW_GET, ST_RAW_LIST, ST_BLOB_ADD, ST_BLOB_ID,
	ST_IMPORT_FIND, ST_IMPORT_ADD, ST_IMPORT_RUNS,
	ST_COUNT_KERNELS, ST_COUNT_RIGS, ST_COUNT_SUITES, ST_COUNT_METRICS,
	ST_COUNT_RUNS, ST_COUNT_RESULTS, ST_COUNT_RAW, ST_COUNT_ALERTS,
	ST_COUNT_BLOBS, ST_COUNT_IMPORTS,
	ST_HIST_PUT, ST_HIST_LIST, ST_HIST_GET,
	ST__COUNT
};

/* A metric as the cache knows it: committed, or written by our own
 * still-open transaction (the cache is dropped on every rollback). */
struct db_metric_ent {
	char *name;
	char *unit;
	int dir;
	int64_t id;
};

/* String -> index map, open addressing; used for metrics and kernels. */
struct db_map {
	const char **keys;	/* borrowed: the owner keeps the strings */
	size_t *vals;
	size_t cap, n;		/* cap is 0 or a power of two */
};

/* A statement of db_query kept prepared, found again by its text. */
#define DB_QCACHE_MAX 64
struct db_qcache {
	char *sql;
	sqlite3_stmt *st;
	int busy;		/* being run (a nested db_query prepares) */
};

struct db {
	sqlite3 *h;
	char *path;
	sqlite3_stmt *st[ST__COUNT];
	struct db_qcache qc[DB_QCACHE_MAX];	/* db_query's statements */
	size_t nqc;
	struct db_metric_ent *metrics;	/* the metric cache */
	size_t nmetrics, metrics_alloc;
	struct db_map metric_map;
	int busy;			/* gave up waiting for a lock */
};

/* Highest schema version this build knows (migrate.c). */
int db_schema_version(void);
/* Apply the missing migrations; DB_OK or DB_ERR with err filled in. */
int db_migrate(struct db *db, char *err, size_t errlen);

/*
 * The cached statement id, prepared from sql on first use, reset and with
 * its bindings cleared.  NULL on a prepare error (a bug in our SQL).
 * Callers run it and then call db_stmt_done().
 */
sqlite3_stmt *db_stmt(struct db *db, enum db_stmt_id id, const char *sql);
void db_stmt_done(sqlite3_stmt *st);
/* Step a statement that returns no rows; 0 or the sqlite error code. */
int db_exec_stmt(sqlite3_stmt *st);
/*
 * Step a write that must not be lost to a busy database (the rig
 * manager's): after sqlite's busy timeout, retry a few times with a
 * back-off, then log "WRITE LOST" naming what on stderr.  DB_OK or DB_ERR.
 */
int db_exec_retry(struct db *db, sqlite3_stmt *st, const char *what);

/* Error text into err (may be NULL); returns code for `return db_fail()`. */
int db_seterr(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "database error: <sqlite message>"; returns DB_ERR. */
int db_sqlerr(struct db *db, char *err, size_t errlen);

/* Names users give (kernels, rigs, suites, metrics): the rule of
 * lib/ident.h.  DB_OK, or DB_INVALID with err naming the problem. */
int db_name_check(enum ident_kind kind, const char *name, char *err,
		  size_t errlen);

/* Bind s, or NULL when s is NULL; s must outlive the statement's step. */
int db_bind_str(sqlite3_stmt *st, int i, const char *s);
/* Bind s, or '' when s is NULL. */
int db_bind_str0(sqlite3_stmt *st, int i, const char *s);
/*
 * Bind ?1, ?2, ... of st in order, one letter of fmt a value: 's' a string
 * ('' when NULL), 'z' a string (SQL NULL when NULL), 'i' an int, 'I' an
 * int64_t, 'p' an int64_t bound only when above 0 (else NULL), 'd' a
 * double, 'T' the time now (takes no value).  Strings must outlive the
 * statement's step.
 */
void db_bind(sqlite3_stmt *st, const char *fmt, ...);
void db_vbind(sqlite3_stmt *st, const char *fmt, va_list ap);
/*
 * Prepare sql (kept prepared for the next call with the same text, up to
 * DB_QCACHE_MAX texts a connection), bind ?1, ?2, ... from fmt as
 * db_bind() does, run it and reset it.  With how NULL (db_run): step it
 * once and return sqlite's code for the step (SQLITE_DONE when a write
 * went through, SQLITE_ERROR when sql does not prepare; the connection's
 * message says why).  With n NULL (db_run_row): db_row_get() into out.
 * Else (db_run_rows): db_rows_collect() into *(void **)out and *n.
 */
struct db_rows;
/* Finalize db_query's kept statements. */
void db_qcache_clear(struct db *db);
int db_query(struct db *db, const struct db_rows *how, void *out, size_t *n,
	     const char *sql, const char *fmt, ...);
#define db_run(db, sql, ...) \
	db_query((db), NULL, NULL, NULL, (sql), __VA_ARGS__)
#define db_run_row(db, how, out, sql, ...) \
	db_query((db), (how), (out), NULL, (sql), __VA_ARGS__)
#define db_run_rows(db, how, out, n, sql, ...) \
	db_query((db), (how), (out), (n), (sql), __VA_ARGS__)
/*
 * Store the <what> called name: run the cached statement id with ?1, ?2,
 * ... bound from fmt as db_bind() does.  DB_OK, or DB_ERR with err saying
 * "cannot store <what> '<name>': <sqlite's reason>".
 */
int db_store(struct db *db, enum db_stmt_id id, const char *sql,
	     const char *what, const char *name, char *err, size_t errlen,
	     const char *fmt, ...);
/* A heap copy of column i, "" when it is NULL. */
char *db_col_str(sqlite3_stmt *st, int i);
char *db_xstrdup(const char *s);
/* A fresh (uncached) statement for rarely run SQL; NULL on error, aborts
 * when out of memory.  The caller finalizes it. */
sqlite3_stmt *db_prepare(struct db *db, const char *sql);
void *db_xrealloc(void *p, size_t n);	/* aborts when out of memory */

/*
 * Raw outputs (db_raw.c): store data once under its SHA-256 (hex, computed
 * by the caller), returning the blob's id (> 0) or DB_ERR; then link it to
 * a run under a name (replacing that name).  DB_OK / DB_NOTFOUND / DB_ERR.
 */
int64_t db_raw_blob(struct db *db, const void *data, size_t len,
		    const char *sha256_hex);
int db_raw_link(struct db *db, int64_t run_id, const char *name,
		int64_t blob_id);

/*
 * Latency histograms (db_hist.c): the histogram of a run's phase into
 * run_hists (replacing one there), DB_OK or DB_ERR; the raw output
 * "hist/<phase>.json" of one, as the compact JSON the API serves
 * (*data malloc'd), DB_OK / DB_NOTFOUND / DB_ERR; and migration 20,
 * which moves the histograms stored as those raw outputs into rows, in
 * the migration's transaction, DB_OK or DB_ERR.
 */
int db_hist_put(struct db *db, int64_t run_id, const char *phase,
		const struct lathist *h);
int db_hist_raw(struct db *db, int64_t run_id, const char *name, char **data,
		size_t *len);
int db_hist_migrate(struct db *db);

/*
 * Arrays that grow (git's ALLOC_GROW): make room for element nr of x,
 * whose capacity is alloc, doubling it.  Aborts when out of memory.
 */
#define DB_ALLOC_GROW(x, nr, alloc)					\
	do {								\
		if ((nr) >= (alloc)) {					\
			(alloc) = (alloc) ? (alloc) * 2 : 16;		\
			if ((alloc) <= (nr))				\
				(alloc) = (nr) + 1;			\
			(x) = db_xrealloc((x), (alloc) * sizeof(*(x)));	\
		}							\
	} while (0)

/*
 * The get, list and release code of every entity type.  An entity is a
 * struct whose fields come from the columns of a result row, in order: the
 * table of struct db_col says where each column lands and as what type.
 * Reading heap-copies the text columns; releasing frees them and zeroes the
 * struct.  A type whose row needs more than a copy gives from_row too.  The
 * row functions step a bound statement to its end and reset it
 * (db_stmt_done); a caller that prepared it with db_prepare() still
 * finalizes it.
 */
/* DB_COL_NUM: a double, NAN when the column is NULL (sqlite stores a
 * NAN as NULL). */
enum db_col_type {
	DB_COL_INT64, DB_COL_INT, DB_COL_DOUBLE, DB_COL_NUM, DB_COL_STR
};

struct db_col {
	size_t off;			/* offsetof the field */
	enum db_col_type type;
};

#define DB_COL(stype, field, type) \
	{ offsetof(struct stype, field), DB_COL_##type }
#define DB_ROWS(stype, cols) \
	{ sizeof(struct stype), cols, sizeof(cols) / sizeof((cols)[0]), NULL }

struct db_rows {
	size_t size;					/* of one element */
	const struct db_col *cols;
	size_t ncols;
	void (*from_row)(sqlite3_stmt *st, void *elem);	/* NULL: cols */
};

/* Read the current row of st into elem as how says (heap copies). */
void db_row_read(const struct db_rows *how, sqlite3_stmt *st, void *elem);
/* Free elem's text fields and zero it; accepts NULL. */
void db_row_release(const struct db_rows *how, void *elem);
/* One row into *out (zeroed first): DB_OK, DB_NOTFOUND or DB_ERR (also
 * for a NULL st). */
int db_row_get(sqlite3_stmt *st, const struct db_rows *how, void *out);
/*
 * The row of the cached statement id whose ?1 is name (NULL: DB_NOTFOUND)
 * or id, into *out as db_row_get().
 */
int db_row_get_name(struct db *db, enum db_stmt_id id, const char *sql,
		    const char *name, const struct db_rows *how, void *out);
int db_row_get_id(struct db *db, enum db_stmt_id id, const char *sql,
		  int64_t key, const struct db_rows *how, void *out);
/* Every row into a malloc'd array: DB_OK with *out (NULL when empty) and
 * *n, or DB_ERR (also for a NULL st) with nothing allocated. */
int db_rows_collect(sqlite3_stmt *st, const struct db_rows *how, void **out,
		    size_t *n);
/* Rows of one column: an int64_t, or a heap string, per element. */
extern const struct db_rows db_rows_int64, db_rows_str;
/* Release n elements of v and v itself; accepts NULL. */
void db_rows_free(const struct db_rows *how, void *v, size_t n);

/*
 * The functions each entity type exports, made once from its rows table
 * (git's define_commit_slab): db_<plural>_free(), db_<name>_release() with
 * it; db_<name>_list() of every row of a cached statement without
 * bindings; fn(db, id, out, n), the rows of sql whose ?1 is the id of
 * their parent (a submission's patches).
 */
#define DB_DEFINE_FREE(plural, stype, rows)				\
	void db_##plural##_free(struct stype *v, size_t n)		\
	{								\
		db_rows_free(&(rows), v, n);				\
	}
#define DB_DEFINE_RELEASE(name, plural, stype, rows)			\
	void db_##name##_release(struct stype *e)			\
	{								\
		db_row_release(&(rows), e);				\
	}								\
	DB_DEFINE_FREE(plural, stype, rows)
#define DB_DEFINE_LIST(name, stype, rows, stmt, sql)			\
	int db_##name##_list(struct db *db, struct stype **out, size_t *n) \
	{								\
		void *v;						\
		int rc = db_rows_collect(db_stmt(db, stmt, sql), &(rows), \
					 &v, n);			\
		*out = v;						\
		return rc;						\
	}
#define DB_DEFINE_ROWS_OF(fn, stype, rows, sql)				\
	int fn(struct db *db, int64_t id, struct stype **out, size_t *n) \
	{								\
		void *v;						\
		int rc = db_run_rows(db, &(rows), &v, n, sql, "I", id);	\
		*out = v;						\
		return rc;						\
	}

/*
 * A piece of work that is 'running' in its column state until it ends
 * (submissions, bisections), its rows from cols (a "SELECT ... FROM t "
 * prefix): db_<name>_get() by id, and db_<name>_list(): with active the
 * running ones oldest first, else all of them newest first; at most limit
 * (<= 0: all).
 */
#define DB_DEFINE_RUNNING(name, stype, rows, cols)			\
	int db_##name##_get(struct db *db, int64_t id, struct stype *out) \
	{								\
		return db_run_row(db, &(rows), out, cols "WHERE id = ?", \
				  "I", id);				\
	}								\
	int db_##name##_list(struct db *db, int active, int limit,	\
			     struct stype **out, size_t *n)		\
	{								\
		void *v;						\
		int rc = db_run_rows(db, &(rows), &v, n, cols		\
				     "WHERE ?1 = 0 OR state = 'running' " \
				     "ORDER BY CASE WHEN ?1 THEN id ELSE " \
				     "-id END LIMIT ?2", "ii", active,	\
				     limit > 0 ? limit : -1);		\
		*out = v;						\
		return rc;						\
	}

/*
 * A catalogue entity known by its name (kernels, rigs, suites): its rows
 * table from cols, then db_<name>_get() by name with the cached statement
 * get, db_<name>_list() with list, db_<name>_release() and
 * db_<plural>_free().
 */
#define DB_DEFINE_ENTITY(name, plural, stype, cols, get, get_sql, list,	\
			 list_sql)					\
	static const struct db_rows name##_rows = DB_ROWS(stype, cols);	\
	int db_##name##_get(struct db *db, const char *key,		\
			    struct stype *out)				\
	{								\
		return db_row_get_name(db, get, get_sql, key,		\
				       &name##_rows, out);		\
	}								\
	DB_DEFINE_LIST(name, stype, name##_rows, list, list_sql)	\
	DB_DEFINE_RELEASE(name, plural, stype, name##_rows)

/*
 * Column 0 of the first row of the cached statement id, with ?1 bound to
 * key when key is not NULL: none when it has no row, DB_ERR when it fails.
 */
int64_t db_scalar(struct db *db, enum db_stmt_id id, const char *sql,
		  const char *key, int64_t none);

/* Id of the named row, 0 when absent, negative DB_E* on error. */
int64_t db_lookup_id(struct db *db, enum db_stmt_id id, const char *sql,
		     const char *name);
int64_t db_rig_id(struct db *db, const char *name);
/* One rig (the first) of the rigs name means (DB_RIGS_NAMED): 0 none. */
int64_t db_rig_named(struct db *db, const char *name);
int64_t db_suite_id(struct db *db, const char *name);
int64_t db_kernel_id(struct db *db, const char *ident);

/* The metric cache. */
void db_metric_cache_clear(struct db *db);
/* Look name up in the cache; NULL when not there. */
struct db_metric_ent *db_metric_cache_find(struct db *db, const char *name);
struct db_metric_ent *db_metric_cache_add(struct db *db, const char *name,
					  const char *unit, int dir,
					  int64_t id);

void db_map_release(struct db_map *m);
/* 0 and *val when key is present, -1 when not. */
int db_map_get(const struct db_map *m, const char *key, size_t *val);
/* Insert or replace; key is borrowed and must outlive the map entry. */
void db_map_put(struct db_map *m, const char *key, size_t val);

#endif
