// SPDX-License-Identifier: MIT
/*
 * Unit tests feeding the importers what the network and mail clients do:
 * every truncation of real outputs, bytes that are not UTF-8, NUL bytes,
 * no-break spaces, very long lines, deep JSON, huge tables and random
 * token soup.  An import must either succeed or fail with a message, must
 * never read outside its buffer (ASan: all inputs are exact-size heap
 * copies) and must leave its output untouched when it fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/import.h"
#include "lib/strbuf.h"
#include "tests/unit/import_testlib.h"

static const char *const data_files[] = {
	"import-tiobench-mail.txt", "import-tiobench-oneline.txt",
	"import-tiobench-quoted-wrapped.txt", "import-tiobench-trimmed.txt",
	"import-dbench-4.00-2clients.txt", "import-dbench-old-mail.txt",
	"import-readlat-mail.txt", "import-fio-randread.json",
	"import-fio-jsonplus.json", "mixed-mail.txt",
	"mixed-mail-reflowed.txt",
};

#define NFILES (sizeof(data_files) / sizeof(data_files[0]))

/* Import buf[0..len) as f; check the all-or-nothing contract. */
static int check_one(enum import_format f, const char *buf, size_t len)
{
	struct result_set rs;
	struct import_error err;
	int n;

	result_set_init(&rs);
	result_set_add(&rs, "before", "x.y", "", 1, DIR_NONE);
	n = import_mem(f, buf, len, "6.1.170", &rs, &err);
	if (n < 0) {
		assert_int_equal(n, -1);
		assert_int_equal(rs.n, 1);
		assert_true(err.msg[0] != '\0');
		assert_true(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		assert_true(err.line >= 0);
	} else {
		assert_int_equal(rs.n, 1 + (size_t)n);
		assert_non_null(rs.format);
	}
	result_set_release(&rs);
	return n;
}

static int check_str(enum import_format f, const char *s)
{
	return check_one(f, s, strlen(s));
}

static void test_truncations(void **state)
{
	struct strbuf sb;
	size_t i, cut, step;
	int ok, full;

	for (i = 0; i < NFILES; i++) {
		load(&sb, data_files[i]);
		full = check_one(IMPORT_AUTO, sb.buf, sb.len);
		if (full <= 0)
			fail_msg("%s does not import", data_files[i]);
		step = sb.len > 4096 ? 61 : sb.len > 2048 ? 3 : 1;
		ok = 0;
		for (cut = 0; cut < sb.len; cut += step) {
			ok += check_one(IMPORT_AUTO, sb.buf, cut) >= 0;
			check_one(IMPORT_TIOBENCH, sb.buf, cut);
			check_one(IMPORT_DBENCH, sb.buf, cut);
			check_one(IMPORT_READLAT, sb.buf, cut);
			check_one(IMPORT_FIO, sb.buf, cut);
			check_one(IMPORT_KLAB, sb.buf, cut);
		}
		/* a cut mid-row fails: never a silently shorter table */
		assert_true(ok < (int)((sb.len + step - 1) / step));
		sb_release(&sb);
	}
}

static void replace_all(struct strbuf *sb, const char *from, const char *to)
{
	struct strbuf out;
	const char *p = sb->buf, *q;

	sb_init(&out);
	for (q = strstr(p, from); q; q = strstr(p, from)) {
		sb_add(&out, p, (size_t)(q - p));
		sb_adds(&out, to);
		p = q + strlen(from);
	}
	sb_adds(&out, p);
	sb_release(sb);
	*sb = out;
}

static void test_non_utf8_nul_nbsp(void **state)
{
	struct result_set rs;
	struct import_error err;
	struct strbuf sb;

	load(&sb, "import-tiobench-mail.txt");
	replace_all(&sb, "Hi Jens,", "Gr\xfc\xdf \xff\xfe\xc3(Jens)\x80,");
	replace_all(&sb, "   8   ", " \xc2\xa0 8 \xc2\xa0 ");
	replace_all(&sb, "     0.", "\t \r 0.");
	replace_all(&sb, "Thanks", "Thanks\x1b[0m");
	result_set_init(&rs);
	if (import_mem(IMPORT_AUTO, sb.buf, sb.len, NULL, &rs, &err) != 80)
		fail_msg("line %d field '%s': %s", err.line, err.field,
			 err.msg);
	expect_metric(&rs, "6.1.176", "tiobench.seq_read.threads", 8, "",
		      DIR_NONE);
	result_set_release(&rs);
	/* NUL bytes between the columns count as blanks */
	replace_all(&sb, "  ", " ");
	for (size_t i = 0; i < sb.len; i++)
		if (sb.buf[i] == ' ' && i % 3 == 0)
			sb.buf[i] = '\0';
	result_set_init(&rs);
	assert_int_equal(import_mem(IMPORT_TIOBENCH, sb.buf, sb.len, NULL,
				    &rs, &err), 80);
	result_set_release(&rs);
	sb_release(&sb);
	/* NUL inside JSON is refused, not truncated */
	assert_int_equal(check_one(IMPORT_FIO, "{\"jobs\":[]\0}", 12), -1);
	assert_int_equal(check_one(IMPORT_KLAB, "{\"schema\":\"klab-\0",
				   17), -1);
}

static void test_long_lines(void **state)
{
	struct strbuf sb, mail;
	struct result_set rs;
	struct import_error err;
	size_t i;

	load(&mail, "import-tiobench-mail.txt");
	sb_init(&sb);
	for (i = 0; i < (1u << 20); i++)
		sb_addc(&sb, (char)('A' + i % 26));
	sb_addc(&sb, '\n');
	sb_add(&sb, mail.buf, mail.len);
	result_set_init(&rs);
	assert_int_equal(import_mem(IMPORT_AUTO, sb.buf, sb.len, NULL, &rs,
				    &err), 80);
	result_set_release(&rs);
	/* one endless row: a clear error, not a hang */
	sb_reset(&sb);
	sb_adds(&sb, TIO_HEAD "k");
	for (i = 0; i < 200000; i++)
		sb_adds(&sb, " 1");
	check_one(IMPORT_TIOBENCH, sb.buf, sb.len);
	expect_error(IMPORT_TIOBENCH, sb.buf, NULL, 5, "CPU Eff",
		     "extra value '1'");
	/* endless op table and endless Throughput line */
	sb_reset(&sb);
	sb_adds(&sb, " Operation Count AvgLat MaxLat\n ----\n");
	for (i = 0; i < 50000; i++)
		sb_addf(&sb, " Op%zu 1 2 3\n", i);
	sb_adds(&sb, "Throughput 1 MB/sec");
	for (i = 0; i < 100000; i++)
		sb_adds(&sb, " 2 procs");
	assert_int_equal(check_one(IMPORT_DBENCH, sb.buf, sb.len), -1);
	sb_release(&sb);
	sb_release(&mail);
}

static void test_big_table(void **state)
{
	struct strbuf sb;
	size_t i;

	sb_init(&sb);
	sb_adds(&sb, TIO_HEAD);
	for (i = 0; i < 20000; i++)
		sb_addf(&sb, "k%zu 512 4096 8 41.20 12.31%% 0.741 1811.05 "
			"0.00000 0.00000 335\n", i);
	assert_int_equal(check_one(IMPORT_TIOBENCH, sb.buf, sb.len), 200000);
	sb_addf(&sb, "k7 512 4096 8 41.20 12.31%% 0.741 1811.05 0.00000 "
		"0.00000 335\n");
	expect_error(IMPORT_TIOBENCH, sb.buf, NULL, 20005, "Identifier",
		     "duplicate kernel 'k7'");
	sb_release(&sb);
}

static void test_deep_json(void **state)
{
	struct strbuf sb;
	size_t i;

	sb_init(&sb);
	sb_adds(&sb, "{\"jobs\":");
	for (i = 0; i < 100000; i++)
		sb_addc(&sb, '[');
	assert_int_equal(check_one(IMPORT_FIO, sb.buf, sb.len), -1);
	assert_int_equal(check_one(IMPORT_KLAB, sb.buf, sb.len), -1);
	sb_release(&sb);
	assert_int_equal(check_str(IMPORT_FIO, "{\"jobs\":[{\"jobname\":\"a\","
		"\"read\":{\"io_bytes\":1e999}}]}"), -1);
	assert_int_equal(check_str(IMPORT_FIO, "{\"jobs\":[{\"jobname\":"
		"\"a\\u0000b\",\"usr_cpu\":1,\"sys_cpu\":1}]}"), -1);
	assert_int_equal(check_str(IMPORT_FIO, "{\"jobs\":[{\"jobname\":"
		"\"a\\u00e9b\",\"usr_cpu\":1,\"sys_cpu\":1}]}"), 2);
}

/* Deterministic soup of the tokens the parsers look for. */
static void test_token_soup(void **state)
{
	static const char *const vocab[] = {
		"Sequential", "Random", "Reads", "Writes", "-----", "===",
		"Rate", "File", "Blk", "Lat%", "Maximum", "Eff", "6.1.176",
		"512", "41.20", "12.31%", "41.2012.31%", "0.0", "1e5", "-",
		"Throughput", "MB/sec", "(NB=1.5", "procs", "clients",
		"max_latency=", "Operation", "Count", "AvgLat", "MaxLat",
		"reads:", "MB,", "MB/s", "read", "latency", "min", "avg",
		"max", ">", "2s", ">10s", "{", "}", "[", "]", "\"jobs\"", ":",
		",", "\"jobname\"", "\"x\"", "\n", "\n", "> ", "\xff", "\0",
		"\xc2", "\"klab-results/1\"", "\"schema\"", "\"results\"",
	};
	struct strbuf sb;
	unsigned long long x = 0x9e3779b97f4a7c15ull;
	size_t i, j, n, nv = sizeof(vocab) / sizeof(vocab[0]);

	sb_init(&sb);
	for (i = 0; i < 3000; i++) {
		sb_reset(&sb);
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		n = (x >> 33) % 120;
		for (j = 0; j < n; j++) {
			const char *v;

			x = x * 6364136223846793005ull + 1;
			v = vocab[(x >> 33) % nv];
			sb_add(&sb, v, *v ? strlen(v) : 1);
			if ((x >> 20) & 1)
				sb_addc(&sb, ' ');
		}
		check_one(IMPORT_AUTO, sb.buf, sb.len);
		check_one(IMPORT_TIOBENCH, sb.buf, sb.len);
		check_one(IMPORT_DBENCH, sb.buf, sb.len);
		check_one(IMPORT_READLAT, sb.buf, sb.len);
		check_one(IMPORT_FIO, sb.buf, sb.len);
		check_one(IMPORT_KLAB, sb.buf, sb.len);
	}
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_non_utf8_nul_nbsp),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_big_table),
		cmocka_unit_test(test_deep_json),
		cmocka_unit_test(test_token_soup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
