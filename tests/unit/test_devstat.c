// SPDX-License-Identifier: MIT
/*
 * Unit tests for workloads/devstat.c: the /sys/block/DEV/stat line, deltas
 * and the derived KiB per request, the results' names and direction, and
 * the disk behind a path in a fake sysroot (a partition counts as its
 * disk; tmpfs-like paths with no block device give none).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "workloads/devstat.h"

static void test_parse(void **state)
{
	struct devstat d;

	assert_int_equal(devstat_parse("    1234      10    56789     400 "
				       "  77   3   616   90  2  500  1490 "
				       "0 0 0 0 0 0\n", &d), 0);
	assert_int_equal(d.rd_ios, 1234);
	assert_int_equal(d.rd_merges, 10);
	assert_int_equal(d.rd_sectors, 56789);
	assert_int_equal(d.rd_ticks, 400);
	assert_int_equal(d.wr_ios, 77);
	assert_int_equal(d.wr_merges, 3);
	assert_int_equal(d.wr_sectors, 616);
	assert_int_equal(d.wr_ticks, 90);
	assert_int_equal(d.in_flight, 2);
	assert_int_equal(d.io_ticks, 500);
	assert_int_equal(d.queue_ticks, 1490);
	/* old kernels stop after eleven fields */
	assert_int_equal(devstat_parse("1 2 3 4 5 6 7 8 9 10 11", &d), 0);
	assert_int_equal(d.queue_ticks, 11);
	assert_int_equal(devstat_parse("1 2 3 4 5 6 7 8 9 10", &d), -1);
	assert_int_equal(devstat_parse("1 2 3 x 5 6 7 8 9 10 11", &d), -1);
	assert_int_equal(devstat_parse("1 2 3 4x 5 6 7 8 9 10 11", &d), -1);
	assert_int_equal(devstat_parse("", &d), -1);
	assert_int_equal(devstat_parse("1 2 3 -4 5 6 7 8 9 10 11", &d), -1);
}

static void test_delta_report(void **state)
{
	struct devstat a, b, d;
	struct result_set rs;
	size_t i;

	devstat_parse("100 10 800 5 50 5 400 7 1 30 40", &a);
	devstat_parse("300 30 1800 9 50 5 400 7 0 130 90", &b);
	devstat_delta(&a, &b, &d);
	assert_int_equal(d.rd_ios, 200);
	assert_int_equal(d.rd_merges, 20);
	assert_int_equal(d.rd_sectors, 1000);
	assert_int_equal(d.wr_ios, 0);
	assert_int_equal(d.io_ticks, 100);
	assert_int_equal(d.queue_ticks, 50);
	/* a counter that went backwards (device reset) gives 0, not 2^64 */
	devstat_delta(&b, &a, &d);
	assert_int_equal(d.rd_ios, 0);
	devstat_delta(&a, &b, &d);
	assert_true(devstat_kib_per_io(1000, 200) == 2.5);
	assert_true(devstat_kib_per_io(8, 0) < 0);

	result_set_init(&rs);
	devstat_report(&rs, "tiobench.rand_read", &d);
	/* eight counters, and KiB per read but none per write (no writes) */
	assert_int_equal(rs.n, 9);
	for (i = 0; i < rs.n; i++)
		assert_int_equal(rs.v[i].dir, DIR_NONE);
	assert_string_equal(rs.v[0].metric, "tiobench.rand_read.dev_reads");
	assert_true(rs.v[0].value == 200);
	assert_string_equal(rs.v[1].metric,
			    "tiobench.rand_read.dev_read_merges");
	assert_string_equal(rs.v[2].metric,
			    "tiobench.rand_read.dev_read_sectors");
	assert_string_equal(rs.v[3].metric, "tiobench.rand_read.dev_writes");
	assert_string_equal(rs.v[6].metric,
			    "tiobench.rand_read.dev_io_ticks_ms");
	assert_string_equal(rs.v[7].metric, "tiobench.rand_read.dev_queue_ms");
	assert_true(rs.v[7].value == 50);
	assert_string_equal(rs.v[8].metric,
			    "tiobench.rand_read.dev_read_kib_per_io");
	assert_true(rs.v[8].value == 2.5);
	assert_string_equal(rs.v[8].unit, "KiB");
	result_set_release(&rs);
}

static char root[256], file[300];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* ROOT/sys/dev/block/MAJ:MIN -> a partition vdz1 of disk vdz. */
static void make_tree(dev_t dev)
{
	char p[PATH_MAX + 128], link[PATH_MAX + 64];

	snprintf(link, sizeof(link), "mkdir -p '%s/sys/devices/virtual/block"
		 "/vdz/vdz1' '%s/sys/dev/block'", root, root);
	assert_int_equal(system(link), 0);
	snprintf(p, sizeof(p), "%s/sys/devices/virtual/block/vdz/vdz1/"
		 "partition", root);
	write_file(p, "1\n");
	snprintf(p, sizeof(p), "%s/sys/devices/virtual/block/vdz/vdz1/stat",
		 root);
	write_file(p, "1 0 8 0 0 0 0 0 0 0 0\n");
	snprintf(p, sizeof(p), "%s/sys/devices/virtual/block/vdz/stat", root);
	write_file(p, "5 1 40 3 2 0 16 1 0 4 4\n");
	snprintf(link, sizeof(link), "%s/sys/dev/block/%u:%u", root,
		 major(dev), minor(dev));
	assert_int_equal(symlink("../../devices/virtual/block/vdz/vdz1",
				 link), 0);
}

static void test_disk_find(void **state)
{
	char dir[512], want[PATH_MAX + 64], real[PATH_MAX], cmd[PATH_MAX + 16];
	struct devstat_set s;
	struct devstat d;
	struct stat st;

	snprintf(root, sizeof(root), "/tmp/klab-devstat-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(file, sizeof(file), "%s/data", root);
	write_file(file, "x");
	assert_int_equal(stat(file, &st), 0);
	/* no tree yet: no disk behind the file */
	assert_int_equal(devstat_disk_find(root, file, dir, sizeof(dir)), -1);
	make_tree(st.st_dev);
	assert_non_null(realpath(root, real));
	snprintf(want, sizeof(want), "%s/sys/devices/virtual/block/vdz",
		 real);
	assert_int_equal(devstat_disk_find(root, file, dir, sizeof(dir)), 0);
	assert_string_equal(dir, want);
	/* a file still to be created: its directory's device */
	snprintf(want, sizeof(want), "%s/not-yet", root);
	assert_int_equal(devstat_disk_find(root, want, dir, sizeof(dir)), 0);
	/* two paths on one disk count once, from KLAB_SYSROOT */
	setenv("KLAB_SYSROOT", root, 1);
	snprintf(want, sizeof(want), "%s,%s", file, root);
	assert_int_equal(devstat_set_init(&s, want), 1);
	assert_int_equal(devstat_set_read(&s, &d), 0);
	assert_int_equal(d.rd_ios, 5);	/* the disk's line, not vdz1's */
	assert_int_equal(d.wr_sectors, 16);
	assert_int_equal(devstat_set_init(&s, "/nonexistent/dir/x"), 0);
	unsetenv("KLAB_SYSROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* A read phase that got under 90% of its bytes from the device is cached. */
static void test_cache_check(void **state)
{
	struct result_set rs;
	struct devstat d = { 0 };

	(void)state;
	result_set_init(&rs);
	d.rd_sectors = 1900;	/* 972800 of 1 MiB: 93% */
	assert_int_equal(devstat_report_cache(&rs, "t.seq_read", &d,
					      1048576), 0);
	d.rd_sectors = 8;	/* 4 KiB of 1 MiB */
	assert_int_equal(devstat_report_cache(&rs, "t.rand_read", &d,
					      1048576), 1);
	assert_int_equal(devstat_report_cache(&rs, "t.none", &d, 0), 0);
	assert_int_equal(rs.n, 6);
	assert_string_equal(rs.v[0].metric, "t.seq_read.dev_read_share");
	assert_true(rs.v[0].value > 0.92 && rs.v[0].value < 0.93);
	assert_string_equal(rs.v[1].metric, "t.seq_read.cached");
	assert_true(rs.v[1].value == 0 && rs.v[1].dir == DIR_NONE);
	assert_string_equal(rs.v[3].metric, "t.rand_read.cached");
	assert_true(rs.v[3].value == 1);
	result_set_release(&rs);
}

/* read_bytes of /proc/PID/io (a test's file), and of this process */
static void test_proc_read_bytes(void **state)
{
	char path[] = "/tmp/klab-test-io-XXXXXX";
	int fd = mkstemp(path);
	uint64_t v = 0;
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("rchar: 5000\nwchar: 10\nsyscr: 3\nsyscw: 1\n"
	      "read_bytes: 1048576\nwrite_bytes: 0\n"
	      "cancelled_write_bytes: 0\n", f);
	fclose(f);
	assert_int_equal(devstat_proc_read_bytes(path, &v), 0);
	assert_true(v == 1048576);
	f = fopen(path, "w");
	fputs("rchar: 5000\n", f);
	fclose(f);
	assert_int_equal(devstat_proc_read_bytes(path, &v), -1);
	unlink(path);
	assert_int_equal(devstat_proc_read_bytes("/nonexistent/io", &v), -1);
	/* the real one, where the kernel has it */
	if (access("/proc/self/io", R_OK) == 0)
		assert_int_equal(devstat_proc_read_bytes(NULL, &v), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_delta_report),
		cmocka_unit_test(test_disk_find),
		cmocka_unit_test(test_cache_check),
		cmocka_unit_test(test_proc_read_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
