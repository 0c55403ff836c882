// SPDX-License-Identifier: MIT
/*
 * Unit tests for judge/strata.c (issue 31, rig pools): the rig as a
 * blocking factor.  An A/A whose rigs differ by more than any change
 * the page looks for is never worse, even with the sides spread
 * unevenly over the rigs; a real shift within every rig is found even
 * when the rigs' offsets are larger than the shift; too few cells on a
 * rig to see its spread is not tested; the comparison model hands a
 * pool's cells to the stratified test and never pairs them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/compare.h"
#include "judge/verdict.h"

static const struct vd_kind rate_kind = { VC_HEADLINE, 0, 1 };
static const struct vd_kind tail_kind = { VC_SECONDARY, 1, 0 };

/* A small deterministic generator: the tests' numbers never change. */
static uint64_t rng = 88172645463325252ULL;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* Test one candidate alone on its page, stratified or pooled. */
static void one(const struct vd_kind *k, const double *b, const int *bg,
		size_t nb, const double *c, const int *cg, size_t nc,
		int strata, struct vd_result *r)
{
	struct vd_policy pol;
	struct vd_result *v[1] = { r };

	vd_policy_default(&pol);
	if (strata)
		vd_test_strata(&pol, k, DIR_HIGHER, pol.floor_pct[k->klass], b,
			       bg, nb, c, cg, nc, r);
	else
		vd_test(&pol, k, DIR_HIGHER, pol.floor_pct[k->klass], b, nb,
			c, nc, r);
	vd_decide(&pol, v, 1);
}

/* n cells of level 100 * (1 + shift) * (1 + offset of their rig), noise
 * cv; rig of cell i from layout (a string of '0' and '1'). */
static void cells(double *v, int *g, const char *layout, double shift,
		  const double *offset, double cv)
{
	size_t i;

	for (i = 0; layout[i]; i++) {
		g[i] = layout[i] - '0';
		v[i] = 100 * (1 + shift) * (1 + offset[g[i]]) *
		       (1 + cv * gauss());
	}
}

/* The base mostly on the slow rig, the candidate mostly on the fast
 * one: pooled, the offset looks like a change. */
static void test_aa_offset_uneven(void **state)
{
	static const double off[2] = { 0, 0.20 };
	double b[8], c[8];
	int bg[8], cg[8];
	struct vd_result r;

	(void)state;
	cells(b, bg, "00000011", 0, off, 0.01);
	cells(c, cg, "00111111", 0, off, 0.01);
	one(&rate_kind, b, bg, 8, c, cg, 8, 0, &r);
	assert_true(r.delta_pct > 5);	/* pooled, the offset is a change */
	one(&rate_kind, b, bg, 8, c, cg, 8, 1, &r);
	assert_int_not_equal(r.verdict, V_WORSE);
	assert_int_not_equal(r.verdict, V_BETTER);
	assert_string_equal(r.analysis, "stratified");
	assert_true(fabs(r.delta_pct) < 3);
	assert_true(r.noise_pct < 3);	/* the offset is not noise */
}

/* Many A/A pages with rig offsets and uneven layouts: worse or better
 * no more often than the headline alpha allows. */
static void test_aa_error_rate(void **state)
{
	static const char *const lay[][2] = {
		{ "010101", "101010" }, { "000011", "001111" },
		{ "0011", "0101" }, { "00011", "01111" },
	};
	double off[2], b[8], c[8];
	int bg[8], cg[8], wrong = 0, i;
	struct vd_result r;
	const int trials = 4000;

	(void)state;
	for (i = 0; i < trials; i++) {
		const char *const *l = lay[i % 4];

		off[0] = 0.3 * uniform();
		off[1] = -0.2 * uniform();
		cells(b, bg, l[0], 0, off, 0.03);
		cells(c, cg, l[1], 0, off, 0.03);
		one(&rate_kind, b, bg, strlen(l[0]), c, cg, strlen(l[1]), 1,
		    &r);
		wrong += r.verdict == V_WORSE || r.verdict == V_BETTER;
	}
	/* alpha 0.008 and a threshold of at least the floor: well below 1% */
	assert_true(wrong < trials / 100);
}

/* A 5% loss on every rig, rigs 20% apart: found, and pooling would not
 * find it with the sides spread unevenly. */
static void test_shift_within_rigs(void **state)
{
	static const double off[2] = { 0.20, 0 };
	double b[8], c[8];
	int bg[8], cg[8];
	struct vd_result r;

	(void)state;
	cells(b, bg, "00111111", 0, off, 0.01);
	cells(c, cg, "00000011", -0.05, off, 0.01);
	one(&rate_kind, b, bg, 8, c, cg, 8, 1, &r);
	assert_int_equal(r.verdict, V_WORSE);
	assert_true(r.delta_pct < -4 && r.delta_pct > -6);
	assert_true(r.ci_lo < -5 && r.ci_hi > -5);
	one(&rate_kind, b, bg, 8, c, cg, 8, 0, &r);
	assert_int_not_equal(r.verdict, V_WORSE);
}

/* A/A with enough cells and an offset: "same" is reachable. */
static void test_aa_same(void **state)
{
	static const double off[2] = { 0, 0.15 };
	double b[12], c[12];
	int bg[12], cg[12];
	struct vd_result r;

	(void)state;
	cells(b, bg, "010101010101", 0, off, 0.005);
	cells(c, cg, "101010101010", 0, off, 0.005);
	one(&rate_kind, b, bg, 12, c, cg, 12, 1, &r);
	assert_int_equal(r.verdict, V_SAME);
}

/* One cell a side on each rig: the spread within a rig is unseen. */
static void test_too_few_within(void **state)
{
	static const double off[2] = { 0, 0.1 };
	double b[4], c[4];
	int bg[4], cg[4];
	struct vd_result r;

	(void)state;
	cells(b, bg, "01", 0, off, 0.01);
	cells(c, cg, "01", -0.3, off, 0.01);
	one(&rate_kind, b, bg, 2, c, cg, 2, 1, &r);
	assert_int_equal(r.verdict, V_UNDECIDED);
	assert_false(r.tested);
	assert_string_equal(r.note, "too few cells within each rig");
	assert_true(r.delta_pct < -25 && r.delta_pct > -35);
	/* no rig ran both sides: nothing to compare within a rig */
	cells(b, bg, "00", 0, off, 0.01);
	cells(c, cg, "11", 0, off, 0.01);
	one(&rate_kind, b, bg, 2, c, cg, 2, 1, &r);
	assert_false(r.tested);
	assert_string_equal(r.note, "no rig ran both sides");
	/* a rig that ran only one side carries nothing: left out */
	cells(b, bg, "0001", 0, off, 0.01);
	cells(c, cg, "000", -0.3, off, 0.01);
	one(&rate_kind, b, bg, 4, c, cg, 3, 1, &r);
	assert_int_equal(r.verdict, V_WORSE);
	assert_true(r.delta_pct < -25 && r.delta_pct > -35);
}

/* A tail: logs for the change, the stratified ranks for p. */
static void test_tail_ranks(void **state)
{
	static const double off[2] = { 0, 0.5 };
	double b[10], c[10];
	int bg[10], cg[10];
	struct vd_result r;

	(void)state;
	cells(b, bg, "0000011111", 0, off, 0.02);
	cells(c, cg, "0000011111", 0, off, 0.02);
	one(&tail_kind, b, bg, 10, c, cg, 10, 1, &r);
	assert_string_equal(r.analysis, "stratified-ranks");
	assert_true(r.p > 0.01);
	assert_int_not_equal(r.verdict, V_WORSE);
	cells(c, cg, "0000011111", 1.0, off, 0.02);
	one(&tail_kind, b, bg, 10, c, cg, 10, 1, &r);
	assert_true(r.p < 0.01);
	assert_true(r.delta_pct > 90 && r.delta_pct < 110);
}

/* The comparison model: a pool's cells go to the stratified test. */
static void test_compare_pool(void **state)
{
	static const double off[2] = { 0, 0.20 };
	struct cmp_run_rig rr[16];
	struct comparison c;
	struct cmp_cell *cell;
	double v[8];
	int g[8];
	size_t k, i;

	(void)state;
	memset(&c, 0, sizeof(c));
	vd_policy_default(&c.pol);
	c.nk = 2;
	c.kernels = calloc(2, sizeof(*c.kernels));
	c.kernels[0] = strdup("a");
	c.kernels[1] = strdup("b");
	c.nm = 1;
	c.m = calloc(1, sizeof(*c.m));
	c.m->name = strdup("seq_read.rate");
	c.m->unit = strdup("MB/s");
	c.m->dir = DIR_HIGHER;
	vd_kind_of(c.m->name, c.m->unit, c.m->dir, &c.m->kind);
	c.m->cells = calloc(2, sizeof(*c.m->cells));
	c.nrigs = 2;
	c.rigs = calloc(2, sizeof(*c.rigs));
	c.rigs[0] = strdup("r1");
	c.rigs[1] = strdup("r2");
	c.run_rig = malloc(sizeof(rr));
	for (k = 0; k < 2; k++) {
		cell = &c.m->cells[k];
		cells(v, g, k ? "00111111" : "00000011", 0, off, 0.01);
		cell->values = malloc(8 * sizeof(double));
		cell->runs = malloc(8 * sizeof(int64_t));
		cell->nvalues = 8;
		cell->present = 1;
		for (i = 0; i < 8; i++) {
			cell->values[i] = v[i];
			cell->runs[i] = (int64_t)(k * 8 + i + 1);
			c.run_rig[c.nrun_rig].run = cell->runs[i];
			c.run_rig[c.nrun_rig++].rig = g[i];
		}
	}
	compare_judge(&c);
	cell = &c.m->cells[1];
	assert_non_null(cell->cellrig);
	assert_string_equal(cell->vd.analysis, "stratified");
	assert_int_not_equal(cell->verdict, V_BETTER);
	assert_int_not_equal(cell->verdict, V_WORSE);
	compare_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_offset_uneven),
		cmocka_unit_test(test_aa_error_rate),
		cmocka_unit_test(test_shift_within_rigs),
		cmocka_unit_test(test_aa_same),
		cmocka_unit_test(test_too_few_within),
		cmocka_unit_test(test_tail_ranks),
		cmocka_unit_test(test_compare_pool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
