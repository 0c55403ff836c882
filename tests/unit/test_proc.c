// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/proc.c, the one process runner: capture with a cap,
 * exit statuses, a timeout or a cancel that stops the whole process group
 * (children included, with and without a grace period), close-on-exec
 * (a child sees only fds 0, 1 and 2), background children, explicit
 * descriptors and a working directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/proc.h"

/* 1 when pid is gone or a zombie (its parent died; init reaps it). */
static int pid_gone(long pid)
{
	char path[64], buf[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && (p[2] == 'Z' || p[2] == 'X');
}

static int wait_gone(long pid)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (pid_gone(pid))
			return 1;
		usleep(20000);
	}
	return 0;
}

static void test_capture_status(void **state)
{
	char *argv[] = { "sh", "-c", "echo hi; echo oops >&2; exit 3", NULL };
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT;
	struct proc_opts o = { .out = &out, .errout = &errout };
	char err[256] = "";
	int to = -1;

	sb_init(&out);
	sb_init(&errout);
	assert_int_equal(proc_run(argv, &o, &to, err, sizeof(err)), 3);
	assert_int_equal(to, 0);
	assert_string_equal(out.buf, "hi\n");
	assert_string_equal(errout.buf, "oops\n");
	sb_release(&out);
	sb_release(&errout);
}

static void test_cap(void **state)
{
	char *argv[] = { "head", "-c", "300000", "/dev/zero", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_opts o = { .out = &out, .cap = 1000 };
	char err[256];

	sb_init(&out);
	/* the rest is read and dropped: the child is never blocked */
	assert_int_equal(proc_run(argv, &o, NULL, err, sizeof(err)), 0);
	assert_int_equal(out.len, 1000);
	sb_release(&out);
}

static void test_cannot_run(void **state)
{
	char *argv[] = { "/nonexistent/klab-no-such-program", NULL };
	char err[256] = "";

	assert_int_equal(proc_run(argv, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot run"));
}

/* Run a shell that starts a sleep in the background (same group), stops
 * at the timeout; both must be gone. */
static void run_hang(const char *script, long grace_ms)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_opts o = { .out = &out, .timeout_ms = 300,
			       .grace_ms = grace_ms };
	long long t0 = proc_now_ms();
	char err[256] = "";
	long shpid, sleeppid;
	int to = 0;

	sb_init(&out);
	assert_int_equal(proc_run(argv, &o, &to, err, sizeof(err)), -1);
	assert_int_equal(to, 1);
	assert_non_null(strstr(err, "timed out"));
	assert_true(proc_now_ms() - t0 < 300 + grace_ms + 3000);
	assert_int_equal(sscanf(out.buf, "%ld %ld", &shpid, &sleeppid), 2);
	assert_true(wait_gone(shpid));
	assert_true(wait_gone(sleeppid));
	sb_release(&out);
}

static void test_timeout_kills_group(void **state)
{
	run_hang("sleep 1000 & echo $$ $!; wait", 0);
	/* SIGTERM ignored by both: SIGKILL after the grace period */
	run_hang("trap '' TERM; sleep 1000 & echo $$ $!; wait", 400);
}

/* SIGTERM first when there is a grace period, delivered although the
 * parent blocks it (the child's mask and dispositions are reset). */
static void test_term_reaches_child(void **state)
{
	char *argv[] = { "sh", "-c", "trap 'echo got-term; exit 1' TERM; "
			 "sleep 1000 & wait", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_opts o = { .out = &out, .timeout_ms = 300,
			       .grace_ms = 10000 };
	char err[256];
	int to = 0;

	sb_init(&out);
	assert_int_equal(proc_run(argv, &o, &to, err, sizeof(err)), -1);
	assert_int_equal(to, 1);
	assert_string_equal(out.buf, "got-term\n");
	sb_release(&out);
}

static int cancel_flag;

static void *cancel_later(void *arg)
{
	usleep(200000);
	__atomic_store_n(&cancel_flag, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void test_cancel(void **state)
{
	char *argv[] = { "sleep", "1000", NULL };
	struct proc_opts o = { .cancel = &cancel_flag };
	char err[256] = "";
	pthread_t t;
	int to = 0;

	assert_int_equal(pthread_create(&t, NULL, cancel_later, NULL), 0);
	assert_int_equal(proc_run(argv, &o, &to, err, sizeof(err)), -1);
	assert_int_equal(to, 1);
	assert_non_null(strstr(err, "cancelled"));
	pthread_join(t, NULL);
}

/* Only 0, 1 and 2 reach the child: no pipe of ours, close-on-exec or
 * not, no other file.  ls's own handle on the directory is the one
 * other entry it may list. */
static void test_cloexec(void **state)
{
	char *argv[] = { "ls", "-l", "/proc/self/fd", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_opts o = { .out = &out };
	char err[256], *line, *nl;
	int cx[2], plain[2], n = 0;
	long fd;

	assert_int_equal(pipe2(cx, O_CLOEXEC), 0);
	assert_int_equal(pipe(plain), 0);
	sb_init(&out);
	assert_int_equal(proc_run(argv, &o, NULL, err, sizeof(err)), 0);
	for (line = out.buf; line && *line; line = nl ? nl + 1 : NULL) {
		char *arrow, *sp;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		arrow = strstr(line, " -> ");
		if (!arrow)
			continue;	/* "total 0" */
		*arrow = '\0';
		sp = strrchr(line, ' ');
		assert_non_null(sp);
		fd = strtol(sp + 1, NULL, 10);
		if (fd > 2 && !strstr(arrow + 4, "/fd"))
			fail_msg("fd %ld -> %s reached the child", fd,
				 arrow + 4);
		n++;
	}
	assert_true(n >= 3 && n <= 4);
	close(cx[0]);
	close(cx[1]);
	close(plain[0]);
	close(plain[1]);
	sb_release(&out);
}

static void test_background(void **state)
{
	char path[] = "/tmp/klab-proc-test-XXXXXX";
	char *argv[] = { "sh", "-c", "echo started; exec sleep 1000", NULL };
	struct proc_opts o = { .out_path = path };
	struct proc p;
	char err[256], buf[64] = "";
	int fd = mkostemp(path, O_CLOEXEC), i;
	pid_t pid;

	assert_true(fd >= 0);
	assert_int_equal(proc_start(&p, argv, &o, err, sizeof(err)), 0);
	pid = p.pid;
	assert_true(pid > 0);
	for (i = 0; i < 100 && read(fd, buf, sizeof(buf) - 1) <= 0; i++)
		usleep(20000);
	assert_string_equal(buf, "started\n");
	assert_int_equal(proc_poll(&p), 0);
	proc_stop(&p, 1000);
	assert_int_equal(p.pid, 0);
	assert_true(pid_gone(pid));
	assert_int_equal(proc_poll(&p), 1);
	close(fd);
	unlink(path);
}

/* Explicit descriptors and a working directory (workloads/child.c). */
static void test_start_fds_cwd(void **state)
{
	char *argv[] = { "pwd", NULL };
	char err[256] = "", buf[64] = "";
	struct proc p;
	int fds[2], i;

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	assert_int_equal(proc_start_fds(&p, argv, "/proc", fds[1],
					PROC_FD_NULL, err, sizeof(err)), 0);
	close(fds[1]);
	for (i = 0; i < 200 && !proc_poll(&p); i++)
		usleep(10000);
	assert_true(read(fds[0], buf, sizeof(buf) - 1) > 0);
	assert_string_equal(buf, "/proc\n");
	close(fds[0]);
	assert_int_equal(proc_start_fds(&p, argv, "/nonexistent-klab-dir",
					PROC_FD_INHERIT, PROC_FD_INHERIT, err,
					sizeof(err)), -1);
	assert_string_equal(err, "cannot run 'pwd' in /nonexistent-klab-dir: "
			    "No such file or directory");
}

int main(void)
{
	sigset_t set;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_status),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_cannot_run),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_term_reaches_child),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_cloexec),
		cmocka_unit_test(test_background),
		cmocka_unit_test(test_start_fds_cwd),
	};

	/* klabd blocks these in every thread: children must not inherit */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
