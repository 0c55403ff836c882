// SPDX-License-Identifier: MIT
/*
 * Unit tests for judge/bisect_pick_git.c: git bisect's output as git 2.x
 * prints it (a next step with its estimate, the first bad commit with its
 * log, only skipped commits left, an error), and what a hash is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "judge/bisect_pick_git.h"

#define H40 "92214d8d7f3f607aa0896358653913ae0df9c396"

static void test_next(void **state)
{
	struct bis_git_out o;

	bisect_git_parse("Bisecting: 2 revisions left to test after this "
			 "(roughly 2 steps)\n[" H40 "] c3\n", &o);
	assert_int_equal(o.state, BIS_GIT_TEST);
	assert_int_equal(o.revs_left, 2);
	assert_int_equal(o.steps_left, 2);
	bisect_git_parse("Bisecting: 0 revisions left to test after this "
			 "(roughly 1 step)\n[" H40 "] c2\n", &o);
	assert_int_equal(o.state, BIS_GIT_TEST);
	assert_int_equal(o.revs_left, 0);
	assert_int_equal(o.steps_left, 1);
	/* a skip: git says so first */
	bisect_git_parse("Bisecting: 5 revisions left to test after this "
			 "(roughly 3 steps)\n", &o);
	assert_int_equal(o.steps_left, 3);
	(void)state;
}

static void test_found(void **state)
{
	struct bis_git_out o;

	bisect_git_parse(H40 " is the first bad commit\ncommit " H40 "\n"
			 "Author: t <t@x>\n\n    c3\n", &o);
	assert_int_equal(o.state, BIS_GIT_FOUND);
	assert_string_equal(o.commit, H40);
	/* the subject of the commit cannot fool it */
	bisect_git_parse("Bisecting: 1 revision left to test after this "
			 "(roughly 1 step)\n[" H40 "] " H40 " is the first "
			 "bad commit\n", &o);
	assert_int_equal(o.state, BIS_GIT_TEST);
	bisect_git_parse("zzzz is the first bad commit\n", &o);
	assert_int_equal(o.state, BIS_GIT_UNKNOWN);
	(void)state;
}

static void test_cannot(void **state)
{
	struct bis_git_out o;

	bisect_git_parse("There are only 'skip'ped commits left to test.\n"
			 "The first bad commit could be any of:\n" H40 "\n"
			 "We cannot bisect more!\n", &o);
	assert_int_equal(o.state, BIS_GIT_CANNOT);
	bisect_git_parse("", &o);
	assert_int_equal(o.state, BIS_GIT_UNKNOWN);
	bisect_git_parse(H40 " was both good and bad\n", &o);
	assert_int_equal(o.state, BIS_GIT_UNKNOWN);
	assert_int_equal(o.steps_left, -1);
	(void)state;
}

static void test_hex(void **state)
{
	assert_true(bisect_git_is_hex(H40, 40));
	assert_true(bisect_git_is_hex("abcd", 4));
	assert_false(bisect_git_is_hex("abc", 3));
	assert_false(bisect_git_is_hex("ABCD", 4));
	assert_false(bisect_git_is_hex("--upload-pack=x", 15));
	assert_false(bisect_git_is_hex("abcg", 4));
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next),
		cmocka_unit_test(test_found),
		cmocka_unit_test(test_cannot),
		cmocka_unit_test(test_hex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
