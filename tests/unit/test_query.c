// SPDX-License-Identifier: MIT
/* Unit tests for lib/query.c: decoding, repeats, splitting, permalinks,
 * and which sign-in next= paths stay on the site. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/query.h"
#include "lib/strbuf.h"

static void test_parse(void **state)
{
	struct query q;
	const char *s = "k=6.1.176&k=6.1.192%2Belv&rig=scsi&x&format=text+x"
			"&=v&bad=%zz%4";
	const char **v;
	size_t n;

	query_init(&q);
	query_parse(&q, s, strlen(s));
	assert_string_equal(query_get(&q, "rig"), "scsi");
	assert_string_equal(query_get(&q, "x"), "");
	assert_string_equal(query_get(&q, "format"), "text x");
	assert_string_equal(query_get(&q, "bad"), "%zz%4");
	assert_null(query_get(&q, "nope"));
	n = query_all(&q, "k", 0, &v);
	assert_int_equal(n, 2);
	assert_string_equal(v[1], "6.1.192+elv");
	free(v);
	query_release(&q);
}

static void test_split_and_format(void **state)
{
	struct query q;
	struct strbuf sb = STRBUF_INIT;
	const char **v;
	size_t n;

	query_init(&q);
	query_parse(&q, "k=a,b&k=c", 9);
	n = query_all(&q, "k", 1, &v);
	assert_int_equal(n, 3);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[2], "c");
	free(v);
	sb_init(&sb);
	query_format(&q, &sb);
	assert_string_equal(sb.buf, "k=a%2Cb&k=c");
	sb_release(&sb);
	query_release(&q);
}

/* query_local_path: a path on this site, and the ways off it a browser
 * would take (issue 29: next=/%09/evil.example after sign-in). */
static void test_local_path(void **state)
{
	static const char *const good[] = {
		"/", "/rigs", "/compare?k=6.1.1&k=6.1.2", "/a/b//c",
		"/history?metric=a%2Fb", "/a\\b", "/%41",
	};
	static const char *const bad[] = {
		"", "rigs", "//evil.example", "/\\evil.example",
		"/\t/evil.example", "/%09/evil.example", "/%2F/evil.example",
		"/%2f%2fevil", "/%5Cevil", "/%5cevil", "https://evil.example/",
		"http:evil", " /x", "/x y", "/x\r\nSet-Cookie: a=b", "/\x01",
		"/x\x7f", "/\xc3\xa9", "/%0d%0aX: 1", "/%20", "/x%09", "/x%20y",
		"%2F%2Fevil", "\\\\evil", "/x\ty",
	};
	size_t i;

	assert_int_equal(query_local_path(NULL), 0);
	for (i = 0; i < sizeof(good) / sizeof(*good); i++)
		if (!query_local_path(good[i]))
			fail_msg("'%s' refused", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (query_local_path(bad[i]))
			fail_msg("'%s' accepted", bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_split_and_format),
		cmocka_unit_test(test_local_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
