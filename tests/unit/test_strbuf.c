// SPDX-License-Identifier: MIT
/* Unit tests for lib/strbuf.c: growth, formatting and escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"

static void test_grow_and_format(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	sb_init(&sb);
	assert_string_equal(sb.buf, "");
	for (i = 0; i < 1000; i++)
		sb_addf(&sb, "%d,", i);
	assert_int_equal(strlen(sb.buf), sb.len);
	assert_memory_equal(sb.buf, "0,1,2,", 6);
	sb_release(&sb);
	assert_int_equal(sb.len, 0);
}

static void test_escape(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	sb_init(&sb);
	sb_add_html(&sb, "<a href=\"x\">'&'</a>");
	assert_string_equal(sb.buf,
		"&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
	sb_reset(&sb);
	sb_add_csv(&sb, "a,\"b\"");
	assert_string_equal(sb.buf, "\"a,\"\"b\"\"\"");
	sb_reset(&sb);
	sb_add_urlenc(&sb, "6.1.192+elv lowlat");
	assert_string_equal(sb.buf, "6.1.192%2Belv%20lowlat");
	sb_release(&sb);
}

static void test_detach(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len;
	char *p;

	sb_init(&sb);
	p = sb_detach(&sb, &len);
	assert_string_equal(p, "");
	assert_int_equal(len, 0);
	free(p);
	sb_adds(&sb, "abc");
	p = sb_detach(&sb, &len);
	assert_string_equal(p, "abc");
	free(p);
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_and_format),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_detach),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
