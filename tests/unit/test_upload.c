// SPDX-License-Identifier: MIT
/*
 * Unit tests for an agent's upload read once (lib/upload.c): the results,
 * the repetitions, the raw outputs and the text kept as "results.json"
 * (the upload without "raw", compact; the body itself when it has none)
 * all come from one parse, and each fault is answered with the message
 * the API always gave, in the API's order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "lib/upload.h"

#define DOC(extra) "{\"schema\":\"klab-results/1\",\"results\":[" \
	"{\"metric\":\"a.b\",\"unit\":\"ms\",\"value\":1.5," \
	"\"direction\":\"lower\"}]" extra "}"
#define REP "{\"schema\":\"klab-results/1\",\"results\":[]," \
	"\"incomplete\":true}"

static enum upload_fault parse(struct upload *u, const char *body,
			       char *err, size_t errlen)
{
	err[0] = '\0';
	return upload_parse(u, body, strlen(body), 7, "6.1.1", err, errlen);
}

static void test_whole(void **state)
{
	const char *body = DOC(",\"raw\":{\"klab-run.log\":\"log\\n\","
			       "\"raw/run-1.json\":\"{}\"},\"repetitions\":["
			       REP "," REP "],\"suite_sha256\":\"ab\"");
	const struct upload_raw *r;
	struct upload u;
	char err[600];

	(void)state;
	assert_int_equal(parse(&u, body, err, sizeof(err)), UPLOAD_OK);
	assert_int_equal(u.rs.n, 1);
	assert_string_equal(u.rs.v[0].kernel, "6.1.1");
	assert_string_equal(u.rs.v[0].metric, "a.b");
	assert_int_equal(u.nreps, 2);
	assert_true(u.reps[1].incomplete);
	assert_int_equal(u.nraw, 2);
	assert_string_equal(u.raw[0].name, "klab-run.log");
	r = upload_raw_find(&u, "raw/run-1.json");
	assert_non_null(r);
	assert_int_equal(r->len, 2);
	assert_memory_equal(r->text, "{}", 2);
	assert_null(upload_raw_find(&u, "nope"));
	/* results.json: the upload without its raw outputs */
	assert_int_equal(u.stored_len, strlen(u.stored));
	assert_string_equal(u.stored, DOC(",\"repetitions\":[" REP "," REP
					  "],\"suite_sha256\":\"ab\""));
	upload_release(&u);
	upload_release(NULL);

	/* without "raw": the body, byte for byte */
	body = DOC(" ,  \"machine\" : {}\n");
	assert_int_equal(parse(&u, body, err, sizeof(err)), UPLOAD_OK);
	assert_ptr_equal(u.stored, body);
	assert_int_equal(u.stored_len, strlen(body));
	assert_int_equal(u.nreps, 0);
	upload_release(&u);
}

/* The fault of body is want, and msg says it (a msg ending in '*' is
 * what err starts with: jansson words its own faults). */
static void expect_fault(const char *body, enum upload_fault want,
			 const char *msg)
{
	size_t n = strlen(msg);
	struct upload u;
	char err[600];

	assert_int_equal(parse(&u, body, err, sizeof(err)), want);
	if (n && msg[n - 1] == '*' ? strncmp(err, msg, n - 1) :
	    strcmp(err, msg))
		fail_msg("'%s': got '%s', expected '%s'", body, err, msg);
	upload_release(&u);
}

static void test_faults(void **state)
{
	(void)state;
	expect_fault("{", UPLOAD_INVALID, "job 7 results: line 1: invalid "
		     "JSON: *");
	expect_fault("[1]", UPLOAD_INVALID, "job 7 results: line 1: JSON "
		     "document is not an object");
	expect_fault(DOC(",\"raw\":[]"), UPLOAD_INVALID,
		     "field 'raw': expected an object");
	expect_fault(DOC(",\"raw\":{\"/x\":\"\"}"), UPLOAD_INVALID,
		     "field 'raw': raw output name '/x' must start with a "
		     "letter or digit, not this character at byte 1");
	expect_fault(DOC(",\"raw\":{\"x\":1}"), UPLOAD_INVALID,
		     "field 'raw.x': expected a string");
	expect_fault(DOC(",\"repetitions\":{}"), UPLOAD_INVALID,
		     "field 'repetitions': expected an array of at most 1000 "
		     "documents");
	expect_fault(DOC(",\"repetitions\":[" REP ",[]]"), UPLOAD_INVALID,
		     "field 'repetitions[1]': line 1: JSON document is not "
		     "an object");
	expect_fault(DOC(",\"repetitions\":[{}]"), UPLOAD_INVALID,
		     "field 'repetitions[0]': field 'schema': missing");
	/* the raw outputs are checked first, then the repetitions */
	expect_fault("{\"raw\":{\"x\":1},\"repetitions\":[1]}",
		     UPLOAD_INVALID, "field 'raw.x': expected a string");
	expect_fault("{\"repetitions\":[{}]}", UPLOAD_INVALID,
		     "field 'repetitions[0]': field 'schema': missing");
	expect_fault("{\"schema\":\"klab-results/1\",\"results\":[],"
		     "\"kernel\":\"other\"}", UPLOAD_OK, "");
	expect_fault("{\"schema\":\"klab-results/1\",\"results\":[{"
		     "\"metric\":\"a.b\",\"unit\":\"\",\"value\":1,"
		     "\"direction\":\"none\"}],\"kernel\":\"other\"}",
		     UPLOAD_FOREIGN, "results for kernel 'other', job 7 is "
		     "for '6.1.1'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
