/* SPDX-License-Identifier: MIT */
/*
 * changepoint: where a history changes level.  E-divisive means
 * (Matteson and James 2014, the method Apache Otava and its predecessor
 * hunter use): for each cut of a segment, the energy statistic q-hat
 * weighs the distance between the two sides against the distances within
 * them; the best cut is kept when a permutation test of the segment
 * (shuffle, take the best cut again) says it is unlikely by chance, and
 * both sides are searched again (binary segmentation).
 *
 * With |x - y| as the distance, every cut of an n-point segment is scored
 * in O(n log n) (running within-sums over a Fenwick tree of ranks) rather
 * than O(n^2), so 10,000 points take milliseconds.  The permutation test
 * stops as soon as the p-value can no longer fall to the significance
 * level (a no-change series usually needs a few shuffles, not all).
 *
 * The false-alarm rate: on a series with no change, the first test
 * rejects with probability about the significance level (the permutation
 * p-value is uniform under exchangeability), so about sig of no-change
 * series show a change point (tests/unit/test_changepoint.c measures it).
 *
 * Pure functions, no HTTP and no SQL; results are reproducible: the
 * shuffles come from rand_xorshift64 seeded from params.seed and the
 * segment's place.
 */
#ifndef KLAB_CHANGEPOINT_H
#define KLAB_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

struct cp_params {
	size_t min_size;	/* points each side of a change, >= 2 */
	double sig;		/* significance level, (0, 1) */
	int permutations;	/* shuffles per test, >= 1 */
	uint64_t seed;		/* of the shuffles; 0: the default */
};

struct cp_point {
	size_t idx;		/* the first point after the change */
	double q;		/* the e-divisive statistic of the cut */
	double p;		/* permutation p-value */
	/* means of the segments either side (between neighbouring changes) */
	double mean_before, mean_after;
};

/* min_size 3, sig 0.01, 199 permutations, the default seed. */
void cp_params_default(struct cp_params *p);

/*
 * The change points of x[0..n), ascending idx, into *out (malloc'd, NULL
 * when none) and *nout.  cut_ok (NULL: any) marks where a change may lie:
 * a cut before point i is considered only when cut_ok[i] (a history in
 * kernel order changes between kernels, not inside one).  0, or -1 when
 * the parameters are out of range (nothing allocated).
 */
int cp_find(const double *x, size_t n, const unsigned char *cut_ok,
	    const struct cp_params *p, struct cp_point **out, size_t *nout);

/* Relative size of a change in percent (after against before); 0 when
 * before is 0. */
double cp_size_pct(const struct cp_point *c);

#endif
