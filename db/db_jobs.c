// SPDX-License-Identifier: MIT
/*
 * The job queue, kernel boot artifacts and rig tokens.  See jobs.h.
 * Statements here are prepared per call: jobs move a few times a minute,
 * not thousands of times a second like results.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_int.h"
#include "jobs.h"
#include "submissions.h"

#define JOB_COLS \
	"SELECT j.id, k.ident, g.name, s.name, j.scheduler, j.scale, " \
	"j.state, j.failure, j.error, j.console, j.output, j.attempts, " \
	"j.created, COALESCE(j.started, 0), " \
	"COALESCE(j.finished, 0), j.cmdline FROM jobs j JOIN kernels k ON " \
	"k.id = j.kernel_id JOIN rigs g ON g.id = j.rig_id JOIN suites s " \
	"ON s.id = j.suite_id "

#define C(field, type) DB_COL(db_job, field, type)
static const struct db_col job_cols[] = {
	C(id, INT64), C(kernel, STR), C(rig, STR), C(suite, STR),
	C(scheduler, STR), C(scale, DOUBLE), C(state, STR), C(failure, STR),
	C(error, STR), C(console, STR), C(output, STR), C(attempts, INT),
	C(created, INT64), C(started, INT64),
	C(finished, INT64), C(cmdline, STR),
};
#undef C

static const struct db_rows job_rows = DB_ROWS(db_job, job_cols);
DB_DEFINE_RELEASE(job, jobs, db_job, job_rows)

#define C(field, type) DB_COL(db_kernel_boot, field, type)
static const struct db_col boot_cols[] = {
	C(release, STR), C(image, STR), C(modules, STR),
};
#undef C

static const struct db_rows boot_rows = DB_ROWS(db_kernel_boot, boot_cols);

int db_job_add(struct db *db, const struct db_job_new *j, int64_t *id,
	       char *err, size_t errlen)
{
	int64_t kid = db_kernel_id(db, j->kernel), gid,
		sid = db_suite_id(db, j->suite);
	const char *klass = "";
	int rc;

	/* a class: any of its rigs takes the job (db_job_assign) */
	gid = db_scalar(db, ST_RIG_CLASS, "SELECT coalesce(min(id), 0) FROM "
			"rigs WHERE class = ?1", j->rig, 0);
	if (gid > 0)
		klass = j->rig;
	else if (gid == 0)
		gid = db_rig_id(db, j->rig);

	if (kid <= 0)
		return db_seterr(err, errlen, kid < 0 ? DB_ERR : DB_NOTFOUND,
				 "unknown kernel '%s'", j->kernel);
	if (gid <= 0)
		return db_seterr(err, errlen, gid < 0 ? DB_ERR : DB_NOTFOUND,
				 "unknown rig '%s'", j->rig);
	if (sid <= 0)
		return db_seterr(err, errlen, sid < 0 ? DB_ERR : DB_NOTFOUND,
				 "unknown suite '%s'", j->suite);
	rc = db_run(db, "INSERT INTO jobs (kernel_id, rig_id, suite_id, "
		    "scheduler, scale, created, cmdline, class) "
		    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", "IIIsdTss", kid, gid,
		    sid, j->scheduler, j->scale > 0 ? j->scale : 1.0,
		    j->cmdline, klass);
	if (rc != SQLITE_DONE)
		return db_sqlerr(db, err, errlen);
	if (id)
		*id = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

int db_job_get(struct db *db, int64_t id, struct db_job *out)
{
	return db_run_row(db, &job_rows, out, JOB_COLS "WHERE j.id = ?", "I",
			  id);
}

/* Round-robin by submitter, not first come first served: see
 * db_queue_next (db_submissions.c) and docs/OPERATOR.md. */
int db_job_next(struct db *db, const char *rig, struct db_job *out)
{
	int64_t id = db_queue_next(db, rig);

	if (id <= 0)
		return id < 0 ? DB_ERR : DB_NOTFOUND;
	return db_job_get(db, id, out);
}

int db_job_list(struct db *db, const char *rig, const char *state,
		int limit, struct db_job **out, size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &job_rows, &v, n, JOB_COLS
			     "WHERE (?1 IS NULL OR g.id IN "
			     DB_RIGS_NAMED("?1") ")"
			     " AND (?2 IS NULL OR j.state = ?2) "
			     "ORDER BY j.id DESC LIMIT ?3", "zzi", rig, state,
			     limit > 0 ? limit : -1);

	*out = v;
	return rc;
}

static int exec_bound(struct db *db, const char *sql, const char *s1,
		      int64_t i2)
{
	sqlite3_stmt *st = db_prepare(db, sql);
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_str(st, 1, s1);
	sqlite3_bind_int64(st, 2, i2);
	sqlite3_bind_int64(st, 3, (int64_t)time(NULL));
	rc = db_exec_retry(db, st, "job state");
	sqlite3_finalize(st);
	if (rc != DB_OK)
		return DB_ERR;
	return sqlite3_changes(db->h) ? DB_OK : DB_NOTFOUND;
}

int db_job_set_state(struct db *db, int64_t id, const char *state)
{
	return exec_bound(db, "UPDATE jobs SET state = ?1, "
		"started = CASE WHEN ?1 = 'assigned' THEN ?3 ELSE started END, "
		"finished = CASE WHEN ?1 IN ('done', 'failed') THEN ?3 "
		"ELSE finished END WHERE id = ?2", state, id);
}

int db_job_assign(struct db *db, int64_t id, const char *rig)
{
	int64_t gid = db_rig_id(db, rig);

	if (gid <= 0)
		return gid < 0 ? DB_ERR : DB_NOTFOUND;
	if (db_run(db, "UPDATE jobs SET state = 'assigned', rig_id = CASE "
		   "WHEN class <> '' THEN ?1 ELSE rig_id END, started = ?3 "
		   "WHERE id = ?2 AND state = 'queued'", "IIT", gid, id) !=
	    SQLITE_DONE)
		return DB_ERR;
	return sqlite3_changes(db->h) ? DB_OK : DB_NOTFOUND;
}

int db_job_fail(struct db *db, int64_t id, const char *klass,
		const char *error, const char *console, const char *output,
		int max_attempts)
{
	sqlite3_stmt *st = db_prepare(db, "UPDATE jobs SET failure = ?1, "
		"error = ?2, console = ?3, output = ?4, "
		"attempts = attempts + 1, "
		"state = CASE WHEN ?1 = 'infra' AND attempts + 1 < ?5 "
		"THEN 'queued' ELSE 'failed' END, finished = CASE WHEN "
		"?1 = 'infra' AND attempts + 1 < ?5 THEN NULL ELSE ?6 END "
		"WHERE id = ?7");
	int rc;

	if (!st)
		return DB_ERR;
	db_bind(st, "ssssiTI", klass, error, console, output, max_attempts,
		id);
	rc = db_exec_retry(db, st, "job failure");
	sqlite3_finalize(st);
	if (rc != DB_OK)
		return DB_ERR;
	return sqlite3_changes(db->h) ? DB_OK : DB_NOTFOUND;
}

int db_job_runs(struct db *db, int64_t id, int64_t **runs, size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &db_rows_int64, &v, n, "SELECT id FROM runs "
			     "WHERE job_id = ? ORDER BY id", "I", id);

	*runs = v;
	return rc;
}

int db_job_requeue_stale(struct db *db)
{
	sqlite3_stmt *st = db_prepare(db, "UPDATE jobs SET state = 'queued' "
				"WHERE state IN ('assigned', 'booting', "
				"'running')");
	int rc;

	if (!st)
		return DB_ERR;
	rc = db_exec_retry(db, st, "requeue of stale jobs");
	sqlite3_finalize(st);
	return rc == DB_OK ? sqlite3_changes(db->h) : DB_ERR;
}

int db_kernel_set_boot(struct db *db, const char *ident,
		       const char *release, const char *image,
		       const char *modules)
{
	int rc = db_run(db, "UPDATE kernels SET release = ?, image = ?, "
			"modules = ? WHERE ident = ?", "ssss", release, image,
			modules, ident);

	if (rc != SQLITE_DONE)
		return DB_ERR;
	return sqlite3_changes(db->h) ? DB_OK : DB_NOTFOUND;
}

int db_kernel_get_boot(struct db *db, const char *ident,
		       struct db_kernel_boot *out)
{
	return db_run_row(db, &boot_rows, out, "SELECT release, image, modules "
			  "FROM kernels WHERE ident = ? AND image != ''", "s",
			  ident);
}

void db_kernel_boot_release(struct db_kernel_boot *b)
{
	db_row_release(&boot_rows, b);
}

int db_rig_set_token(struct db *db, const char *rig, const char *token)
{
	int64_t id = db_rig_id(db, rig);

	if (id <= 0)
		return id < 0 ? DB_ERR : DB_NOTFOUND;
	return exec_bound(db, "UPDATE rigs SET token = ?1 WHERE id = ?2 "
			  "AND ?3 > 0", token, id);
}

int db_rig_set_class(struct db *db, const char *rig, const char *klass)
{
	int64_t id = db_rig_id(db, rig);

	if (id <= 0)
		return id < 0 ? DB_ERR : DB_NOTFOUND;
	return exec_bound(db, "UPDATE rigs SET class = ?1 WHERE id = ?2 "
			  "AND ?3 > 0", klass, id) == DB_ERR ? DB_ERR : DB_OK;
}

char *db_rig_by_token(struct db *db, const char *token)
{
	sqlite3_stmt *st;
	char *name = NULL;

	if (!token || !*token)
		return NULL;
	st = db_prepare(db, "SELECT name FROM rigs WHERE token = ?");
	if (!st)
		return NULL;
	db_bind_str0(st, 1, token);
	if (sqlite3_step(st) == SQLITE_ROW)
		name = db_col_str(st, 0);
	sqlite3_finalize(st);
	return name;
}
