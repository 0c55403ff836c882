// SPDX-License-Identifier: MIT
/*
 * Unit tests for workloads/suite.c and the command splitting of
 * workloads/wlcli.c: placeholders and scaling, suite file errors naming
 * the line, the shipped suites all load and say what disk they need, and
 * the end of a failed step's output as driver.c reports it, and the
 * queue and vm keys: their parsing and qattr.c setting and putting back
 * the attributes in a made-up sysfs tree and /proc/sys/vm, the vm
 * journal's lock and a killed run's leftovers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* Load the n bytes at text (NULs too) as a suite file. */
static int load_bytes(const char *text, size_t n, struct suite *s,
		      char *err, size_t len)
{
	char path[] = "/tmp/klab-test-suite-XXXXXX";
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	rc = suite_load(s, path, err, len);
	unlink(path);
	return rc;
}

static int load_text(const char *text, struct suite *s, char *err,
		     size_t len)
{
	return load_bytes(text, strlen(text), s, err, len);
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
		static const char tail[] = "\nwarmup = none\n";
		char text[6000];

		memset(text, 'x', sizeof(text));
		memcpy(text, "name = t\nworkload = ", 20);
		memcpy(text + sizeof(text) - 20, tail, sizeof(tail));
		assert_int_equal(load_text(text, &s, err, sizeof(err)), -1);
		if (!strstr(err, "line 2: line longer than 4094"))
			fail_msg("%s", err);
		suite_release(&s);
	}
}

/* The load fails at line, with msg after "line N: ". */
static void expect_line_error(const char *text, size_t n, int line,
			      const char *msg)
{
	struct suite s;
	char err[512], want[128];

	assert_int_equal(load_bytes(text, n, &s, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "' line %d: %s", line, msg);
	if (!strstr(err, want))
		fail_msg("expected '...%s', got '%s'", want, err);
	suite_release(&s);
}

#define LINE_ERROR(lit, line, msg) \
	expect_line_error(lit, sizeof(lit) - 1, line, msg)

/*
 * The lines as lib/config.c's reader reads them, klabd.conf's rules
 * (issue 30: one key=value reader): what suite.c's own reader did, and
 * the few places it now answers as klabd.conf does.
 */
static void test_load_lines(void **state)
{
	static const char rest[] = "\nname = t\nworkload = x\nwarmup = none\n";
	struct suite s;
	char err[512], text[4200];
	size_t n = 4094;

	/* indented comments, CRLF, blanks around '=', '#' inside a value,
	 * an empty value, no newline at the end */
	assert_int_equal(load_text("  # c\r\n\r\nname=t\r\n"
				   "description =\n\tworkload =  x # y \n"
				   "warmup = none", &s, err, sizeof(err)), 0);
	assert_string_equal(s.name, "t");
	assert_string_equal(s.description, "");
	assert_string_equal(s.workload, "x # y");
	assert_null(s.warmup);
	suite_release(&s);
	/* split at the first '=' only */
	assert_int_equal(load_text("name = t\nworkload = a=b c={1}\n"
				   "warmup = none\n", &s, err, sizeof(err)),
			 0);
	assert_string_equal(s.workload, "a=b c={1}");
	suite_release(&s);
	/* a suite has no sections, and no empty key */
	LINE_ERROR("name = t\n[rig a]\n", 2, "expected 'key = value'");
	LINE_ERROR("name = t\n  = x\n", 2, "expected 'key = value'");
	LINE_ERROR("name = t\nfoo = x\n", 2, "unknown key 'foo'");
	/* a NUL byte is refused (the old reader cut the line there) */
	LINE_ERROR("name = t\nworkload = a\0b\n", 2, "NUL byte in line");
	LINE_ERROR("# a\0\n", 1, "NUL byte in line");
	/* lines up to 4094 bytes (newline left out), comments too */
	memset(text, ' ', sizeof(text));
	memcpy(text, "# ", 2);
	memcpy(text + n, rest, sizeof(rest) - 1);
	assert_int_equal(load_bytes(text, n + sizeof(rest) - 1, &s, err,
				    sizeof(err)), 0);
	suite_release(&s);
	text[n] = ' ';
	memcpy(text + n + 1, rest, sizeof(rest) - 1);
	expect_line_error(text, n + sizeof(rest), 1,
			  "line longer than 4094 bytes");
	/* an unreadable file names the file */
	assert_int_equal(suite_load(&s, "/nonexistent/x.suite", err,
				    sizeof(err)), -1);
	assert_string_equal(err, "cannot read suite '/nonexistent/x.suite': "
			    "No such file or directory");
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

static void expect_key_error(const char *key, const char *val,
			     const char *msg)
{
	char text[256], err[512];
	struct suite s;

	snprintf(text, sizeof(text), "name = t\nworkload = x\nwarmup = none\n"
		 "%s = %s\n", key, val);
	assert_int_equal(load_text(text, &s, err, sizeof(err)), -1);
	if (!strstr(err, msg))
		fail_msg("%s = %s: '%s' lacks '%s'", key, val, err, msg);
	assert_non_null(strstr(err, "line 4:"));
	suite_release(&s);
}

static void expect_queue_error(const char *val, const char *msg)
{
	expect_key_error("queue", val, msg);
}

/* The vm key: names of /proc/sys/vm/, integers or one {N}. */
static void test_vm_key(void **state)
{
	struct suite s;
	char err[512];

	(void)state;
	assert_int_equal(load_text("name = t\nworkload = x\nwarmup = none\n"
				   "vm = dirty_bytes={33554432} "
				   "dirty_background_bytes=4096\n", &s, err,
				   sizeof(err)), 0);
	assert_int_equal(s.nvm, 2);
	assert_int_equal(s.nqueue, 0);
	assert_string_equal(s.vm[0].name, "dirty_bytes");
	assert_string_equal(s.vm[0].value, "{33554432}");
	assert_string_equal(s.vm[1].value, "4096");
	suite_release(&s);
	expect_key_error("vm", "../../kernel/x=1", "vm: invalid attribute "
			 "'../../kernel/x' (a name in /proc/sys/vm/)");
	expect_key_error("vm", "iosched/x=1", "invalid attribute 'iosched/x'");
	expect_key_error("vm", "dirty_bytes={1.5}", "must be a decimal "
			 "integer or {N}, got '{1.5}'");
	expect_key_error("vm", "dirty_bytes={}", "or {N}");
	expect_key_error("vm", "dirty_bytes={disk}", "or {N}");
	expect_key_error("queue", "nr_requests={4}", "must be a decimal "
			 "integer, got '{4}'");
	expect_key_error("vm", "a=1 b=1 c=1 d=1 e=1", "more than 4 attributes");
	expect_key_error("vm", "", "vm: no attribute given");
}

static void test_queue_key(void **state)
{
	struct suite s;
	char err[512];

	(void)state;
	assert_int_equal(load_text("name = t\nworkload = x\nwarmup = none\n"
				   "queue = wbt_lat_usec=0  "
				   "iosched/read_expire=100\tnr_requests=64\n",
				   &s, err, sizeof(err)), 0);
	assert_int_equal(s.nqueue, 3);
	assert_string_equal(s.queue[0].name, "wbt_lat_usec");
	assert_string_equal(s.queue[0].value, "0");
	assert_string_equal(s.queue[1].name, "iosched/read_expire");
	assert_string_equal(s.queue[1].value, "100");
	assert_string_equal(s.queue[2].name, "nr_requests");
	suite_release(&s);
	assert_int_equal(s.nqueue, 0);
	expect_queue_error("wbt_lat_usec",
			   "expected NAME=VALUE, got 'wbt_lat_usec'");
	expect_queue_error("../../../etc/passwd=1",
			   "invalid attribute '../../../etc/passwd'");
	expect_queue_error("iosched/../x=1",
			   "invalid attribute 'iosched/../x'");
	expect_queue_error("iosched/=1", "invalid attribute 'iosched/'");
	expect_queue_error("Nr=1", "invalid attribute 'Nr'");
	expect_queue_error("=1", "invalid attribute ''");
	expect_queue_error("scheduler=1", "the scheduler is the job's option");
	expect_queue_error("nr_requests=-1",
			   "must be a decimal integer, got '-1'");
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
		snprintf(dev.dir[i], sizeof(dev.dir[i]), "%s/sd%c", root,
			 'a' + i);
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
				   "queue = wbt_lat_usec=0 "
				   "iosched/fifo_batch=4\n",
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

static void mkfile(const char *dir, const char *name, const char *text)
{
	char p[1100];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	write_file(p, text);
}

static void expect_file(const char *dir, const char *name, const char *want)
{
	char p[1100], buf[64];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	read_file(p, buf, sizeof(buf));
	buf[strcspn(buf, "\n")] = 0;
	if (strcmp(buf, want))
		fail_msg("%s: '%s', expected '%s'", p, buf, want);
}

/* path exists and holds nothing at all */
static void expect_empty(const char *path)
{
	char c;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(read(fd, &c, 1), 0);
	close(fd);
}

/*
 * The vm key in a made-up /proc/sys/vm: a _bytes that reads 0 is saved as
 * its _ratio; the journal lists the old values while the run holds them,
 * is empty after; a journal a killed run left is put back (only inside
 * the directory) before anything is saved, also by a suite with no vm
 * key; a second run waits for the first; a failure puts back what was
 * set.
 */
static void test_qattr_vm(void **state)
{
	char root[] = "/tmp/klab-test-vm-XXXXXX", vm[64], jn[64], out[64],
	     buf[1024], err[512];
	struct devstat_set dev = { 0 };
	struct qattr_state st;
	struct suite s;
	int status;
	pid_t pid;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(vm, sizeof(vm), "%s/vm", root);
	snprintf(out, sizeof(out), "%s/out", root);
	snprintf(jn, sizeof(jn), "%s/journal", root);
	assert_int_equal(mkdir(vm, 0755), 0);
	assert_int_equal(mkdir(out, 0755), 0);
	mkfile(vm, "dirty_bytes", "0\n");
	mkfile(vm, "dirty_ratio", "20\n");
	mkfile(vm, "dirty_background_bytes", "0\n");
	mkfile(vm, "dirty_background_ratio", "10\n");
	mkfile(vm, "dirty_expire_centisecs", "3000\n");
	mkfile(out, "victim", "7\n");
	assert_int_equal(load_text("name = t\nworkload = x\nwarmup = none\n"
				   "vm = dirty_bytes=65536 "
				   "dirty_background_bytes=32768 "
				   "dirty_expire_centisecs=500\n", &s,
				   err, sizeof(err)), 0);
	assert_int_equal(qattr_apply(&st, &s, &dev, err, sizeof(err)), 0);
	assert_int_equal(qattr_apply_vm(&st, &s, vm, jn, err, sizeof(err)), 0);
	assert_int_equal(st.n, 3);
	expect_file(vm, "dirty_bytes", "65536");
	expect_file(vm, "dirty_expire_centisecs", "500");
	read_file(jn, buf, sizeof(buf));
	snprintf(err, sizeof(err), "%s/dirty_ratio 20\n"
		 "%s/dirty_background_ratio 10\n"
		 "%s/dirty_expire_centisecs 3000\n", vm, vm, vm);
	assert_string_equal(buf, err);

	/* a second run waits for the lock the first holds */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct qattr_state st2;

		close(st.journal);	/* the parent's lock is its own */
		qattr_apply(&st2, &s, &dev, err, sizeof(err));
		if (qattr_apply_vm(&st2, &s, vm, jn, err, sizeof(err)))
			_exit(1);
		qattr_restore(&st2);
		_exit(0);
	}
	usleep(300 * 1000);
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
	qattr_restore(&st);
	expect_file(vm, "dirty_ratio", "20");
	expect_file(vm, "dirty_background_ratio", "10");
	expect_file(vm, "dirty_expire_centisecs", "3000");
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	read_file(jn, buf, sizeof(buf));
	assert_string_equal(buf, "");

	/* a killed run's journal: put back inside vm/, ignored outside */
	snprintf(buf, sizeof(buf), "%s/dirty_ratio 33\n%s/victim 1\n"
		 "%s/../out/victim 2\n%s/dirty_expire_centisecs x\ngarbage\n",
		 vm, out, vm, vm);
	mkfile(root, "journal", buf);
	assert_int_equal(qattr_apply(&st, &s, &dev, err, sizeof(err)), 0);
	assert_int_equal(qattr_apply_vm(&st, &s, vm, jn, err, sizeof(err)), 0);
	expect_file(vm, "dirty_ratio", "33");
	expect_file(out, "victim", "7");
	qattr_restore(&st);
	suite_release(&s);

	/* a setting the kernel lacks: the ones before it are put back */
	assert_int_equal(load_text("name = t\nworkload = x\nwarmup = none\n"
				   "vm = dirty_expire_centisecs=1 nope=1\n", &s,
				   err, sizeof(err)), 0);
	assert_int_equal(qattr_apply(&st, &s, &dev, err, sizeof(err)), 0);
	assert_int_equal(qattr_apply_vm(&st, &s, vm, jn, err, sizeof(err)), -1);
	assert_non_null(strstr(err,
			       "cannot set vm setting nope=1 of suite 't'"));
	assert_non_null(strstr(err, "No such file or directory"));
	assert_int_equal(st.n, 0);
	assert_int_equal(st.journal, -1);
	expect_file(vm, "dirty_expire_centisecs", "3000");
	expect_empty(jn);
	suite_release(&s);

	/* a suite with no vm key puts back a killed run's leftovers too */
	snprintf(buf, sizeof(buf), "%s/dirty_ratio 44\n", vm);
	mkfile(root, "journal", buf);
	assert_int_equal(load_text("name = t\nworkload = x\nwarmup = none\n",
				   &s, err, sizeof(err)), 0);
	assert_int_equal(qattr_apply(&st, &s, &dev, err, sizeof(err)), 0);
	assert_int_equal(qattr_apply_vm(&st, &s, vm, jn, err, sizeof(err)), 0);
	assert_int_equal(st.journal, -1);
	expect_file(vm, "dirty_ratio", "44");
	expect_empty(jn);
	suite_release(&s);
	snprintf(buf, sizeof(buf), "rm -rf '%s'", root);
	assert_int_equal(system(buf), 0);
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
		"dbench", "fio", "tiobench-direct",
		"tiobench-under-writes-nowbt" };
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
		cmocka_unit_test(test_load_lines),
		cmocka_unit_test(test_disk_keys),
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_queue_key),
		cmocka_unit_test(test_qattr),
		cmocka_unit_test(test_vm_key),
		cmocka_unit_test(test_qattr_vm),
		cmocka_unit_test(test_shipped_suites),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
