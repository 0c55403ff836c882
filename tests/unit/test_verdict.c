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
#include <stdlib.h>
#include <string.h>

#include "judge/adaptive.h"
#include "judge/compare.h"
#include "judge/pairs.h"
#include "judge/rank.h"
#include "judge/verdict.h"
#include "lib/config.h"

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
	const double z[] = { 0, 0, 0 }, c[] = { 10, 11, 10 };
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
	const double b[] = { 10, 12, 11, 10.5, 11.5, 10.8, 11.2 };
	const double c[] = { 20, 24, 22, 21, 23, 21.6, 22.4 };
	const double b3[] = { 10, 12, 11 }, c3[] = { 20, 24, 22 };
	const double bt[] = { 10, 12, 11, 10, 12 };
	const double ct[] = { 20, 24, 22, 20, 24 };
	struct vd_result r;

	one(&tail_kind, DIR_LOWER, b, 7, c, 7, &r);
	/* ratio of geometric means: exactly 2, CI on the logs */
	assert_true(fabs(r.delta_pct - 100) < 1e-9);
	assert_true(r.ci_lo > 80 && r.ci_hi < 125);
	/* p from the ranks: complete separation of 7 and 7, exact 2/3432 */
	assert_string_equal(r.analysis, "mann-whitney");
	assert_true(fabs(r.p - 2.0 / 3432) < 1e-12);
	assert_int_equal(r.verdict, V_WORSE);
	/* 5 and 5 apart: 2/252, above the secondary alpha 0.002 */
	one(&tail_kind, DIR_LOWER, b, 5, c, 5, &r);
	assert_true(fabs(r.p - 2.0 / 252) < 1e-12);
	assert_int_equal(r.verdict, V_UNDECIDED);
	/* ties: the normal approximation, 0.0111594 (R: wilcox.test,
	 * exact = FALSE as with ties) */
	one(&tail_kind, DIR_LOWER, bt, 5, ct, 5, &r);
	assert_true(fabs(r.p - 0.011159425282914772) < 1e-9);
	assert_int_equal(r.verdict, V_UNDECIDED);
	/* three cells a side: ranks can say no better than p = 0.1 */
	one(&tail_kind, DIR_LOWER, b3, 3, c3, 3, &r);
	assert_true(fabs(r.p - 0.1) < 1e-12);
	assert_int_equal(r.verdict, V_UNDECIDED);
	/* a linear metric keeps Welch */
	one(&rate_kind, DIR_HIGHER, b, 5, c, 5, &r);
	assert_string_equal(r.analysis, "welch");
}

/* The Mann-Whitney test against R's wilcox.test(x, y) (two-sided, the
 * defaults: exact below 50 a side without ties, else normal with the tie
 * correction and continuity); every value also checked by an independent
 * enumeration of the rank subsets (itertools.combinations in Python). */
static void test_mann_whitney(void **state)
{
	/* ?wilcox.test's example: W = 35, one-sided p = 0.1272 */
	const double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64,
			     0.73, 1.46 };
	const double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	const double a[] = { 1, 2, 2, 3 }, b[] = { 2, 3, 3, 4 };
	const double u[] = { 1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 7.7 };
	const double v[] = { 2.5, 3.5, 4.5, 8.5, 9.5, 10.5 };
	const double k1[] = { 100, 100, 100 }, k2[] = { 150, 150, 150 };
	double big1[60], big2[60];
	struct vd_mw mw;
	size_t i;

	assert_int_equal(vd_mann_whitney(x, 10, y, 5, &mw), 0);
	assert_true(mw.exact && mw.w == 35);
	assert_true(fabs(mw.p - 0.2544122544122544) < 1e-12);
	assert_true(fabs(mw.p / 2 - 0.1272) < 1e-4);
	assert_int_equal(vd_mann_whitney(u, 7, v, 6, &mw), 0);
	assert_true(mw.exact && mw.w == 12);
	assert_true(fabs(mw.p - 0.23426573426573427) < 1e-12);
	/* the exact distribution: P(W <= 0) for 3 and 3 is 1/20 */
	assert_true(fabs(vd_mw_exact_cdf(0, 3, 3) - 0.05) < 1e-15);
	assert_true(fabs(vd_mw_exact_cdf(9, 3, 3) - 1) < 1e-15);
	assert_true(isnan(vd_mw_exact_cdf(0, 0, 3)));
	/* ties: W = 3, z = -1.3654, p = 0.17203 */
	assert_int_equal(vd_mann_whitney(a, 4, b, 4, &mw), 0);
	assert_true(!mw.exact && mw.w == 3);
	assert_true(fabs(mw.p - 0.17203370892182296) < 1e-9);
	/* constant sides: only ties, p = 0.046854 */
	assert_int_equal(vd_mann_whitney(k1, 3, k2, 3, &mw), 0);
	assert_true(fabs(mw.p - 0.046854177603873774) < 1e-9);
	/* every value the same: no evidence */
	assert_int_equal(vd_mann_whitney(k1, 3, k1, 3, &mw), 0);
	assert_true(mw.p == 1);
	/* 50 a side or more: normal; two interleaved combs, W = n^2/2 */
	for (i = 0; i < 60; i++) {
		big1[i] = (double)(2 * i);
		big2[i] = (double)(2 * i + 1);
	}
	assert_int_equal(vd_mann_whitney(big1, 60, big2, 60, &mw), 0);
	assert_true(!mw.exact && mw.w == 1770);
	assert_true(fabs(mw.p - 0.8769515201868247) < 1e-9);
	assert_int_equal(vd_mann_whitney(big1, 0, big2, 60, &mw), -1);
	assert_true(isnan(mw.p));
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
	/* the machine's CPU per I/O: headline where the suite is about CPU
	 * (iops), secondary elsewhere, a 5% floor either way */
	vd_kind_of("iops.sys_cpu_per_op", "us", DIR_LOWER, &k);
	assert_true(k.klass == VC_HEADLINE && !k.harmonic && !k.log_scale);
	vd_kind_of("tiobench.seq_write.sys_cpu_per_op", "us", DIR_LOWER, &k);
	assert_true(k.klass == VC_SECONDARY && !k.harmonic);
	vd_kind_of("readlat.sys_cpu_per_op", "us", DIR_LOWER, &k);
	assert_true(k.klass == VC_SECONDARY);
	vd_policy_default(&pol);
	assert_true(vd_floor_for(&pol, "iops-alldisks", "iops.sys_cpu_per_op",
				 VC_HEADLINE) == 5);
	assert_true(vd_floor_for(&pol, "tiobench",
				 "tiobench.seq_write.sys_cpu_per_op",
				 VC_SECONDARY) == 5);
	assert_int_equal(vd_policy_add_floor(&pol, "*.sys_cpu_per_op:8"), 0);
	assert_true(vd_floor_for(&pol, NULL, "iops.sys_cpu_per_op",
				 VC_HEADLINE) == 8);
	pol.floor_pct[VC_SECONDARY] = 7;
	assert_true(vd_floor_for(&pol, NULL, "readlat.sys_cpu_per_op",
				 VC_SECONDARY) == 8);
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

/* A two-kernel comparison of one headline rate, judged with pol. */
static void cmp_of(const struct vd_policy *pol, const double *b,
		   const double *c, size_t n, struct comparison *out)
{
	const double *side[2] = { b, c };
	size_t k, i;

	memset(out, 0, sizeof(*out));
	out->pol = *pol;
	out->nk = 2;
	out->kernels = calloc(2, sizeof(char *));
	out->kernels[0] = strdup("A");
	out->kernels[1] = strdup("B");
	out->nm = 1;
	out->m = calloc(1, sizeof(*out->m));
	out->m->name = strdup("tiobench.seq_read.rate");
	out->m->unit = strdup("MB/s");
	out->m->dir = DIR_HIGHER;
	vd_kind_of(out->m->name, out->m->unit, out->m->dir, &out->m->kind);
	out->m->cells = calloc(2, sizeof(*out->m->cells));
	for (k = 0; k < 2; k++) {
		struct cmp_cell *cell = &out->m->cells[k];

		cell->values = calloc(n, sizeof(double));
		cell->runs = calloc(n, sizeof(int64_t));
		for (i = 0; i < n; i++) {
			cell->values[i] = side[k][i];
			cell->runs[i] = (int64_t)i;
		}
		cell->nvalues = n;
		cell->present = n > 0;
	}
	compare_judge(out);
}

/* Pairs that drift together: the paired t sees the 5% drop the spread
 * of either side hides. */
static void test_paired(void **state)
{
	const double b[] = { 100, 110.2, 119.8, 130.1, 140, 149.9 };
	const double c[] = { 95.1, 104.6, 113.9, 123.5, 133.1, 142.5 };
	const double z[] = { 0, 110, 120 };
	struct vd_policy pol;
	struct vd_result r, *v[1] = { &r };

	vd_policy_default(&pol);
	vd_test(&pol, &rate_kind, DIR_HIGHER, 2, b, 6, c, 6, &r);
	vd_decide(&pol, v, 1);
	assert_string_equal(r.analysis, "welch");
	assert_int_equal(r.verdict, V_UNDECIDED);
	assert_true(r.threshold_pct > 12);
	vd_test_paired(&pol, &rate_kind, DIR_HIGHER, 2, b, c, 6, &r);
	vd_decide(&pol, v, 1);
	assert_string_equal(r.analysis, "paired");
	assert_int_equal(r.verdict, V_WORSE);
	assert_true(fabs(r.delta_pct + 5) < 0.2 && r.p < 1e-4);
	assert_true(r.ci_lo < r.delta_pct && r.ci_hi > r.delta_pct);
	assert_true(r.noise_pct < 0.5 && r.threshold_pct == 2);
	assert_true(r.nb == 6 && r.nc == 6);
	/* constant ratios: the sd floored at sqrt 2 x 0.5%, p > 0 */
	vd_test_paired(&pol, &rate_kind, DIR_HIGHER, 2, b, b, 6, &r);
	assert_true(r.p == 1 && r.tested && r.verdict != V_WORSE);
	/* fewer than 3 pairs, or a value that is not positive: Welch */
	vd_test_paired(&pol, &rate_kind, DIR_HIGHER, 2, b, c, 2, &r);
	assert_string_equal(r.analysis, "welch");
	vd_test_paired(&pol, &rate_kind, DIR_HIGHER, 2, b, z, 3, &r);
	assert_string_equal(r.analysis, "welch");
	/* no drift: the levels spread like the ratios */
	assert_true(vd_pairs_f(b, c, 6) > 100);
	assert_true(vd_pairs_f(b, b, 6) == INFINITY);
}

/* Set the runs of a two-kernel page: base cell i is run rb[i], the
 * candidate's rc[i]; judged again. */
static void cmp_runs(struct comparison *c, const int64_t *rb,
		     const int64_t *rc)
{
	size_t i;

	for (i = 0; i < c->m->cells[0].nvalues; i++) {
		c->m->cells[0].runs[i] = rb[i];
		c->m->cells[1].runs[i] = rc[i];
	}
	compare_judge(c);
}

/* Whether a page tests pairs: interleaved runs and a drift. */
static void test_pairs_page(void **state)
{
	const double b[] = { 100, 110.2, 119.8, 130.1, 140, 149.9 };
	const double c[] = { 95.1, 104.6, 113.9, 123.5, 133.1, 142.5 };
	const double flat[] = { 100, 95, 104, 99, 102, 97 };
	const double flat2[] = { 98, 103, 96, 101, 100, 104 };
	const int64_t abba_b[] = { 1, 4, 5, 8, 9, 12 };
	const int64_t abba_c[] = { 2, 3, 6, 7, 10, 11 };
	const int64_t seq_b[] = { 1, 2, 3, 4, 5, 6 };
	const int64_t seq_c[] = { 7, 8, 9, 10, 11, 12 };
	const int64_t late_c[] = { 2, 3, 6, 7, 10, 13 };
	struct vd_policy pol;
	struct comparison cmp;
	const struct vd_result *r;

	vd_policy_default(&pol);
	cmp_of(&pol, b, c, 6, &cmp);
	r = &cmp.m->cells[1].vd;
	cmp_runs(&cmp, abba_b, abba_c);
	assert_true(cmp_pairs_interleaved(&cmp.m->cells[0],
					  &cmp.m->cells[1]));
	assert_true(cmp_pairs_page(&cmp, 1));
	assert_string_equal(r->analysis, "paired");
	assert_int_equal(cmp.m->cells[1].verdict, V_WORSE);
	/* every base cell before every candidate cell: not pairs */
	cmp_runs(&cmp, seq_b, seq_c);
	assert_false(cmp_pairs_interleaved(&cmp.m->cells[0],
					   &cmp.m->cells[1]));
	assert_string_equal(r->analysis, "welch");
	assert_int_equal(cmp.m->cells[1].verdict, V_UNDECIDED);
	/* the last pair broken by a replaced cell (runs 12 and 13 swap
	 * sides in time: still a pair, each before the next) */
	cmp_runs(&cmp, abba_b, late_c);
	assert_true(cmp_pairs_interleaved(&cmp.m->cells[0],
					  &cmp.m->cells[1]));
	/* pairing=off */
	cmp.pol.unpaired = 1;
	compare_judge(&cmp);
	assert_string_equal(r->analysis, "welch");
	compare_release(&cmp);
	/* interleaved, no drift: Welch keeps its degrees of freedom */
	cmp_of(&pol, flat, flat2, 6, &cmp);
	cmp_runs(&cmp, abba_b, abba_c);
	assert_false(cmp_pairs_page(&cmp, 1));
	assert_string_equal(cmp.m->cells[1].vd.analysis, "welch");
	compare_release(&cmp);
}

static void test_config_floors(void **state)
{
	static const char good[] =
		"verdict_floor = */*.max_lat:25, *.rate:3\n"
		"[suite rio]\nfloor = *.rate:7 *.lat_p99:30\n";
	static const char bad1[] = "verdict_floor = *.rate\n";
	static const char bad2[] = "[suite rio]\nfloor = x/*.rate:7\n";
	struct config cfg;
	struct vd_policy pol;
	char err[300];

	config_init(&cfg);
	assert_int_equal(config_parse(&cfg, "k.conf", good, strlen(good), err,
				      sizeof(err)), 0);
	assert_int_equal(vd_defaults_from_config(&cfg, err, sizeof(err)), 0);
	config_release(&cfg);
	vd_policy_default(&pol);
	assert_int_equal(pol.nfloors, 4);
	assert_true(vd_floor_for(&pol, "rio", "rio.read.rate",
				 VC_HEADLINE) == 7);
	assert_true(vd_floor_for(&pol, "tiobench", "tiobench.x.rate",
				 VC_HEADLINE) == 3);
	assert_true(vd_floor_for(&pol, "tiobench", "tiobench.x.max_lat",
				 VC_SECONDARY) == 25);
	assert_true(vd_floor_for(&pol, "tiobench", "tiobench.x.lat_p99",
				 VC_SECONDARY) == 5);
	/* a request's floor comes later and wins */
	assert_int_equal(vd_policy_add_floor(&pol, "*.rate:1"), 0);
	assert_true(vd_floor_for(&pol, "rio", "rio.read.rate",
				 VC_HEADLINE) == 1);
	config_init(&cfg);
	assert_int_equal(config_parse(&cfg, "k.conf", bad1, strlen(bad1), err,
				      sizeof(err)), 0);
	assert_int_equal(vd_defaults_from_config(&cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "k.conf:1: verdict_floor: invalid floor "
			       "'*.rate'"));
	config_release(&cfg);
	config_init(&cfg);
	assert_int_equal(config_parse(&cfg, "k.conf", bad2, strlen(bad2), err,
				      sizeof(err)), 0);
	assert_int_equal(vd_defaults_from_config(&cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "k.conf:2: [suite rio] floor: invalid "
			       "floor 'x/*.rate:7'"));
	config_release(&cfg);
	vd_defaults_reset();
	vd_policy_default(&pol);
	assert_int_equal(pol.nfloors, 0);
}

/*
 * A clear drop of a rate whose phase was served from the page cache (its
 * "cached" mark is 1 in one run) is shown without a verdict.
 */
static void test_cached_phase(void **state)
{
	const double b[] = { 100, 101, 99, 100 }, w[] = { 50, 51, 49, 50 };
	struct vd_policy pol;
	struct comparison c;
	struct cmp_metric *m;
	size_t k, i;

	(void)state;
	vd_policy_default(&pol);
	cmp_of(&pol, b, w, 4, &c);
	assert_int_equal(c.m->cells[1].verdict, V_WORSE);
	m = realloc(c.m, 2 * sizeof(*c.m));
	assert_non_null(m);
	c.m = m;
	c.nm = 2;
	m[1].name = strdup("tiobench.seq_read.cached");
	m[1].unit = strdup("");
	m[1].dir = DIR_NONE;
	vd_kind_of(m[1].name, m[1].unit, m[1].dir, &m[1].kind);
	m[1].cells = calloc(2, sizeof(*m[1].cells));
	for (k = 0; k < 2; k++) {
		m[1].cells[k].values = calloc(4, sizeof(double));
		m[1].cells[k].runs = calloc(4, sizeof(int64_t));
		for (i = 0; i < 4; i++)
			m[1].cells[k].runs[i] = (int64_t)i;
		m[1].cells[k].nvalues = 4;
		m[1].cells[k].present = 1;
	}
	m[1].cells[1].values[2] = 1;
	compare_judge(&c);	/* again, now with the mark */
	m = (struct cmp_metric *)compare_find(&c, "tiobench.seq_read.rate");
	assert_non_null(m);
	assert_int_equal(m->cells[1].verdict, V_NONE);
	assert_string_equal(m->cells[1].vd.note,
			    "served from cache, no verdict");
	assert_true(m->cells[1].delta_pct < -40);
	assert_int_equal(compare_count_worse(&c, 1), 0);
	compare_release(&c);
}

static void test_adaptive(void **state)
{
	const double b[] = { 100, 103, 97, 101, 99 };
	const double same[] = { 99, 102, 98, 100, 101 };
	const double worse[] = { 70, 72, 69, 71, 70 };
	const double noisy[] = { 100, 80, 120, 90, 110 };
	struct vd_policy pol, look;
	struct vd_plan plan;
	struct comparison c;
	size_t next, open;

	vd_plan_default(&plan);
	assert_int_equal(plan.nlooks, 5);
	assert_int_equal(plan.looks[4], 20);
	vd_policy_default(&pol);
	vd_plan_policy(&plan, &pol, &look);
	assert_true(fabs(look.alpha[VC_HEADLINE] - 0.0016) < 1e-12);
	assert_true(fabs(look.alpha[VC_SECONDARY] - 0.0004) < 1e-12);
	/* a clear drop is decided at the first look */
	cmp_of(&look, b, worse, 3, &c);
	assert_int_equal(vd_plan_next(&plan, &c, 3, 0, &next, &open),
			 VD_STEP_DECIDED);
	assert_int_equal(open, 0);
	compare_release(&c);
	/* noise: more cells, up to the next look */
	cmp_of(&look, b, noisy, 3, &c);
	assert_int_equal(vd_plan_next(&plan, &c, 3, 0, &next, &open),
			 VD_STEP_MORE);
	assert_int_equal(next, 5);
	assert_int_equal(open, 1);
	/* the wall-time cap, then the cell cap */
	assert_int_equal(vd_plan_next(&plan, &c, 3, 5 * 3600.0, &next,
				      &open), VD_STEP_CAP);
	assert_int_equal(vd_plan_set_cap(&plan, 10), 0);
	assert_int_equal(plan.nlooks, 4);
	assert_int_equal(plan.looks[3], 10);
	assert_int_equal(vd_plan_next(&plan, &c, 10, 0, &next, &open),
			 VD_STEP_CAP);
	assert_int_equal(vd_plan_set_cap(&plan, 2), -1);
	compare_release(&c);
	/* an unchanged kernel with 5 quiet cells: still open (the CI of
	 * +-3% noise on 5 cells is wider than the threshold; the margin of
	 * the cap widens only at the cap's look) */
	vd_plan_default(&plan);
	cmp_of(&look, b, same, 5, &c);
	assert_int_equal(c.m->cells[1].verdict, V_UNDECIDED);
	assert_int_equal(vd_plan_next(&plan, &c, 5, 0, &next, &open),
			 VD_STEP_MORE);
	assert_int_equal(next, 8);
	assert_string_equal(vd_step_name(VD_STEP_CAP), "cap");
	compare_release(&c);
}

/* "same" at a comparison run's cap: the margin is the change the worse
 * test detects half the time there, never less than the threshold
 * (docs/VERDICTS.md, "Same at the cap"). */
static void test_same_at_cap(void **state)
{
	const double b[] = { 100, 103, 97, 102, 98, 101, 99, 100 };
	const double c[] = { 101, 98, 103, 99, 102, 100, 97, 104 };
	double drop[8], mid[8], e;
	struct vd_policy pol, look;
	struct vd_plan plan;
	struct vd_result r, *v[1] = { &r };
	char rule[900];
	size_t i;

	for (i = 0; i < 8; i++) {
		drop[i] = 0.93 * c[i];
		mid[i] = 0.96 * c[i];
	}
	vd_policy_default(&pol);
	assert_int_equal(pol.same_cells, 0);
	assert_true(pol.same_max_pct == 10);
	/* a page: the threshold is the margin; 2% noise, 8 cells a side,
	 * +0.5% with a CI of about +-2%: open */
	vd_test(&pol, &rate_kind, DIR_HIGHER, 2, b, 8, c, 8, &r);
	vd_decide(&pol, v, 1);
	assert_int_equal(r.verdict, V_UNDECIDED);
	assert_true(fabs(r.margin_pct - r.threshold_pct) < 1e-12);
	vd_rule_sentence(&pol, rule, sizeof(rule));
	assert_non_null(strstr(rule, "90% CI lies within +-threshold;"));
	/* a comparison run capped at 8 (3 looks): the margin is the t
	 * quantile of alpha 0.008 / 3 times the standard error */
	vd_plan_default(&plan);
	vd_plan_policy(&plan, &pol, &look);
	assert_int_equal(look.same_cells, 20);
	assert_int_equal(vd_plan_set_cap(&plan, 8), 0);
	vd_plan_policy(&plan, &pol, &look);
	assert_int_equal(look.same_cells, 8);
	vd_test(&look, &rate_kind, DIR_HIGHER, 2, b, 8, c, 8, &r);
	vd_decide(&look, v, 1);
	assert_int_equal(r.verdict, V_SAME);
	e = vd_t_quantile(0.008 / 3, r.df) * r.noise_pct * sqrt(2.0 / 8);
	assert_true(fabs(r.margin_pct - e) < 1e-9);
	assert_true(r.margin_pct > 3 && r.margin_pct < 5);
	assert_true(r.ci_lo < -r.threshold_pct || r.ci_hi > r.threshold_pct);
	vd_rule_sentence(&look, rule, sizeof(rule));
	assert_non_null(strstr(rule, "max(threshold, the change the test "
			       "detects half the time at the cap of 8 "));
	/* a 7% drop is worse, never same; a 3.5% drop, its CI beyond the
	 * margin and not significant at a look's alpha, stays open */
	vd_test(&look, &rate_kind, DIR_HIGHER, 2, b, 8, drop, 8, &r);
	vd_decide(&look, v, 1);
	assert_int_equal(r.verdict, V_WORSE);
	vd_test(&look, &rate_kind, DIR_HIGHER, 2, b, 8, mid, 8, &r);
	vd_decide(&look, v, 1);
	assert_int_equal(r.verdict, V_UNDECIDED);
	/* 5 of the 8 cells, a look before the cap: the threshold */
	vd_test(&look, &rate_kind, DIR_HIGHER, 2, b, 5, c, 5, &r);
	vd_decide(&look, v, 1);
	assert_true(fabs(r.margin_pct - r.threshold_pct) < 1e-9);
	assert_int_equal(r.verdict, V_UNDECIDED);
	/* a cap of 4 on 8 cells: the margin of 8 cells */
	look.same_cells = 4;
	vd_test(&look, &rate_kind, DIR_HIGHER, 2, b, 8, c, 8, &r);
	vd_decide(&look, v, 1);
	assert_true(fabs(r.margin_pct - e) < 1e-9);
	assert_int_equal(r.verdict, V_SAME);
	/* at most same_max_pct */
	look.same_max_pct = 2.2;
	vd_test(&look, &rate_kind, DIR_HIGHER, 2, b, 8, c, 8, &r);
	vd_decide(&look, v, 1);
	assert_true(fabs(r.margin_pct - 2.2) < 1e-9);
	assert_int_equal(r.verdict, V_UNDECIDED);
	look.same_max_pct = 10;
	/* 8 cells on a page with a huge budget: the quantile is small, the
	 * margin the threshold */
	look.alpha[VC_HEADLINE] = 0.9;
	vd_test(&look, &rate_kind, DIR_HIGHER, 2, b, 8, c, 8, &r);
	vd_decide(&look, v, 1);
	assert_true(fabs(r.margin_pct - r.threshold_pct) < 1e-9);
	assert_int_equal(r.verdict, V_UNDECIDED);
}

static void test_adaptive_carry(void **state)
{
	const double b[] = { 100, 103, 97, 101, 99, 100, 102, 98 };
	const double worse[] = { 70, 72, 69, 71, 70, 95, 140, 60 };
	const double noisy[] = { 100, 80, 120, 90, 110, 100, 80, 120 };
	struct vd_policy pol, look;
	struct vd_plan plan;
	struct comparison c3, c8;
	size_t next, open;

	vd_plan_default(&plan);
	vd_policy_default(&pol);
	vd_plan_policy(&plan, &pol, &look);
	/* worse at 3 cells; at 8 the wild cells alone say undecided, but a
	 * decision is final */
	cmp_of(&look, b, worse, 3, &c3);
	assert_int_equal(c3.m->cells[1].verdict, V_WORSE);
	cmp_of(&look, b, worse, 8, &c8);
	assert_int_equal(c8.m->cells[1].verdict, V_UNDECIDED);
	vd_plan_carry(&c3, &c8);
	assert_int_equal(c8.m->cells[1].verdict, V_WORSE);
	assert_string_equal(c8.m->cells[1].vd.note,
			    "decided at an earlier look");
	assert_int_equal(vd_plan_next(&plan, &c8, 8, 0, &next, &open),
			 VD_STEP_DECIDED);
	compare_release(&c3);
	compare_release(&c8);
	/* undecided is not carried */
	cmp_of(&look, b, noisy, 3, &c3);
	cmp_of(&look, b, noisy, 8, &c8);
	vd_plan_carry(&c3, &c8);
	assert_int_equal(c8.m->cells[1].verdict, V_UNDECIDED);
	compare_release(&c3);
	compare_release(&c8);
}

static void test_adaptive_stop_on_worse(void **state)
{
	/* two headline metrics: the rate worse, the latency open */
	const double b[] = { 100, 103, 97 }, w[] = { 70, 72, 69 };
	struct vd_policy pol, look;
	struct vd_plan plan;
	struct comparison c;
	size_t next, open;

	vd_plan_default(&plan);
	vd_policy_default(&pol);
	vd_plan_policy(&plan, &pol, &look);
	cmp_of(&look, b, w, 3, &c);
	/* a second headline metric, still open */
	c.m = realloc(c.m, 2 * sizeof(*c.m));
	c.m[1] = c.m[0];
	c.m[1].name = strdup("tiobench.seq_write.rate");
	c.m[1].unit = strdup("MB/s");
	c.m[1].cells = calloc(2, sizeof(*c.m[1].cells));
	c.m[1].cells[0].present = c.m[1].cells[1].present = 1;
	c.m[1].cells[1].verdict = V_UNDECIDED;
	c.m[1].cells[1].vd.note = "";
	c.nm = 2;
	assert_int_equal(vd_plan_next(&plan, &c, 3, 0, &next, &open),
			 VD_STEP_MORE);
	assert_int_equal(open, 1);
	plan.stop_on_worse = 1;
	assert_int_equal(vd_plan_next(&plan, &c, 3, 0, &next, &open),
			 VD_STEP_DECIDED);
	/* ... unless the open one leans worse: -20% against a 5% threshold
	 * (a regression the report would leave undecided) */
	c.m[1].cells[1].vd.verdict = V_UNDECIDED;
	c.m[1].cells[1].vd.dir = DIR_HIGHER;
	c.m[1].cells[1].vd.delta_pct = -20;
	c.m[1].cells[1].vd.ci_lo = -30;
	c.m[1].cells[1].vd.ci_hi = -10;
	c.m[1].cells[1].vd.threshold_pct = 5;
	assert_int_equal(vd_plan_next(&plan, &c, 3, 0, &next, &open),
			 VD_STEP_MORE);
	assert_int_equal(next, 5);
	/* its CI reaching inside the threshold, or leaning better: stop */
	c.m[1].cells[1].vd.ci_hi = -4;
	assert_int_equal(vd_plan_next(&plan, &c, 3, 0, &next, &open),
			 VD_STEP_DECIDED);
	c.m[1].cells[1].vd.dir = DIR_LOWER;
	assert_int_equal(vd_plan_next(&plan, &c, 3, 0, &next, &open),
			 VD_STEP_DECIDED);
	/* a latency (lower is better) whose CI is past +5%: up */
	c.m[1].cells[1].vd.ci_lo = 10;
	c.m[1].cells[1].vd.ci_hi = 30;
	assert_int_equal(vd_plan_next(&plan, &c, 3, 0, &next, &open),
			 VD_STEP_MORE);
	compare_release(&c);
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
		cmocka_unit_test(test_mann_whitney),
		cmocka_unit_test(test_paired),
		cmocka_unit_test(test_pairs_page),
		cmocka_unit_test(test_config_floors),
		cmocka_unit_test(test_corrections),
		cmocka_unit_test(test_page_correction),
		cmocka_unit_test(test_kinds_cells_floors),
		cmocka_unit_test(test_cached_phase),
		cmocka_unit_test(test_adaptive),
		cmocka_unit_test(test_same_at_cap),
		cmocka_unit_test(test_adaptive_carry),
		cmocka_unit_test(test_adaptive_stop_on_worse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
