// SPDX-License-Identifier: MIT
/*
 * Unit tests for judge/verdict.c: the four verdicts and their edge cases
 * (zero baseline, constant samples, quantised metrics, NaN, a metric
 * missing on one side, one cell a side), Holm and Benjamini-Hochberg,
 * kinds of metrics, cell means, user floors and the t quantile.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "judge/verdict.h"

static const struct vd_kind rate_kind = { VC_HEADLINE, 0, 1 };
static const struct vd_kind tail_kind = { VC_SECONDARY, 1, 0 };

/* Test one pair and decide it alone on its page. */
static void one(const struct vd_kind *k, enum metric_dir dir,
		const double *b, size_t nb, const double *c, size_t nc,
		struct vd_result *r)
{
	struct vd_policy pol;
	struct vd_result *v[1] = { r };

	vd_policy_default(&pol);
	vd_test(&pol, k, dir, pol.floor_pct[k->klass], b, nb, c, nc, r);
	vd_decide(&pol, v, 1);
}

static void test_clear_regression(void **state)
{
	const double b[] = { 100, 101, 99, 100, 100.5 };
	const double c[] = { 90, 91, 89, 90, 90.5 };
	struct vd_result r;

	one(&rate_kind, DIR_HIGHER, b, 5, c, 5, &r);
	assert_int_equal(r.verdict, V_WORSE);
	assert_true(r.tested && r.p < 0.001 && r.p_adj == r.p);
	assert_true(fabs(r.delta_pct + 10) < 0.1);
	assert_true(r.ci_lo < -10 && r.ci_hi > -10 && r.ci_hi < -9);
	assert_true(r.threshold_pct >= 2);
	/* the same numbers for a latency (lower is better) */
	one(&rate_kind, DIR_LOWER, b, 5, c, 5, &r);
	assert_int_equal(r.verdict, V_BETTER);
	assert_string_equal(cmp_verdict_name(V_UNDECIDED), "undecided");
}

static void test_same_and_undecided(void **state)
{
	const double b[] = { 100, 100.4, 99.6, 100.2, 99.8, 100, 100.3, 99.7 };
	const double c[] = { 100.1, 99.9, 100.3, 99.7, 100, 100.2, 99.8, 100 };
	const double nb[] = { 100, 120, 85 }, nc[] = { 95, 110, 80 };
	struct vd_result r;

	one(&rate_kind, DIR_HIGHER, b, 8, c, 8, &r);
	assert_int_equal(r.verdict, V_SAME);
	assert_true(r.ci_lo > -2 && r.ci_hi < 2);
	/* noisy, three cells: neither significant nor equivalent */
	one(&rate_kind, DIR_HIGHER, nb, 3, nc, 3, &r);
	assert_int_equal(r.verdict, V_UNDECIDED);
	assert_true(r.threshold_pct > 10);	/* 1.0 x the noise */
}

static void test_zero_baseline(void **state)
{
	const double z[] = { 0, 0, 0 }, c[] = { 1, 2, 1 };
	struct vd_result r;

	one(&rate_kind, DIR_LOWER, z, 3, c, 3, &r);
	assert_int_equal(r.verdict, V_NONE);
	assert_string_equal(r.note, "zero baseline, no relative change");
	assert_true(isnan(r.delta_pct) && !r.tested);
	one(&rate_kind, DIR_LOWER, z, 3, z, 3, &r);
	assert_int_equal(r.verdict, V_SAME);
	assert_true(r.delta_pct == 0);
	/* a zero candidate is -100%, tested on the linear scale */
	one(&rate_kind, DIR_HIGHER, c, 3, z, 3, &r);
	assert_true(fabs(r.delta_pct + 100) < 1e-9);
	assert_int_equal(r.verdict, V_WORSE);
}

static void test_constant_samples(void **state)
{
	const double a[] = { 100, 100, 100 }, b[] = { 101, 101, 101 };
	const double c[] = { 150, 150, 150 };
	struct vd_result r;

	one(&rate_kind, DIR_HIGHER, a, 3, b, 3, &r);
	assert_true(r.p > 0.01);	/* not 0: the CV is floored */
	assert_int_not_equal(r.verdict, V_WORSE);
	assert_int_not_equal(r.verdict, V_BETTER);
	one(&rate_kind, DIR_HIGHER, a, 3, a, 3, &r);
	assert_true(r.p > 0.99);
	one(&rate_kind, DIR_HIGHER, a, 3, c, 3, &r);
	assert_int_equal(r.verdict, V_BETTER);	/* +50% is real */
}

static void test_quantised(void **state)
{
	const double b[] = { 2, 2, 2, 3, 2 }, c[] = { 2, 3, 2, 2, 2 };
	const double d[] = { 3, 3, 3, 3, 3 }, e[] = { 2, 2, 2, 2, 2 };
	struct vd_result r;

	one(&rate_kind, DIR_LOWER, b, 5, c, 5, &r);
	assert_true(r.p > 0.5);
	assert_int_equal(r.verdict, V_UNDECIDED);
	/* one quantum apart and constant: p is not 0, the step is real */
	one(&rate_kind, DIR_LOWER, e, 5, d, 5, &r);
	assert_true(r.p > 0 && r.p < 0.01);
	assert_int_equal(r.verdict, V_WORSE);
}

static void test_nan_missing_n1(void **state)
{
	const double b[] = { 100, 101, 99 }, c[] = { 100, NAN, 98 };
	struct vd_result r;

	one(&rate_kind, DIR_HIGHER, b, 3, c, 3, &r);
	assert_int_equal(r.verdict, V_NONE);
	assert_string_equal(r.note, "not a number among the cells");
	one(&rate_kind, DIR_HIGHER, b, 3, c, 0, &r);
	assert_string_equal(r.note, "missing in the candidate");
	assert_int_equal(r.verdict, V_NONE);
	one(&rate_kind, DIR_HIGHER, b, 0, b, 3, &r);
	assert_string_equal(r.note, "missing in the baseline");
	one(&rate_kind, DIR_HIGHER, b, 1, b + 1, 1, &r);
	assert_string_equal(r.note, "n=1, no verdict");
	assert_int_equal(r.verdict, V_NONE);
	assert_true(fabs(r.delta_pct - 1) < 1e-9);
	one(&rate_kind, DIR_NONE, b, 3, b, 3, &r);
	assert_int_equal(r.verdict, V_NONE);
}

static void test_tail_log_scale(void **state)
{
	const double b[] = { 10, 12, 11, 10, 12 }, c[] = { 20, 24, 22, 20, 24 };
	struct vd_result r;

	one(&tail_kind, DIR_LOWER, b, 5, c, 5, &r);
	/* ratio of geometric means: exactly 2 */
	assert_true(fabs(r.delta_pct - 100) < 1e-9);
	assert_true(r.p < 0.001);
	assert_int_equal(r.verdict, V_WORSE);
}

static void test_corrections(void **state)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005 };
	const double holm[] = { 0.03, 0.06, 0.06, 0.02 };
	const double bh[] = { 0.02, 0.04, 0.04, 0.02 };
	double adj[4];
	int i;

	vd_holm(p, 4, adj);
	for (i = 0; i < 4; i++)
		assert_true(fabs(adj[i] - holm[i]) < 1e-12);
	vd_bh(p, 4, adj);
	for (i = 0; i < 4; i++)
		assert_true(fabs(adj[i] - bh[i]) < 1e-12);
	vd_holm(p, 0, adj);
}

static void test_page_correction(void **state)
{
	/* 20 metrics with p about 0.02 each: alone each would be worse,
	 * on one page none is */
	const double b[] = { 100, 102, 98, 101 }, c[] = { 95, 97, 93, 96 };
	struct vd_result r[20], *v[20];
	struct vd_policy pol;
	int i;

	vd_policy_default(&pol);
	for (i = 0; i < 20; i++) {
		vd_test(&pol, &rate_kind, DIR_HIGHER, 2, b, 4, c, 4, &r[i]);
		v[i] = &r[i];
	}
	assert_true(r[0].p < 0.04);
	vd_decide(&pol, v, 1);
	assert_int_equal(r[0].verdict, V_WORSE);
	vd_decide(&pol, v + 1, 19);
	for (i = 1; i < 20; i++)
		assert_int_not_equal(r[i].verdict, V_WORSE);
}

static void test_kinds_cells_floors(void **state)
{
	const double h[] = { 1, 4 }, z[] = { 10, 0 };
	struct vd_kind k;
	struct vd_policy pol;

	vd_kind_of("tiobench.seq_read.rate", "MB/s", DIR_HIGHER, &k);
	assert_true(k.klass == VC_HEADLINE && k.harmonic && !k.log_scale);
	vd_kind_of("tiobench.seq_read.max_lat", "ms", DIR_LOWER, &k);
	assert_true(k.klass == VC_SECONDARY && !k.harmonic && k.log_scale);
	vd_kind_of("readlat.lat_p99_9", "ms", DIR_LOWER, &k);
	assert_true(k.klass == VC_SECONDARY && k.log_scale);
	vd_kind_of("iops.total", "IOPS", DIR_HIGHER, &k);
	assert_true(k.klass == VC_HEADLINE && k.harmonic);
	vd_kind_of("tiobench.seq_read.avg_lat", "ms", DIR_LOWER, &k);
	assert_true(k.klass == VC_HEADLINE && !k.log_scale);
	vd_kind_of("tiobench.seq_read.cpu", "%", DIR_LOWER, &k);
	assert_true(k.klass == VC_SECONDARY);
	assert_true(fabs(vd_cell_value(h, 2, 1) - 1.6) < 1e-12);
	assert_true(fabs(vd_cell_value(h, 2, 0) - 2.5) < 1e-12);
	assert_true(vd_cell_value(z, 2, 1) == 0);
	assert_true(isnan(vd_cell_value(h, 0, 0)));
	vd_policy_default(&pol);
	assert_int_equal(vd_policy_add_floor(&pol, "tiobench/*.max_lat:20"), 0);
	assert_int_equal(vd_policy_add_floor(&pol, "*.rate:3.5"), 0);
	assert_int_equal(vd_policy_add_floor(&pol, "*.rate"), -1);
	assert_int_equal(vd_policy_add_floor(&pol, ":3"), -1);
	assert_int_equal(vd_policy_add_floor(&pol, "x:-1"), -1);
	assert_true(vd_floor_for(&pol, "tiobench", "tiobench.seq_read.max_lat",
				 VC_SECONDARY) == 20);
	assert_true(vd_floor_for(&pol, "rio", "tiobench.seq_read.max_lat",
				 VC_SECONDARY) == 5);
	assert_true(vd_floor_for(&pol, NULL, "iops.rate", VC_HEADLINE) == 3.5);
	assert_true(vd_floor_for(&pol, NULL, "iops.total", VC_HEADLINE) == 2);
	/* R: qt(0.95, 10) = 1.812461 */
	assert_true(fabs(vd_t_quantile(0.10, 10) - 1.812461) < 1e-5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clear_regression),
		cmocka_unit_test(test_same_and_undecided),
		cmocka_unit_test(test_zero_baseline),
		cmocka_unit_test(test_constant_samples),
		cmocka_unit_test(test_quantised),
		cmocka_unit_test(test_nan_missing_n1),
		cmocka_unit_test(test_tail_log_scale),
		cmocka_unit_test(test_corrections),
		cmocka_unit_test(test_page_correction),
		cmocka_unit_test(test_kinds_cells_floors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
