/* SPDX-License-Identifier: MIT */
/*
 * A temporary database for a unit test, shared by test_alerts.c and
 * test_alert_triage.c: dbfix_setup opens a fresh one (every migration
 * applied) in its own directory under /tmp, dbfix_teardown closes it and
 * removes the files.  Static inline, as web_testlib.h.
 */
#ifndef KLAB_DB_TESTLIB_H
#define KLAB_DB_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "db/db.h"

struct fx {
	char dir[64], path[96];
	struct db *db;
};

static inline int dbfix_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char err[256];

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/klab-test-db.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/klab.db", f->dir);
	f->db = db_open(f->path, err, sizeof(err));
	*state = f;
	return f->db ? 0 : -1;
}

/* Close db and remove its file, the WAL's two and the directory: the
 * end of every unit test's temporary database. */
static inline void testdb_remove(struct db *db, const char *dir,
				 const char *path)
{
	char p[160];

	db_close(db);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
	unlink(path);
	rmdir(dir);
}

static inline int dbfix_teardown(void **state)
{
	struct fx *f = *state;

	testdb_remove(f->db, f->dir, f->path);
	free(f);
	return 0;
}

#endif
