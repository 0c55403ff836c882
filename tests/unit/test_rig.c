// SPDX-License-Identifier: MIT
/*
 * Unit tests for lab/rig_watch.c: the console scanner (panic and
 * banner lines, lines far longer than its buffer, input in any pieces)
 * and the watchdog deadlines, on an injected monotonic time.
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

#include "lab/rig.h"

static struct rig_scan scan;

static void feed(const char *s)
{
	rig_scan_feed(&scan, s, strlen(s));
}

static void feed_run(char c, size_t n)
{
	char *buf = malloc(n);

	assert_non_null(buf);
	memset(buf, c, n);
	rig_scan_feed(&scan, buf, n);
	free(buf);
}

static void test_lines(void **state)
{
	const char *a = "[    0.000000] Linux version 6.1.0 (gcc)\nbooting\n",
		   *b = "[   12.3] Kernel pan",
		   *c = "ic - not syncing: VFS\nmore\n";

	rig_scan_reset(&scan);
	feed(a);
	assert_int_equal(scan.banners, 1);
	assert_string_equal(scan.why, "");
	/* a partial line is matched only once it is whole */
	feed(b);
	assert_string_equal(scan.why, "");
	feed(c);
	assert_string_equal(scan.why, "console: Kernel panic - not syncing: "
			    "VFS");
	assert_int_equal(scan.off, (long)(strlen(a) + strlen(b) + strlen(c)));
}

static void test_long_lines(void **state)
{
	const char *panic = "BUG: unable to handle page fault\n";
	size_t i;

	/* 100 KiB without a newline, then a panic: still seen */
	rig_scan_reset(&scan);
	feed_run('x', 100 * 1024);
	assert_string_equal(scan.why, "");
	feed("\n");
	feed(panic);
	assert_string_equal(scan.why, "console: BUG: unable to handle page "
			    "fault");
	assert_int_equal(scan.off, 100 * 1024 + 1 + (long)strlen(panic));

	/* a match in the first RIG_LINE_MAX bytes of a long line counts */
	rig_scan_reset(&scan);
	feed("Oops: 0002");
	feed_run('y', RIG_LINE_MAX - 20);
	assert_string_equal(scan.why, "");	/* not whole yet: wait */
	feed_run('y', 3 * RIG_LINE_MAX);	/* full: matched at once */
	assert_int_equal(strncmp(scan.why, "console: Oops: 0002", 19), 0);
	feed("\nLinux version 6.12\n");
	assert_int_equal(strncmp(scan.why, "console: Oops: 0002", 19), 0);
	assert_int_equal(scan.banners, 1);

	/* one byte at a time, over the long line: the same answer */
	rig_scan_reset(&scan);
	for (i = 0; i < RIG_LINE_MAX + 100; i++)
		rig_scan_feed(&scan, "z", 1);
	rig_scan_feed(&scan, "\n", 1);
	for (i = 0; panic[i]; i++)
		rig_scan_feed(&scan, panic + i, 1);
	assert_int_equal(strncmp(scan.why, "console: BUG:", 13), 0);
}

static void test_file(void **state)
{
	char path[] = "/tmp/klab-console-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	int i;

	assert_non_null(f);
	for (i = 0; i < 20000; i++)
		fputs("long-line-", f);
	fputs("\nLinux version 6.1\nKernel panic - not syncing\n", f);
	fclose(f);
	rig_scan_reset(&scan);
	rig_scan_file(&scan, path, 1 << 20);
	assert_int_equal(scan.off, 200000 + 1 + 18 + 27);
	assert_int_equal(scan.banners, 1);
	assert_string_equal(scan.why, "console: Kernel panic - not syncing");
	unlink(path);
}

static void test_watchdog(void **state)
{
	struct rig g;
	char msg[128];

	memset(&g, 0, sizeof(g));
	g.boot_timeout = 120;
	g.job_timeout = 1800;
	g.deadline = 5000;
	g.state = RIG_BOOTING;
	assert_null(rig_watchdog(&g, 4999, msg, sizeof(msg)));
	assert_null(rig_watchdog(&g, 5000, msg, sizeof(msg)));
	assert_string_equal(rig_watchdog(&g, 5001, msg, sizeof(msg)),
			    "no check-in within 120 s (hang)");
	g.state = RIG_ASSIGNED;
	assert_string_equal(rig_watchdog(&g, 9000, msg, sizeof(msg)),
			    "no kexec announced within 1800 s (hang)");
	g.state = RIG_RUNNING;
	assert_string_equal(rig_watchdog(&g, 9000, msg, sizeof(msg)),
			    "no results within 1800 s (hang)");
	/* idle, offline or being started: no watchdog */
	g.state = RIG_IDLE;
	assert_null(rig_watchdog(&g, 1LL << 50, msg, sizeof(msg)));
	g.state = RIG_STARTING;
	assert_null(rig_watchdog(&g, 1LL << 50, msg, sizeof(msg)));
	g.state = RIG_OFFLINE;
	assert_null(rig_watchdog(&g, 1LL << 50, msg, sizeof(msg)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_watchdog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
