// SPDX-License-Identifier: MIT
/*
 * Unit tests for workloads/hist.c: bucket edges, percentiles against a
 * sorted reference, values past 10 s and 60 s, exact slow-request shares,
 * merging.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "lib/rand.h"
#include "workloads/hist.h"

static struct hist *hist_new(void)
{
	struct hist *h = malloc(sizeof(*h));

	assert_non_null(h);
	hist_init(h);
	return h;
}

static void test_bucket_edges(void **state)
{
	uint64_t v;
	unsigned i;

	for (v = 0; v < 128; v++)
		assert_int_equal(hist_index(v), v);
	assert_int_equal(hist_index(128), 128);
	assert_int_equal(hist_index(129), 128);	/* width 2 from 128 on */
	assert_int_equal(hist_index(130), 129);
	assert_int_equal(hist_index(255), 191);
	assert_int_equal(hist_index(256), 192);
	/* every bucket's low edge maps to itself, the value below to the
	 * previous bucket, and a bucket is at most 1/64 of its low edge wide */
	for (i = 1; i < HIST_NR - 1; i++) {
		uint64_t lo = hist_bucket_low(i), next = hist_bucket_low(i + 1);

		assert_int_equal(hist_index(lo), i);
		assert_int_equal(hist_index(lo - 1), i - 1);
		assert_true(next > lo);
		if (i >= 128)
			assert_true((next - lo) * 64 <= lo);
		assert_true(hist_bucket_mid(i) >= lo &&
			    hist_bucket_mid(i) < next);
	}
	/* 60 s and 1 hour are still inside the buckets, not clamped */
	assert_true(hist_index(60000000000ull) < HIST_NR - 1);
	assert_true(hist_index(3600000000000ull) < HIST_NR - 1);
	assert_int_equal(hist_index(UINT64_MAX), HIST_NR - 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_percentiles_vs_sorted(void **state)
{
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 99.99, 100 };
	enum { N = 200000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct hist *h = hist_new();
	long double sum = 0;
	uint64_t seed = 42;
	unsigned i;

	assert_non_null(v);
	for (i = 0; i < N; i++) {
		/* log-uniform from 1 us to 100 s */
		double e = 3 + 8 * ((double)(rand_xorshift64(&seed) >> 11) /
				    9007199254740992.0);

		v[i] = (uint64_t)pow(10, e);
		hist_add(h, v[i]);
		sum += v[i];
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		size_t k = (size_t)ceil(ps[i] / 100 * N) - 1;
		double got = (double)hist_percentile(h, ps[i]);
		double ref = (double)v[k];

		assert_true(fabs(got - ref) / ref <= 0.01);
	}
	assert_int_equal(hist_percentile(h, 100), v[N - 1]);
	assert_int_equal(h->min, v[0]);
	assert_int_equal(h->max, v[N - 1]);
	assert_true(fabs(hist_mean(h) - (double)(sum / N)) <
		    1e-6 * hist_mean(h));
	free(h);
	free(v);
}

static void test_slow_shares(void **state)
{
	struct hist *h = hist_new();
	unsigned i;

	for (i = 0; i < 96; i++)
		hist_add(h, 1000000);		/* 1 ms */
	hist_add(h, 2000000000ull);		/* exactly 2 s: not over */
	hist_add(h, 2000000001ull);		/* just over 2 s */
	hist_add(h, 10000000001ull);		/* over 10 s */
	hist_add(h, 61000000000ull);		/* 61 s */
	assert_int_equal(h->count, 100);
	assert_true(fabs(hist_share_over(h, HIST_SLOW1_NS) - 3.0) < 1e-9);
	assert_true(fabs(hist_share_over(h, HIST_SLOW2_NS) - 2.0) < 1e-9);
	assert_int_equal(hist_percentile(h, 100), 61000000000ull);
	/* the 99th value is the 10.000000001 s one, within a bucket */
	assert_true(fabs((double)hist_percentile(h, 99) - 1e10) / 1e10 < 0.01);
	/* a threshold in the middle: only the 4 slow ones are above 1 s */
	assert_true(fabs(hist_share_over(h, 1000000000ull) - 4.0) < 1e-9);
	free(h);
}

static void test_merge_and_empty(void **state)
{
	struct hist *a = hist_new(), *b = hist_new(), *all = hist_new();
	unsigned i;

	assert_int_equal(hist_percentile(a, 50), 0);
	assert_true(hist_mean(a) == 0.0);
	assert_true(hist_share_over(a, HIST_SLOW1_NS) == 0.0);
	for (i = 1; i <= 1000; i++) {
		hist_add(i % 2 ? a : b, i * 12345ull);
		hist_add(all, i * 12345ull);
	}
	hist_merge(a, b);
	assert_int_equal(a->count, all->count);
	assert_int_equal(a->min, all->min);
	assert_int_equal(a->max, all->max);
	assert_true(a->sum == all->sum);
	for (i = 0; i < HIST_NR; i++)
		assert_int_equal(a->b[i], all->b[i]);
	assert_int_equal(hist_percentile(a, 50), hist_percentile(all, 50));
	free(a);
	free(b);
	free(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_edges),
		cmocka_unit_test(test_percentiles_vs_sorted),
		cmocka_unit_test(test_slow_shares),
		cmocka_unit_test(test_merge_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
