// SPDX-License-Identifier: MIT
/*
 * Unit tests for importing a whole mail (lib/import_mail.c): a pasted mail
 * that mixes tiobench tables, dbench Throughput lines and read latency
 * lines gives every value of every kind with its kernel, and the report
 * says what each kind contributed; one bad line in any kind fails the
 * whole import naming the mail's own line and the field; quoted mails,
 * mail headers and signatures; files of one kind import as before; a mail
 * an archive re-flowed into one paragraph (or re-wrapped, or quoted so)
 * gives every result of the original, and a result cut short in such a
 * paragraph fails naming its line and field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/import.h"
#include "lib/strbuf.h"
#include "tests/unit/import_testlib.h"

#define A "6.1.176"
#define B "6.1.192+elv-lowlat"

/* A short mail of the three kinds, in this order; 10 + 4 + 7 values. */
#define SHORT_TIO \
	TIO_HEAD \
	"6.1.176  512  4096  8  41.20 12.31%  0.741  1811.05  0.00000  " \
	"0.00000  335\n"
#define SHORT_MAIL \
	"Numbers, first tiobench:\n" \
	"\n" \
	SHORT_TIO \
	"\n" \
	"then dbench:\n" \
	"6.1.176  Throughput 412.5 MB/sec  50 clients  50 procs  " \
	"max_latency=58.123 ms\n" \
	"\n" \
	"and the read latency (prose: the read latency went down):\n" \
	"6.1.176 reads: 30.1 MB, 0.41 MB/s\n" \
	"6.1.176 read latency min 0.00 avg 6.1 max 4420.3 > 2s 0.12% " \
	"> 10s 0.00%\n"

/* Import text (exact-size copy) with a report. */
static int import_report_str(enum import_format f, const char *text,
			     const char *kernel, struct result_set *rs,
			     struct import_report *rep,
			     struct import_error *err)
{
	size_t len = strlen(text);
	char *copy = malloc(len ? len : 1);
	int n;

	assert_non_null(copy);
	memcpy(copy, text, len);
	memset(err, 0, sizeof(*err));
	n = import_text_report(copy, len, f, kernel, rs, rep, err);
	free(copy);
	return n;
}

static void expect_part(const struct import_report *rep, size_t i,
			enum import_format fmt, size_t first, size_t n)
{
	assert_true(i < rep->nparts);
	assert_int_equal(rep->part[i].fmt, fmt);
	assert_int_equal(rep->part[i].first, first);
	assert_int_equal(rep->part[i].n, n);
}

static void test_mail_file(void **state)
{
	struct result_set rs;
	struct import_report rep;
	struct import_error err;
	struct strbuf sb;
	char *copy;

	load(&sb, "mixed-mail.txt");
	copy = malloc(sb.len);
	assert_non_null(copy);
	memcpy(copy, sb.buf, sb.len);
	result_set_init(&rs);
	result_set_add(&rs, "before", "x.y", "", 1, DIR_NONE);
	assert_int_equal(import_text_report(copy, sb.len, IMPORT_AUTO, NULL,
					    &rs, &rep, &err), 110);
	free(copy);
	sb_release(&sb);
	assert_string_equal(rs.format, "mail");
	assert_int_equal(rs.n, 111);
	assert_int_equal(rep.nparts, 3);
	expect_part(&rep, 0, IMPORT_TIOBENCH, 1, 80);
	expect_part(&rep, 1, IMPORT_DBENCH, 81, 11);
	expect_part(&rep, 2, IMPORT_READLAT, 92, 19);
	expect_metric(&rs, A, "tiobench.seq_read.rate", 41.20, "MB/s",
		      DIR_HIGHER);
	expect_metric(&rs, B, "tiobench.rand_write.cpu_eff", 84, "",
		      DIR_HIGHER);
	expect_metric(&rs, A, "dbench.throughput", 412.5, "MB/s", DIR_HIGHER);
	expect_metric(&rs, B, "dbench.max_latency", 41.5, "ms", DIR_LOWER);
	expect_metric(&rs, B, "dbench.clients", 50, "", DIR_NONE);
	expect_metric(&rs, "6.1.190", "dbench.nb_throughput", 123, "MB/s",
		      DIR_HIGHER);
	expect_metric(&rs, "6.1.190", "dbench.procs", 16, "", DIR_NONE);
	expect_metric(&rs, A, "readlat.lat_2s", 0.12, "%", DIR_LOWER);
	expect_metric(&rs, B, "readlat.rate", 1.92, "MB/s", DIR_HIGHER);
	/* quoted twice in the mail, kernel in front */
	expect_metric(&rs, "6.1.0-28-cloud-amd64", "readlat.lat_max", 1204.9,
		      "ms", DIR_LOWER);
	assert_null(find(&rs, "6.1.0-28-cloud-amd64", "readlat.lat_2s"));
	result_set_release(&rs);
}

static void test_mail_report_json(void **state)
{
	struct result_set rs;
	struct import_report rep;
	struct import_error err;
	json_t *j, *want;

	result_set_init(&rs);
	assert_int_equal(import_report_str(IMPORT_AUTO, SHORT_MAIL, NULL, &rs,
					   &rep, &err), 21);
	j = import_report_json(&rep, &rs);
	want = json_pack("[{s:s, s:i, s:[{s:s, s:i}]}, {s:s, s:i, "
			 "s:[{s:s, s:i}]}, {s:s, s:i, s:[{s:s, s:i}]}]",
			 "format", "tiobench", "results", 10, "kernels",
			 "kernel", A, "results", 10,
			 "format", "dbench", "results", 4, "kernels",
			 "kernel", A, "results", 4,
			 "format", "readlat", "results", 7, "kernels",
			 "kernel", A, "results", 7);
	assert_non_null(want);
	if (!json_equal(j, want)) {
		char *s = json_dumps(j, JSON_COMPACT);

		fail_msg("report %s", s);
	}
	json_decref(j);
	json_decref(want);
	result_set_release(&rs);
}

/* The kinds come in the order of the mail, whatever it is. */
static void test_mail_order_and_default_kernel(void **state)
{
	struct result_set rs;
	struct import_report rep;
	struct import_error err;

	result_set_init(&rs);
	assert_int_equal(import_report_str(IMPORT_AUTO,
		"reads: 12.0 MB, 0.16 MB/s\n"
		"read latency min 0.02 avg 9.5 max 1204.9\n"
		"> Throughput 98.4 MB/sec (NB=123.0 MB/sec  984.0 MBit/sec)"
		"  16 procs\n", "6.1.0-28-cloud-amd64", &rs, &rep, &err), 8);
	assert_string_equal(rs.format, "mail");
	expect_part(&rep, 0, IMPORT_READLAT, 0, 5);
	expect_part(&rep, 1, IMPORT_DBENCH, 5, 3);
	expect_metric(&rs, "6.1.0-28-cloud-amd64", "dbench.throughput", 98.4,
		      "MB/s", DIR_HIGHER);
	/* without a default kernel, the bare lines name none */
	expect_error(IMPORT_AUTO, "reads: 12.0 MB, 0.16 MB/s\n"
		     "Throughput 98.4 MB/sec  16 procs\n", NULL, 1, "kernel",
		     "no kernel identifier");
	result_set_release(&rs);
}

/* dbench 4's operation table belongs to the next Throughput line; a
 * read latency line right after the table is not one of its rows. */
static void test_mail_op_table(void **state)
{
	struct result_set rs;
	struct import_error err;

	result_set_init(&rs);
	assert_int_equal(import_str(IMPORT_AUTO,
		" Operation      Count    AvgLat    MaxLat\n"
		" ----------------------------------------\n"
		" NTCreateX      43936     0.043    10.517\n"
		"reads: 30.1 MB, 0.41 MB/s\n"
		"\n"
		"6.1.176  Throughput 277.409 MB/sec  2 clients  2 procs  "
		"max_latency=23.221 ms\n", "6.1.192", &rs, &err), 9);
	expect_metric(&rs, A, "dbench.op.NTCreateX.avg_lat", 0.043, "ms",
		      DIR_LOWER);
	expect_metric(&rs, "6.1.192", "readlat.read_mb", 30.1, "MB",
		      DIR_NONE);
	result_set_release(&rs);
}

/* One bad line in any kind: nothing imported, the mail's line named. */
static void test_mail_errors(void **state)
{
	/* SHORT_MAIL: the tiobench row is line 7, dbench line 10, the
	 * read latency lines 13 and 14 */
	expect_error(IMPORT_AUTO, "Numbers, first tiobench:\n\n" TIO_HEAD
		     "6.1.176  512  4096  8  41.20 12.31%  0.741  x1811.05  "
		     "0.00000  0.00000  335\n\n"
		     "6.1.176  Throughput 412.5 MB/sec\n"
		     "6.1.176 reads: 30.1 MB, 0.41 MB/s\n", NULL, 7,
		     "Maximum Latency", "not a number 'x1811.05'");
	expect_error(IMPORT_AUTO, "Numbers, first tiobench:\n\n" SHORT_TIO
		     "\nthen dbench:\n"
		     "6.1.176  Throughput 412.5 MB/sec  50 clients  50 procs  "
		     "max_latency=5x8.123 ms\n\n"
		     "6.1.176 reads: 30.1 MB, 0.41 MB/s\n", NULL, 10,
		     "max_latency", "not a number '5x8.123'");
	expect_error(IMPORT_AUTO, "Numbers, first tiobench:\n\n" SHORT_TIO
		     "\nthen dbench:\n"
		     "6.1.176  Throughput 412.5 MB/sec\n\n\n"
		     "6.1.176 reads: 30.1 MB, 0.41 MB/s\n"
		     "6.1.176 read latency min 0.00 avg six max 4420.3\n",
		     NULL, 14, "avg", "not a number 'six'");
	/* a kernel twice in one kind */
	expect_error(IMPORT_AUTO, SHORT_MAIL
		     "6.1.176 reads: 31.1 MB, 0.42 MB/s\n", NULL, 15, "kernel",
		     "second 'readlat.read_mb' result (first on line 13)");
}

/* The same mail quoted by a reply, and quoted again. */
static void test_mail_quoted(void **state)
{
	const char *lines = SHORT_MAIL;
	struct result_set rs;
	struct import_error err;
	struct strbuf q;
	int depth;

	for (depth = 1; depth <= 2; depth++) {
		const char *p = lines, *nl;

		sb_init(&q);
		sb_adds(&q, "On Tue, Nov 24, 2026, Jens Axboe wrote:\n");
		while (*p) {
			nl = strchr(p, '\n');
			sb_adds(&q, depth == 1 ? "> " : ">> ");
			sb_add(&q, p, (size_t)(nl - p) + 1);
			p = nl + 1;
		}
		sb_adds(&q, "\nThanks, applied.\n");
		result_set_init(&rs);
		assert_int_equal(import_mem(IMPORT_AUTO, q.buf, q.len, NULL,
					    &rs, &err), 21);
		assert_string_equal(rs.format, "mail");
		expect_metric(&rs, A, "tiobench.seq_read.max_lat", 1811.05,
			      "ms", DIR_LOWER);
		expect_metric(&rs, A, "dbench.max_latency", 58.123, "ms",
			      DIR_LOWER);
		expect_metric(&rs, A, "readlat.lat_10s", 0, "%", DIR_LOWER);
		result_set_release(&rs);
		sb_release(&q);
	}
}

/* Headers and the signature are no segment: their lines are not read. */
static void test_mail_headers_signature(void **state)
{
	struct result_set rs;
	struct import_error err;

	result_set_init(&rs);
	assert_int_equal(import_str(IMPORT_AUTO,
		"From jens@example.org Tue Nov 24 10:00:00 2026\n"
		"From: Jens Axboe <jens@example.org>\n"
		"Subject: Re: 6.1.176 reads: worse, Throughput 1 MB/sec\n"
		"  read latency min 0 avg 0 max 0\n"
		"\n"
		SHORT_MAIL
		"\n-- \n"
		"Throughput 9000 MB/sec of coffee, Jens\n", NULL, &rs, &err),
		21);
	expect_metric(&rs, A, "readlat.read_mb", 30.1, "MB", DIR_NONE);
	assert_int_equal(rs.n, 21);
	result_set_release(&rs);
	/* quoted text after the signature is read again */
	result_set_init(&rs);
	assert_int_equal(import_str(IMPORT_AUTO, SHORT_TIO "\n-- \nJens\n\n"
				    "> 6.1.176 reads: 30.1 MB, 0.41 MB/s\n",
				    NULL, &rs, &err), 12);
	expect_metric(&rs, A, "readlat.rate", 0.41, "MB/s", DIR_HIGHER);
	result_set_release(&rs);
}

/* Files of one kind: one part, the kind's name, the values as before. */
static void test_one_kind(void **state)
{
	struct result_set rs;
	struct import_report rep;
	struct import_error err;

	result_set_init(&rs);
	assert_int_equal(import_report_str(IMPORT_AUTO,
		"6.1.176  Throughput 412.5 MB/sec  50 clients\n"
		"the read latency went down, reads: were fine\n",
		NULL, &rs, &rep, &err), 2);
	assert_string_equal(rs.format, "dbench");
	assert_int_equal(rep.nparts, 1);
	expect_part(&rep, 0, IMPORT_DBENCH, 0, 2);
	/* "mail" forces the split; one kind keeps its own name */
	assert_int_equal(import_report_str(IMPORT_MAIL, SHORT_TIO, NULL, &rs,
					   &rep, &err), 10);
	assert_string_equal(rs.format, "tiobench");
	expect_part(&rep, 0, IMPORT_TIOBENCH, 2, 10);
	assert_string_equal(import_format_name(IMPORT_MAIL), "mail");
	result_set_release(&rs);
	expect_error(IMPORT_MAIL, "no results here\n", NULL, 0, "format",
		     "no tiobench table, dbench Throughput line or read "
		     "latency line found");
}

/*
 * in as a mail archive re-flows it: its first keep lines as they are, the
 * rest joined into one paragraph (each line break a blank).  With width
 * set, the paragraph is wrapped again at blanks into lines of at most
 * width bytes (runs of blanks become one), each line starting with quote.
 */
static void reflow(struct strbuf *out, const char *in, size_t len,
		   size_t keep, size_t width, const char *quote)
{
	size_t i = 0, lines = 0, col = 0, w;

	sb_init(out);
	for (; i < len && lines < keep; i++) {
		sb_addc(out, in[i]);
		lines += in[i] == '\n';
	}
	if (!width) {
		for (; i < len; i++)
			sb_addc(out, in[i] == '\n' ? ' ' : in[i]);
		sb_addc(out, '\n');
		return;
	}
	while (i < len) {
		for (w = 0; i + w < len && in[i + w] != ' ' &&
		     in[i + w] != '\n'; w++)
			;
		if (w && col && col + 1 + w > width) {
			sb_addc(out, '\n');
			col = 0;
		}
		if (w && !col) {
			sb_adds(out, quote);
			col = strlen(quote);
		} else if (w) {
			sb_addc(out, ' ');
			col++;
		}
		sb_add(out, in + i, w);
		col += w;
		i += w + (i + w < len);
	}
	sb_addc(out, '\n');
}

/* b holds the results of a, in the same order. */
static void expect_same(const struct result_set *a,
			const struct result_set *b)
{
	size_t i;

	assert_int_equal(b->n, a->n);
	for (i = 0; i < a->n; i++) {
		const struct result *x = &a->v[i], *y = &b->v[i];

		if (strcmp(x->kernel, y->kernel) ||
		    strcmp(x->metric, y->metric) || x->value != y->value ||
		    strcmp(x->unit, y->unit) || x->dir != y->dir)
			fail_msg("result %zu: %s %s %.17g, expected %s %s "
				 "%.17g", i, y->kernel, y->metric, y->value,
				 x->kernel, x->metric, x->value);
	}
	assert_string_equal(b->format, a->format);
}

static void expect_same_report(const struct import_report *a,
			       const struct import_report *b)
{
	size_t i;

	assert_int_equal(b->nparts, a->nparts);
	for (i = 0; i < a->nparts; i++)
		expect_part(b, i, a->part[i].fmt, a->part[i].first,
			    a->part[i].n);
}

/* The re-flowed forms of a mail, keep lines (the headers) as they are. */
static const struct {
	size_t width;
	const char *quote;
} forms[] = {
	{ 0, "" },		/* one paragraph */
	{ 72, "" },		/* and wrapped again */
	{ 60, "> " },		/* and quoted by a reply */
	{ 76, ">> " },
	{ 30, "> > " },
};

#define NFORMS (sizeof(forms) / sizeof(forms[0]))

/* Import file, then each re-flowed form of it: the same results. */
static void check_reflowed(const char *file, size_t keep, const char *kernel,
			   int want)
{
	struct result_set orig, rs;
	struct import_report orep, rep;
	struct import_error err;
	struct strbuf mail, flowed;
	size_t i;

	load(&mail, file);
	result_set_init(&orig);
	assert_int_equal(import_report_str(IMPORT_AUTO, mail.buf, kernel,
					   &orig, &orep, &err), want);
	for (i = 0; i < NFORMS; i++) {
		reflow(&flowed, mail.buf, mail.len, keep, forms[i].width,
		       forms[i].quote);
		result_set_init(&rs);
		if (import_report_str(IMPORT_AUTO, flowed.buf, kernel, &rs,
				      &rep, &err) != want)
			fail_msg("%s, width %zu, quote '%s': line %d field "
				 "'%s': %s", file, forms[i].width,
				 forms[i].quote, err.line, err.field, err.msg);
		expect_same(&orig, &rs);
		expect_same_report(&orep, &rep);
		result_set_release(&rs);
		sb_release(&flowed);
	}
	result_set_release(&orig);
	sb_release(&mail);
}

/* The three kinds of a mail re-flowed into one paragraph, and wrapped. */
static void test_mail_reflowed(void **state)
{
	struct result_set orig, rs;
	struct import_error err;

	check_reflowed("mixed-mail.txt", 7, NULL, 110);
	/* the stored paragraph: headers kept, the body on line 8 */
	result_set_init(&orig);
	result_set_init(&rs);
	assert_int_equal(import_file(IMPORT_AUTO, "mixed-mail.txt", NULL,
				     &orig, &err), 110);
	assert_int_equal(import_file(IMPORT_AUTO, "mixed-mail-reflowed.txt",
				     NULL, &rs, &err), 110);
	expect_same(&orig, &rs);
	expect_metric(&rs, B, "dbench.max_latency", 41.5, "ms", DIR_LOWER);
	expect_metric(&rs, "6.1.190", "dbench.procs", 16, "", DIR_NONE);
	expect_metric(&rs, "6.1.0-28-cloud-amd64", "readlat.lat_max", 1204.9,
		      "ms", DIR_LOWER);
	assert_null(find(&rs, "6.1.0-28-cloud-amd64", "readlat.lat_2s"));
	result_set_release(&orig);
	result_set_release(&rs);
}

/* Files of one kind, re-flowed: the same results, the same format. */
static void test_one_kind_reflowed(void **state)
{
	check_reflowed("import-dbench-old-mail.txt", 0, "2.4.20", 12);
	check_reflowed("import-dbench-4.00-2clients.txt", 0, "6.1.176", 46);
	check_reflowed("import-readlat-mail.txt", 0, "6.1.170", 19);
	check_reflowed("import-tiobench-mail.txt", 0, NULL, 80);
}

/* Prose around results in a paragraph stays prose. */
static void test_reflowed_prose(void **state)
{
	struct result_set rs;
	struct import_error err;

	result_set_init(&rs);
	assert_int_equal(import_str(IMPORT_AUTO,
		"Numbers: since 6.1 read latency got worse, reads: were slow. "
		"For scale: Throughput 98.4 MB/sec 16 procs and then 6.1.176 "
		"reads: 30.1 MB, 0.41 MB/s 6.1.176 read latency min 0.00 avg "
		"6.1 max 4420.3 The end, 3 clients 2 procs.\n", "6.1.170",
		&rs, &err), 7);
	assert_string_equal(rs.format, "mail");
	expect_metric(&rs, "6.1.170", "dbench.procs", 16, "", DIR_NONE);
	expect_metric(&rs, "6.1.176", "readlat.lat_max", 4420.3, "ms",
		      DIR_LOWER);
	assert_null(find(&rs, "6.1.176", "readlat.lat_2s"));
	result_set_release(&rs);
}

/* The re-flowed mail with from replaced by to (cut: ends there). */
static void flowed_edit(struct strbuf *sb, const char *from, const char *to,
			int cut)
{
	struct strbuf mail;
	const char *p;

	load(&mail, "mixed-mail-reflowed.txt");
	p = strstr(mail.buf, from);
	if (!p)
		fail_msg("'%s' not in the re-flowed mail", from);
	sb_init(sb);
	sb_add(sb, mail.buf, (size_t)(p - mail.buf));
	sb_adds(sb, to);
	if (!cut)
		sb_adds(sb, p + strlen(from));
	sb_release(&mail);
}

/* A result cut short inside the paragraph: nothing imported, named. */
static void test_reflowed_truncated(void **state)
{
	static const struct {
		const char *from, *to;
		int cut;
		const char *field, *msg;
	} cases[] = {
		{ "431.25 MB/sec  50 clients  50 procs  max_latency=41.5 ms",
		  "431.25", 0, "Throughput",
		  "expected 'MB/sec', found 'and'" },
		{ "max_latency=41.5 ms", "max_latency=", 0, "max_latency",
		  "not a number 'and'" },
		{ "(NB=123.0", "(NB=", 1, "NB", "missing" },
		{ "Throughput 98.4 MB/sec", "Throughput 98.4", 1,
		  "Throughput", "missing: expected 'MB/sec'" },
		{ "avg 6.1 max 4420.3", "avg", 0, "avg",
		  "not a number '2s'" },
		{ "reads: 141.7 MB, 1.92 MB/s", "reads: 141.7 MB,", 0, "rate",
		  "not a number '6.1.192+elv-lowlat'" },
	};
	struct strbuf sb;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		flowed_edit(&sb, cases[i].from, cases[i].to, cases[i].cut);
		expect_error(IMPORT_AUTO, sb.buf, NULL, 8, cases[i].field,
			     cases[i].msg);
		sb_release(&sb);
	}
}

/* Wrapped again, the error names the line the bad token is on. */
static void test_reflowed_wrapped_error(void **state)
{
	struct strbuf sb, flowed;
	const char *p;
	int line = 1;

	flowed_edit(&sb, "max_latency=41.5 ms", "max_latency=x41.5 ms", 0);
	reflow(&flowed, sb.buf, sb.len, 7, 40, "> ");
	p = strstr(flowed.buf, "max_latency=x41.5");
	assert_non_null(p);
	while (p-- > flowed.buf)
		line += *p == '\n';
	assert_true(line > 8);
	expect_error(IMPORT_AUTO, flowed.buf, NULL, line, "max_latency",
		     "not a number 'x41.5'");
	sb_release(&flowed);
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mail_file),
		cmocka_unit_test(test_mail_report_json),
		cmocka_unit_test(test_mail_order_and_default_kernel),
		cmocka_unit_test(test_mail_op_table),
		cmocka_unit_test(test_mail_errors),
		cmocka_unit_test(test_mail_quoted),
		cmocka_unit_test(test_mail_headers_signature),
		cmocka_unit_test(test_one_kind),
		cmocka_unit_test(test_mail_reflowed),
		cmocka_unit_test(test_one_kind_reflowed),
		cmocka_unit_test(test_reflowed_prose),
		cmocka_unit_test(test_reflowed_truncated),
		cmocka_unit_test(test_reflowed_wrapped_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
