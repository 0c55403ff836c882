/* SPDX-License-Identifier: MIT */
/*
 * rank: the Mann-Whitney (Wilcoxon rank-sum) test, the p-value of latency
 * tails (p99 and up, max) in judge/verdict.c.  A tail's cells are skewed
 * and a single wild cell moves a mean (even of logs); ranks do not care
 * how far out a cell lies.  As R's wilcox.test(x, y) with its defaults:
 * the exact null distribution of W when both sides have fewer than 50
 * values and there are no ties, otherwise the normal approximation with
 * the tie correction of the variance and a continuity correction of 0.5.
 * Pure functions over numbers.
 */
#ifndef KLAB_RANK_H
#define KLAB_RANK_H

#include <stddef.h>

/* Below this many values on each side, and with no ties, p is exact. */
#define VD_MW_EXACT_MAX 50

struct vd_mw {
	double w;	/* W: the rank sum of x minus nx (nx + 1) / 2 */
	double p;	/* two-sided */
	int exact;	/* 1: exact distribution, 0: normal approximation */
};

/*
 * Two-sided Mann-Whitney test of x[0..nx) against y[0..ny).  Values must
 * be finite.  Fills out and returns 0; -1 (out->p NAN) when a side is
 * empty.
 */
int vd_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		    struct vd_mw *out);
/* P(W <= w) under the null for sides of m and n values without ties:
 * the exact distribution; NAN when m or n is 0 or too large. */
double vd_mw_exact_cdf(double w, size_t m, size_t n);

#endif
