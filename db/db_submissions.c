// SPDX-License-Identifier: MIT
/*
 * Patch submissions, their patches, stages and cells, and the queue view
 * with its fair order.  See submissions.h.  Statements are prepared per
 * call: a submission moves a few times in its life.
 *
 * The fair order (docs/OPERATOR.md): the queued jobs of a rig go out
 * round-robin by submitter, the submitter of a job being the one of the
 * comparison it is a cell of ("" for jobs queued by hand).  Each
 * submitter's jobs are ranked oldest first; the rig takes the lowest
 * rank, among equal ranks the submitter it served longest ago, then the
 * oldest job.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "submissions.h"

#define SUB_COLS \
	"SELECT id, base, files, rigs, suites, note, who, max_cells, state, " \
	"stage, verdict, error, COALESCE(build_base, 0), " \
	"COALESCE(build_patched, 0), kernel_base, kernel_patched, report, " \
	"created, COALESCE(finished, 0), scale, scheduler, cmdline " \
	"FROM submissions "

#define C(field, type) DB_COL(db_submission, field, type)
static const struct db_col sub_cols[] = {
	C(id, INT64), C(base, STR), C(files, STR), C(rigs, STR),
	C(suites, STR), C(note, STR), C(who, STR), C(max_cells, INT),
	C(state, STR), C(stage, STR), C(verdict, STR), C(error, STR),
	C(build[0], INT64), C(build[1], INT64), C(kernel[0], STR),
	C(kernel[1], STR), C(report, STR), C(created, INT64),
	C(finished, INT64), C(scale, DOUBLE), C(scheduler, STR),
	C(cmdline, STR),
};
#undef C
static const struct db_rows sub_rows = DB_ROWS(db_submission, sub_cols);

#define C(field, type) DB_COL(db_sub_patch, field, type)
static const struct db_col patch_cols[] = {
	C(seq, INT), C(name, STR), C(subject, STR),
};
#undef C
static const struct db_rows patch_rows = DB_ROWS(db_sub_patch, patch_cols);

#define C(field, type) DB_COL(db_sub_stage, field, type)
static const struct db_col stage_cols[] = {
	C(stage, STR), C(state, STR), C(log, STR), C(started, INT64),
	C(finished, INT64),
};
#undef C
static const struct db_rows stage_rows = DB_ROWS(db_sub_stage, stage_cols);

#define C(field, type) DB_COL(db_sub_cell, field, type)
static const struct db_col cell_cols[] = {
	C(comparison, INT64), C(rig, STR), C(suite, STR),
};
#undef C
static const struct db_rows cell_rows = DB_ROWS(db_sub_cell, cell_cols);

#define C(field, type) DB_COL(db_queue_job, field, type)
static const struct db_col qjob_cols[] = {
	C(id, INT64), C(kernel, STR), C(rig, STR), C(suite, STR),
	C(state, STR), C(who, STR), C(submission, INT64), C(created, INT64),
	C(started, INT64), C(pool, STR),
};
#undef C
static const struct db_rows qjob_rows = DB_ROWS(db_queue_job, qjob_cols);

DB_DEFINE_RELEASE(submission, submissions, db_submission, sub_rows)
DB_DEFINE_RUNNING(submission, db_submission, sub_rows, SUB_COLS)

int db_submission_ended(struct db *db, int64_t since, int limit,
			struct db_submission **out, size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &sub_rows, &v, n, SUB_COLS "WHERE state != "
			     "'running' AND finished >= ? ORDER BY finished "
			     "DESC, id DESC LIMIT ?", "Ii", since,
			     limit > 0 ? limit : -1);

	*out = v;
	return rc;
}
DB_DEFINE_FREE(sub_patches, db_sub_patch, patch_rows)
DB_DEFINE_FREE(sub_stages, db_sub_stage, stage_rows)
DB_DEFINE_FREE(sub_cells, db_sub_cell, cell_rows)
DB_DEFINE_FREE(queue_jobs, db_queue_job, qjob_rows)

static int sub_patch_add(struct db *db, int64_t id,
			 const struct db_sub_patch *p)
{
	return db_run(db, "INSERT INTO submission_patches (submission_id, "
		      "seq, name, subject) VALUES (?, ?, ?, ?)", "Iiss", id,
		      p->seq, p->name, p->subject) == SQLITE_DONE ? DB_OK :
		      DB_ERR;
}

int db_submission_add(struct db *db, const struct db_submission *s,
		      const struct db_sub_patch *p, size_t n,
		      const char *check_log, int64_t *id, char *err,
		      size_t errlen)
{
	size_t i;
	int rc;

	rc = db_run(db, "INSERT INTO submissions (base, files, rigs, suites, "
		    "note, who, max_cells, scale, scheduler, cmdline, created) "
		    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "ssssssidssT",
		    s->base, s->files, s->rigs, s->suites, s->note, s->who,
		    s->max_cells, s->scale > 0 ? s->scale : 1.0, s->scheduler,
		    s->cmdline);
	if (rc != SQLITE_DONE)
		return db_sqlerr(db, err, errlen);
	*id = sqlite3_last_insert_rowid(db->h);
	for (i = 0; i < n; i++)
		if (sub_patch_add(db, *id, &p[i]))
			return db_sqlerr(db, err, errlen);
	if (db_run(db, "INSERT INTO submission_stages (submission_id, stage, "
		   "state, log, started, finished) VALUES (?, 'check', 'done', "
		   "?, ?3, ?3)", "IsT", *id, check_log) != SQLITE_DONE ||
	    db_submission_stage_begin(db, *id, "build"))
		return db_sqlerr(db, err, errlen);
	return DB_OK;
}

int db_submission_update(struct db *db, int64_t id, const char *state,
			 const char *stage, const char *verdict,
			 const char *error, const char *report)
{
	int rc = db_run(db, "UPDATE submissions SET state = COALESCE(?1, "
			"state), stage = COALESCE(?2, stage), verdict = "
			"COALESCE(?3, verdict), error = COALESCE(?4, error), "
			"report = COALESCE(?5, report), finished = CASE WHEN "
			"COALESCE(?1, state) != 'running' THEN ?7 ELSE NULL "
			"END WHERE id = ?6 AND (?1 IS NULL OR state = "
			"'running')", "zzzzzIT", state, stage, verdict,
			error, report, id);

	if (rc != SQLITE_DONE)
		return DB_ERR;
	return sqlite3_changes(db->h) ? DB_OK : DB_NOTFOUND;
}

int db_submission_set_build(struct db *db, int64_t id, int side,
			    int64_t build, const char *ident)
{
	int rc = db_run(db, side ? "UPDATE submissions SET build_patched = "
			"?1, kernel_patched = COALESCE(?2, kernel_patched) "
			"WHERE id = ?3" : "UPDATE submissions SET build_base = "
			"?1, kernel_base = COALESCE(?2, kernel_base) WHERE id "
			"= ?3", "IzI", build, ident, id);

	return rc == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_submission_of_build(struct db *db, int64_t build, int64_t *id)
{
	*id = 0;
	return db_run_row(db, &db_rows_int64, id, "SELECT id FROM "
			  "submissions WHERE ?1 > 0 AND (build_base = ?1 OR "
			  "build_patched = ?1) LIMIT 1", "I", build);
}

int db_submission_ahead(struct db *db, int64_t id)
{
	int64_t n = 0;
	void *v;
	size_t nv = 0;

	if (db_run_rows(db, &db_rows_int64, &v, &nv, "SELECT COUNT(*) FROM "
			"submissions WHERE state = 'running' AND id < ?", "I",
			id))
		return 0;
	if (nv)
		n = ((int64_t *)v)[0];
	free(v);
	return (int)n;
}

DB_DEFINE_ROWS_OF(db_submission_patches, db_sub_patch, patch_rows,
		  "SELECT seq, name, subject FROM submission_patches WHERE "
		  "submission_id = ? ORDER BY seq")
DB_DEFINE_ROWS_OF(db_submission_stages, db_sub_stage, stage_rows,
		  "SELECT stage, state, log, started, COALESCE(finished, 0) "
		  "FROM submission_stages WHERE submission_id = ? ORDER BY id")
DB_DEFINE_ROWS_OF(db_submission_cells, db_sub_cell, cell_rows,
		  "SELECT comparison_id, rig, suite FROM submission_cells "
		  "WHERE submission_id = ? ORDER BY comparison_id")

int db_submission_stage_begin(struct db *db, int64_t id, const char *stage)
{
	return db_run(db, "INSERT INTO submission_stages (submission_id, "
		      "stage, started) VALUES (?, ?, ?)", "IsT", id,
		      stage) == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_submission_stage_end(struct db *db, int64_t id, const char *stage,
			    const char *state, const char *log)
{
	return db_run(db, "UPDATE submission_stages SET state = ?3, log = "
		      "log || ?4, finished = ?5 WHERE submission_id = ?1 AND "
		      "stage = ?2 AND state = 'running'", "IsssT", id, stage,
		      state, log) == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_submission_cell_add(struct db *db, int64_t id, int64_t comparison,
			   const char *rig, const char *suite)
{
	return db_run(db, "INSERT INTO submission_cells (submission_id, "
		      "comparison_id, rig, suite) VALUES (?, ?, ?, ?)",
		      "IIss", id, comparison, rig, suite) == SQLITE_DONE ?
		      DB_OK : DB_ERR;
}

/* ---- the queue view and its fair order ------------------------------ */

/* The submitter of job j: its comparison's, "" for jobs queued by hand. */
#define JOB_WHO(j) "COALESCE((SELECT c.who FROM comparison_jobs x JOIN " \
	"comparisons c ON c.id = x.comparison_id WHERE x.job_id = " j \
	".id), '')"

/*
 * A comparison's cell for rig ?1: how many more cells of its side than
 * of the other side the rig has taken of that comparison (0 for a job of
 * no comparison, or with no rig named).  Taking the lowest first gives
 * each rig of a class both sides of a comparison (issue 31), and keeps
 * the A B B A order on a single rig.
 */
#define JOB_SIDE_LEAN(j) "COALESCE((SELECT SUM(CASE WHEN x2.side = x.side " \
	"THEN 1 ELSE -1 END) FROM comparison_jobs x JOIN comparison_jobs x2 " \
	"ON x2.comparison_id = x.comparison_id JOIN jobs j3 ON j3.id = " \
	"x2.job_id JOIN rigs g3 ON g3.id = j3.rig_id WHERE x.job_id = " j \
	".id AND j3.state != 'queued' AND g3.name = ?1), 0)"

/*
 * The queued jobs rig ?1 may take (NULL: all): its own, and those queued
 * for a class that means it (DB_RIGS_NAMED: its class, or its name when
 * no rig has that class, as for a job queued by its name before the
 * configuration put it in a pool; migration 23), with their submitter,
 * rank among the submitter's queued jobs for the rig or class (rn, the
 * cells of a comparison leaning towards the side the rig has had less
 * of) and the time the rig last started one of the submitter's jobs
 * (served).
 */
#define FAIR_QUEUED \
	"WITH q AS (SELECT j.id, j.rig_id, j.class, " JOB_WHO("j") " AS who, " \
	JOB_SIDE_LEAN("j") " AS lean FROM jobs j JOIN rigs g ON g.id = " \
	"j.rig_id WHERE j.state = 'queued' AND (?1 IS NULL OR (j.class = '' " \
	"AND g.name = ?1) OR (j.class <> '' AND (SELECT id FROM rigs WHERE " \
	"name = ?1) IN " DB_RIGS_NAMED("j.class") "))), f AS (SELECT q.id, " \
	"q.who, ROW_NUMBER() OVER (PARTITION BY CASE WHEN q.class <> '' THEN " \
	"q.class ELSE q.rig_id END, q.who ORDER BY q.lean, q.id) AS rn, " \
	"COALESCE((SELECT MAX(j2.started) FROM jobs j2 WHERE (j2.rig_id = " \
	"q.rig_id OR (q.class <> '' AND j2.class = q.class)) AND " \
	"j2.state != 'queued' AND " JOB_WHO("j2") " = q.who), 0) AS served " \
	"FROM q) "
#define FAIR_ORDER "f.rn, f.served, f.id"

int64_t db_queue_next(struct db *db, const char *rig)
{
	int64_t id = 0;
	void *v;
	size_t n = 0;

	if (db_run_rows(db, &db_rows_int64, &v, &n, FAIR_QUEUED "SELECT f.id "
			"FROM f ORDER BY " FAIR_ORDER " LIMIT 1", "z", rig))
		return -1;
	if (n)
		id = ((int64_t *)v)[0];
	free(v);
	return id;
}

/* A queued job's rig is the class it waits for when it was queued for
 * one (jobs.class: a pool's name, or a rig's own), else the rig it was
 * queued for or handed to. */
#define QJOB_RIG "CASE WHEN j.state = 'queued' AND j.class <> '' THEN " \
	"j.class ELSE g.name END"
#define QJOB_COLS(who) \
	"SELECT j.id, k.ident, " QJOB_RIG ", s.name, j.state, " who ", " \
	"COALESCE((SELECT sc.submission_id FROM submission_cells sc JOIN " \
	"comparison_jobs x ON x.comparison_id = sc.comparison_id WHERE " \
	"x.job_id = j.id), 0), j.created, COALESCE(j.started, 0), " \
	"COALESCE(j.class, '') FROM "

#define QJOB_JOIN \
	"JOIN kernels k ON k.id = j.kernel_id JOIN rigs g ON g.id = " \
	"j.rig_id JOIN suites s ON s.id = j.suite_id "

int db_queue_jobs(struct db *db, const char *rig, int active,
		  struct db_queue_job **out, size_t *n)
{
	void *v;
	int rc;

	if (active)
		rc = db_run_rows(db, &qjob_rows, &v, n, QJOB_COLS(JOB_WHO("j"))
				 "jobs j " QJOB_JOIN "WHERE j.state IN "
				 "('assigned', 'booting', 'running') AND (?1 "
				 "IS NULL OR g.name = ?1) ORDER BY g.name, "
				 "j.id", "z", rig);
	else
		rc = db_run_rows(db, &qjob_rows, &v, n, FAIR_QUEUED
				 QJOB_COLS("f.who") "f JOIN jobs j ON j.id = "
				 "f.id " QJOB_JOIN "ORDER BY " QJOB_RIG ", "
				 FAIR_ORDER, "z", rig);
	*out = v;
	return rc;
}

DB_DEFINE_ROWS_OF(db_submission_jobs, db_queue_job, qjob_rows,
		  QJOB_COLS(JOB_WHO("j")) "submission_cells sc JOIN "
		  "comparison_jobs x ON x.comparison_id = sc.comparison_id "
		  "JOIN jobs j ON j.id = x.job_id " QJOB_JOIN "WHERE "
		  "sc.submission_id = ? ORDER BY j.id")
