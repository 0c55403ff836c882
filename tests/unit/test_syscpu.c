// SPDX-License-Identifier: MIT
/*
 * Unit tests for workloads/syscpu.c on fake proc trees: the busy time of
 * /proc/stat (user+nice+system+irq+softirq; idle, iowait and steal not),
 * which tasks are kernel threads (PF_KTHREAD, parent kthreadd, kthreadd
 * itself; a comm with blanks and parentheses), the kernel threads' time
 * over a phase matched by pid and start time (a thread born in the phase
 * counts whole, a reused pid is a new thread, an exited one is lost), and
 * the results: CPU per op in microseconds and the kthread share.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workloads/syscpu.h"

static char root[PATH_MAX];

static void write_file(const char *rel, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* ROOT/PID/stat as the kernel writes it (fs/proc/array.c). */
static void task(int pid, const char *comm, int ppid, unsigned flags,
		 unsigned utime, unsigned stime, unsigned start)
{
	char dir[PATH_MAX + 32], line[512];

	snprintf(dir, sizeof(dir), "%s/%d", root, pid);
	mkdir(dir, 0755);
	snprintf(line, sizeof(line), "%d (%s) S %d 0 0 0 -1 %u 0 0 0 0 %u %u "
		 "0 0 20 0 1 0 %u 0 0 18446744073709551615 0 0 0 0 0 0 0 "
		 "2147483647 0 0 0 0 17 1 0 0 0 0 0\n", pid, comm, ppid, flags,
		 utime, stime, start);
	snprintf(dir, sizeof(dir), "%d/stat", pid);
	write_file(dir, line);
}

static void gone(int pid)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%d'", root, pid);
	assert_int_equal(system(cmd), 0);
}

/* An empty proc tree again. */
static void clear_root(void)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/*", root);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/klab-syscpu-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_stat(void **state)
{
	uint64_t busy, total;

	/* user nice system idle iowait irq softirq steal guest guest_nice */
	write_file("stat", "cpu  100 2 30 5000 70 4 6 9 50 0\n"
		   "cpu0 50 1 15 2500 35 2 3 4 25 0\nintr 1 2 3\n");
	assert_int_equal(syscpu_stat_read(root, &busy, &total), 0);
	assert_int_equal(busy, 100 + 2 + 30 + 4 + 6);
	assert_int_equal(total, busy + 5000 + 70 + 9);
	/* an old kernel's four numbers */
	write_file("stat", "cpu 10 0 5 100\n");
	assert_int_equal(syscpu_stat_read(root, &busy, &total), 0);
	assert_int_equal(busy, 15);
	assert_int_equal(total, 115);
	write_file("stat", "cpu 10 0\n");
	assert_int_equal(syscpu_stat_read(root, &busy, &total), -1);
	write_file("stat", "intr 1 2 3\n");
	assert_int_equal(syscpu_stat_read(root, &busy, &total), -1);
	assert_int_equal(syscpu_stat_read("/nonexistent-proc", &busy,
					  &total), -1);
}

static void test_task_parse(void **state)
{
	struct syscpu_task t;
	int k;

	assert_int_equal(syscpu_task_parse("17 (kworker/0:1-events) I 2 0 0 "
		"0 -1 69238880 0 0 0 0 12 34 0 0 20 0 1 0 150 0 0", &t, &k),
		0);
	assert_int_equal(t.pid, 17);
	assert_int_equal(t.ticks, 46);
	assert_int_equal(t.start, 150);
	assert_int_equal(k, SYSCPU_KT_FLAG);
	/* a user task whose comm has blanks and parentheses */
	assert_int_equal(syscpu_task_parse("4242 (a) (b c)) R 1 4242 4242 0 "
		"-1 4194560 9 0 0 0 7 8 0 0 20 0 3 0 900 0 0", &t, &k), 0);
	assert_int_equal(t.pid, 4242);
	assert_int_equal(t.ticks, 15);
	assert_int_equal(k, 0);
	/* kthreadd, and a child of it without the flag */
	assert_int_equal(syscpu_task_parse("2 (kthreadd) S 0 0 0 0 -1 2129984 "
		"0 0 0 0 1 2 0 0 20 0 1 0 1 0 0", &t, &k), 0);
	assert_int_equal(k, SYSCPU_KT_FLAG);
	assert_int_equal(syscpu_task_parse("30 (x) S 2 0 0 0 -1 0 0 0 0 0 1 "
		"2 0 0 20 0 1 0 5 0 0", &t, &k), 0);
	assert_int_equal(k, SYSCPU_KT_PARENT);
	assert_int_equal(syscpu_task_parse("17 kworker I 2", &t, &k), -1);
	assert_int_equal(syscpu_task_parse("17 (k) I 2 0 0 0 -1 0 0 0", &t,
					   &k), -1);
	assert_int_equal(syscpu_task_parse("(k) I 2 0 0 0 -1 0 0 0 0 0 1 2 "
		"0 0 20 0 1 0 5", &t, &k), -1);
	assert_int_equal(syscpu_task_parse("", &t, &k), -1);
}

static void test_phase(void **state)
{
	struct syscpu a = { 0 }, b = { 0 };
	struct syscpu_delta d;
	struct result_set rs;
	size_t i;
	int seen = 0;

	write_file("stat", "cpu 1000 0 500 9000 0 100 100 0 0 0\n");
	task(1, "init", 0, 0x400100, 50, 50, 1);
	task(2, "kthreadd", 0, SYSCPU_PF_KTHREAD, 1, 1, 1);
	task(17, "kworker/0:1-events", 2, 0x4208060, 100, 200, 150);
	task(40, "kworker/u4:2", 2, 0x4208060, 10, 10, 300);
	task(41, "ksoftirqd/0", 2, 0x4208040, 5, 5, 2);
	task(42, "kthreadd's child", 2, 0, 3, 3, 5);	/* no flag */
	task(500, "iops (worker)", 1, 0x400040, 400, 400, 800);
	write_file("self", "not a task\n");
	assert_int_equal(syscpu_read(&a, root), 0);
	assert_true(a.ok);
	assert_int_equal(a.busy, 1700);
	assert_int_equal(a.nkt, 5);
	for (i = 1; i < a.nkt; i++)
		assert_true(a.kt[i - 1].pid < a.kt[i].pid);

	/* the phase: 300 busy ticks; kworker 17 +30, ksoftirqd +6, 40
	 * exits (lost), 41's pid... stays; a new kworker 60 with 9, pid 40
	 * reused by a new kworker (start 2000) with 4; the user task +200
	 * counts in busy only */
	write_file("stat", "cpu 1100 0 650 9400 0 125 125 50 0 0\n");
	task(17, "kworker/0:1-events", 2, 0x4208060, 110, 220, 150);
	task(41, "ksoftirqd/0", 2, 0x4208040, 8, 8, 2);
	gone(40);
	task(40, "kworker/u4:3", 2, 0x4208060, 1, 3, 2000);
	task(60, "kworker/1:0", 2, 0x4208060, 4, 5, 2100);
	task(500, "iops (worker)", 1, 0x400040, 500, 500, 800);
	task(42, "kthreadd's child", 2, 0, 3, 3, 5);
	assert_int_equal(syscpu_read(&b, root), 0);
	syscpu_delta(&a, &b, &d);
	assert_int_equal(d.busy, 300);
	assert_int_equal(d.total, 300 + 400 + 50);
	assert_int_equal(d.kthread, 30 + 4 + 6 + 9);
	assert_true(fabs(syscpu_busy_pct(&d) - 40.0) < 1e-9);

	/* 300 ticks at 100 Hz = 3 s over 1500 ops: 2000 us an op */
	result_set_init(&rs);
	syscpu_report(&rs, "tiobench.rand_read", &d, 1500, 100);
	for (i = 0; i < rs.n; i++) {
		const struct result *r = &rs.v[i];

		if (!strcmp(r->metric, "tiobench.rand_read.sys_cpu_per_op")) {
			assert_true(fabs(r->value - 2000.0) < 1e-9);
			assert_string_equal(r->unit, "us");
			assert_int_equal(r->dir, DIR_LOWER);
			seen |= 1;
		} else if (!strcmp(r->metric,
				   "tiobench.rand_read.kthread_share")) {
			assert_true(fabs(r->value - 100.0 * 49 / 300) < 1e-9);
			assert_string_equal(r->unit, "%");
			assert_int_equal(r->dir, DIR_NONE);
			seen |= 2;
		}
	}
	assert_int_equal(seen, 3);
	assert_int_equal(rs.n, 2);
	/* no ops: nothing */
	syscpu_report(&rs, "iops", &d, 0, 100);
	assert_int_equal(rs.n, 2);
	result_set_release(&rs);

	/* counters that went back (a reading of another machine) count 0 */
	syscpu_delta(&b, &a, &d);
	assert_int_equal(d.busy, 0);
	assert_int_equal(syscpu_busy_pct(&d), 0);
	syscpu_release(&a);
	syscpu_release(&b);
	assert_null(a.kt);
	assert_int_equal(a.nkt, 0);
}

/* In a PID namespace pid 2 is a user task: its children are not kernel
 * threads, a task with PF_KTHREAD still is. */
static void test_pid_namespace(void **state)
{
	struct syscpu s = { 0 };

	clear_root();
	write_file("stat", "cpu 10 0 5 100\n");
	task(1, "sh", 0, 0x400100, 1, 1, 1);
	task(2, "sleep", 1, 0x400000, 1, 1, 2);
	task(3, "cat", 2, 0x400000, 1, 1, 3);
	task(4, "odd kthread", 0, SYSCPU_PF_KTHREAD, 7, 0, 4);
	assert_int_equal(syscpu_read(&s, root), 0);
	assert_int_equal(s.nkt, 1);
	assert_int_equal(s.kt[0].pid, 4);
	syscpu_release(&s);
	clear_root();
}

static void test_unreadable(void **state)
{
	struct syscpu s = { 0 };
	struct result_set rs;

	assert_int_equal(syscpu_read(&s, "/nonexistent-proc"), -1);
	assert_false(s.ok);
	/* a phase whose start could not be read reports nothing */
	result_set_init(&rs);
	syscpu_phase_end(&rs, "iops", &s, 100);
	assert_int_equal(rs.n, 0);
	result_set_release(&rs);
	/* the real /proc of the test's machine, when there is one */
	if (syscpu_read(&s, NULL) == 0) {
		assert_true(s.total >= s.busy);
		/* kthreadd at least, unless a pid namespace hides it */
		if (access("/proc/2/stat", R_OK) == 0)
			assert_true(s.nkt >= 1);
	}
	syscpu_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_task_parse),
		cmocka_unit_test(test_phase),
		cmocka_unit_test(test_pid_namespace),
		cmocka_unit_test(test_unreadable),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
