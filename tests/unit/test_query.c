// SPDX-License-Identifier: MIT
/* Unit tests for lib/query.c: decoding, repeats, splitting, permalinks. */
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
	const char *s = "k=6.1.176&k=6.1.192%2Belv&rig=scsi&x&format=text+x&=v&bad=%zz%4";
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_split_and_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
