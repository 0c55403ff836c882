// SPDX-License-Identifier: MIT
/*
 * Unit tests for judge/bisect.c: a table of verdict sequences (one
 * character per candidate: '.' untested, 'g' good, 'b' bad, 's' skip;
 * index 0 is the good end, the last the bad end) with the expected next
 * step or answer, skips included; and whole bisections simulated over
 * every first-bad position of ranges of 1 to 64 candidates, with and
 * without unbuildable steps, counted against the ideal log2(n).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "judge/bisect.h"

#define MAXN 128

struct row {
	const char *marks;
	enum bis_state state;
	size_t at;		/* next (TEST), first bad (FOUND) */
	size_t good, bad;	/* the open range */
};

static size_t parse(const char *s, enum bis_mark *m)
{
	size_t i;

	for (i = 0; s[i]; i++)
		m[i] = s[i] == 'g' ? BIS_GOOD : s[i] == 'b' ? BIS_BAD :
		       s[i] == 's' ? BIS_SKIP : BIS_UNTESTED;
	return i - 1;
}

static void test_table(void **state)
{
	static const struct row rows[] = {
		/* 8 patches: the middle first, then halves */
		{ "g.......b", BIS_TEST, 4, 0, 8 },
		{ "g...g...b", BIS_TEST, 6, 4, 8 },
		{ "g...b...b", BIS_TEST, 2, 0, 4 },
		{ "g...g.b.b", BIS_TEST, 5, 4, 6 },
		{ "g...gbb.b", BIS_FOUND, 5, 4, 5 },
		{ "g...ggb.b", BIS_FOUND, 6, 5, 6 },
		/* one candidate: nothing to test */
		{ "gb", BIS_FOUND, 1, 0, 1 },
		{ "g.b", BIS_TEST, 1, 0, 2 },
		/* a skip: the neighbour below, then above */
		{ "g...s...b", BIS_TEST, 3, 0, 8 },
		{ "g..ss...b", BIS_TEST, 5, 0, 8 },
		{ "g...g.s.b", BIS_TEST, 5, 4, 8 },
		{ "g...gss.b", BIS_TEST, 7, 4, 8 },
		{ "g...gsb.b", BIS_CANNOT, 0, 4, 6 },
		{ "g...g.sb", BIS_TEST, 5, 4, 7 },
		{ "g..gsss.b", BIS_TEST, 7, 3, 8 },
		{ "g..gsssbb", BIS_CANNOT, 0, 3, 7 },
		{ "gsssb", BIS_CANNOT, 0, 0, 4 },
		/* marks beyond the first bad and below the last good count
		 * for nothing; inconsistent marks take the first bad */
		{ "g.g.b.g.b", BIS_TEST, 3, 2, 4 },
		{ "gb.....gb", BIS_FOUND, 1, 0, 1 },
	};
	enum bis_mark m[MAXN];
	struct bis_next nx;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		n = parse(rows[i].marks, m);
		bisect_next(m, n, &nx);
		if (nx.state != rows[i].state || nx.good != rows[i].good ||
		    nx.bad != rows[i].bad ||
		    (rows[i].state != BIS_CANNOT && nx.next != rows[i].at))
			fail_msg("%s: state %d next %zu range %zu..%zu, expected "
				 "%d %zu %zu..%zu", rows[i].marks, nx.state,
				 nx.next, nx.good, nx.bad, rows[i].state,
				 rows[i].at, rows[i].good, rows[i].bad);
	}
}

/* A bisection of n candidates whose first bad is f, steps in unbuildable
 * (skip); the steps taken, the answer in *ans (0: cannot tell). */
static size_t simulate(size_t n, size_t f, const char *unbuildable,
		       size_t *ans)
{
	enum bis_mark m[MAXN];
	struct bis_next nx;
	size_t steps = 0;

	memset(m, 0, sizeof(m));
	for (;;) {
		bisect_next(m, n, &nx);
		if (nx.state != BIS_TEST)
			break;
		assert_true(m[nx.next] == BIS_UNTESTED);
		assert_true(nx.next > 0 && nx.next < n);
		steps++;
		if (unbuildable && unbuildable[nx.next] == 's')
			m[nx.next] = BIS_SKIP;
		else
			m[nx.next] = nx.next >= f ? BIS_BAD : BIS_GOOD;
	}
	*ans = nx.state == BIS_FOUND ? nx.next : 0;
	return steps;
}

static void test_every_position(void **state)
{
	size_t n, f, steps, ans;

	(void)state;
	for (n = 1; n <= 64; n++)
		for (f = 1; f <= n; f++) {
			steps = simulate(n, f, NULL, &ans);
			assert_int_equal(ans, f);
			assert_true(steps <= bisect_ideal_steps(n));
		}
}

static void test_skips(void **state)
{
	char unb[MAXN];
	size_t n = 16, f, steps, ans;

	(void)state;
	/* step 8 (the first midpoint) never builds */
	memset(unb, '.', sizeof(unb));
	unb[8] = 's';
	for (f = 1; f <= n; f++) {
		steps = simulate(n, f, unb, &ans);
		if (f == 8 || f == 9) {
			/* 8 untestable: 7 good, 9 bad leaves 8 or 9 */
			assert_true(ans == f || ans == 0);
		} else {
			assert_int_equal(ans, f);
		}
		assert_true(steps <= bisect_ideal_steps(n) + 2);
	}
	/* the culprit itself unbuildable: cannot tell, range named */
	memset(unb, '.', sizeof(unb));
	unb[5] = 's';
	steps = simulate(8, 5, unb, &ans);
	assert_int_equal(ans, 0);
	(void)steps;
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(bisect_mark_name(BIS_SKIP), "skip");
	assert_int_equal(bisect_mark_parse("bad"), BIS_BAD);
	assert_int_equal(bisect_mark_parse("nope"), -1);
	assert_int_equal(bisect_ideal_steps(8), 3);
	assert_int_equal(bisect_ideal_steps(9), 4);
	assert_int_equal(bisect_ideal_steps(1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_every_position),
		cmocka_unit_test(test_skips),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
