// SPDX-License-Identifier: MIT
/*
 * Unit tests for judge/changepoint.c on synthetic series: a step, a ramp,
 * no change, outliers, cuts restricted to kernel boundaries, and the
 * false-alarm rate on 1000 no-change series (printed, and bounded).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "judge/changepoint.h"
#include "lib/rand.h"

/* Uniform in (0, 1): 53 bits of the seeded PRNG, never 0. */
static double unit_open(uint64_t *s)
{
	return ((double)(rand_xorshift64(s) >> 11) + 0.5) /
	       9007199254740992.0;
}

/* A standard normal deviate (Box-Muller) from the seeded PRNG. */
static double gauss(uint64_t *s)
{
	double u = unit_open(s);
	double v = unit_open(s);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* n points of level base + noise, the level times (1 + step) from at on. */
static double *series(size_t n, double base, double noise, size_t at,
		      double step, uint64_t seed)
{
	double *x = malloc(n * sizeof(*x));
	uint64_t s = seed ? seed : 1;
	size_t i;

	assert_non_null(x);
	for (i = 0; i < n; i++)
		x[i] = base * (i >= at ? 1 + step : 1) + noise * gauss(&s);
	return x;
}

static void test_step(void **state)
{
	struct cp_params p;
	struct cp_point *c;
	size_t n;
	double *x = series(60, 100, 1, 30, 0.10, 42);

	cp_params_default(&p);
	assert_int_equal(cp_find(x, 60, NULL, &p, &c, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].idx, 30);
	assert_true(c[0].p <= p.sig);
	assert_true(fabs(cp_size_pct(&c[0]) - 10) < 1.5);
	assert_true(c[0].mean_before < c[0].mean_after);
	free(c);
	free(x);
}

static void test_two_steps_and_determinism(void **state)
{
	struct cp_params p;
	struct cp_point *c, *d;
	size_t n, m, i;
	double *x = series(90, 50, 0.5, 30, -0.2, 7);

	for (i = 60; i < 90; i++)
		x[i] += 20;
	cp_params_default(&p);
	assert_int_equal(cp_find(x, 90, NULL, &p, &c, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(c[0].idx, 30);
	assert_int_equal(c[1].idx, 60);
	assert_true(cp_size_pct(&c[0]) < -15);
	/* the same input and seed: the same answer */
	assert_int_equal(cp_find(x, 90, NULL, &p, &d, &m), 0);
	assert_int_equal(m, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(c[i].idx, d[i].idx);
		assert_true(c[i].p == d[i].p);
	}
	free(c);
	free(d);
	free(x);
}

/* A ramp has no single step; e-divisive cuts it into levels, each change
 * upward, none outside the ramp's range. */
static void test_ramp(void **state)
{
	struct cp_params p;
	struct cp_point *c;
	size_t n, i;
	double x[80];
	uint64_t s = 99;

	for (i = 0; i < 80; i++)
		x[i] = 100 + (double)i + 0.5 * gauss(&s);
	cp_params_default(&p);
	assert_int_equal(cp_find(x, 80, NULL, &p, &c, &n), 0);
	assert_true(n >= 1);
	for (i = 0; i < n; i++) {
		assert_true(c[i].mean_after > c[i].mean_before);
		assert_true(c[i].idx >= p.min_size);
		assert_true(c[i].idx <= 80 - p.min_size);
	}
	free(c);
}

static void test_no_change_constant(void **state)
{
	struct cp_params p;
	struct cp_point *c;
	size_t n, i;
	double x[40];

	for (i = 0; i < 40; i++)
		x[i] = 7;
	cp_params_default(&p);
	assert_int_equal(cp_find(x, 40, NULL, &p, &c, &n), 0);
	assert_int_equal(n, 0);
	assert_null(c);
	/* too short for two segments */
	assert_int_equal(cp_find(x, 5, NULL, &p, &c, &n), 0);
	assert_int_equal(n, 0);
}

static void test_outliers(void **state)
{
	struct cp_params p;
	struct cp_point *c;
	size_t n;
	double *x = series(60, 100, 1, 60, 0, 5);

	/* two wild values in a flat series: no change */
	x[17] = 400;
	x[41] = -150;
	cp_params_default(&p);
	assert_int_equal(cp_find(x, 60, NULL, &p, &c, &n), 0);
	assert_int_equal(n, 0);
	free(x);
	/* a step with outliers on both sides: found where it is */
	x = series(60, 100, 1, 30, 0.05, 6);
	x[10] = 300;
	x[50] = 10;
	assert_int_equal(cp_find(x, 60, NULL, &p, &c, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].idx, 30);
	free(c);
	free(x);
}

/* Kernel order: 10 kernels of 4 repetitions, changes only between them. */
static void test_cut_ok(void **state)
{
	unsigned char ok[40] = { 0 };
	struct cp_params p;
	struct cp_point *c;
	size_t n, i;
	double *x = series(40, 10, 0.1, 22, 0.3, 11);

	for (i = 0; i < 40; i += 4)
		ok[i] = 1;
	cp_params_default(&p);
	assert_int_equal(cp_find(x, 40, ok, &p, &c, &n), 0);
	assert_int_equal(n, 1);
	assert_true(c[0].idx == 20 || c[0].idx == 24);
	free(c);
	free(x);
}

static void test_params(void **state)
{
	struct cp_params p;
	struct cp_point *c;
	size_t n;
	double x[10] = { 0 };

	cp_params_default(&p);
	p.min_size = 1;
	assert_int_equal(cp_find(x, 10, NULL, &p, &c, &n), -1);
	cp_params_default(&p);
	p.sig = 1.5;
	assert_int_equal(cp_find(x, 10, NULL, &p, &c, &n), -1);
	cp_params_default(&p);
	p.permutations = 0;
	assert_int_equal(cp_find(x, 10, NULL, &p, &c, &n), -1);
}

/*
 * The false-alarm rate: 1000 no-change series of 50 normal points at the
 * default level (0.01).  Printed for docs/VERDICTS.md; the binomial
 * 1000 x 0.01 has sd 3.1, so more than 25 is a defect, not bad luck.
 */
static void test_false_alarm_rate(void **state)
{
	struct cp_params p;
	struct cp_point *c;
	size_t n, k, alarms = 0, points = 0;

	cp_params_default(&p);
	for (k = 0; k < 1000; k++) {
		double *x = series(50, 100, 2, 50, 0, 1000 + k);

		assert_int_equal(cp_find(x, 50, NULL, &p, &c, &n), 0);
		alarms += n > 0;
		points += n;
		free(c);
		free(x);
	}
	printf("changepoint: false alarms on 1000 no-change series of 50 "
	       "points (sig %.3g, %d permutations, min size %zu): %zu "
	       "series (%.1f%%), %zu change points\n", p.sig,
	       p.permutations, p.min_size, alarms, alarms / 10.0, points);
	assert_true(alarms <= 25);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_two_steps_and_determinism),
		cmocka_unit_test(test_ramp),
		cmocka_unit_test(test_no_change_constant),
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_cut_ok),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_false_alarm_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
