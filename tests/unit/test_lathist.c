// SPDX-License-Identifier: MIT
/*
 * Unit tests for the compact latency histogram (lib/lathist.c) and its
 * trip through a klab-results/1 document (lib/results_hist.c): a workload
 * histogram (workloads/hist.h) serialised by wl_result_hist, written as
 * JSON and read back keeps every count in a bucket whose bounds hold the
 * values; merging adds; malformed histograms are refused with the member
 * named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lathist.h"
#include "lib/results.h"
#include "workloads/hist.h"
#include "workloads/wlcli.h"

static const uint64_t vals[] = {
	0, 1, 5, 127, 128, 129, 1000, 1000, 65535, 100000, 100001, 2500000,
	2000000001ull, 60000000000ull, 3600000000000ull, 9000000000000ull,
};
#define NVALS (sizeof(vals) / sizeof(vals[0]))

/* The bucket of lh holding v: the first whose upper bound is above v. */
static size_t bucket_of(const struct lathist *lh, uint64_t v)
{
	size_t i;

	for (i = 0; i < lh->n && lh->up[i] <= v; i++)
		;
	return i;
}

static int hist_equal(const struct lathist *a, const struct lathist *b)
{
	return a->n == b->n && a->total == b->total &&
	       !memcmp(a->up, b->up, a->n * sizeof(*a->up)) &&
	       !memcmp(a->cnt, b->cnt, a->n * sizeof(*a->cnt));
}

static void test_round_trip(void **state)
{
	struct hist *h = malloc(sizeof(*h));
	struct result_set rs, back;
	struct import_error ie;
	struct lathist lh;
	char err[160], *text;
	json_t *doc;
	size_t i, b;
	uint64_t *seen;

	(void)state;
	assert_non_null(h);
	hist_init(h);
	for (i = 0; i < NVALS; i++)
		hist_add(h, vals[i]);
	result_set_init(&rs);
	result_set_setstr(&rs.kernel, "6.1");
	wl_result_pcts(&rs, "iops", h, 1e3, "us", 0);
	assert_int_equal(rs.nhist, 1);
	assert_string_equal(rs.hist[0].phase, "iops");
	/* the numbers are what they were: p50, p99, p99.9 */
	assert_int_equal(rs.n, 3);

	doc = result_set_to_json(&rs);
	assert_non_null(json_object_get(doc, "hist"));
	result_set_init(&back);
	assert_int_equal(result_set_from_json(&back, doc, &ie), 0);
	json_decref(doc);
	assert_int_equal(back.nhist, 1);
	assert_true(hist_equal(&back.hist[0].h, &rs.hist[0].h));

	/* and through its compact JSON text, as a page once read it */
	text = lathist_dump(&back.hist[0].h);
	lathist_init(&lh);
	assert_int_equal(lathist_parse(&lh, text, strlen(text), err,
				       sizeof(err)), 0);
	free(text);
	assert_true(hist_equal(&lh, &rs.hist[0].h));
	assert_int_equal(lh.total, NVALS);
	/* every value lies in a bucket of the right count: count them */
	seen = calloc(lh.n, sizeof(*seen));
	assert_non_null(seen);
	for (i = 0; i < NVALS; i++) {
		b = bucket_of(&lh, vals[i]);
		assert_true(b < lh.n);
		assert_true(b == 0 || lh.up[b - 1] <= vals[i]);
		seen[b]++;
	}
	for (b = 0; b < lh.n; b++)
		assert_int_equal(seen[b], lh.cnt[b]);
	free(seen);
	lathist_release(&lh);

	/* a second repetition merges: every count doubles */
	result_set_hist_take(&rs, &back);
	assert_int_equal(rs.hist[0].h.total, 2 * NVALS);
	for (b = 0; b < rs.hist[0].h.n; b++)
		assert_int_equal(rs.hist[0].h.cnt[b],
				 2 * back.hist[0].h.cnt[b]);
	result_set_release(&back);
	result_set_release(&rs);
	free(h);
}

static void test_merge(void **state)
{
	struct lathist a, b;

	(void)state;
	lathist_init(&a);
	lathist_init(&b);
	assert_int_equal(lathist_add(&a, 10, 1), 0);
	assert_int_equal(lathist_add(&a, 30, 2), 0);
	assert_int_equal(lathist_add(&a, 30, 2), -1);	/* not increasing */
	assert_int_equal(lathist_add(&b, 20, 4), 0);
	assert_int_equal(lathist_add(&b, 30, 8), 0);
	assert_int_equal(lathist_add(&b, 40, 16), 0);
	lathist_merge(&a, &b);
	assert_int_equal(a.n, 4);
	assert_int_equal(a.total, 31);
	assert_int_equal(a.up[1], 20);
	assert_int_equal(a.cnt[2], 10);
	assert_int_equal(a.up[3], 40);
	lathist_release(&a);
	lathist_release(&b);
}

static void expect_refused(const char *hist, const char *field)
{
	struct import_error ie;
	struct result_set rs;
	char doc[512];
	json_t *j;

	snprintf(doc, sizeof(doc), "{\"schema\":\"klab-results/1\","
		 "\"kernel\":\"k\",\"results\":[],\"hist\":%s}", hist);
	j = json_loads(doc, 0, NULL);
	assert_non_null(j);
	memset(&ie, 0, sizeof(ie));
	result_set_init(&rs);
	assert_int_equal(result_set_from_json(&rs, j, &ie), -1);
	assert_string_equal(ie.field, field);
	assert_int_equal(rs.nhist, 0);
	json_decref(j);
}

static void test_refused(void **state)
{
	(void)state;
	expect_refused("[]", "hist");
	expect_refused("{\"a b\":{\"unit\":\"ns\",\"buckets\":[]}}",
		       "hist.a b");
	expect_refused("{\"iops\":{\"unit\":\"ms\",\"buckets\":[]}}",
		       "hist.iops");
	expect_refused("{\"iops\":{\"unit\":\"ns\",\"buckets\":[[5,1],[5,1]]}}",
		       "hist.iops");
	expect_refused("{\"iops\":{\"unit\":\"ns\",\"buckets\":[[5,0]]}}",
		       "hist.iops");
	expect_refused("{\"iops\":{\"unit\":\"ns\",\"buckets\":[[5.5,1]]}}",
		       "hist.iops");
	expect_refused("{\"iops\":{\"unit\":\"ns\",\"buckets\":[[-5,1]]}}",
		       "hist.iops");
	expect_refused("{\"iops\":{\"unit\":\"ns\",\"buckets\":"
		       "[[1,9223372036854775807],[2,9223372036854775807]]}}",
		       "hist.iops");
}

static void test_parse_message(void **state)
{
	struct lathist lh;
	char err[160];
	const char *t = "{\"unit\":\"ns\",\"buckets\":[[5,1],[4,1]]}";

	(void)state;
	lathist_init(&lh);
	assert_int_equal(lathist_parse(&lh, t, strlen(t), err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "buckets[1]"));
	assert_int_equal(lh.n, 0);
	assert_int_equal(lathist_parse(&lh, "{", 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not JSON"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_parse_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
