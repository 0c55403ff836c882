// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/utf8.c, the one rule that makes text valid UTF-8:
 * what is well-formed (the boundaries of each length, overlongs,
 * surrogates, past U+10FFFF, sequences cut short, stray continuation
 * bytes), the repair (U+FFFD per bad byte and per NUL, idempotent), and
 * that each place text leaves klab by gives what the rule gives: the
 * database's bind and read, result_set_to_json, page_jstr and the alert
 * webhook's body (the agent's raw outputs: test_agent).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_int.h"
#include "flow/alerts_int.h"
#include "lib/alloc.h"
#include "lib/results.h"
#include "lib/strbuf.h"
#include "lib/utf8.h"
#include "web/page.h"

#define R UTF8_REPLACEMENT

/* A string with its length, NULs included. */
struct bytes {
	const char *s;
	size_t len;
};

#define B(lit) { lit, sizeof(lit) - 1 }

static void test_valid(void **state)
{
	static const struct bytes ok[] = {
		B(""), B("plain"), B("\x7f"),
		B("\xc2\x80"), B("\xdf\xbf"),		/* U+0080, U+07FF */
		B("\xe0\xa0\x80"), B("\xef\xbf\xbf"),	/* U+0800, U+FFFF */
		B("\xed\x9f\xbf"), B("\xee\x80\x80"),	/* around D800 */
		B("\xf0\x90\x80\x80"),			/* U+10000 */
		B("\xf4\x8f\xbf\xbf"),			/* U+10FFFF */
		B("\xc2\xb5s \xe2\x80\xae \xf0\x9f\x98\x80"),
		B("a\0b"),		/* U+0000 is well-formed */
	};
	size_t i;

	for (i = 0; i < ALLOC_ARRAY_SIZE(ok); i++)
		if (!utf8_valid(ok[i].s, ok[i].len))
			fail_msg("case %zu refused", i);
}

static void test_invalid(void **state)
{
	static const struct {
		struct bytes b;
		size_t at;	/* utf8_check's answer */
	} bad[] = {
		{ B("\xc0\xaf"), 0 },			/* overlong '/' */
		{ B("\xc1\xbf"), 0 },			/* overlong DEL */
		{ B("\xe0\x80\xaf"), 0 },		/* overlong, 3 bytes */
		{ B("\xe0\x9f\xbf"), 0 },		/* overlong U+07FF */
		{ B("\xf0\x80\x80\xaf"), 0 },		/* overlong, 4 bytes */
		{ B("\xf0\x8f\xbf\xbf"), 0 },		/* overlong U+FFFF */
		{ B("ok\xed\xa0\x80"), 2 },		/* surrogate D800 */
		{ B("\xed\xbf\xbf"), 0 },		/* surrogate DFFF */
		{ B("\xf4\x90\x80\x80"), 0 },		/* U+110000 */
		{ B("\xf5\x80\x80\x80"), 0 },
		{ B("\xf8\x88\x80\x80\x80"), 0 },	/* 5-byte form */
		{ B("\xfe"), 0 }, { B("\xff"), 0 },
		{ B("ab\xe2\x82"), 2 },			/* cut at the end */
		{ B("\xe2\x82" "A"), 0 },		/* cut in the middle */
		{ B("\xf0\x9f\x98"), 0 },
		{ B("x\xc3"), 1 },
		{ B("\x80"), 0 }, { B("\xc3\xa9\xbf"), 2 },	/* stray */
	};
	size_t i;

	for (i = 0; i < ALLOC_ARRAY_SIZE(bad); i++) {
		if (utf8_valid(bad[i].b.s, bad[i].b.len))
			fail_msg("case %zu accepted", i);
		if (utf8_check(bad[i].b.s, bad[i].b.len) != bad[i].at)
			fail_msg("case %zu: bad at %zu, not %zu", i,
				 utf8_check(bad[i].b.s, bad[i].b.len),
				 bad[i].at);
	}
}

static void expect_repair(const char *s, size_t len, const char *want)
{
	char *r = utf8_repair(s, len), *again;

	assert_string_equal(r, want);
	assert_true(utf8_valid(r, strlen(r)));
	again = utf8_repair(r, strlen(r));
	assert_string_equal(again, r);		/* idempotent */
	free(again);
	free(r);
}

#define EXPECT_REPAIR(lit, want) expect_repair(lit, sizeof(lit) - 1, want)

static void test_repair(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	EXPECT_REPAIR("", "");
	EXPECT_REPAIR("Gr\xc3\xbc\xc3\x9f", "Gr\xc3\xbc\xc3\x9f");
	EXPECT_REPAIR("a\xff\xfe" "b", "a" R R "b");
	EXPECT_REPAIR("\xc0\xaf", R R);			/* overlong */
	EXPECT_REPAIR("\xe0\x80\xaf", R R R);
	EXPECT_REPAIR("\xed\xa0\x80", R R R);		/* surrogate */
	EXPECT_REPAIR("\xf4\x90\x80\x80", R R R R);	/* > U+10FFFF */
	EXPECT_REPAIR("ab\xe2\x82", "ab" R R);		/* cut at the end */
	EXPECT_REPAIR("\xe2\x82\xac\xe2\x82" "A", "\xe2\x82\xac" R R "A");
	EXPECT_REPAIR("a\0b\0", "a" R "b" R);		/* NUL */
	EXPECT_REPAIR("\xc3\xa9?\x80", "\xc3\xa9?" R);	/* '?' stays '?' */
	/* utf8_repair_add appends */
	sb_init(&sb);
	sb_adds(&sb, "x:");
	utf8_repair_add(&sb, "\xff" "y", 2);
	assert_string_equal(sb.buf, "x:" R "y");
	assert_int_equal(sb.len, 6);
	sb_release(&sb);
}

static void test_json(void **state)
{
	json_t *j;
	char *d;

	j = utf8_json_string(NULL);
	assert_true(json_is_null(j));
	json_decref(j);
	j = utf8_json_string("Gr\xc3\xbc\xc3\x9f \xff");
	assert_string_equal(json_string_value(j), "Gr\xc3\xbc\xc3\x9f " R);
	json_decref(j);
	/* a NUL is replaced, not kept as \u0000 nor cut at */
	j = utf8_json_stringn("a\0b", 3);
	assert_int_equal(json_string_length(j), 5);
	d = json_dumps(j, JSON_ENCODE_ANY | JSON_ENSURE_ASCII);
	assert_string_equal(d, "\"a\\uFFFDb\"");
	free(d);
	json_decref(j);
	j = utf8_json_stringn("ok", 2);
	assert_string_equal(json_string_value(j), "ok");
	json_decref(j);
}

/* Each place text leaves by gives what the rule gives. */
static const char hostile[] = "Gr\xc3\xbc\xc3\x9f \xff\xfe\xc3(x)\x80 "
			      "\xed\xa0\x80 \xc0\xaf \xf4\x90\x80\x80 end";

static char *rule(void)
{
	return utf8_repair(hostile, sizeof(hostile) - 1);
}

static void test_db(void **state)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char *want = rule(), *got;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT ?1, ?2", -1, &st,
					    NULL), SQLITE_OK);
	/* on the way in */
	assert_int_equal(db_bind_str(st, 1, hostile), SQLITE_OK);
	/* and a row stored before that, read back */
	assert_int_equal(sqlite3_bind_text(st, 2, hostile, -1,
					   SQLITE_STATIC), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), want);
	got = db_col_str(st, 1);
	assert_string_equal(got, want);
	free(got);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(want);
}

static void test_results_json(void **state)
{
	struct result_set rs;
	char *want = rule();
	json_t *doc;

	result_set_init(&rs);
	result_set_setstr(&rs.rig, hostile);
	doc = result_set_to_json(&rs);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "rig")),
			    want);
	json_decref(doc);
	result_set_release(&rs);
	free(want);
}

static void test_page_jstr(void **state)
{
	char *want = rule();
	json_t *j = page_jstr(hostile);

	assert_string_equal(json_string_value(j), want);
	json_decref(j);
	j = page_jstr(NULL);
	assert_true(json_is_null(j));
	json_decref(j);
	free(want);
}

static void test_webhook(void **state)
{
	struct alerts_conf c = { .public_url = "http://lab.example" };
	struct db_alert_sub s = { .id = 3 };
	struct db_alert_event e = {
		.id = 7, .kind = "regression", .rig = "r1", .suite = "s",
		.metric = "m", .submitter = "alice", .title = (char *)hostile,
		.text = "body \xff", .link = "/compare/1", .created = 1,
	};
	char *want = rule(), *body = alerts_webhook_body(&c, &s, &e, 9);
	json_t *doc = json_loads(body, 0, NULL);

	assert_non_null(doc);
	/* every field sent, the bad bytes repaired */
	assert_string_equal(json_string_value(json_object_get(doc, "title")),
			    want);
	assert_string_equal(json_string_value(json_object_get(doc, "text")),
			    "body " R);
	assert_string_equal(json_string_value(json_object_get(doc, "rig")),
			    "r1");
	assert_int_equal(json_integer_value(json_object_get(doc,
							    "delivery")), 9);
	json_decref(doc);
	free(body);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_repair),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_db),
		cmocka_unit_test(test_results_json),
		cmocka_unit_test(test_page_jstr),
		cmocka_unit_test(test_webhook),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
