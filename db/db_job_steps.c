// SPDX-License-Identifier: MIT
/*
 * Where a job's time went: its steps (table job_steps, migration 22), and
 * their means over many jobs, so an operator sees what a cell of a rig
 * and suite spends its time on (GET /api/steps, `klab steps`).  See
 * jobs.h.
 */
#include <stdlib.h>

#include "db_int.h"
#include "jobs.h"

#define C(field, type) DB_COL(db_job_step, field, type)
static const struct db_col step_cols[] = {
	C(name, STR), C(rep, INT), C(secs, DOUBLE),
};
#undef C

static const struct db_rows step_rows = DB_ROWS(db_job_step, step_cols);
DB_DEFINE_FREE(job_steps, db_job_step, step_rows)

#define C(field, type) DB_COL(db_step_mean, field, type)
static const struct db_col mean_cols[] = {
	C(name, STR), C(secs, DOUBLE), C(jobs, INT64), C(total, INT64),
};
#undef C

static const struct db_rows mean_rows = DB_ROWS(db_step_mean, mean_cols);
DB_DEFINE_FREE(step_means, db_step_mean, mean_rows)

int db_job_steps_put(struct db *db, int64_t job, const struct db_job_step *v,
		     size_t n)
{
	size_t i;

	if (db_run(db, "DELETE FROM job_steps WHERE job_id = ?", "I", job) !=
	    SQLITE_DONE)
		return DB_ERR;
	for (i = 0; i < n; i++)
		if (db_run(db, "INSERT INTO job_steps (job_id, seq, rep, name, "
			   "secs) VALUES (?, ?, ?, ?, ?)", "Iiisd", job,
			   (int)i + 1, v[i].rep, v[i].name, v[i].secs) !=
		    SQLITE_DONE)
			return DB_ERR;
	return DB_OK;
}

int db_job_steps(struct db *db, int64_t job, struct db_job_step **out,
		 size_t *n)
{
	void *v;
	int rc = db_run_rows(db, &step_rows, &v, n, "SELECT name, rep, secs "
			     "FROM job_steps WHERE job_id = ? ORDER BY seq",
			     "I", job);

	*out = v;
	return rc;
}

/* The jobs counted: done, with steps, of the rig and suite, newest
 * first; then each step's total per job averaged over those jobs, in the
 * order of its mean place in its jobs (a job's steps differ: one without
 * a kexec has no boot). */
static const char sql_means[] =
	"WITH j AS (SELECT j.id FROM jobs j JOIN rigs g ON g.id = j.rig_id"
	" JOIN suites s ON s.id = j.suite_id WHERE j.state = 'done'"
	" AND (?1 IS NULL OR g.name = ?1) AND (?2 IS NULL OR s.name = ?2)"
	" AND EXISTS (SELECT 1 FROM job_steps x WHERE x.job_id = j.id)"
	" ORDER BY j.id DESC LIMIT ?3),"
	" n AS (SELECT count(*) AS n FROM j),"
	" c AS (SELECT x.job_id, count(*) AS c FROM job_steps x JOIN j"
	" ON j.id = x.job_id GROUP BY x.job_id)"
	" SELECT x.name, sum(x.secs) / (SELECT n FROM n),"
	" count(DISTINCT x.job_id), (SELECT n FROM n)"
	" FROM job_steps x JOIN c ON c.job_id = x.job_id"
	" GROUP BY x.name ORDER BY avg((x.seq - 0.5) / c.c), x.name";

int db_job_step_means(struct db *db, const char *rig, const char *suite,
		      int limit, struct db_step_mean **out, size_t *n,
		      int64_t *jobs)
{
	void *v = NULL;
	int rc;

	*jobs = 0;
	rc = db_run_rows(db, &mean_rows, &v, n, sql_means, "zzi", rig, suite,
			 limit > 0 ? limit : -1);
	*out = v;
	if (rc == DB_OK && *n)
		*jobs = (*out)[0].total;
	return rc;
}
