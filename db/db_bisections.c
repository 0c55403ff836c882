// SPDX-License-Identifier: MIT
/*
 * Bisections, their candidates and steps.  See bisections.h.  Statements are
 * prepared per call: a bisection moves a few times a minute at most.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisections.h"
#include "db_int.h"

#define BIS_COLS \
	"SELECT id, kind, base, good, bad, rig, suite, metrics, max_cells, " \
	"state, phase, answer, outcome, report, error, who, created, " \
	"COALESCE(finished, 0), steps_hint, scale, scheduler, cmdline " \
	"FROM bisections "

#define C(field, type) DB_COL(db_bisection, field, type)
static const struct db_col bis_cols[] = {
	C(id, INT64), C(kind, STR), C(base, STR), C(good, STR), C(bad, STR),
	C(rig, STR), C(suite, STR), C(metrics, STR), C(max_cells, INT),
	C(state, STR), C(phase, STR), C(answer, INT), C(outcome, STR),
	C(report, STR), C(error, STR), C(who, STR), C(created, INT64),
	C(finished, INT64), C(steps_hint, INT), C(scale, DOUBLE),
	C(scheduler, STR), C(cmdline, STR),
};
#undef C
static const struct db_rows bis_rows = DB_ROWS(db_bisection, bis_cols);

#define C(field, type) DB_COL(db_bis_cand, field, type)
static const struct db_col cand_cols[] = {
	C(idx, INT), C(label, STR), C(subject, STR), C(author, STR),
	C(file, STR), C(kernel, STR), C(build, INT64),
};
#undef C
static const struct db_rows cand_rows = DB_ROWS(db_bis_cand, cand_cols);

#define C(field, type) DB_COL(db_bis_step, field, type)
static const struct db_col step_cols[] = {
	C(id, INT64), C(idx, INT), C(purpose, STR), C(build, INT64),
	C(kernel, STR), C(comparison, INT64), C(mark, STR), C(reason, STR),
	C(delta, STR), C(cells, INT), C(created, INT64), C(finished, INT64),
};
#undef C
static const struct db_rows step_rows = DB_ROWS(db_bis_step, step_cols);

DB_DEFINE_RELEASE(bisection, bisections, db_bisection, bis_rows)
DB_DEFINE_RELEASE(bis_cand, bis_cands, db_bis_cand, cand_rows)
DB_DEFINE_RELEASE(bis_step, bis_steps, db_bis_step, step_rows)
DB_DEFINE_RUNNING(bisection, db_bisection, bis_rows, BIS_COLS)

static int bis_insert(struct db *db, const struct db_bisection *b,
		      const struct db_bis_cand *c, size_t n, int64_t *id)
{
	size_t i;

	if (db_run(db, "INSERT INTO bisections (kind, base, good, bad, rig, "
		   "suite, metrics, max_cells, scale, scheduler, cmdline, who, "
		   "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		   "sssssssidsssT", b->kind, b->base, b->good, b->bad, b->rig,
		   b->suite, b->metrics, b->max_cells, b->scale > 0 ? b->scale :
		   1.0, b->scheduler, b->cmdline, b->who) != SQLITE_DONE)
		return DB_ERR;
	*id = sqlite3_last_insert_rowid(db->h);
	for (i = 0; i < n; i++)
		if (db_run(db, "INSERT INTO bisection_candidates "
			   "(bisection_id, idx, label, subject, author, file, "
			   "kernel) VALUES (?, ?, ?, ?, ?, ?, ?)", "Iisssss",
			   *id, c[i].idx,
			   c[i].label, c[i].subject, c[i].author, c[i].file,
			   c[i].kernel) != SQLITE_DONE)
			return DB_ERR;
	return DB_OK;
}

int db_bisection_add(struct db *db, const struct db_bisection *b,
		     const struct db_bis_cand *c, size_t n, int64_t *id,
		     char *err, size_t errlen)
{
	if (db_begin(db))
		return db_sqlerr(db, err, errlen);
	if (bis_insert(db, b, c, n, id)) {
		db_sqlerr(db, err, errlen);
		db_rollback(db);
		return DB_ERR;
	}
	if (db_commit(db))
		return db_sqlerr(db, err, errlen);
	return DB_OK;
}

int db_bisection_update(struct db *db, int64_t id, const char *state,
			const char *phase, int answer, const char *outcome,
			const char *report, const char *error)
{
	int rc = db_run(db, "UPDATE bisections SET state = COALESCE(?1, "
			"state), phase = COALESCE(?2, phase), answer = CASE "
			"WHEN ?3 < -1 THEN answer ELSE ?3 END, outcome = "
			"COALESCE(?4, outcome), report = COALESCE(?5, report), "
			"error = COALESCE(?6, error), finished = CASE WHEN "
			"COALESCE(?1, state) != 'running' THEN ?8 ELSE NULL "
			"END WHERE id = ?7", "zzizzzIT", state, phase, answer,
			outcome, report, error, id);

	if (rc != SQLITE_DONE)
		return DB_ERR;
	return sqlite3_changes(db->h) ? DB_OK : DB_NOTFOUND;
}

int db_bisection_set_hint(struct db *db, int64_t id, int steps_hint)
{
	return db_run(db, "UPDATE bisections SET steps_hint = ? WHERE id = ?",
		      "iI", steps_hint, id) == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_bisection_cand_add(struct db *db, int64_t id,
			  const struct db_bis_cand *c)
{
	return db_run(db, "INSERT INTO bisection_candidates (bisection_id, "
		      "idx, label, subject, author, file, kernel, build_id) "
		      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", "IisssssI", id, c->idx,
		      c->label, c->subject, c->author, c->file, c->kernel,
		      c->build) == SQLITE_DONE ? DB_OK : DB_ERR;
}

DB_DEFINE_ROWS_OF(db_bisection_candidates, db_bis_cand, cand_rows,
		  "SELECT idx, label, subject, author, file, kernel, build_id "
		  "FROM bisection_candidates WHERE bisection_id = ? ORDER BY "
		  "idx")

int db_bisection_of_build(struct db *db, int64_t build, int64_t *id)
{
	*id = 0;
	return db_run_row(db, &db_rows_int64, id, "SELECT bisection_id FROM "
			  "bisection_candidates WHERE build_id = ? AND "
			  "build_id > 0 LIMIT 1", "I", build);
}

int db_bisection_set_kernel(struct db *db, int64_t id, int idx,
			    const char *kernel, int64_t build)
{
	return db_run(db, "UPDATE bisection_candidates SET kernel = "
		      "COALESCE(?1, kernel), build_id = CASE WHEN ?2 > 0 THEN "
		      "?2 ELSE build_id END WHERE bisection_id = ?3 AND idx = "
		      "?4", "zIIi", kernel, build, id, idx) == SQLITE_DONE ?
	       DB_OK : DB_ERR;
}

DB_DEFINE_ROWS_OF(db_bisection_steps, db_bis_step, step_rows,
		  "SELECT id, idx, purpose, build_id, kernel, comparison_id, "
		  "mark, reason, delta, cells, created, COALESCE(finished, 0) "
		  "FROM bisection_steps WHERE bisection_id = ? ORDER BY id")

int db_bisection_step_add(struct db *db, int64_t id, int idx,
			  const char *purpose, int64_t *step)
{
	if (db_run(db, "INSERT INTO bisection_steps (bisection_id, idx, "
		   "purpose, created) VALUES (?, ?, ?, ?)", "IisT", id, idx,
		   purpose) != SQLITE_DONE)
		return DB_ERR;
	*step = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

int db_bisection_verified(struct db *db, int64_t id, int idx, int64_t cmp)
{
	if (db_run(db, "INSERT INTO bisection_steps (bisection_id, idx, "
		   "purpose, kernel, comparison_id, created) SELECT ?1, ?2, "
		   "'verify', candidate, id, ?4 FROM comparisons WHERE id = "
		   "?3", "IiIT",
		   id, idx, cmp) != SQLITE_DONE)
		return DB_ERR;
	return sqlite3_changes(db->h) == 1 ? DB_OK : DB_NOTFOUND;
}

int db_bisection_step_set(struct db *db, const struct db_bis_step *s)
{
	return db_run(db, "UPDATE bisection_steps SET build_id = ?1, kernel = "
		      "?2, comparison_id = ?3, mark = ?4, reason = ?5, delta = "
		      "?6, cells = ?7, finished = CASE WHEN ?4 != '' THEN ?9 "
		      "ELSE NULL END WHERE id = ?8", "IsIsssiIT", s->build,
		      s->kernel, s->comparison, s->mark, s->reason, s->delta,
		      s->cells, s->id) == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_bisection_of_change(struct db *db, const char *link,
			   const char *before, const char *after,
			   struct db_bisection *b, struct db_bis_cand *c)
{
	int64_t id = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	c->idx = -1;
	rc = db_run_row(db, &db_rows_int64, &id, "SELECT b.id FROM bisections "
			"b WHERE (?1 != '' AND ?1 = '/bisections/' || b.id) "
			"OR (?2 != '' AND ?3 != '' AND ((b.good = ?2 AND "
			"b.bad = ?3) OR (EXISTS (SELECT 1 FROM "
			"bisection_candidates c WHERE c.bisection_id = b.id "
			"AND c.idx = 0 AND c.kernel = ?2) AND EXISTS (SELECT 1 "
			"FROM bisection_candidates c WHERE c.bisection_id = "
			"b.id AND c.idx > 0 AND c.kernel = ?3)))) ORDER BY "
			"b.answer >= 0 DESC, b.id DESC LIMIT 1", "sss", link,
			before, after);
	if (rc)
		return rc;
	rc = db_bisection_get(db, id, b);
	if (rc || b->answer < 0)
		return rc;
	rc = db_run_row(db, &cand_rows, c, "SELECT idx, label, subject, "
			"author, file, kernel, build_id FROM "
			"bisection_candidates WHERE bisection_id = ? AND idx = "
			"?", "Ii", id, b->answer);
	if (rc == DB_NOTFOUND) {
		c->idx = -1;
		rc = DB_OK;
	}
	if (rc)
		db_bisection_release(b);
	return rc;
}
