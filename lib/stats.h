/* SPDX-License-Identifier: MIT */
/*
 * stats: the statistics behind every verdict klab prints.  Summaries of a
 * sample (mean, standard deviation, coefficient of variation) and Welch's
 * two-sample t-test, whose p-value says whether a candidate kernel differs
 * from its base by more than the rig's noise.
 */
#ifndef KLAB_STATS_H
#define KLAB_STATS_H

#include <stddef.h>

struct summary {
	size_t n;
	double mean, stddev, min, max;
	double cv;	/* stddev / |mean|, 0 when mean is 0 */
};

void stats_summarize(const double *v, size_t n, struct summary *out);
/*
 * Welch's t-test on two summaries: two-sided p-value, or 1.0 when either
 * side has fewer than 2 values or both have no variance and equal means.
 * When both variances are zero and the means differ, returns 0.
 */
double stats_welch_p(const struct summary *a, const struct summary *b);
/* Regularised incomplete beta I_x(a, b), for the t distribution. */
double stats_betai(double a, double b, double x);
/* Two-sided p-value of Student's t with df degrees of freedom. */
double stats_t_p(double t, double df);

#endif
