// SPDX-License-Identifier: MIT
/* Unit tests for lib/stats.c against values computed with R / scipy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "lib/stats.h"

static void test_summary(void **state)
{
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct summary s;

	stats_summarize(v, 8, &s);
	assert_true(fabs(s.mean - 5.0) < 1e-12);
	assert_true(fabs(s.stddev - 2.138089935) < 1e-8);
	assert_true(s.min == 2 && s.max == 9);
	stats_summarize(v, 0, &s);
	assert_int_equal(s.n, 0);
	stats_summarize(v, 1, &s);
	assert_true(s.stddev == 0 && s.mean == 2);
}

static void test_t_distribution(void **state)
{
	/* scipy: 2*t.sf(2.0, 10) = 0.07338803 ; 2*t.sf(1.0, 3) = 0.39100221 */
	assert_true(fabs(stats_t_p(2.0, 10) - 0.0733880347) < 1e-7);
	assert_true(fabs(stats_t_p(-1.0, 3) - 0.3910022050) < 1e-7);
	assert_true(fabs(stats_t_p(0, 5) - 1.0) < 1e-12);
}

static void test_welch(void **state)
{
	/* scipy.stats.ttest_ind(a, b, equal_var=False).pvalue = 0.0214
	 * (t=-2.4554, df=24.99) */
	const double a[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
			     21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
	const double b[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
			     24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
	struct summary sa, sb, sc;
	double p;

	stats_summarize(a, 15, &sa);
	stats_summarize(b, 15, &sb);
	p = stats_welch_p(&sa, &sb);
	assert_true(fabs(p - 0.0214) < 5e-4);
	/* identical samples: no difference */
	assert_true(fabs(stats_welch_p(&sa, &sa) - 1.0) < 1e-9);
	/* one value: cannot tell */
	stats_summarize(a, 1, &sc);
	assert_true(stats_welch_p(&sc, &sb) == 1.0);
}

/* lgamma() writes the global signgam from every request thread; the
 * statistics must use lgamma_r(), which leaves it alone. */
static void test_lgamma_r(void **state)
{
	signgam = 12345;
	assert_true(fabs(stats_t_p(2.0, 10) - 0.0733880347) < 1e-7);
	stats_betai(0.5, 3.5, 0.25);
	assert_int_equal(signgam, 12345);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_t_distribution),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_lgamma_r),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
