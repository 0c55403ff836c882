// SPDX-License-Identifier: MIT
/*
 * db_track: the tracked kernel lines of track.h.  A handful of rows
 * written once an hour: statements are prepared per call.
 */
#include <string.h>

#include "db_int.h"
#include "track.h"

#define TRACK_COLS \
	"SELECT id, distro, line, rigs, suite, last_package, last_kernel," \
	" checks, last_check, last_error, jobs, who, created FROM tracks "

#define C(field, type) DB_COL(db_track, field, type)
static const struct db_col track_cols[] = {
	C(id, INT64), C(distro, STR), C(line, STR), C(rigs, STR),
	C(suite, STR), C(last_package, STR), C(last_kernel, STR),
	C(checks, INT64), C(last_check, INT64), C(last_error, STR),
	C(jobs, INT64), C(who, STR), C(created, INT64),
};
#undef C

static const struct db_rows track_rows = DB_ROWS(db_track, track_cols);
DB_DEFINE_RELEASE(track, tracks, db_track, track_rows)

int db_track_add(struct db *db, const struct db_track *t, int64_t *id,
		 char *err, size_t errlen)
{
	int rc;

	rc = db_run(db, "INSERT INTO tracks (distro, line, rigs, suite, who, "
		    "created) VALUES (?, ?, ?, ?, ?, ?)", "sssssT", t->distro,
		    t->line, t->rigs, t->suite, t->who);
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
