// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/results.c: the result_set container, metric
 * directions, error formatting and the "klab-results/1" JSON round trip,
 * including every way a document can be wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/results.h"

static void test_add_and_release(void **state)
{
	struct result_set rs;
	struct result *r;

	result_set_init(&rs);
	result_set_setstr(&rs.kernel, "6.1.176");
	r = result_set_add(&rs, NULL, "dbench.throughput", "MB/s", 412.5,
			   DIR_HIGHER);
	assert_non_null(r);
	assert_string_equal(r->kernel, "6.1.176");
	r = result_set_add(&rs, "6.1.192", "readlat.lat_max", NULL, 4420.3,
			   DIR_LOWER);
	assert_string_equal(r->kernel, "6.1.192");
	assert_string_equal(r->unit, "");
	assert_null(result_set_add(&rs, NULL, "x.nan", "", NAN, DIR_NONE));
	assert_null(result_set_add(&rs, NULL, "x.inf", "", INFINITY,
				   DIR_NONE));
	assert_null(result_set_add(&rs, NULL, NULL, "", 1, DIR_NONE));
	assert_int_equal(rs.n, 2);
	result_set_setstr(&rs.kernel, NULL);
	assert_null(rs.kernel);
	result_set_release(&rs);
	assert_int_equal(rs.n, 0);
	assert_null(rs.v);
	result_set_release(&rs);	/* twice is fine */
	result_set_release(NULL);
}

static void test_many(void **state)
{
	struct result_set rs;
	char name[32];
	int i;

	result_set_init(&rs);
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "iops.m%d", i);
		assert_non_null(result_set_add(&rs, "k", name, "IOPS", i,
					       DIR_HIGHER));
	}
	assert_int_equal(rs.n, 5000);
	assert_string_equal(rs.v[4999].metric, "iops.m4999");
	assert_true(rs.v[4999].value == 4999);
	result_set_release(&rs);
}

static void test_dir(void **state)
{
	enum metric_dir d = DIR_NONE;

	assert_string_equal(metric_dir_name(DIR_HIGHER), "higher");
	assert_string_equal(metric_dir_name(DIR_LOWER), "lower");
	assert_string_equal(metric_dir_name(DIR_NONE), "none");
	assert_int_equal(metric_dir_parse("lower", &d), 0);
	assert_int_equal(d, DIR_LOWER);
	assert_int_equal(metric_dir_parse("higher", &d), 0);
	assert_int_equal(d, DIR_HIGHER);
	assert_int_equal(metric_dir_parse("none", &d), 0);
	assert_int_equal(d, DIR_NONE);
	assert_int_equal(metric_dir_parse("Higher", &d), -1);
	assert_int_equal(metric_dir_parse(NULL, &d), -1);
}

static void test_error_format(void **state)
{
	struct import_error err;
	char buf[400];

	assert_int_equal(import_fail(&err, 12, "Rate", "not a number '%s'",
				     "x1"), -1);
	import_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "line 12: field 'Rate': not a number 'x1'");
	import_fail(&err, 0, "results[3].value", "not a finite number");
	import_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "field 'results[3].value': not a finite "
			    "number");
	import_fail(&err, 4, "", "no %s results found", "dbench");
	import_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "line 4: no dbench results found");
	import_error_format(&err, buf, 8);
	assert_string_equal(buf, "line 4:");
	assert_int_equal(import_fail(NULL, 1, "x", "y"), -1);
}

static void fill(struct result_set *rs)
{
	result_set_init(rs);
	result_set_setstr(&rs->kernel, "6.1.192+elv-lowlat");
	result_set_setstr(&rs->rig, "scsi");
	result_set_setstr(&rs->suite, "tiobench-quick");
	result_set_setstr(&rs->format, "tiobench");
	result_set_setstr(&rs->error, "disk full on /dev/sdb");
	rs->incomplete = 1;
	result_set_add(rs, NULL, "tiobench.seq_read.rate", "MB/s", 41.2,
		       DIR_HIGHER);
	result_set_add(rs, "6.1.176", "tiobench.seq_read.cpu", "%", 12.31,
		       DIR_LOWER);
	result_set_add(rs, NULL, "tiobench.seq_read.threads", "", 8,
		       DIR_NONE);
}

static void test_round_trip(void **state)
{
	struct result_set a, b;
	struct import_error err;
	json_t *doc, *back;
	char *text;
	size_t i;

	fill(&a);
	doc = result_set_to_json(&a);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")),
			    "klab-results/1");
	text = json_dumps(doc, JSON_COMPACT);
	back = json_loads(text, 0, NULL);
	result_set_init(&b);
	assert_int_equal(result_set_from_json(&b, back, &err), 0);
	assert_string_equal(b.kernel, a.kernel);
	assert_string_equal(b.rig, "scsi");
	assert_string_equal(b.suite, "tiobench-quick");
	assert_string_equal(b.format, "tiobench");
	assert_string_equal(b.error, "disk full on /dev/sdb");
	assert_int_equal(b.incomplete, 1);
	assert_int_equal(b.n, a.n);
	for (i = 0; i < a.n; i++) {
		assert_string_equal(b.v[i].kernel, a.v[i].kernel);
		assert_string_equal(b.v[i].metric, a.v[i].metric);
		assert_string_equal(b.v[i].unit, a.v[i].unit);
		assert_true(b.v[i].value == a.v[i].value);
		assert_int_equal(b.v[i].dir, a.v[i].dir);
	}
	/* from_json replaces what was there */
	assert_int_equal(result_set_from_json(&b, back, &err), 0);
	assert_int_equal(b.n, a.n);
	free(text);
	json_decref(back);
	json_decref(doc);
	result_set_release(&a);
	result_set_release(&b);
}

static void test_to_json_nulls(void **state)
{
	struct result_set rs;
	json_t *doc;

	result_set_init(&rs);
	result_set_setstr(&rs.rig, "bad\xff\xfe rig");
	doc = result_set_to_json(&rs);
	assert_non_null(doc);
	assert_true(json_is_null(json_object_get(doc, "kernel")));
	assert_true(json_is_null(json_object_get(doc, "error")));
	assert_true(json_is_false(json_object_get(doc, "incomplete")));
	/* bytes that are not UTF-8: U+FFFD each (lib/utf8.h) */
	assert_string_equal(json_string_value(json_object_get(doc, "rig")),
			    "bad\xef\xbf\xbd\xef\xbf\xbd rig");
	assert_int_equal(json_array_size(json_object_get(doc, "results")), 0);
	json_decref(doc);
	result_set_release(&rs);
}

/* Parse text; expect failure naming field. */
static void expect_bad(const char *text, const char *field)
{
	struct result_set rs;
	struct import_error err;
	json_t *doc = json_loads(text, 0, NULL);

	assert_non_null(doc);
	result_set_init(&rs);
	result_set_setstr(&rs.kernel, "left-over");
	result_set_add(&rs, NULL, "a.b", "", 1, DIR_NONE);
	memset(&err, 0, sizeof(err));
	if (result_set_from_json(&rs, doc, &err) != -1)
		fail_msg("accepted: %s", text);
	if (strcmp(err.field, field))
		fail_msg("field '%s', expected '%s' (%s) for %s", err.field,
			 field, err.msg, text);
	assert_true(err.msg[0] != '\0');
	assert_int_equal(rs.n, 0);
	assert_null(rs.kernel);
	json_decref(doc);
}

#define HEAD "{\"schema\":\"klab-results/1\",\"kernel\":\"6.1.176\","
#define R(x) "{\"metric\":\"a.b\",\"unit\":\"ms\",\"value\":1," \
	"\"direction\":\"lower\"" x "}"

static void test_bad_documents(void **state)
{
	expect_bad("[]", "");
	expect_bad("{\"results\":[]}", "schema");
	expect_bad("{\"schema\":\"klab-results/2\",\"results\":[]}", "schema");
	expect_bad("{\"schema\":1,\"results\":[]}", "schema");
	expect_bad(HEAD "\"rig\":3,\"results\":[]}", "rig");
	expect_bad(HEAD "\"suite\":\"a\\nb\",\"results\":[]}", "suite");
	expect_bad(HEAD "\"incomplete\":\"yes\",\"results\":[]}",
		   "incomplete");
	expect_bad(HEAD "\"error\":[],\"results\":[]}", "error");
	expect_bad("{\"schema\":\"klab-results/1\",\"kernel\":\"bad id\","
		   "\"results\":[]}", "kernel");
	expect_bad(HEAD "\"results\":{}}", "results");
	expect_bad(HEAD "\"x\":1}", "results");
	expect_bad(HEAD "\"results\":[" R("") "," R("") "," R("") ","
		   "{\"metric\":\"a.c\",\"unit\":\"ms\",\"value\":\"1\","
		   "\"direction\":\"lower\"}]}", "results[3].value");
	expect_bad(HEAD "\"results\":[{\"metric\":\"a.b\",\"value\":1,"
		   "\"direction\":\"lower\"}]}", "results[0].unit");
	expect_bad(HEAD "\"results\":[{\"unit\":\"\",\"value\":1,"
		   "\"direction\":\"lower\"}]}", "results[0].metric");
	expect_bad(HEAD "\"results\":[" R("") ",{\"metric\":\"a b\","
		   "\"unit\":\"\",\"value\":1,\"direction\":\"lower\"}]}",
		   "results[1].metric");
	expect_bad(HEAD "\"results\":[{\"metric\":\"a.b\",\"unit\":\"\","
		   "\"value\":1,\"direction\":\"up\"}]}",
		   "results[0].direction");
	expect_bad(HEAD "\"results\":[{\"metric\":\"a.b\",\"unit\":\"\","
		   "\"value\":1}]}", "results[0].direction");
	expect_bad(HEAD "\"results\":[" R(",\"kernel\":7") "]}",
		   "results[0].kernel");
	expect_bad(HEAD "\"results\":[" R(",\"kernel\":\"-x\"") "]}",
		   "results[0].kernel");
	expect_bad("{\"schema\":\"klab-results/1\",\"results\":[" R("")
		   "]}", "results[0].kernel");
	expect_bad(HEAD "\"results\":[1]}", "results[0]");
	expect_bad(HEAD "\"results\":[" R("") ",{\"metric\":\"a.c\","
		   "\"unit\":\"ms\",\"value\":null,\"direction\":\"none\"}]}",
		   "results[1].value");
}

static void test_unknown_members_ignored(void **state)
{
	struct result_set rs;
	struct import_error err;
	json_t *doc = json_loads(HEAD "\"future\":{\"a\":[1,2]},\"results\":["
				 R(",\"stddev\":0.5,\"kernel\":null") "]}",
				 0, NULL);

	assert_non_null(doc);
	result_set_init(&rs);
	assert_int_equal(result_set_from_json(&rs, doc, &err), 0);
	assert_int_equal(rs.n, 1);
	assert_string_equal(rs.v[0].kernel, "6.1.176");
	assert_int_equal(rs.incomplete, 0);
	assert_null(rs.rig);
	json_decref(doc);
	result_set_release(&rs);
}

/* "steps": kept in order through a round trip, taken with a
 * repetition, summed; every way an element can be wrong is refused. */
static void test_steps(void **state)
{
	struct result_set rs, in, sum;
	struct import_error err;
	json_t *doc;

	(void)state;
	result_set_init(&rs);
	result_set_step_add(&rs, "warmup", 0, 1.5);
	result_set_step_add(&rs, "seq_read.drop_cache", 2, 0.25);
	result_set_step_add(&rs, "bg_stop", 0, -3);	/* counts as 0 */
	assert_int_equal(rs.nsteps, 3);
	assert_true(fabs(result_set_steps_secs(&rs) - 1.75) < 1e-9);
	doc = result_set_to_json(&rs);
	result_set_init(&in);
	memset(&err, 0, sizeof(err));
	assert_int_equal(result_set_from_json(&in, doc, &err), 0);
	assert_int_equal(in.nsteps, 3);
	assert_string_equal(in.steps[1].name, "seq_read.drop_cache");
	assert_int_equal(in.steps[1].rep, 2);
	assert_true(fabs(in.steps[0].secs - 1.5) < 1e-9);
	assert_true(in.steps[2].secs == 0);
	json_decref(doc);
	/* taken into a sum as repetition 3, but a step's own rep stays */
	result_set_init(&sum);
	result_set_steps_take(&sum, &in, 3);
	assert_int_equal(sum.steps[0].rep, 3);
	assert_int_equal(sum.steps[1].rep, 2);
	result_set_release(&sum);
	result_set_release(&in);
	result_set_release(&rs);
	/* without the member: none */
	doc = json_loads("{\"schema\":\"klab-results/1\",\"results\":[]}",
			 0, NULL);
	result_set_init(&in);
	assert_int_equal(result_set_from_json(&in, doc, &err), 0);
	assert_int_equal(in.nsteps, 0);
	json_decref(doc);
	doc = result_set_to_json(&in);
	assert_null(json_object_get(doc, "steps"));
	json_decref(doc);
	result_set_release(&in);
}

static void test_bad_steps(void **state)
{
	(void)state;
#define DOC(steps) "{\"schema\":\"klab-results/1\",\"results\":[]," \
	"\"steps\":" steps "}"
	expect_bad(DOC("{}"), "steps");
	expect_bad(DOC("[1]"), "steps[0]");
	expect_bad(DOC("[{\"secs\":1}]"), "steps[0].step");
	expect_bad(DOC("[{\"step\":\"a b\",\"secs\":1}]"), "steps[0].step");
	expect_bad(DOC("[{\"step\":\"a\",\"secs\":1},"
		       "{\"step\":\"b\",\"secs\":-1}]"), "steps[1].secs");
	expect_bad(DOC("[{\"step\":\"a\",\"secs\":\"1\"}]"),
		   "steps[0].secs");
	expect_bad(DOC("[{\"step\":\"a\",\"rep\":1001,\"secs\":1}]"),
		   "steps[0].rep");
	expect_bad(DOC("[{\"step\":\"a\",\"rep\":1.5,\"secs\":1}]"),
		   "steps[0].rep");
#undef DOC
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_release),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_dir),
		cmocka_unit_test(test_error_format),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_to_json_nulls),
		cmocka_unit_test(test_bad_documents),
		cmocka_unit_test(test_unknown_members_ignored),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_bad_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
