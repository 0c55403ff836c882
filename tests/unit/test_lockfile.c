// SPDX-License-Identifier: MIT
/* Unit tests for lib/lockfile.c: one holder at a time, the refusal names
 * the holder's pid, and the lock goes when its descriptor closes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/lockfile.h"

static void test_one_holder(void **state)
{
	char dir[] = "/tmp/klab-lockfile.XXXXXX", path[128], err[300];
	char want[200], buf[32];
	struct stat st;
	int fd, fd2;
	ssize_t n;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/klab.db.lock", dir);
	fd = lockfile_take(path, err, sizeof(err));
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_int_equal(strtol(buf, NULL, 10), (long)getpid());
	/* another open file description: refused, naming the holder */
	fd2 = lockfile_take(path, err, sizeof(err));
	assert_int_equal(fd2, -1);
	snprintf(want, sizeof(want), "'%s' is locked by pid %ld", path,
		 (long)getpid());
	assert_string_equal(err, want);
	close(fd);
	fd2 = lockfile_take(path, err, sizeof(err));
	assert_true(fd2 >= 0);
	close(fd2);
	unlink(path);
	rmdir(dir);
}

static void test_unopenable(void **state)
{
	char err[300];

	assert_int_equal(lockfile_take("/nonexistent-dir/x.lock", err,
				       sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot open lock file "
			       "'/nonexistent-dir/x.lock'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_holder),
		cmocka_unit_test(test_unopenable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
