// SPDX-License-Identifier: MIT
/*
 * db_track: the tracked kernel lines of track.h and the heads of the
 * git lines.  A handful of rows written once an hour, or once a head:
 * statements are kept by db_query.
 */
#include <string.h>

#include "db_int.h"
#include "track.h"

#define TRACK_COLS \
	"SELECT id, distro, line, rigs, suite, last_package, last_kernel," \
	" checks, last_check, last_error, jobs, who, created, base, branch," \
	" state, backlog, max_cells, scale FROM tracks "

#define C(field, type) DB_COL(db_track, field, type)
static const struct db_col track_cols[] = {
	C(id, INT64), C(distro, STR), C(line, STR), C(rigs, STR),
	C(suite, STR), C(last_package, STR), C(last_kernel, STR),
	C(checks, INT64), C(last_check, INT64), C(last_error, STR),
	C(jobs, INT64), C(who, STR), C(created, INT64), C(base, STR),
	C(branch, STR), C(state, STR), C(backlog, INT64),
	C(max_cells, INT64), C(scale, DOUBLE),
};
#undef C

static const struct db_rows track_rows = DB_ROWS(db_track, track_cols);
DB_DEFINE_RELEASE(track, tracks, db_track, track_rows)

int db_track_add(struct db *db, const struct db_track *t, int64_t *id,
		 char *err, size_t errlen)
{
	int rc;

	rc = db_run(db, "INSERT INTO tracks (distro, line, rigs, suite, who, "
		    "created, base, branch, state, max_cells, scale) VALUES "
		    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "sssssTsssId",
		    t->distro, t->line, t->rigs, t->suite, t->who, t->base,
		    t->branch, t->state, t->max_cells,
		    t->scale > 0 ? t->scale : 1.0);
	if (rc == SQLITE_CONSTRAINT)
		return db_seterr(err, errlen, DB_CONFLICT, "'%s %s' is "
				 "tracked already on rigs '%s' with suite "
				 "'%s'", t->distro, t->line, t->rigs,
				 t->suite);
	if (rc != SQLITE_DONE)
		return db_sqlerr(db, err, errlen);
	if (id)
		*id = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

int db_track_get(struct db *db, int64_t id, struct db_track *out)
{
	return db_run_row(db, &track_rows, out, TRACK_COLS "WHERE id = ?",
			  "I", id);
}

int db_track_list(struct db *db, struct db_track **out, size_t *n)
{
	void *v = NULL;
	int rc = db_run_rows(db, &track_rows, &v, n, TRACK_COLS
			     "ORDER BY id", "");

	*out = v;
	return rc;
}

int db_track_delete(struct db *db, int64_t id, char *err, size_t errlen)
{
	if (db_run(db, "DELETE FROM tracks WHERE id = ?", "I", id) !=
	    SQLITE_DONE)
		return db_sqlerr(db, err, errlen);
	if (sqlite3_changes(db->h) == 0)
		return db_seterr(err, errlen, DB_NOTFOUND,
				 "no track %lld", (long long)id);
	return DB_OK;
}

int db_track_checked(struct db *db, int64_t id, int64_t now,
		     const char *error)
{
	return db_run(db, "UPDATE tracks SET checks = checks + 1, "
		      "last_check = ?, last_error = ? WHERE id = ?", "IsI",
		      now, error, id) == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_track_advance(struct db *db, int64_t id, const char *package,
		     const char *kernel, int64_t jobs)
{
	return db_run(db, "UPDATE tracks SET last_package = ?, "
		      "last_kernel = ?, jobs = jobs + ? WHERE id = ?", "ssII",
		      package, kernel, jobs, id) == SQLITE_DONE ? DB_OK
							 : DB_ERR;
}

int db_track_set_state(struct db *db, int64_t id, const char *state,
		       int64_t backlog)
{
	return db_run(db, "UPDATE tracks SET state = ?, backlog = ? WHERE "
		      "id = ?", "sII", state, backlog, id) == SQLITE_DONE ?
	       DB_OK : DB_ERR;
}

/* ---- heads ---------------------------------------------------------- */

#define HEAD_COLS \
	"SELECT id, track_id, hash, subject, author, kernel, build_id," \
	" prev_id, skipped, state, verdict, worse, comparisons," \
	" bisection_id, error, created, updated FROM track_heads "

#define C(field, type) DB_COL(db_track_head, field, type)
static const struct db_col head_cols[] = {
	C(id, INT64), C(track_id, INT64), C(hash, STR), C(subject, STR),
	C(author, STR), C(kernel, STR), C(build, INT64), C(prev, INT64),
	C(skipped, INT64), C(state, STR), C(verdict, STR), C(worse, STR),
	C(comparisons, STR), C(bisection, INT64), C(error, STR),
	C(created, INT64), C(updated, INT64),
};
#undef C

static const struct db_rows head_rows = DB_ROWS(db_track_head, head_cols);
DB_DEFINE_RELEASE(track_head, track_heads, db_track_head, head_rows)

int db_track_head_add(struct db *db, const struct db_track_head *h,
		      int64_t *id)
{
	int rc;

	rc = db_run(db, "INSERT INTO track_heads (track_id, hash, subject, "
		    "author, build_id, prev_id, skipped, created, updated) "
		    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", "IsssIIITT",
		    h->track_id, h->hash, h->subject, h->author, h->build,
		    h->prev, h->skipped);
	if (rc == SQLITE_CONSTRAINT)
		return DB_CONFLICT;
	if (rc != SQLITE_DONE)
		return DB_ERR;
	if (id)
		*id = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

int db_track_head_set(struct db *db, const struct db_track_head *h)
{
	return db_run(db, "UPDATE track_heads SET kernel = ?, build_id = ?, "
		      "state = ?, verdict = ?, worse = ?, comparisons = ?, "
		      "bisection_id = ?, error = ?, updated = ? WHERE id = ?",
		      "sIssssIsTI", h->kernel, h->build,
		      h->state, h->verdict, h->worse, h->comparisons,
		      h->bisection, h->error, h->id) == SQLITE_DONE ? DB_OK
								    : DB_ERR;
}

int db_track_head_get(struct db *db, int64_t id, struct db_track_head *out)
{
	return db_run_row(db, &head_rows, out, HEAD_COLS "WHERE id = ?", "I",
			  id);
}

int db_track_heads(struct db *db, int64_t id, int limit,
		   struct db_track_head **out, size_t *n)
{
	void *v = NULL;
	int rc = db_run_rows(db, &head_rows, &v, n, "SELECT * FROM ("
			     HEAD_COLS "WHERE track_id = ? ORDER BY id DESC "
			     "LIMIT ?) ORDER BY id", "Ii", id,
			     limit > 0 ? limit : -1);

	*out = v;
	return rc;
}

int db_track_head_of_bisection(struct db *db, int64_t bisection,
			       struct db_track_head *out)
{
	return db_run_row(db, &head_rows, out, HEAD_COLS "WHERE bisection_id "
			  "= ? AND bisection_id > 0", "I", bisection);
}

int db_track_head_kernel(struct db *db, const char *kernel)
{
	int64_t id = 0;
	int rc = db_run_row(db, &db_rows_int64, &id, "SELECT id FROM "
			    "track_heads WHERE kernel = ? AND kernel <> '' "
			    "LIMIT 1", "s", kernel);

	if (rc == DB_NOTFOUND)
		return 0;
	return rc == DB_OK ? 1 : -1;
}
