// SPDX-License-Identifier: MIT
/*
 * Unit tests for what klabd's database handles keep in memory: a handle's
 * page cache fills as it reads (db_cache_bytes), from the slab of
 * sqlite_setup (db/db.c) rather than malloc, gives it back on
 * db_release_memory, and klabd_housekeep does that for every handle idle
 * in klabd's pool, as klabd_mem reports (GET /api/status; the soak in
 * docs/PERFORMANCE-LOG.md found klabd's RSS rising with the database).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "klabd/klabd.h"
#include "db/db.h"
#include "db/db_int.h"	/* white box: fill the cache through the handle */

#define MIB (1024LL * 1024)

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/klab-test-dbmem.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/klab.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char p[160];

	snprintf(p, sizeof(p), "%s-wal", f->path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", f->path);
	unlink(p);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* A handle on f's database that has read 4 MB of rows: its cache is full
 * (cache_size -2000: about 2 MiB). */
static struct db *warm_handle(struct fixture *f)
{
	char err[256];
	struct db *db = db_open(f->path, err, sizeof(err));

	assert_non_null(db);
	assert_int_equal(sqlite3_exec(db->h,
		"CREATE TABLE IF NOT EXISTS t_fill "
		"(id INTEGER PRIMARY KEY, b BLOB);"
		"INSERT INTO t_fill (b) SELECT randomblob(2000) FROM "
		"(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
		"FROM c WHERE x < 2000) SELECT x FROM c);"
		"SELECT SUM(LENGTH(b)) FROM t_fill;", NULL, NULL, NULL),
		SQLITE_OK);
	return db;
}

static void test_release(void **state)
{
	struct db *db = warm_handle(*state);

	sqlite3_int64 used = 0, hi = 0;

	assert_true(db_cache_bytes(db) > 1 * MIB);
	/* the lines are in sqlite_setup's slab, not malloc's: slots in use */
	assert_int_equal(sqlite3_status64(SQLITE_STATUS_PAGECACHE_USED, &used,
					  &hi, 0), SQLITE_OK);
	assert_true(used > 200);
	db_release_memory(db);
	assert_true(db_cache_bytes(db) < MIB / 4);
	assert_int_equal(sqlite3_status64(SQLITE_STATUS_PAGECACHE_USED, &used,
					  &hi, 0), SQLITE_OK);
	assert_true(used < 60);		/* back in the slab */
	/* still a working handle: the cache fills again */
	assert_int_equal(sqlite3_exec(db->h,
				      "SELECT SUM(LENGTH(b)) FROM t_fill",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_true(db_cache_bytes(db) > 1 * MIB);
	db_close(db);
}

static void test_housekeep_pool(void **state)
{
	struct fixture *f = *state;
	struct klabd d;
	struct klabd_mem m;
	char err[256];
	struct db *a, *b;

	memset(&d, 0, sizeof(d));
	d.pool = klabd_pool_create();
	d.db_path = f->path;
	klabd_db_put(&d, warm_handle(f));
	klabd_db_put(&d, warm_handle(f));
	klabd_mem(&d, &m);
	assert_int_equal(m.pool_idle, 2);
	assert_true(m.pool_cache > 2 * MIB);
	assert_true(m.pool_stmt > 0);	/* db_open's statements, kept */
	assert_true(m.slab_used > 400);
	klabd_housekeep(&d);
	klabd_mem(&d, &m);
	assert_int_equal(m.pool_idle, 2);
	assert_true(m.pool_cache < MIB / 2);
	/* the handles are the pool's again, and they work */
	a = klabd_db_get(&d, err, sizeof(err));
	b = klabd_db_get(&d, err, sizeof(err));
	assert_non_null(a);
	assert_non_null(b);
	klabd_mem(&d, &m);
	assert_int_equal(m.pool_idle, 0);
	assert_int_equal(db_count(a, "runs"), 0);
	db_close(a);
	db_close(b);
	klabd_pool_destroy(d.pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_housekeep_pool, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
