// SPDX-License-Identifier: MIT
/*
 * Unit tests for workloads/suite.c and the command splitting of
 * workloads/wlcli.c: placeholders and scaling, suite file errors naming
 * the line, the shipped suites all load and say what disk they need, and
 * the end of a failed step's output as driver.c reports it.
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

#include "workloads/driver.h"
#include "workloads/suite.h"
#include "workloads/wlcli.h"

static const struct suite_vars vars = { 0.05, "/mnt/a", "/mnt/a,/dev/sdb",
					"6.1.176", 4 };

static void expect_expand(const char *in, const char *want)
{
	char err[256] = "";
	char *got = suite_expand(in, &vars, err, sizeof(err));

	if (!got)
		fail_msg("expand '%s': %s", in, err);
	assert_string_equal(got, want);
	free(got);
}

static void test_expand(void **state)
{
	expect_expand("tiotest --size {1024} --disk {disk}",
		      "tiotest --size 51 --disk /mnt/a");
	expect_expand("{4000} {10} {1.5} {0}", "200 1 1 1");	/* at least 1 */
	expect_expand("iops --disks {disks} -t {ncpu} --id {id}",
		      "iops --disks /mnt/a,/dev/sdb -t 4 --id 6.1.176");
	expect_expand("no placeholders", "no placeholders");
}

static void test_expand_errors(void **state)
{
	char err[256];

	assert_null(suite_expand("x {nope}", &vars, err, sizeof(err)));
	assert_string_equal(err, "unknown placeholder '{nope}'");
	assert_null(suite_expand("x {-5}", &vars, err, sizeof(err)));
	assert_null(suite_expand("x {12", &vars, err, sizeof(err)));
	assert_non_null(strstr(err, "unterminated"));
}

static void test_argv_split(void **state)
{
	char err[128];
	char **v = wl_argv_split("rio --load-cmd \"dbench -t 60 50\"  -x "
				 "\"a \\\"q\\\" b\"", err, sizeof(err));

	assert_non_null(v);
	assert_int_equal(wl_argv_count(v), 5);
	assert_string_equal(v[2], "dbench -t 60 50");
	assert_string_equal(v[4], "a \"q\" b");
	wl_argv_free(v);
	assert_null(wl_argv_split("a \"b", err, sizeof(err)));
	assert_non_null(strstr(err, "unterminated quote"));
	assert_null(wl_argv_split("   ", err, sizeof(err)));
	assert_string_equal(err, "empty command");
}

static int load_text(const char *text, struct suite *s, char *err,
		     size_t len)
{
	char path[] = "/tmp/klab-test-suite-XXXXXX";
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	rc = suite_load(s, path, err, len);
	unlink(path);
	return rc;
}

static void test_load(void **state)
{
	struct suite s;
	char err[512];

	assert_int_equal(load_text("# c\n\nname = t\nworkload = tiotest\n"
				   "warmup = none\nrepetitions = 4\n", &s, err,
				   sizeof(err)), 0);
	assert_string_equal(s.name, "t");
	assert_null(s.warmup);
	assert_int_equal(s.repetitions, 4);
	assert_string_equal(s.timeout, "3600");
	suite_release(&s);
	assert_int_equal(load_text("name = t\nworkload = x\nwarmup = none\n"
				   "name = u\n", &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 4: key 'name' given twice"));
	suite_release(&s);
	assert_int_equal(load_text("name = t\nworkload x\n", &s, err,
				   sizeof(err)), -1);
	assert_non_null(strstr(err, "line 2: expected 'key = value'"));
	suite_release(&s);
	assert_int_equal(load_text("name = t\nrepetitions = 0\n", &s, err,
				   sizeof(err)), -1);
	assert_non_null(strstr(err, "invalid repetitions '0'"));
	suite_release(&s);
	assert_int_equal(load_text("name = t\nworkload = x\n", &s, err,
				   sizeof(err)), -1);
	assert_non_null(strstr(err, "missing key 'warmup'"));
	suite_release(&s);
}

static void test_disk_keys(void **state)
{
	struct suite s;
	char err[512];

	(void)state;
	assert_int_equal(load_text("name = t\nworkload = dbench 5\n"
				   "warmup = none\nfilesystem = ext4\n"
				   "disk_mb = 1200 + {512}\n", &s, err,
				   sizeof(err)), 0);
	assert_string_equal(s.filesystem, "ext4");
	assert_string_equal(s.disk_mb, "1200 + {512}");
	suite_release(&s);
	assert_int_equal(load_text("name = t\nworkload = x\nwarmup = none\n"
				   "filesystem = none\n", &s, err,
				   sizeof(err)), 0);
	assert_null(s.filesystem);
	assert_null(s.disk_mb);
	suite_release(&s);
	assert_int_equal(load_text("name = t\nworkload = x\nwarmup = none\n"
				   "filesystem = xfs\n", &s, err,
				   sizeof(err)), -1);
	assert_non_null(strstr(err, "filesystem 'xfs' is not supported "
			       "(ext4 or none)"));
	suite_release(&s);
}

/* The end of a failed step's output: cut at a line, one line for the
 * message with the last words kept. */
static void test_tail(void **state)
{
	char path[] = "/tmp/klab-test-tail-XXXXXX", buf[64];
	FILE *f;
	int fd, i;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	for (i = 0; i < 100; i++)
		fprintf(f, "line %d\n", i);
	fprintf(f, "ERROR: no space left\n\n");
	fclose(f);
	assert_true(driver_tail(path, buf, sizeof(buf), 0) > 0);
	assert_non_null(strstr(buf, "\nERROR: no space left"));
	assert_int_equal(strncmp(buf, "line ", 5), 0);	/* a whole line */
	assert_int_equal(buf[strlen(buf) - 1], 't');	/* blanks dropped */
	driver_tail(path, buf, 40, 1);
	assert_null(strchr(buf, '\n'));
	assert_string_equal(buf, "line 98; line 99; ERROR: no space left");
	unlink(path);
	assert_int_equal(driver_tail(path, buf, sizeof(buf), 1), 0);
	assert_string_equal(buf, "");
}

static void test_shipped_suites(void **state)
{
	static const char *const names[] = { "tiobench",
		"tiobench-under-writes", "rio-under-dbench", "iops-alldisks",
		"dbench", "fio", "tiobench-direct" };
	const char *dirs[] = { "workloads/suites", "../workloads/suites",
			       NULL };
	struct suite s;
	char err[512], *path, *x;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		path = suite_find(names[i], dirs, err, sizeof(err));
		if (!path)
			fail_msg("%s", err);
		if (suite_load(&s, path, err, sizeof(err)))
			fail_msg("%s", err);
		assert_string_equal(s.name, names[i]);
		assert_non_null(s.warmup);	/* every suite warms up */
		/* every suite says what it needs of the disk; dbench and
		 * files named under {disk}/ need a file system */
		assert_non_null(s.disk_mb);
		if (strstr(s.workload, "dbench") ||
		    strstr(s.workload, "{disk}/"))
			assert_non_null(s.filesystem);
		x = suite_expand(s.workload, &vars, err, sizeof(err));
		assert_non_null(x);
		free(x);
		suite_release(&s);
		free(path);
	}
	assert_null(suite_find("nosuch", dirs, err, sizeof(err)));
	assert_non_null(strstr(err, "unknown suite 'nosuch'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_expand_errors),
		cmocka_unit_test(test_argv_split),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_disk_keys),
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_shipped_suites),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
