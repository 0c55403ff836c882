// SPDX-License-Identifier: MIT
/*
 * db_import: store a result_set, all of it or nothing.  The set is checked
 * first (every result names a kernel and a metric, values are finite), then
 * one transaction (BEGIN IMMEDIATE, or a savepoint inside a caller's
 * transaction) creates the kernels it does not know, one run per distinct
 * kernel (repetition = earlier runs of kernel x rig x suite + 1), the
 * metrics it does not know, every result, the latency histograms and the
 * raw output.
 *
 * This is the hot path of the lab: metric ids are cached in the handle
 * (dropped on every rollback, so they never outlive what they point to),
 * kernels of the set are found through a hash map, and the insert
 * statements are prepared once per handle.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_int.h"
#include "../lib/rigconf.h"
#include "../lib/sha256.h"

static const char sql_kernel_add[] =
	"INSERT INTO kernels (ident, source, created)"
	" VALUES (?1, 'import', ?2)";
static const char sql_run_count[] =
	"SELECT count(*) FROM runs"
	" WHERE kernel_id = ?1 AND rig_id = ?2 AND suite_id = ?3";
static const char sql_run_add[] =
	"INSERT INTO runs (kernel_id, rig_id, suite_id, repetition, status,"
	"  error, started, finished, job_id, import_id, rigconf, rigconf_hash)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8, ?9, ?10, ?11)";
static const char sql_import_find[] =
	"SELECT id, content_sha256 FROM imports WHERE key = ?1";
static const char sql_import_add[] =
	"INSERT INTO imports (key, content_sha256, created)"
	" VALUES (?1, ?2, ?3)";
static const char sql_import_runs[] =
	"SELECT id FROM runs WHERE import_id = ?1 ORDER BY id";
static const char sql_metric_find[] =
	"SELECT id, unit, direction FROM metrics WHERE name = ?1";
static const char sql_metric_add[] =
	"INSERT INTO metrics (name, unit, direction) VALUES (?1, ?2, ?3)";
static const char sql_result_add[] =
	"INSERT INTO results (run_id, metric_id, value) VALUES (?1, ?2, ?3)";

/* One distinct kernel of the set and the run made for it. */
struct imp_kernel {
	const char *ident;	/* borrowed from the result_set */
	int64_t run_id;
	size_t nresults;
};

struct imp {
	struct db *db;
	const struct result_set *rs;
	const struct db_import_opts *o;
	int64_t rig_id, suite_id, now;
	struct imp_kernel *k;
	size_t nk, k_alloc;
	struct db_map kmap;
	int own;		/* its own transaction (db_unit_open) */
	char sha[SHA256_HEX_LEN + 1];	/* of the raw upload */
	int64_t blob_id;	/* the raw upload, stored once; 0: none */
	int64_t import_id;	/* the imports row; 0: not idempotent */
	int64_t *prev;		/* run ids of an earlier identical import */
	size_t nprev, prev_alloc;
	int repeated;
	char *rigconf;		/* canonical text of o->rigconf */
	char rigconf_hash[RIGCONF_HASH_LEN + 1];
	char *err;
	size_t errlen;
};

static const char *dir_name(int d)
{
	return d == DIR_HIGHER ? "higher" : d == DIR_LOWER ? "lower" : "none";
}

static const char *result_kernel(const struct imp *im, const struct result *r)
{
	return r->kernel ? r->kernel : im->rs->kernel;
}

static size_t imp_kernel_add(struct imp *im, const char *ident)
{
	size_t i;

	if (db_map_get(&im->kmap, ident, &i) == 0)
		return i;
	DB_ALLOC_GROW(im->k, im->nk, im->k_alloc);
	im->k[im->nk].ident = ident;
	im->k[im->nk].run_id = 0;
	im->k[im->nk].nresults = 0;
	db_map_put(&im->kmap, ident, im->nk);
	return im->nk++;
}

static int check_result(struct imp *im, const struct result *r)
{
	const char *ident = result_kernel(im, r);
	int rc = db_name_check(IDENT_METRIC, r->metric, im->err, im->errlen);
	size_t ki;

	if (rc != DB_OK)
		return rc;
	if (!ident)
		return db_seterr(im->err, im->errlen, DB_INVALID,
				 "result '%s' names no kernel", r->metric);
	rc = db_name_check(IDENT_KERNEL, ident, im->err, im->errlen);
	if (rc != DB_OK)
		return rc;
	if (r->dir != DIR_NONE && r->dir != DIR_HIGHER && r->dir != DIR_LOWER)
		return db_seterr(im->err, im->errlen, DB_INVALID,
				 "metric '%s' has an unknown direction %d",
				 r->metric, (int)r->dir);
	if (!isfinite(r->value))
		return db_seterr(im->err, im->errlen, DB_INVALID,
				 "metric '%s' of kernel '%s' is not a finite "
				 "number", r->metric, ident);
	ki = imp_kernel_add(im, ident);
	im->k[ki].nresults++;
	return DB_OK;
}

/* Everything that can be said about the set without the database. */
static int imp_check(struct imp *im)
{
	const struct result_set *rs = im->rs;
	size_t i;
	int rc;

	if (rs->n == 0 && !rs->error && !rs->incomplete)
		return db_seterr(im->err, im->errlen, DB_INVALID,
				 "nothing to import: no results and no error");
	if (im->o->max_results && rs->n > im->o->max_results)
		return db_seterr(im->err, im->errlen, DB_TOOBIG,
				 "import has %zu results, more than "
				 "max_import_results (%zu)", rs->n,
				 im->o->max_results);
	for (i = 0; i < rs->n; i++) {
		rc = check_result(im, &rs->v[i]);
		if (rc != DB_OK)
			return rc;
	}
	if (im->o->max_kernels && im->nk > im->o->max_kernels)
		return db_seterr(im->err, im->errlen, DB_TOOBIG,
				 "import has %zu kernels, more than "
				 "max_import_kernels (%zu)", im->nk,
				 im->o->max_kernels);
	if (rs->n > 0)
		return DB_OK;
	if (!rs->kernel)
		return db_seterr(im->err, im->errlen, DB_INVALID,
				 "result set names no kernel");
	rc = db_name_check(IDENT_KERNEL, rs->kernel, im->err, im->errlen);
	if (rc != DB_OK)
		return rc;
	imp_kernel_add(im, rs->kernel);
	return DB_OK;
}

static int imp_sqlerr(struct imp *im, const char *what, const char *name)
{
	return db_seterr(im->err, im->errlen, DB_ERR,
			 "cannot store %s '%s': %s", what, name,
			 sqlite3_errmsg(im->db->h));
}

/* Step an insert and return its rowid, or 0 after filling the error. */
static int64_t insert_id(struct imp *im, sqlite3_stmt *st, const char *what,
			 const char *name)
{
	int64_t id = 0;

	if (sqlite3_step(st) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(im->db->h);
	else
		imp_sqlerr(im, what, name);
	db_stmt_done(st);
	return id;
}

static int64_t imp_kernel_id(struct imp *im, const char *ident)
{
	int64_t id = db_kernel_id(im->db, ident);
	sqlite3_stmt *st;

	if (id != 0)
		return id > 0 ? id : imp_sqlerr(im, "kernel", ident);
	/* the names of the lab's own builds are never an import's to make
	 * (issue 29): results for one come with its build, or not at all */
	if (ident_lab_owned(ident))
		return db_seterr(im->err, im->errlen, DB_INVALID, "kernel "
				 "'%.128s' is a name of the lab's own builds "
				 "(subN-, bisN-, build-KEY): import under "
				 "another name", ident);
	st = db_stmt(im->db, ST_KERNEL_ADD, sql_kernel_add);
	if (!st)
		return imp_sqlerr(im, "kernel", ident);
	db_bind_str(st, 1, ident);
	sqlite3_bind_int64(st, 2, im->now);
	id = insert_id(im, st, "kernel", ident);
	return id > 0 ? id : DB_ERR;
}

static int imp_repetition(struct imp *im, int64_t kernel_id)
{
	sqlite3_stmt *st = db_stmt(im->db, ST_RUN_COUNT, sql_run_count);
	int rep = DB_ERR;

	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, kernel_id);
	sqlite3_bind_int64(st, 2, im->rig_id);
	sqlite3_bind_int64(st, 3, im->suite_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		rep = sqlite3_column_int(st, 0) + 1;
	db_stmt_done(st);
	return rep;
}

static const char *run_status(const struct imp *im, const struct imp_kernel *k)
{
	if (im->rs->incomplete)
		return "incomplete";
	if (im->rs->error && k->nresults == 0)
		return "failed";
	return "done";
}

/*
 * The latency histograms of the set belong to its kernel (to its only
 * kernel when it names none): rows of run_hists for that run (db_hist.c),
 * each read as the raw output "hist/<phase>.json".
 */
static int imp_hists(struct imp *im, const struct imp_kernel *k)
{
	const struct result_set *rs = im->rs;
	size_t i;

	if (rs->kernel ? strcmp(rs->kernel, k->ident) : im->nk != 1)
		return DB_OK;
	for (i = 0; i < rs->nhist; i++) {
		if (strlen(rs->hist[i].phase) > IDENT_MAX - 10)
			continue;	/* no room for its name: not kept */
		if (db_hist_put(im->db, k->run_id, rs->hist[i].phase,
				&rs->hist[i].h) != DB_OK)
			return imp_sqlerr(im, "latency histogram",
					  rs->hist[i].phase);
	}
	return DB_OK;
}

static int imp_run(struct imp *im, struct imp_kernel *k)
{
	int64_t kid = imp_kernel_id(im, k->ident);
	sqlite3_stmt *st;
	int rep;

	if (kid < 0)
		return DB_ERR;
	rep = imp_repetition(im, kid);
	st = rep > 0 ? db_stmt(im->db, ST_RUN_ADD, sql_run_add) : NULL;
	if (!st)
		return imp_sqlerr(im, "run of kernel", k->ident);
	sqlite3_bind_int64(st, 1, kid);
	sqlite3_bind_int64(st, 2, im->rig_id);
	sqlite3_bind_int64(st, 3, im->suite_id);
	sqlite3_bind_int(st, 4, rep);
	db_bind_str(st, 5, run_status(im, k));
	db_bind_str0(st, 6, im->rs->error);
	sqlite3_bind_int64(st, 7, im->now);
	if (im->o->job_id > 0)
		sqlite3_bind_int64(st, 8, im->o->job_id);
	if (im->import_id > 0)
		sqlite3_bind_int64(st, 9, im->import_id);
	db_bind_str0(st, 10, im->rigconf);
	db_bind_str0(st, 11, im->rigconf_hash);
	k->run_id = insert_id(im, st, "run of kernel", k->ident);
	if (k->run_id <= 0)
		return DB_ERR;
	if (imp_hists(im, k) != DB_OK)
		return DB_ERR;
	if (!im->blob_id)
		return DB_OK;
	/* a bad ?name= is the request's fault: 400, not 500 */
	if (db_name_check(IDENT_RAW, im->o->raw_name, im->err, im->errlen))
		return DB_INVALID;
	if (db_raw_link(im->db, k->run_id, im->o->raw_name, im->blob_id) !=
	    DB_OK)
		return imp_sqlerr(im, "raw output", im->o->raw_name);
	return DB_OK;
}

static struct db_metric_ent *cache_row(struct db *db, const char *name,
				       sqlite3_stmt *st)
{
	const unsigned char *unit = sqlite3_column_text(st, 1);

	return db_metric_cache_add(db, name, unit ? (const char *)unit : "",
				   sqlite3_column_int(st, 2),
				   sqlite3_column_int64(st, 0));
}

/* The cached id of metric r, created when new; negative on error. */
static int64_t imp_metric(struct imp *im, const struct result *r)
{
	struct db_metric_ent *e = db_metric_cache_find(im->db, r->metric);
	const char *unit = r->unit ? r->unit : "";
	sqlite3_stmt *st;
	int64_t id;

	if (!e) {
		st = db_stmt(im->db, ST_METRIC_FIND, sql_metric_find);
		if (!st)
			return imp_sqlerr(im, "metric", r->metric);
		db_bind_str(st, 1, r->metric);
		if (sqlite3_step(st) == SQLITE_ROW)
			e = cache_row(im->db, r->metric, st);
		db_stmt_done(st);
	}
	if (!e) {
		st = db_stmt(im->db, ST_METRIC_ADD, sql_metric_add);
		if (!st)
			return imp_sqlerr(im, "metric", r->metric);
		db_bind_str(st, 1, r->metric);
		db_bind_str(st, 2, unit);
		sqlite3_bind_int(st, 3, (int)r->dir);
		id = insert_id(im, st, "metric", r->metric);
		if (id <= 0)
			return DB_ERR;
		e = db_metric_cache_add(im->db, r->metric, unit, r->dir, id);
	}
	if (strcmp(e->unit, unit) != 0)
		return db_seterr(im->err, im->errlen, DB_INVALID,
				 "metric '%s' has unit '%s', not '%s'",
				 r->metric, e->unit, unit);
	if (e->dir != (int)r->dir)
		return db_seterr(im->err, im->errlen, DB_INVALID,
				 "metric '%s' is %s-is-better, "
				 "not %s-is-better", r->metric,
				 dir_name(e->dir), dir_name(r->dir));
	return e->id;
}

static int imp_results(struct imp *im)
{
	sqlite3_stmt *st = db_stmt(im->db, ST_RESULT_ADD, sql_result_add);
	const struct result *r;
	size_t i, ki = 0;
	int64_t mid;

	if (!st)
		return imp_sqlerr(im, "results of", "import");
	for (i = 0; i < im->rs->n; i++) {
		r = &im->rs->v[i];
		/* Results of one kernel usually come together. */
		if (strcmp(im->k[ki].ident, result_kernel(im, r)) != 0)
			db_map_get(&im->kmap, result_kernel(im, r), &ki);
		mid = imp_metric(im, r);
		if (mid < 0)
			return (int)mid;
		sqlite3_bind_int64(st, 1, im->k[ki].run_id);
		sqlite3_bind_int64(st, 2, mid);
		sqlite3_bind_double(st, 3, r->value);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_reset(st);
			return imp_sqlerr(im, "result", r->metric);
		}
		sqlite3_reset(st);
	}
	return DB_OK;
}

/*
 * Begin (commit 0) or commit the import's transaction: a savepoint inside
 * a transaction the caller holds, else a transaction of its own.
 */
static int imp_tx(struct imp *im, int commit)
{
	int rc = commit ? db_unit_close(im->db, im->own, 1)
			: db_unit_open(im->db, &im->own);

	return rc == DB_OK ? DB_OK : db_sqlerr(im->db, im->err, im->errlen);
}

static void imp_rollback(struct imp *im)
{
	db_unit_close(im->db, im->own, 0);
}

/* The run ids of import id, into im->prev. */
static int imp_prev_runs(struct imp *im, int64_t id)
{
	sqlite3_stmt *st = db_stmt(im->db, ST_IMPORT_RUNS, sql_import_runs);
	int rc;

	if (!st)
		return imp_sqlerr(im, "import", im->o->idem_key);
	sqlite3_bind_int64(st, 1, id);
	for (;;) {
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		DB_ALLOC_GROW(im->prev, im->nprev, im->prev_alloc);
		im->prev[im->nprev++] = sqlite3_column_int64(st, 0);
	}
	db_stmt_done(st);
	if (rc != SQLITE_DONE)
		return imp_sqlerr(im, "import", im->o->idem_key);
	im->repeated = 1;
	return DB_OK;
}

/*
 * An import under a key seen before is a repeat (same content) or a
 * conflict; a new key is recorded.  Inside the transaction, so two
 * retries racing each other cannot both store.
 */
static int imp_idempotency(struct imp *im)
{
	sqlite3_stmt *st;
	int64_t id = 0;
	int same = 0;

	if (!im->o->idem_key)
		return DB_OK;
	st = db_stmt(im->db, ST_IMPORT_FIND, sql_import_find);
	if (!st)
		return imp_sqlerr(im, "import", im->o->idem_key);
	db_bind_str(st, 1, im->o->idem_key);
	if (sqlite3_step(st) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		same = !strcmp((const char *)sqlite3_column_text(st, 1),
			       im->sha);
	}
	db_stmt_done(st);
	if (id && !same)
		return db_seterr(im->err, im->errlen, DB_CONFLICT,
				 "idempotency key '%.100s' was used for "
				 "another upload", im->o->idem_key);
	if (id)
		return imp_prev_runs(im, id);
	st = db_stmt(im->db, ST_IMPORT_ADD, sql_import_add);
	if (!st)
		return imp_sqlerr(im, "import", im->o->idem_key);
	db_bind_str(st, 1, im->o->idem_key);
	db_bind_str(st, 2, im->sha);
	sqlite3_bind_int64(st, 3, im->now);
	im->import_id = insert_id(im, st, "import", im->o->idem_key);
	return im->import_id > 0 ? DB_OK : DB_ERR;
}

/* The raw upload, once for all the runs of the import. */
static int imp_blob(struct imp *im)
{
	if (!im->o->raw_name || !im->o->raw)
		return DB_OK;
	im->blob_id = db_raw_blob(im->db, im->o->raw, im->o->raw_len, im->sha);
	if (im->blob_id <= 0)
		return imp_sqlerr(im, "raw output", im->o->raw_name);
	return DB_OK;
}

/* Rig, suite, runs and results, inside the transaction. */
static int imp_store(struct imp *im)
{
	size_t i;
	int rc;

	rc = imp_idempotency(im);
	if (rc != DB_OK || im->repeated)
		return rc;

	im->rig_id = db_rig_id(im->db, im->o->rig);
	if (im->rig_id <= 0)
		return im->rig_id < 0 ? db_sqlerr(im->db, im->err, im->errlen)
			: db_seterr(im->err, im->errlen, DB_NOTFOUND,
				    "unknown rig '%s'", im->o->rig);
	im->suite_id = db_suite_id(im->db, im->o->suite);
	if (im->suite_id <= 0)
		return im->suite_id < 0
			? db_sqlerr(im->db, im->err, im->errlen)
			: db_seterr(im->err, im->errlen, DB_NOTFOUND,
				    "unknown suite '%s'", im->o->suite);
	rc = imp_blob(im);
	if (rc != DB_OK)
		return rc;
	for (i = 0; i < im->nk; i++) {
		rc = imp_run(im, &im->k[i]);
		if (rc != DB_OK)
			return rc;
	}
	return imp_results(im);
}

int db_import(struct db *db, const struct result_set *rs,
	      const struct db_import_opts *o, int64_t **run_ids,
	      size_t *nruns, char *err, size_t errlen)
{
	struct imp im = { .db = db, .rs = rs, .o = o, .err = err,
			  .errlen = errlen };
	size_t i;
	int rc;

	if (run_ids)
		*run_ids = NULL;
	if (nruns)
		*nruns = 0;
	if (!rs || !o || !o->rig || !o->suite)
		return db_seterr(err, errlen, DB_INVALID,
				 "import needs results, a rig and a suite");
	im.now = (int64_t)time(NULL);
	im.rigconf = rigconf_canonical(o->rigconf);
	rigconf_hash(im.rigconf, im.rigconf_hash);
	rc = imp_check(&im);
	if (rc != DB_OK)
		goto out_free;
	if (o->raw_name && o->raw &&
	    db_name_check(IDENT_RAW, o->raw_name, err, errlen) != DB_OK) {
		rc = DB_INVALID;
		goto out_free;
	}
	sha256_hex(o->raw ? o->raw : "", o->raw ? o->raw_len : 0, im.sha);
	rc = imp_tx(&im, 0);
	if (rc != DB_OK)
		goto out_free;
	rc = imp_store(&im);
	if (rc == DB_OK)
		rc = imp_tx(&im, 1);
	if (rc != DB_OK) {
		imp_rollback(&im);
		goto out_free;
	}
	if (im.repeated) {
		rc = DB_REPEATED;
		if (run_ids) {
			*run_ids = im.prev;
			im.prev = NULL;
		}
		if (nruns)
			*nruns = im.nprev;
		goto out_free;
	}
	if (run_ids) {
		*run_ids = db_xrealloc(NULL, im.nk * sizeof(**run_ids));
		for (i = 0; i < im.nk; i++)
			(*run_ids)[i] = im.k[i].run_id;
	}
	if (nruns)
		*nruns = im.nk;
out_free:
	free(im.rigconf);
	db_map_release(&im.kmap);
	free(im.k);
	free(im.prev);
	return rc;
}
