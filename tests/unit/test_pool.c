// SPDX-License-Identifier: MIT
/*
 * Unit tests for rig pools in the database (issue 31, migration 23): a
 * job queued for a class goes to whichever rig of the class takes it
 * first and becomes that rig's (db_job_assign), a second rig cannot take
 * it again, a job queued by a rig's own name stays that rig's, the cells
 * of a comparison lean towards the side a rig ran less, and the samples
 * and runs of a class are those of all its rigs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "db/cells.h"
#include "db/comparisons.h"
#include "db/db_int.h"
#include "db/jobs.h"
#include "db_testlib.h"

/* Rigs a1 and a2 of class "pool", b its own class, kernels k1 and k2. */
static int setup(void **state)
{
	static const char *const rigs[] = { "a1", "a2", "b" };
	static const char *const ks[] = { "k1", "k2" };
	struct db_kernel k;
	struct db_rig g;
	struct fx *f;
	char err[256];
	size_t i;

	if (dbfix_setup(state))
		return -1;
	f = *state;
	for (i = 0; i < 3; i++) {
		memset(&g, 0, sizeof(g));
		g.name = (char *)rigs[i];
		g.kind = "remote";
		if (db_rig_put(f->db, &g, err, sizeof(err)) ||
		    db_rig_set_class(f->db, rigs[i], i < 2 ? "pool" : "b"))
			return -1;
	}
	for (i = 0; i < 2; i++) {
		memset(&k, 0, sizeof(k));
		k.ident = (char *)ks[i];
		if (db_kernel_put(f->db, &k, err, sizeof(err)))
			return -1;
	}
	return 0;
}

static int64_t job_add(struct db *db, const char *kernel, const char *rig)
{
	struct db_job_new jn;
	char err[256];
	int64_t id = 0;

	memset(&jn, 0, sizeof(jn));
	jn.kernel = kernel;
	jn.rig = rig;
	jn.suite = "tiobench";
	assert_int_equal(db_job_add(db, &jn, &id, err, sizeof(err)), DB_OK);
	return id;
}

/* The id of the next job rig would take, 0 when none. */
static int64_t next(struct db *db, const char *rig)
{
	struct db_job j;
	int64_t id;

	if (db_job_next(db, rig, &j) != DB_OK)
		return 0;
	id = j.id;
	db_job_release(&j);
	return id;
}

static char *job_rig(struct db *db, int64_t id)
{
	struct db_job j;
	char *rig;

	assert_int_equal(db_job_get(db, id, &j), DB_OK);
	rig = strdup(j.rig);
	db_job_release(&j);
	return rig;
}

static void test_class_queue(void **state)
{
	struct fx *f = *state;
	int64_t p1 = job_add(f->db, "k1", "pool");
	int64_t p2 = job_add(f->db, "k1", "pool");
	int64_t pin = job_add(f->db, "k1", "a1");
	struct db_job_new jn;
	char err[256], *rig;
	int64_t id;

	(void)state;
	/* either rig of the class may take a class job, b may not */
	assert_int_equal(next(f->db, "a2"), p1);
	assert_int_equal(next(f->db, "a1"), p1);
	assert_int_equal(next(f->db, "b"), 0);
	assert_int_equal(db_job_assign(f->db, p1, "a2"), DB_OK);
	rig = job_rig(f->db, p1);
	assert_string_equal(rig, "a2");
	free(rig);
	/* taken: a second rig's claim fails, the next job is another */
	assert_int_equal(db_job_assign(f->db, p1, "a1"), DB_NOTFOUND);
	assert_int_equal(next(f->db, "a2"), p2);
	/* a job pinned by the rig's own name: a1's alone */
	assert_int_equal(db_job_assign(f->db, p2, "a1"), DB_OK);
	assert_int_equal(next(f->db, "a2"), 0);
	assert_int_equal(next(f->db, "a1"), pin);
	assert_int_equal(db_job_assign(f->db, pin, "a1"), DB_OK);
	rig = job_rig(f->db, pin);
	assert_string_equal(rig, "a1");
	free(rig);
	/* an unknown name */
	memset(&jn, 0, sizeof(jn));
	jn.kernel = "k1";
	jn.rig = "nopool";
	jn.suite = "tiobench";
	assert_int_equal(db_job_add(f->db, &jn, &id, err, sizeof(err)),
			 DB_NOTFOUND);
	assert_string_equal(err, "unknown rig 'nopool'");
}

/* A comparison's cells on a class: a rig that ran a base cell takes the
 * candidate's next, whatever the queue's order. */
static void test_side_lean(void **state)
{
	struct fx *f = *state;
	struct db_comparison c;
	struct db_job_new jn;
	int64_t cid, jobs[4];
	char err[256];
	int i;

	memset(&c, 0, sizeof(c));
	c.base = "k1";
	c.candidate = "k2";
	c.rig = "pool";
	c.suite = "tiobench";
	c.who = "alice";
	c.max_cells = 8;
	c.planned = 2;
	assert_int_equal(db_comparison_add(f->db, &c, &cid, err, sizeof(err)),
			 DB_OK);
	memset(&jn, 0, sizeof(jn));
	jn.rig = "pool";
	jn.suite = "tiobench";
	/* A B A B: a rig that took the first A would get the second A by
	 * the order of the queue alone once B went to the other rig */
	for (i = 0; i < 4; i++) {
		jn.kernel = i % 2 ? "k2" : "k1";
		assert_int_equal(db_comparison_job_add(f->db, cid, i % 2, &jn,
						       &jobs[i], err,
						       sizeof(err)), DB_OK);
	}
	assert_int_equal(next(f->db, "a1"), jobs[0]);
	assert_int_equal(db_job_assign(f->db, jobs[0], "a1"), DB_OK);
	assert_int_equal(next(f->db, "a2"), jobs[1]);
	assert_int_equal(db_job_assign(f->db, jobs[1], "a2"), DB_OK);
	/* a1 ran A: it leans to B (jobs[3]) over the older A (jobs[2]) */
	assert_int_equal(next(f->db, "a1"), jobs[3]);
	assert_int_equal(next(f->db, "a2"), jobs[2]);
}

/* Runs of a class: those of all its rigs; a rig's name: its own. */
static void test_class_runs(void **state)
{
	struct fx *f = *state;
	const char *const k[] = { "k1" };
	struct db_cell_run *v;
	size_t n;

	assert_int_equal(sqlite3_exec(f->db->h,
		"INSERT INTO runs (kernel_id, rig_id, suite_id, repetition, "
		"started, finished) SELECT k.id, g.id, s.id, 1, 1, 1 FROM "
		"kernels k, rigs g, suites s WHERE k.ident = 'k1' AND "
		"s.name = 'tiobench'", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(db_cell_runs(f->db, k, 1, "pool", NULL, &v, &n),
			 DB_OK);
	assert_int_equal(n, 2);
	assert_true(strcmp(v[0].rig, v[1].rig) && strncmp(v[0].rig, "a", 1) ==
		    0 && strncmp(v[1].rig, "a", 1) == 0);
	db_cell_runs_free(v, n);
	assert_int_equal(db_cell_runs(f->db, k, 1, "a2", NULL, &v, &n),
			 DB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].rig, "a2");
	db_cell_runs_free(v, n);
	assert_int_equal(db_cell_runs(f->db, k, 1, "b", NULL, &v, &n), DB_OK);
	assert_int_equal(n, 1);
	db_cell_runs_free(v, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_class_queue, setup,
						dbfix_teardown),
		cmocka_unit_test_setup_teardown(test_side_lean, setup,
						dbfix_teardown),
		cmocka_unit_test_setup_teardown(test_class_runs, setup,
						dbfix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
