// SPDX-License-Identifier: MIT
/*
 * The Mann-Whitney test (see rank.h): midranks of the pooled values, the
 * exact null distribution of W from the Gaussian binomial coefficient
 * (the counts of W are the coefficients of prod_{i=1..m} (1 - q^(n+i)) /
 * (1 - q^i)), or the normal approximation with ties and continuity.
 */
#include "judge/rank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ranked {
	double v;
	int side;	/* 0: x, 1: y */
};

static int ranked_cmp(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->v;
	double y = ((const struct ranked *)b)->v;

	return x < y ? -1 : x > y;
}

double vd_mw_exact_cdf(double w, size_t m, size_t n)
{
	size_t top = m * n, i, k;
	double *c, below = 0, all = 0;

	if (!m || !n || m >= VD_MW_EXACT_MAX || n >= VD_MW_EXACT_MAX)
		return NAN;
	c = calloc(top + 1, sizeof(*c));
	if (!c)
		abort();
	c[0] = 1;
	for (i = 1; i <= m; i++) {
		/* times (1 - q^(n+i)), then divided by (1 - q^i) */
		for (k = top; k >= n + i; k--)
			c[k] -= c[k - n - i];
		for (k = i; k <= top; k++)
			c[k] += c[k - i];
	}
	for (k = 0; k <= top; k++) {
		all += c[k];
		if ((double)k <= w + 1e-9)
			below += c[k];
	}
	free(c);
	return below / all;
}

/* W of x, and the sum of t^3 - t over groups of tied values. */
static double rank_sum(const double *x, size_t nx, const double *y,
		       size_t ny, double *ties)
{
	size_t n = nx + ny, i, j, k;
	struct ranked *r = malloc(n * sizeof(*r));
	double sum = 0;

	if (!r)
		abort();
	for (i = 0; i < nx; i++)
		r[i] = (struct ranked){ x[i], 0 };
	for (i = 0; i < ny; i++)
		r[nx + i] = (struct ranked){ y[i], 1 };
	qsort(r, n, sizeof(*r), ranked_cmp);
	*ties = 0;
	for (i = 0; i < n; i = j) {
		double t, mid;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		t = (double)(j - i);
		mid = ((double)i + (double)j + 1) / 2;	/* 1-based midrank */
		*ties += t * t * t - t;
		for (k = i; k < j; k++)
			if (!r[k].side)
				sum += mid;
	}
	free(r);
	return sum - (double)nx * ((double)nx + 1) / 2;
}

int vd_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		    struct vd_mw *out)
{
	double ties, mu, var, z, lo, hi, N = (double)(nx + ny);

	memset(out, 0, sizeof(*out));
	out->p = out->w = NAN;
	if (!nx || !ny)
		return -1;
	out->w = rank_sum(x, nx, y, ny, &ties);
	if (ties == 0 && nx < VD_MW_EXACT_MAX && ny < VD_MW_EXACT_MAX) {
		lo = vd_mw_exact_cdf(out->w, nx, ny);
		hi = 1 - vd_mw_exact_cdf(out->w - 1, nx, ny);
		out->p = fmin(1, 2 * fmin(lo, hi));
		out->exact = 1;
		return 0;
	}
	mu = (double)nx * (double)ny / 2;
	var = (double)nx * (double)ny / 12 *
	      ((N + 1) - ties / (N * (N - 1)));
	if (!(var > 0)) {	/* every value tied: no evidence at all */
		out->p = 1;
		return 0;
	}
	z = out->w - mu;
	z = (z - (z > 0 ? 0.5 : z < 0 ? -0.5 : 0)) / sqrt(var);
	out->p = fmin(1, erfc(fabs(z) / sqrt(2)));
	return 0;
}
