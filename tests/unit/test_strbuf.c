// SPDX-License-Identifier: MIT
/* Unit tests for lib/strbuf.c: growth, formatting, escaping and files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* sb_write_file: the whole file read back; into a missing directory,
 * -1 with errno and no temporary file left. */
static void test_write_file(void **state)
{
	char dir[] = "/tmp/klab-test-strbuf.XXXXXX", path[64], bad[80];
	struct strbuf sb = STRBUF_INIT, got = STRBUF_INIT;
	int i;

	assert_non_null(mkdtemp(dir));
	sb_init(&sb);
	sb_init(&got);
	for (i = 0; i < 100000; i++)
		sb_addf(&sb, "%d\n", i);
	snprintf(path, sizeof(path), "%s/f", dir);
	assert_int_equal(sb_write_file(&sb, path), 0);
	assert_int_equal(sb_read_file(&got, path), 0);
	assert_int_equal(got.len, sb.len);
	assert_memory_equal(got.buf, sb.buf, sb.len);
	snprintf(bad, sizeof(bad), "%s/no/f", dir);
	errno = 0;
	assert_int_equal(sb_write_file(&sb, bad), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);	/* nothing else left in it */
	sb_release(&sb);
	sb_release(&got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_and_format),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_detach),
		cmocka_unit_test(test_write_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
