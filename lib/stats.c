// SPDX-License-Identifier: MIT
/*
 * Sample summaries and Welch's t-test.  The incomplete beta function is
 * evaluated with the continued fraction of Lentz's method, the textbook way
 * (converges fast for x < (a+1)/(a+b+2), symmetry otherwise).
 */
#include "stats.h"

#include <math.h>

void stats_summarize(const double *v, size_t n, struct summary *out)
{
	double sum = 0, ss = 0;
	size_t i;

	out->n = n;
	out->mean = out->stddev = out->min = out->max = out->cv = 0;
	if (!n)
		return;
	out->min = out->max = v[0];
	for (i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] < out->min)
			out->min = v[i];
		if (v[i] > out->max)
			out->max = v[i];
	}
	out->mean = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (v[i] - out->mean) * (v[i] - out->mean);
	if (n > 1)
		out->stddev = sqrt(ss / (double)(n - 1));
	if (out->mean != 0)
		out->cv = out->stddev / fabs(out->mean);
}

static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-14;
	double c = 1, d, h, qab = a + b, qap = a + 1, qam = a - 1;
	int m;

	d = 1 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats_betai(double a, double b, double x)
{
	double bt;
	int sg;		/* lgamma_r: lgamma's sign is a global, racy */

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma_r(a + b, &sg) - lgamma_r(a, &sg) - lgamma_r(b, &sg) +
		 a * log(x) + b * log(1 - x));
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double stats_t_p(double t, double df)
{
	if (!isfinite(t))
		return 0;
	return stats_betai(df / 2, 0.5, df / (df + t * t));
}

double stats_welch_p(const struct summary *a, const struct summary *b)
{
	double va, vb, se2, t, df;

	if (a->n < 2 || b->n < 2)
		return 1.0;
	va = a->stddev * a->stddev / (double)a->n;
	vb = b->stddev * b->stddev / (double)b->n;
	se2 = va + vb;
	if (se2 <= 0)
		return a->mean == b->mean ? 1.0 : 0.0;
	t = (a->mean - b->mean) / sqrt(se2);
	df = se2 * se2 / (va * va / (double)(a->n - 1) +
			  vb * vb / (double)(b->n - 1));
	return stats_t_p(t, df);
}
