// SPDX-License-Identifier: MIT
/*
 * Unit tests for a submission's job configuration (scale, scheduler,
 * kernel parameters, given to every cell of its comparisons): its row in
 * the database (the round trip, a scale of 0 stored as 1, migration 15's
 * defaults for a row of before), when it counts as the default, and the
 * "config:" line of the text report, left out for the default so that
 * reports read as they did.  The check itself is the one jobs,
 * comparison runs and bisections share (test_bisect.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flow/submissions.h"
#include "db/db_int.h"
#include "db/submissions.h"
#include "lib/strbuf.h"
#include "web/format.h"

/* Submission id of db has the job configuration scale, sched, cmdline. */
static void config_expect(struct db *db, int64_t id, double scale,
			  const char *sched, const char *cmdline)
{
	struct db_submission got;

	assert_int_equal(db_submission_get(db, id, &got), DB_OK);
	assert_true(got.scale == scale);
	assert_string_equal(got.scheduler, sched);
	assert_string_equal(got.cmdline, cmdline);
	db_submission_release(&got);
}

static void test_config_row(void **state)
{
	static const char *const ext[] = { "", "-wal", "-shm" };
	const char *tmp = getenv("TMPDIR");
	struct db_submission s;
	struct db_sub_patch p = { 1, "a.patch", "a: fix" };
	char dir[256], path[300], err[256];
	struct db *db;
	int64_t id = 0;
	int i;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/klab-test-sub.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/klab.db", dir);
	db = db_open(path, err, sizeof(err));
	assert_non_null(db);
	memset(&s, 0, sizeof(s));
	s.base = s.files = s.rigs = s.suites = s.who = "x";
	s.note = "";
	s.max_cells = 3;
	s.scale = 0.02;
	s.scheduler = "mq-deadline";
	s.cmdline = "elevator=none quiet";
	assert_int_equal(db_submission_add(db, &s, &p, 1, "ok\n", &id, err,
					   sizeof(err)), DB_OK);
	config_expect(db, id, 0.02, "mq-deadline", "elevator=none quiet");
	/* none given: the suite's scale, the rig's defaults */
	s.scale = 0;
	s.scheduler = s.cmdline = NULL;
	assert_int_equal(db_submission_add(db, &s, &p, 1, "ok\n", &id, err,
					   sizeof(err)), DB_OK);
	config_expect(db, id, 1.0, "", "");
	/* a row of before migration 15: the columns' defaults */
	assert_int_equal(sqlite3_exec(db->h, "INSERT INTO submissions (base, "
				      "files, rigs, suites, note, who, "
				      "max_cells, created) VALUES ('b', '', "
				      "'r', 's', '', 'w', 3, 1)", NULL, NULL,
				      NULL), SQLITE_OK);
	config_expect(db, sqlite3_last_insert_rowid(db->h), 1.0, "", "");
	db_close(db);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/klab.db%s", dir, ext[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void test_config_default(void **state)
{
	(void)state;
	assert_true(fmt_job_config_is_default(1, "", ""));
	assert_true(fmt_job_config_is_default(0, NULL, NULL));
	assert_false(fmt_job_config_is_default(0.02, "", ""));
	assert_false(fmt_job_config_is_default(1, "none", ""));
	assert_false(fmt_job_config_is_default(1, "", "quiet"));
}

/* The report of a submission with no patches or cells, config as
 * given, into sb. */
static void report_of(double scale, const char *sched, const char *cmdline,
		      struct strbuf *sb)
{
	struct sub_view v;

	memset(&v, 0, sizeof(v));
	v.s.id = 7;
	v.s.base = v.s.rigs = v.s.suites = v.s.who = "x";
	v.s.note = v.s.error = v.s.verdict = "";
	v.s.kernel[0] = v.s.kernel[1] = "";
	v.s.state = "running";
	v.s.scale = scale;
	v.s.scheduler = (char *)sched;
	v.s.cmdline = (char *)cmdline;
	sb_reset(sb);
	sub_report(&v, sb);
}

static void test_config_report(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	sb_init(&sb);
	report_of(0.02, "none", "quiet", &sb);
	assert_non_null(strstr(sb.buf, "\nsuites:    x\nconfig:    scale "
				"0.02, scheduler none, cmdline \"quiet\"\n"));
	report_of(1, "", "", &sb);
	assert_null(strstr(sb.buf, "config:"));
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_row),
		cmocka_unit_test(test_config_default),
		cmocka_unit_test(test_config_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
