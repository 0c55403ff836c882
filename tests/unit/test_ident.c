// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/ident.c: the identifier rule every path in uses
 * (what the lab's real names look like, what hostile names look like and
 * how errors name the offending byte).  The UTF-8 rule: test_utf8.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "lib/ident.h"

static void test_real_names(void **state)
{
	static const char *const ok[] = {
		"2.4.22-axboe-2l", "6.1.0-28-cloud-amd64", "6.1.192",
		"6.12.117+deb12-cloud-amd64", "6.1.192+elv-lowlat",
		"build-0123456789ab", "2.6.0-test9-mm1", "6.1~rc3",
		"a:b@c", "x",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_int_equal(ident_checks(IDENT_KERNEL, ok[i], NULL, 0), 0);
	assert_int_equal(ident_checks(IDENT_METRIC,
				      "tiobench.rand_read.lat_max", NULL, 0),
			 0);
	assert_int_equal(ident_checks(IDENT_METRIC,
				      "fio.seq-write_1.read.iops", NULL, 0), 0);
	assert_int_equal(ident_checks(IDENT_SUITE, "tiobench-under-writes",
				      NULL, 0), 0);
	assert_int_equal(ident_checks(IDENT_RIG, "manydisk", NULL, 0), 0);
	assert_int_equal(ident_checks(IDENT_RAW, "results.json", NULL, 0), 0);
	assert_int_equal(ident_checks(IDENT_RAW, "-", NULL, 0), 0);
	assert_int_equal(ident_checks(IDENT_RAW, "raw/run-1.json", NULL, 0),
			 0);
	assert_int_not_equal(ident_checks(IDENT_RAW, "/etc/passwd", NULL, 0),
			     0);
	assert_int_not_equal(ident_checks(IDENT_RAW, "raw/../../x", NULL, 0),
			     0);
	assert_int_not_equal(ident_checks(IDENT_RAW, "raw//x", NULL, 0), 0);
	assert_int_not_equal(ident_checks(IDENT_KERNEL, "raw/x", NULL, 0), 0);
}

static void test_hostile_names(void **state)
{
	static const char *const bad[] = {
		"", "<script>", "a<b", "a\"b", "a'b", "../etc", "a/../b",
		"a b", "a\xe2\x80\xae" "b", "a\tb", "a..b", "a.", ".a",
		"-rf", "a\\b", "a;b", "a$(x)", "a\xff", "a\xc0\xaf",
		"a&b", "a%00", "a?b", "a#b", "a,b", "a=b", "a/b",
	};
	char long_name[IDENT_MAX + 2];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_not_equal(ident_checks(IDENT_KERNEL, bad[i], NULL,
						  0), 0);
	assert_int_not_equal(ident_checks(IDENT_KERNEL, NULL, NULL, 0), 0);
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_not_equal(ident_checks(IDENT_KERNEL, long_name, NULL, 0),
			     0);
	long_name[IDENT_MAX] = '\0';
	assert_int_equal(ident_checks(IDENT_KERNEL, long_name, NULL, 0), 0);
	/* a NUL inside the given length is refused, not a cut */
	assert_int_not_equal(ident_check(IDENT_KERNEL, "6.1\0x", 5, NULL, 0),
			     0);
}

static void test_messages(void **state)
{
	char err[300];

	assert_int_not_equal(ident_checks(IDENT_KERNEL, "6.1<b>", err,
					  sizeof(err)), 0);
	assert_string_equal(err, "kernel name '6.1<b>' has a character not "
			    "allowed at byte 4");
	assert_int_not_equal(ident_check(IDENT_RIG, "ab\0c", 4, err,
					 sizeof(err)), 0);
	assert_string_equal(err, "rig name 'ab\\x00c' has a NUL byte at "
			    "byte 3");
	assert_int_not_equal(ident_checks(IDENT_METRIC, "", err, sizeof(err)),
			     0);
	assert_string_equal(err, "metric name is empty");
	assert_int_not_equal(ident_checks(IDENT_SUITE, "a\xe2\x80\xae", err,
					  sizeof(err)), 0);
	assert_string_equal(err, "suite name 'a\\xe2\\x80\\xae' has a "
			    "character not allowed at byte 2");
}

static void test_sanitize(void **state)
{
	char s[64] = "my results/../x .txt.";
	char t[64] = "/etc//passwd";

	ident_sanitize(s);
	assert_string_equal(s, "my_results/._/x_.txt_");
	assert_int_equal(ident_checks(IDENT_RAW, s, NULL, 0), 0);
	ident_sanitize(t);
	assert_string_equal(t, "_etc/_passwd");
	assert_int_equal(ident_checks(IDENT_RAW, t, NULL, 0), 0);
}

/* The names the lab gives its own builds: no request may take one. */
static void test_lab_owned(void **state)
{
	assert_true(ident_lab_owned("sub12-base"));
	assert_true(ident_lab_owned("bis3-4"));
	assert_true(ident_lab_owned("trk1-0123456789ab"));
	assert_true(ident_lab_owned("build-0123456789ab"));
	assert_false(ident_lab_owned("trk-1"));
	assert_false(ident_lab_owned("trkx1-a"));
	assert_false(ident_lab_owned("track1-a"));
	assert_false(ident_lab_owned("6.1.192"));
}

/* A comma-separated list of names holds a name only whole. */
static void test_list_has(void **state)
{
	assert_true(ident_list_has("r1,r2", "r1"));
	assert_true(ident_list_has("r1,r2", "r2"));
	assert_true(ident_list_has("r1", "r1"));
	assert_false(ident_list_has("r1,r2", "r"));
	assert_false(ident_list_has("r10,r2", "r1"));
	assert_false(ident_list_has("", "r1"));
	assert_false(ident_list_has("a.rate", "rate"));
	assert_true(ident_list_has("a,,b", "b"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_names),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_sanitize),
		cmocka_unit_test(test_lab_owned),
		cmocka_unit_test(test_list_has),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
