// SPDX-License-Identifier: MIT
/*
 * db_util: the small helpers every db/ file uses: error messages in the
 * house style, name checks, string bindings and copies, id look-ups by
 * name, and the string map behind the metric cache of db_import.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_int.h"
#include "../lib/ident.h"
#include "../lib/utf8.h"

int db_seterr(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

int db_sqlerr(struct db *db, char *err, size_t errlen)
{
	return db_seterr(err, errlen, DB_ERR, "database error: %s",
			 sqlite3_errmsg(db->h));
}

int db_name_check(enum ident_kind kind, const char *name, char *err,
		  size_t errlen)
{
	if (ident_checks(kind, name, err, errlen) != 0)
		return DB_INVALID;
	return DB_OK;
}

/*
 * Text from outside reaches sqlite only through these two: a string that
 * is not well-formed UTF-8 is stored repaired by the one rule of
 * lib/utf8.h (U+FFFD for each bad byte), so nothing read back can break
 * a JSON answer.
 */
int db_bind_str(sqlite3_stmt *st, int i, const char *s)
{
	size_t len;

	if (!s)
		return sqlite3_bind_null(st, i);
	len = strlen(s);
	if (utf8_valid(s, len))
		return sqlite3_bind_text(st, i, s, (int)len, SQLITE_STATIC);
	return sqlite3_bind_text(st, i, utf8_repair(s, len), -1, free);
}

int db_bind_str0(sqlite3_stmt *st, int i, const char *s)
{
	return db_bind_str(st, i, s ? s : "");
}

void *db_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		abort();
	return q;
}

char *db_xstrdup(const char *s)
{
	size_t len = strlen(s);
	char *p = db_xrealloc(NULL, len + 1);

	memcpy(p, s, len + 1);
	return p;
}

void db_bind(sqlite3_stmt *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	db_vbind(st, fmt, ap);
	va_end(ap);
}

int64_t db_scalar(struct db *db, enum db_stmt_id id, const char *sql,
		  const char *key, int64_t none)
{
	sqlite3_stmt *st = db_stmt(db, id, sql);
	int64_t v = none;
	int rc;

	if (!st)
		return DB_ERR;
	if (key)
		db_bind_str(st, 1, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE)
		v = DB_ERR;
	db_stmt_done(st);
	return v;
}

/*
 * The statement for sql: a cached one (marked busy, *slot its entry), or
 * one prepared now and cached while there is room, or else one the caller
 * finalizes (*slot NULL).  NULL when sql does not prepare.
 */
static sqlite3_stmt *qcache_get(struct db *db, const char *sql,
				struct db_qcache **slot)
{
	struct db_qcache *q;
	sqlite3_stmt *st = NULL;
	size_t i;

	*slot = NULL;
	for (i = 0; i < db->nqc; i++) {
		q = &db->qc[i];
		if (!q->busy && !strcmp(q->sql, sql)) {
			q->busy = 1;
			*slot = q;
			return q->st;
		}
	}
	if (db->nqc == DB_QCACHE_MAX)
		return db_prepare(db, sql);
	if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	q = &db->qc[db->nqc++];
	q->sql = db_xstrdup(sql);
	q->st = st;
	q->busy = 1;
	*slot = q;
	return st;
}

void db_qcache_clear(struct db *db)
{
	size_t i;

	for (i = 0; i < db->nqc; i++) {
		sqlite3_finalize(db->qc[i].st);
		free(db->qc[i].sql);
	}
	db->nqc = 0;
}

int db_query(struct db *db, const struct db_rows *how, void *out, size_t *n,
	     const char *sql, const char *fmt, ...)
{
	struct db_qcache *slot;
	sqlite3_stmt *st = qcache_get(db, sql, &slot);
	va_list ap;
	int rc;

	if (st) {
		va_start(ap, fmt);
		db_vbind(st, fmt, ap);
		va_end(ap);
	}
	if (!how)
		rc = st ? sqlite3_step(st) : SQLITE_ERROR;
	else if (!n)
		rc = db_row_get(st, how, out);
	else
		rc = db_rows_collect(st, how, out, n);
	if (slot) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		slot->busy = 0;
	} else {
		sqlite3_finalize(st);
	}
	return rc;
}

int db_store(struct db *db, enum db_stmt_id id, const char *sql,
	     const char *what, const char *name, char *err, size_t errlen,
	     const char *fmt, ...)
{
	sqlite3_stmt *st = db_stmt(db, id, sql);
	va_list ap;

	if (!st)
		return db_sqlerr(db, err, errlen);
	va_start(ap, fmt);
	db_vbind(st, fmt, ap);
	va_end(ap);
	if (db_exec_stmt(st) != 0)
		return db_seterr(err, errlen, DB_ERR,
				 "cannot store %s '%s': %s", what, name,
				 sqlite3_errmsg(db->h));
	return DB_OK;
}

void db_vbind(sqlite3_stmt *st, const char *fmt, va_list ap)
{
	int64_t v;
	int i;

	for (i = 1; *fmt; fmt++, i++) {
		switch (*fmt) {
		case 's':
			db_bind_str0(st, i, va_arg(ap, const char *));
			break;
		case 'z':
			db_bind_str(st, i, va_arg(ap, const char *));
			break;
		case 'i':
			sqlite3_bind_int(st, i, va_arg(ap, int));
			break;
		case 'I':
			sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
			break;
		case 'p':
			v = va_arg(ap, int64_t);
			if (v > 0)
				sqlite3_bind_int64(st, i, v);
			break;
		case 'd':
			sqlite3_bind_double(st, i, va_arg(ap, double));
			break;
		case 'T':
			sqlite3_bind_int64(st, i, (int64_t)time(NULL));
			break;
		}
	}
}

char *db_col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	size_t len = (size_t)sqlite3_column_bytes(st, i);

	if (!s)
		return db_xstrdup("");
	/* rows written before the repair on the way in */
	if (strlen((const char *)s) != len || !utf8_valid((const char *)s, len))
		return utf8_repair((const char *)s, len);
	return db_xstrdup((const char *)s);
}

int64_t db_lookup_id(struct db *db, enum db_stmt_id id, const char *sql,
		     const char *name)
{
	return db_scalar(db, id, sql, name, 0);
}

int64_t db_rig_id(struct db *db, const char *name)
{
	return db_lookup_id(db, ST_RIG_ID,
			    "SELECT id FROM rigs WHERE name = ?1", name);
}

int64_t db_rig_named(struct db *db, const char *name)
{
	return db_lookup_id(db, ST_RIG_NAMED, "SELECT coalesce(min(id), 0) "
			    "FROM rigs WHERE id IN " DB_RIGS_NAMED("?1"), name);
}

int64_t db_suite_id(struct db *db, const char *name)
{
	return db_lookup_id(db, ST_SUITE_ID,
			    "SELECT id FROM suites WHERE name = ?1", name);
}

int64_t db_kernel_id(struct db *db, const char *ident)
{
	return db_lookup_id(db, ST_KERNEL_ID,
			    "SELECT id FROM kernels WHERE ident = ?1", ident);
}

/* FNV-1a: short keys, few collisions, no dependencies. */
static size_t map_hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return (size_t)h;
}

void db_map_release(struct db_map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}

int db_map_get(const struct db_map *m, const char *key, size_t *val)
{
	size_t i;

	if (!m->cap)
		return -1;
	for (i = map_hash(key) & (m->cap - 1); m->keys[i];
	     i = (i + 1) & (m->cap - 1)) {
		if (strcmp(m->keys[i], key) == 0) {
			*val = m->vals[i];
			return 0;
		}
	}
	return -1;
}

static void map_grow(struct db_map *m)
{
	struct db_map old = *m;
	size_t i;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->n = 0;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, sizeof(*m->vals));
	if (!m->keys || !m->vals)
		abort();
	for (i = 0; i < old.cap; i++) {
		if (old.keys[i])
			db_map_put(m, old.keys[i], old.vals[i]);
	}
	db_map_release(&old);
}

void db_map_put(struct db_map *m, const char *key, size_t val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap)
		map_grow(m);
	for (i = map_hash(key) & (m->cap - 1); m->keys[i];
	     i = (i + 1) & (m->cap - 1)) {
		if (strcmp(m->keys[i], key) == 0) {
			m->vals[i] = val;
			return;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
}

void db_metric_cache_clear(struct db *db)
{
	size_t i;

	for (i = 0; i < db->nmetrics; i++) {
		free(db->metrics[i].name);
		free(db->metrics[i].unit);
	}
	db->nmetrics = 0;
	db_map_release(&db->metric_map);
}

struct db_metric_ent *db_metric_cache_find(struct db *db, const char *name)
{
	size_t i;

	if (db_map_get(&db->metric_map, name, &i) != 0)
		return NULL;
	return &db->metrics[i];
}

struct db_metric_ent *db_metric_cache_add(struct db *db, const char *name,
					  const char *unit, int dir,
					  int64_t id)
{
	struct db_metric_ent *e;

	DB_ALLOC_GROW(db->metrics, db->nmetrics, db->metrics_alloc);
	e = &db->metrics[db->nmetrics];
	e->name = db_xstrdup(name);
	e->unit = db_xstrdup(unit);
	e->dir = dir;
	e->id = id;
	db_map_put(&db->metric_map, e->name, db->nmetrics);
	db->nmetrics++;
	return e;
}

sqlite3_stmt *db_prepare(struct db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

/* How long the rig manager's writes keep trying: each attempt waits the
 * 5 s busy timeout, so 24 attempts outlast another process's lock of up
 * to two minutes (a backup, an operator's sqlite3 shell). */
#define RETRY_ATTEMPTS 24
#define RETRY_PAUSE_MAX_NS (800 * 1000 * 1000L)

int db_exec_retry(struct db *db, sqlite3_stmt *st, const char *what)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int rc, attempt;

	for (attempt = 1;; attempt++) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
			db_stmt_done(st);
			return DB_OK;
		}
		rc = sqlite3_reset(st);
		if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) ||
		    attempt == RETRY_ATTEMPTS)
			break;
		fprintf(stderr, "klabd: %s: database busy, retrying (%d of "
			"%d)\n", what, attempt, RETRY_ATTEMPTS - 1);
		nanosleep(&ts, NULL);
		if (ts.tv_nsec < RETRY_PAUSE_MAX_NS / 2)
			ts.tv_nsec *= 2;
	}
	fprintf(stderr, "klabd: %s: WRITE LOST: %s\n", what,
		sqlite3_errmsg(db->h));
	db_stmt_done(st);
	return DB_ERR;
}

static const struct db_col col_int64[] = { { 0, DB_COL_INT64 } };
static const struct db_col col_str[] = { { 0, DB_COL_STR } };
const struct db_rows db_rows_int64 = { sizeof(int64_t), col_int64, 1, NULL };
const struct db_rows db_rows_str = { sizeof(char *), col_str, 1, NULL };

void db_row_read(const struct db_rows *how, sqlite3_stmt *st, void *elem)
{
	unsigned char *p = elem;
	size_t i;

	if (how->from_row) {
		how->from_row(st, elem);
		return;
	}
	for (i = 0; i < how->ncols; i++) {
		void *f = p + how->cols[i].off;

		switch (how->cols[i].type) {
		case DB_COL_INT64:
			*(int64_t *)f = sqlite3_column_int64(st, (int)i);
			break;
		case DB_COL_INT:
			*(int *)f = sqlite3_column_int(st, (int)i);
			break;
		case DB_COL_DOUBLE:
			*(double *)f = sqlite3_column_double(st, (int)i);
			break;
		case DB_COL_NUM:
			*(double *)f = sqlite3_column_type(st, (int)i) ==
				       SQLITE_NULL ? NAN :
				       sqlite3_column_double(st, (int)i);
			break;
		case DB_COL_STR:
			*(char **)f = db_col_str(st, (int)i);
			break;
		}
	}
}

void db_row_release(const struct db_rows *how, void *elem)
{
	unsigned char *p = elem;
	size_t i;

	if (!elem)
		return;
	for (i = 0; i < how->ncols; i++)
		if (how->cols[i].type == DB_COL_STR)
			free(*(char **)(p + how->cols[i].off));
	memset(elem, 0, how->size);
}

int db_row_get(sqlite3_stmt *st, const struct db_rows *how, void *out)
{
	int rc;

	memset(out, 0, how->size);
	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		db_row_read(how, st, out);
	db_stmt_done(st);
	if (rc == SQLITE_ROW)
		return DB_OK;
	return rc == SQLITE_DONE ? DB_NOTFOUND : DB_ERR;
}

int db_row_get_name(struct db *db, enum db_stmt_id id, const char *sql,
		    const char *name, const struct db_rows *how, void *out)
{
	sqlite3_stmt *st;

	memset(out, 0, how->size);
	if (!name)
		return DB_NOTFOUND;
	st = db_stmt(db, id, sql);
	if (st)
		db_bind_str(st, 1, name);
	return db_row_get(st, how, out);
}

int db_row_get_id(struct db *db, enum db_stmt_id id, const char *sql,
		  int64_t key, const struct db_rows *how, void *out)
{
	sqlite3_stmt *st = db_stmt(db, id, sql);

	if (st)
		sqlite3_bind_int64(st, 1, key);
	return db_row_get(st, how, out);
}

int db_rows_collect(sqlite3_stmt *st, const struct db_rows *how, void **out,
		    size_t *n)
{
	unsigned char *v = NULL;
	size_t len = 0, alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return DB_ERR;
	for (;;) {
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		if (len >= alloc) {
			alloc = alloc ? alloc * 2 : 16;
			v = db_xrealloc(v, alloc * how->size);
		}
		memset(v + len * how->size, 0, how->size);
		db_row_read(how, st, v + len * how->size);
		len++;
	}
	db_stmt_done(st);
	if (rc != SQLITE_DONE) {
		db_rows_free(how, v, len);
		return DB_ERR;
	}
	*out = v;
	*n = len;
	return DB_OK;
}

void db_rows_free(const struct db_rows *how, void *v, size_t n)
{
	unsigned char *p = v;
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		db_row_release(how, p + i * how->size);
	free(v);
}
