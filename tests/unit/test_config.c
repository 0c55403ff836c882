// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/config.c: the key = value rules shared by klabd's
 * configuration and the scripts' records ('#' only at the start of a
 * line, values keep '#'), the one loop over the lines (config_reader,
 * which the suite files read through too), and the strict check against
 * klabd's schema (unknown keys and sections named with file and line).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "klabd/klabd.h"
#include "lib/config.h"

static int parse_check(const char *text, char *err, size_t errlen,
		       struct config *c)
{
	config_init(c);
	if (config_parse(c, "test.conf", text, strlen(text), err, errlen))
		return -1;
	return config_check(c, klabd_config_schema, err, errlen);
}

static void test_hash_in_value(void **state)
{
	const char *text =
		"# a comment\n"
		"   # an indented comment\n"
		"listen = 127.0.0.1:0\n"
		"[rig box1]\n"
		"kind = remote\n"
		"token = abc#def\n"
		"power_cycle = pdu --outlet 3 # not a comment\n"
		"console=  conserver box1  \n";
	struct config c;
	char err[256] = "";

	assert_int_equal(parse_check(text, err, sizeof(err), &c), 0);
	assert_string_equal(config_get(&c, "rig box1", "token"), "abc#def");
	assert_string_equal(config_get(&c, "rig box1", "power_cycle"),
			    "pdu --outlet 3 # not a comment");
	assert_string_equal(config_get(&c, "rig box1", "console"),
			    "conserver box1");
	assert_string_equal(config_get(&c, "", "listen"), "127.0.0.1:0");
	config_release(&c);
}

static void expect_error(const char *text, const char *msg)
{
	struct config c;
	char err[256] = "";

	assert_int_equal(parse_check(text, err, sizeof(err), &c), -1);
	if (strcmp(err, msg))
		fail_msg("expected '%s', got '%s'", msg, err);
	config_release(&c);
}

static void test_strict(void **state)
{
	expect_error("listen = 127.0.0.1:0\nlisen = x\n",
		     "test.conf:2: unknown key 'lisen'");
	expect_error("[rig a]\nkind = qemu\n\nboot_timout = 5\n",
		     "test.conf:4: unknown key 'boot_timout' in section "
		     "'[rig a]'");
	/* a key of another section kind */
	expect_error("[rig a]\nlisten = x\n",
		     "test.conf:2: unknown key 'listen' in section '[rig a]'");
	expect_error("db = x\n[rgi a]\n", "test.conf:2: unknown section "
		     "'[rgi a]'");
	expect_error("[rig]\n", "test.conf:1: unknown section '[rig]'");
	expect_error("[]\n", "test.conf:1: unknown section '[]'");
	expect_error("db = x\n[rig a\n", "test.conf:2: unterminated section "
		     "'[rig a'");
	expect_error("db = x\n= y\n", "test.conf:2: expected 'key = value'");
	expect_error("db = x\njust words\n",
		     "test.conf:2: expected 'key = value'");
}

static void test_every_rig_key(void **state)
{
	const char *text =
		"[rig a]\nkind = qemu\nprofile = scsi\ncpus = 1\n"
		"memory_mb = 512\ndisk_mb = 64\nboot_timeout = 60\n"
		"job_timeout = 600\ntoken = t\nbase_kernel = 6.1.192\n"
		"autostart = no\npower_cycle = true\npower_timeout = 5\n"
		"console = cat\n";
	struct config c;
	char err[256] = "";

	assert_int_equal(parse_check(text, err, sizeof(err), &c), 0);
	assert_int_equal(c.nsec, 1);
	assert_int_equal(c.sec[0].line, 1);
	config_release(&c);
}

static void test_nul(void **state)
{
	struct config c;
	char err[256] = "";
	const char text[] = "db = a\nlisten = b\0c\n";

	config_init(&c);
	assert_int_equal(config_parse(&c, "n.conf", text, sizeof(text) - 1,
				      err, sizeof(err)), -1);
	assert_string_equal(err, "n.conf:2: NUL byte in line");
	config_release(&c);
}

static void test_record(void **state)
{
	const char *rec = "version=6.1.0-9-amd64\n"
		"log = /tmp/a#b.log \n"
		"# key=comment\n"
		"not a pair\n"
		"[section-looking]\n"
		"version=second\n"
		"empty=\n";
	char *v;

	v = config_record_get(rec, "version");
	assert_string_equal(v, "second");	/* the last one wins */
	free(v);
	v = config_record_get(rec, "log");
	assert_string_equal(v, "/tmp/a#b.log");
	free(v);
	v = config_record_get(rec, "# key");
	assert_string_equal(v, "");
	free(v);
	v = config_record_get(rec, "missing");
	assert_string_equal(v, "");
	free(v);
	v = config_record_get(rec, "empty");
	assert_string_equal(v, "");
	free(v);
	v = config_record_get("a=1", "a");	/* no final newline */
	assert_string_equal(v, "1");
	free(v);
}

/* The one loop over the lines (config_parse, config_record_get and the
 * suite files read through it). */
static void test_reader(void **state)
{
	static const char text[] = "a = 1\r\n\n  # c\n[s x]\nbad\nk=v\0w\n"
				   "last=2";
	static const struct {
		enum config_line_kind kind;
		const char *key, *value, *line;
	} want[] = {
		{ CONFIG_PAIR, "a", "1", "a = 1\r" },
		{ CONFIG_BLANK, NULL, NULL, "" },
		{ CONFIG_BLANK, NULL, NULL, "  # c" },
		{ CONFIG_SECTION, "s x", NULL, "[s x]" },
		{ CONFIG_BAD, NULL, NULL, "bad" },
		{ CONFIG_NUL, NULL, NULL, "k=v" },	/* p holds the rest */
		{ CONFIG_PAIR, "last", "2", "last=2" },
	};
	struct config_reader r;
	enum config_line_kind kind;
	char *key, *value;
	size_t i;

	config_reader_init(&r, text, sizeof(text) - 1);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(config_reader_next(&r, &kind, &key, &value),
				 1);
		assert_int_equal(r.line, (int)i + 1);
		assert_int_equal(kind, want[i].kind);
		assert_memory_equal(r.p, want[i].line, strlen(want[i].line));
		if (kind == CONFIG_NUL)
			assert_int_equal(r.n, 5);
		else
			assert_int_equal(r.n, strlen(want[i].line));
		if (want[i].key)
			assert_string_equal(key, want[i].key);
		else
			assert_null(key);
		if (want[i].value)
			assert_string_equal(value, want[i].value);
		else
			assert_null(value);
		free(key);
		free(value);
	}
	assert_int_equal(config_reader_next(&r, &kind, &key, &value), 0);
	assert_null(key);
	config_reader_init(&r, "", 0);
	assert_int_equal(config_reader_next(&r, &kind, &key, &value), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_in_value),
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_every_rig_key),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
