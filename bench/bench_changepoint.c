// SPDX-License-Identifier: MIT
/*
 * bench_changepoint: change-point detection (judge/changepoint.c) over
 * METRICS synthetic histories of POINTS points each (default 1,000 x
 * 10,000), against two references measured in the same run on the same
 * data: a plain pass computing each metric's mean, and a qsort of each
 * metric (the O(n log n) floor of any rank-based method).  One metric in
 * STEP_EVERY has a 5% step in the middle; the rest are noise only.
 * Timings are printed, never asserted, with the load average before and
 * after.
 *
 *   cc -O2 -I. -o bench_changepoint bench/bench_changepoint.c \
 *      judge/changepoint.c lib/alloc.c -lm
 *   bench_changepoint [--metrics N] [--points N] [--step-every N]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "judge/changepoint.h"
#include "lib/rand.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void loadavg(char *buf, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

/* Uniform in (0, 1): 53 bits of the stream, never 0. */
static double unit_open(uint64_t *s)
{
	return ((double)(rand_xorshift64(s) >> 11) + 0.5) /
	       9007199254740992.0;
}

static double gauss(uint64_t *s)
{
	double u = unit_open(s);
	double v = unit_open(s);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static int dcmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* The two reference passes over the same data: a mean per metric, a
 * qsort per metric.  Their times into *t_mean and *t_sort. */
static double references(const double *x, double *tmp, size_t metrics,
			 size_t points, double *t_mean, double *t_sort)
{
	double t0 = now(), sink = 0, sum;
	size_t m, i;

	for (m = 0; m < metrics; m++) {
		sum = 0;
		for (i = 0; i < points; i++)
			sum += x[m * points + i];
		sink += sum / (double)points;
	}
	*t_mean = now() - t0;
	t0 = now();
	for (m = 0; m < metrics; m++) {
		memcpy(tmp, x + m * points, points * sizeof(*tmp));
		qsort(tmp, points, sizeof(*tmp), dcmp);
		sink += tmp[points / 2];
	}
	*t_sort = now() - t0;
	return sink;
}

static long arg_long(int argc, char **argv, const char *name, long def)
{
	int i;

	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtol(argv[i + 1], NULL, 10);
	return def;
}

int main(int argc, char **argv)
{
	size_t metrics = (size_t)arg_long(argc, argv, "--metrics", 1000);
	size_t points = (size_t)arg_long(argc, argv, "--points", 10000);
	size_t every = (size_t)arg_long(argc, argv, "--step-every", 10);
	double *x, *tmp, t0, t_mean, t_sort, t_cp, sink = 0;
	size_t m, i, n, found = 0, hits = 0;
	struct cp_params p;
	struct cp_point *c;
	char la0[128], la1[128];
	uint64_t s = 12345;

	x = malloc(metrics * points * sizeof(*x));
	tmp = malloc(points * sizeof(*tmp));
	if (!x || !tmp || !every)
		return 1;
	for (m = 0; m < metrics; m++)
		for (i = 0; i < points; i++)
			x[m * points + i] = 100 * (m % every == 0 &&
						   i >= points / 2 ? 1.05 : 1) +
					    3 * gauss(&s);
	loadavg(la0, sizeof(la0));
	sink = references(x, tmp, metrics, points, &t_mean, &t_sort);
	cp_params_default(&p);
	t0 = now();
	for (m = 0; m < metrics; m++) {
		if (cp_find(x + m * points, points, NULL, &p, &c, &n))
			return 1;
		found += n;
		for (i = 0; i < n; i++)
			hits += m % every == 0 &&
				(size_t)labs((long)c[i].idx -
					     (long)points / 2) <= 20;
		free(c);
	}
	t_cp = now() - t0;
	loadavg(la1, sizeof(la1));
	printf("metrics %zu x points %zu (a 5%% step in 1 of %zu), sig %.3g, "
	       "%d permutations, min size %zu\n", metrics, points, every,
	       p.sig, p.permutations, p.min_size);
	printf("reference mean pass: %.3f s; reference qsort pass: %.3f s\n",
	       t_mean, t_sort);
	printf("change points: %.3f s = %.0f x the mean pass, %.1f x the "
	       "qsort pass; %.2f ms per metric\n", t_cp, t_cp / t_mean,
	       t_cp / t_sort, t_cp * 1000 / (double)metrics);
	printf("found %zu change points, %zu of %zu steps within 20 points "
	       "of their place\n", found, hits, (metrics + every - 1) / every);
	printf("load average before: %s; after: %s\n", la0, la1);
	free(x);
	free(tmp);
	return sink == 42.4242 ? 2 : 0;
}
