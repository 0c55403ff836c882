// SPDX-License-Identifier: MIT
/*
 * Unit tests for workloads/suite.c and the command splitting of
 * workloads/wlcli.c: placeholders and scaling, suite file errors naming
 * the line, the shipped suites all load and say what disk they need, and
 * the end of a failed step's output as driver.c reports it, and the
 * queue key: its parsing and qattr.c setting and putting back the
 * attributes in a made-up sysfs tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workloads/driver.h"
#include "workloads/qattr.h"
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
	/* a line too long for the reader is refused, not split in two */
	{
		char text[6000];

		memset(text, 'x', sizeof(text));
		memcpy(text, "name = t\nworkload = ", 20);
		strcpy(text + sizeof(text) - 20, "\nwarmup = none\n");
		assert_int_equal(load_text(text, &s, err, sizeof(err)), -1);
		if (!strstr(err, "line 2: line longer than 4094"))
			fail_msg("%s", err);
		suite_release(&s);
	}
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

static void expect_queue_error(const char *val, const char *msg)
{
	char text[256], err[512];
	struct suite s;

	snprintf(text, sizeof(text), "name = t\nworkload = x\nwarmup = none\n"
		 "queue = %s\n", val);
	assert_int_equal(load_text(text, &s, err, sizeof(err)), -1);
	if (!strstr(err, msg))
		fail_msg("queue = %s: '%s' lacks '%s'", val, err, msg);
	assert_non_null(strstr(err, "line 4:"));
	suite_release(&s);
}

static void test_queue_key(void **state)
{
	struct suite s;
	char err[512];

	(void)state;
	assert_int_equal(load_text("name = t\nworkload = x\nwarmup = none\n"
				   "queue = wbt_lat_usec=0  iosched/read_expire=100"
				   "\tnr_requests=64\n", &s, err, sizeof(err)), 0);
	assert_int_equal(s.nqueue, 3);
	assert_string_equal(s.queue[0].name, "wbt_lat_usec");
	assert_string_equal(s.queue[0].value, "0");
	assert_string_equal(s.queue[1].name, "iosched/read_expire");
	assert_string_equal(s.queue[1].value, "100");
	assert_string_equal(s.queue[2].name, "nr_requests");
	suite_release(&s);
	assert_int_equal(s.nqueue, 0);
	expect_queue_error("wbt_lat_usec", "expected NAME=VALUE, got 'wbt_lat_usec'");
	expect_queue_error("../../../etc/passwd=1", "invalid attribute '../../../etc/passwd'");
	expect_queue_error("iosched/../x=1", "invalid attribute 'iosched/../x'");
	expect_queue_error("iosched/=1", "invalid attribute 'iosched/'");
	expect_queue_error("Nr=1", "invalid attribute 'Nr'");
	expect_queue_error("=1", "invalid attribute ''");
	expect_queue_error("scheduler=1", "the scheduler is the job's option");
	expect_queue_error("nr_requests=-1", "must be a decimal integer, got '-1'");
	expect_queue_error("nr_requests=", "must be a decimal integer, got ''");
	expect_queue_error("nr_requests=1\x01", "decimal integer");
	expect_queue_error("a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1",
			   "more than 8 attributes");
	assert_int_equal(load_text("name = t\nqueue = a=1\nqueue = b=2\n", &s,
				   err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 3: key 'queue' given twice"));
	suite_release(&s);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	buf[fread(buf, 1, len - 1, f)] = 0;
	fclose(f);
}

/* Set on every disk, put back last first; a failure names the disk and
 * the attribute and leaves nothing changed. */
static void test_qattr(void **state)
{
	char root[] = "/tmp/klab-test-qattr-XXXXXX", p[1100], buf[64], err[512];
	struct devstat_set dev = { 0 };
	struct qattr_state st;
	struct suite s;
	unsigned i;

	(void)state;
	assert_non_null(mkdtemp(root));
	for (i = 0; i < 2; i++) {
		snprintf(dev.dir[i], sizeof(dev.dir[i]), "%s/sd%c", root, 'a' + i);
		mkdir(dev.dir[i], 0755);
		snprintf(p, sizeof(p), "%s/queue", dev.dir[i]);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/queue/wbt_lat_usec", dev.dir[i]);
		write_file(p, "75000\n");
		snprintf(p, sizeof(p), "%s/queue/nr_requests", dev.dir[i]);
		write_file(p, "256\n");
	}
	dev.n = 2;
	assert_int_equal(load_text("name = t\nworkload = x\nwarmup = none\n"
				   "queue = wbt_lat_usec=0 nr_requests=4\n", &s,
				   err, sizeof(err)), 0);
	assert_int_equal(qattr_apply(&st, &s, &dev, err, sizeof(err)), 0);
	assert_int_equal(st.n, 4);
	snprintf(p, sizeof(p), "%s/queue/nr_requests", dev.dir[1]);
	read_file(p, buf, sizeof(buf));
	assert_string_equal(buf, "4");
	qattr_restore(&st);
	read_file(p, buf, sizeof(buf));
	assert_string_equal(buf, "256");
	suite_release(&s);

	/* sdb has no such attribute: sda's changes are put back */
	assert_int_equal(load_text("name = t\nworkload = x\nwarmup = none\n"
				   "queue = wbt_lat_usec=0 iosched/fifo_batch=4\n",
				   &s, err, sizeof(err)), 0);
	assert_int_equal(qattr_apply(&st, &s, &dev, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot set block queue attribute "
			       "iosched/fifo_batch=4 of suite 't' on sda"));
	assert_non_null(strstr(err, "No such file or directory"));
	assert_int_equal(st.n, 0);
	snprintf(p, sizeof(p), "%s/queue/wbt_lat_usec", dev.dir[0]);
	read_file(p, buf, sizeof(buf));
	assert_string_equal(buf, "75000");

	/* no block device behind the disks */
	dev.n = 0;
	assert_int_equal(qattr_apply(&st, &s, &dev, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no block device is behind its disks"));
	suite_release(&s);
	for (i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "rm -rf '%s'", dev.dir[i]);
		assert_int_equal(system(p), 0);
	}
	rmdir(root);
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

/* Does the file at PATH hold NEEDLE? */
static int file_has(const char *path, const char *needle)
{
	char buf[16384];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return strstr(buf, needle) != NULL;
}

static void test_shipped_suites(void **state)
{
	static const char *const names[] = { "tiobench",
		"tiobench-under-writes", "rio-under-dbench", "iops-alldisks",
		"dbench", "fio", "tiobench-direct", "tiobench-under-writes-nowbt" };
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
		/* and says where its reads come from (docs/SUITES.md) */
		if (!file_has(path, "\n# Reads from: "))
			fail_msg("%s has no '# Reads from:' line", path);
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
		cmocka_unit_test(test_queue_key),
		cmocka_unit_test(test_qattr),
		cmocka_unit_test(test_shipped_suites),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
