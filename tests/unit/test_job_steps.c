// SPDX-License-Identifier: MIT
/*
 * Unit tests for db/db_job_steps.c: a job's steps stored and read back in
 * order (a second put replaces them), and their means over the newest
 * done jobs of a rig and suite: a step of the repetitions counts all of
 * them, a job without the step counts as 0, a job not done or of another
 * rig is left out, limit takes the newest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "db/jobs.h"
#include "db_testlib.h"

static int64_t job_make(struct db *db, const char *rig, const char *state)
{
	struct db_job_new jn = { "k1", rig, "tiobench", "", "", 1 };
	int64_t id = 0;
	char err[256];

	assert_int_equal(db_job_add(db, &jn, &id, err, sizeof(err)), DB_OK);
	assert_int_equal(db_job_set_state(db, id, state), DB_OK);
	return id;
}

static void catalog_make(struct db *db)
{
	struct db_kernel k = { .ident = "k1", .source = "import" };
	struct db_rig r = { .name = "hdd0", .kind = "qemu" };
	char err[256];

	assert_int_equal(db_kernel_put(db, &k, err, sizeof(err)), DB_OK);
	assert_int_equal(db_rig_put(db, &r, err, sizeof(err)), DB_OK);
	r.name = "ssd0";
	assert_int_equal(db_rig_put(db, &r, err, sizeof(err)), DB_OK);
	assert_int_equal(db_suite_put(db, "tiobench", "t", err, sizeof(err)),
			 DB_OK);
}

static void test_put_get(void **state)
{
	struct fx *f = *state;
	struct db_job_step in[] = {
		{ "boot", 0, 7.5 }, { "seq_read", 1, 2.25 },
		{ "seq_read", 2, 2.5 }, { "upload", 0, 0.5 },
	};
	struct db_job_step *v = NULL;
	size_t n = 0;
	int64_t job;

	catalog_make(f->db);
	job = job_make(f->db, "hdd0", "done");
	assert_int_equal(db_job_steps(f->db, job, &v, &n), DB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(db_job_steps_put(f->db, job, in, 4), DB_OK);
	assert_int_equal(db_job_steps(f->db, job, &v, &n), DB_OK);
	assert_int_equal(n, 4);
	assert_string_equal(v[0].name, "boot");
	assert_string_equal(v[2].name, "seq_read");
	assert_int_equal(v[2].rep, 2);
	assert_true(fabs(v[2].secs - 2.5) < 1e-9);
	db_job_steps_free(v, n);
	/* a second put replaces them all */
	assert_int_equal(db_job_steps_put(f->db, job, in + 3, 1), DB_OK);
	assert_int_equal(db_job_steps(f->db, job, &v, &n), DB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].name, "upload");
	db_job_steps_free(v, n);
}

static double mean_of(const struct db_step_mean *v, size_t n,
		      const char *name, int64_t *jobs)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name)) {
			*jobs = v[i].jobs;
			return v[i].secs;
		}
	fail_msg("no step '%s'", name);
	return -1;
}

static void test_means(void **state)
{
	struct fx *f = *state;
	struct db_job_step a[] = {
		{ "boot", 0, 10 }, { "seq_read", 1, 2 }, { "seq_read", 2, 4 },
		{ "upload", 0, 1 },
	};
	struct db_job_step b[] = { { "boot", 0, 20 }, { "upload", 0, 3 } };
	struct db_step_mean *v = NULL;
	size_t n = 0;
	int64_t jobs = 0, with;

	catalog_make(f->db);
	assert_int_equal(db_job_steps_put(f->db, job_make(f->db, "hdd0",
			 "done"), a, 4), DB_OK);
	assert_int_equal(db_job_steps_put(f->db, job_make(f->db, "hdd0",
			 "done"), b, 2), DB_OK);
	/* neither a failed job nor another rig's counts */
	assert_int_equal(db_job_steps_put(f->db, job_make(f->db, "hdd0",
			 "failed"), b, 2), DB_OK);
	assert_int_equal(db_job_steps_put(f->db, job_make(f->db, "ssd0",
			 "done"), a, 4), DB_OK);
	assert_int_equal(db_job_step_means(f->db, "hdd0", "tiobench", 0, &v,
					   &n, &jobs), DB_OK);
	assert_int_equal(jobs, 2);
	assert_int_equal(n, 3);
	/* in the order the steps first ran */
	assert_string_equal(v[0].name, "boot");
	assert_string_equal(v[1].name, "seq_read");
	assert_string_equal(v[2].name, "upload");
	assert_true(fabs(mean_of(v, n, "boot", &with) - 15) < 1e-9);
	assert_int_equal(with, 2);
	/* both repetitions, over both jobs (the second had none) */
	assert_true(fabs(mean_of(v, n, "seq_read", &with) - 3) < 1e-9);
	assert_int_equal(with, 1);
	db_step_means_free(v, n);
	/* limit 1: the newest hdd0 job only */
	assert_int_equal(db_job_step_means(f->db, "hdd0", NULL, 1, &v, &n,
					   &jobs), DB_OK);
	assert_int_equal(jobs, 1);
	assert_int_equal(n, 2);
	assert_true(fabs(mean_of(v, n, "boot", &with) - 20) < 1e-9);
	db_step_means_free(v, n);
	/* any rig: three jobs */
	assert_int_equal(db_job_step_means(f->db, NULL, NULL, 0, &v, &n,
					   &jobs), DB_OK);
	assert_int_equal(jobs, 3);
	db_step_means_free(v, n);
	assert_int_equal(db_job_step_means(f->db, "nosuch", NULL, 0, &v, &n,
					   &jobs), DB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(jobs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_put_get, dbfix_setup,
						dbfix_teardown),
		cmocka_unit_test_setup_teardown(test_means, dbfix_setup,
						dbfix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
