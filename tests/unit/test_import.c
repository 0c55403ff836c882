// SPDX-License-Identifier: MIT
/*
 * Unit tests for the importers (lib/import*.c): real captured outputs and
 * mails under tests/data/, the re-wrapped, quoted, trimmed and glued forms
 * of tiobench tables, dbench and read-latency lines with and without kernel
 * identifiers, fio json and json+, klab documents, and errors that must name
 * the line and the field.  Every import reads from an exact-size heap copy
 * so ASan catches any read past the end (inputs are not NUL-terminated).
 * Hostile and truncated input lives in test_import_hostile.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/import.h"
#include "lib/strbuf.h"
#include "tests/unit/import_testlib.h"

static void test_formats(void **state)
{
	enum import_format f;

	assert_string_equal(import_format_name(IMPORT_TIOBENCH), "tiobench");
	assert_string_equal(import_format_name(IMPORT_READLAT), "readlat");
	assert_string_equal(import_format_name((enum import_format)99),
			    "unknown");
	assert_int_equal(import_format_parse("fio", &f), 0);
	assert_int_equal(f, IMPORT_FIO);
	assert_int_equal(import_format_parse("klab", &f), 0);
	assert_int_equal(f, IMPORT_KLAB);
	assert_int_equal(import_format_parse("dbench", &f), 0);
	assert_int_equal(f, IMPORT_DBENCH);
	assert_int_equal(import_format_parse("FIO", &f), -1);
	assert_int_equal(import_format_parse(NULL, &f), -1);
}

static void test_detect(void **state)
{
	static const struct {
		const char *file;
		enum import_format f;
	} files[] = {
		{ "import-tiobench-mail.txt", IMPORT_TIOBENCH },
		{ "import-tiobench-oneline.txt", IMPORT_TIOBENCH },
		{ "import-dbench-4.00-2clients.txt", IMPORT_DBENCH },
		{ "import-fio-randread.json", IMPORT_FIO },
		{ "import-fio-noise.json", IMPORT_FIO },
		{ "import-fio-jsonplus.json", IMPORT_FIO },
		{ "import-readlat-mail.txt", IMPORT_READLAT },
		{ "import-dbench-old-mail.txt", IMPORT_DBENCH },
	};
	struct strbuf sb;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		load(&sb, files[i].file);
		if (import_detect(sb.buf, sb.len) != files[i].f)
			fail_msg("%s detected as %d", files[i].file,
				 import_detect(sb.buf, sb.len));
		sb_release(&sb);
	}
	assert_int_equal(import_detect("hello", 5), IMPORT_AUTO);
	assert_int_equal(import_detect("", 0), IMPORT_AUTO);
	assert_int_equal(import_detect(
		"{\"schema\":\"klab-results/1\",\"results\":[]}", 41),
		IMPORT_KLAB);
}

static void test_import_text_auto(void **state)
{
	struct result_set rs;
	struct import_error err;

	result_set_init(&rs);
	assert_int_equal(import_file(IMPORT_AUTO, "import-fio-randrw.json",
				     "6.1.176", &rs, &err), 34);
	assert_string_equal(rs.format, "fio");
	assert_int_equal(import_file(IMPORT_AUTO, "import-tiobench-mail.txt",
				     NULL, &rs, &err), 80);
	assert_string_equal(rs.format, "tiobench");
	assert_int_equal(rs.n, 114);
	assert_int_equal(import_str(IMPORT_AUTO, "nothing to see", NULL, &rs,
				    &err), -1);
	assert_string_equal(err.field, "format");
	assert_int_equal(import_text(NULL, 0, IMPORT_TIOBENCH, NULL, &rs,
				     &err), -1);
	assert_int_equal(import_text("x", 1, (enum import_format)42, NULL,
				     &rs, &err), -1);
	assert_int_equal(rs.n, 114);
	result_set_release(&rs);
}

static void check_tiobench_mail(const struct result_set *rs)
{
	const char *a = "6.1.176", *b = "6.1.192+elv-lowlat";

	assert_int_equal(rs->n, 80);
	expect_metric(rs, a, "tiobench.seq_read.file_size", 512, "MB",
		      DIR_NONE);
	expect_metric(rs, a, "tiobench.seq_read.blk_size", 4096, "B",
		      DIR_NONE);
	expect_metric(rs, a, "tiobench.seq_read.threads", 8, "", DIR_NONE);
	expect_metric(rs, a, "tiobench.seq_read.rate", 41.20, "MB/s",
		      DIR_HIGHER);
	expect_metric(rs, a, "tiobench.seq_read.cpu", 12.31, "%", DIR_LOWER);
	expect_metric(rs, a, "tiobench.seq_read.avg_lat", 0.741, "ms",
		      DIR_LOWER);
	expect_metric(rs, a, "tiobench.seq_read.max_lat", 1811.05, "ms",
		      DIR_LOWER);
	expect_metric(rs, a, "tiobench.seq_read.lat_2s", 0, "%", DIR_LOWER);
	expect_metric(rs, a, "tiobench.seq_read.lat_10s", 0, "%", DIR_LOWER);
	expect_metric(rs, a, "tiobench.seq_read.cpu_eff", 335, "",
		      DIR_HIGHER);
	expect_metric(rs, a, "tiobench.rand_read.lat_2s", 0.0125, "%",
		      DIR_LOWER);
	expect_metric(rs, b, "tiobench.rand_read.cpu", 1.201, "%",
		      DIR_LOWER);
	expect_metric(rs, b, "tiobench.seq_write.max_lat", 8123.90, "ms",
		      DIR_LOWER);
	expect_metric(rs, b, "tiobench.rand_write.cpu_eff", 84, "",
		      DIR_HIGHER);
}

static void test_tiobench_layouts(void **state)
{
	static const char *const files[] = {
		"import-tiobench-mail.txt",
		"import-tiobench-oneline.txt",
		"import-tiobench-quoted-wrapped.txt",
		"import-tiobench-quoted2.txt",
	};
	struct result_set rs;
	struct import_error err;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		result_set_init(&rs);
		if (import_file(IMPORT_TIOBENCH, files[i], NULL, &rs, &err) !=
		    80)
			fail_msg("%s: line %d field '%s': %s", files[i],
				 err.line, err.field, err.msg);
		check_tiobench_mail(&rs);
		result_set_release(&rs);
	}
}

static void test_tiobench_trimmed_and_glued(void **state)
{
	struct result_set rs;
	struct import_error err;

	result_set_init(&rs);
	assert_int_equal(import_file(IMPORT_TIOBENCH,
				     "import-tiobench-trimmed.txt", NULL, &rs,
				     &err), 38);
	expect_metric(&rs, "2.4.18rc2aa2", "tiobench.seq_read.rate", 8.70,
		      "MB/s", DIR_HIGHER);
	expect_metric(&rs, "2.4.18rc2aa2", "tiobench.seq_read.threads", 8, "",
		      DIR_NONE);
	assert_null(find(&rs, "2.4.18rc2aa2", "tiobench.seq_read.file_size"));
	assert_null(find(&rs, "ext3", "tiobench.seq_write.max_lat"));
	expect_metric(&rs, "ext3-dalloc", "tiobench.seq_write.rate", 126.39,
		      "MB/s", DIR_HIGHER);
	expect_metric(&rs, "ext3-dalloc", "tiobench.seq_write.cpu", 19.26,
		      "%", DIR_LOWER);
	expect_metric(&rs, "ext3-dalloc", "tiobench.seq_write.cpu_eff", 137,
		      "", DIR_HIGHER);
	result_set_release(&rs);

	result_set_init(&rs);
	assert_int_equal(import_str(IMPORT_TIOBENCH, TIO_HEAD
		"6.1.176  512  4096  8  41.2012.31%  0.741  1811.05  0.00000"
		"  0.00000  335\n", NULL, &rs, &err), 10);
	expect_metric(&rs, "6.1.176", "tiobench.seq_read.rate", 41.20, "MB/s",
		      DIR_HIGHER);
	expect_metric(&rs, "6.1.176", "tiobench.seq_read.cpu", 12.31, "%",
		      DIR_LOWER);
	result_set_release(&rs);
}

static void test_tiobench_errors(void **state)
{
	expect_error(IMPORT_TIOBENCH, TIO_HEAD
		"6.1.176  512  4096  8  41.20 12.31%  0.741  1811.05  0.00000"
		"  0.00000  335\n"
		"6.1.192  512  4096  8  x1 12.31%  0.741  1811.05  0.00000"
		"  0.00000  335\n", NULL, 6, "Rate", "not a number 'x1'");
	expect_error(IMPORT_TIOBENCH, TIO_HEAD
		"6.1.176  512  4096  8  41.20 12.31%  0.741  1811.05  0.00000"
		"  0.00000\n"
		"6.1.192  512  4096  8  41.20 12.31%  0.741  1811.05  0.00000"
		"  0.00000  335\n", NULL, 5, "CPU Eff", "missing");
	expect_error(IMPORT_TIOBENCH, TIO_HEAD
		"6.1.176  512  4096  8  41.20 12.31%  0.741  1811.05  0.00000"
		"  0.00000  335  17\n", NULL, 5, "CPU Eff", "extra value '17'");
	expect_error(IMPORT_TIOBENCH, TIO_HEAD
		"6.1.176  512  4096  8  41.20 12.31%  0.741  zz  0.00000"
		"  0.00000  335\n", NULL, 5, "Maximum Latency",
		"not a number 'zz'");
	expect_error(IMPORT_TIOBENCH, TIO_HEAD
		"6.1.176  512  4096  8  41.20 12.31%  0.741  1811.05  0.00000"
		"  0.00000  335\n\n"
		"6.1.176  512  4096  8  42.20 12.31%  0.741  1811.05  0.00000"
		"  0.00000  335\n", NULL, 7, "Identifier",
		"duplicate kernel '6.1.176' in section 'Sequential Reads'");
	expect_error(IMPORT_TIOBENCH, TIO_HEAD
		"6.1.176  512  4096  8  41.20 12.31%  0.741  18", NULL, 5,
		"Lat% >2s", "missing: the input ends");
	expect_error(IMPORT_TIOBENCH, TIO_HEAD
		"6.1.176  512  4096  8  41.20 12.31%  0.741  1811.05  0.00000"
		"  0.00000  1e999\n", NULL, 5, "CPU Eff", "not a number");
	expect_error(IMPORT_TIOBENCH, TIO_HEAD
		"6.1.\xff  512  4096  8  41.20 12.31%  0.741  1811.05  0.00000"
		"  0.00000  335\n", NULL, 5, "Identifier",
		"invalid kernel identifier '6.1.?'");
	expect_error(IMPORT_TIOBENCH, "Sequential Reads are faster now.\n",
		     NULL, 0, "", "no tiobench results found");
	expect_error(IMPORT_TIOBENCH, TIO_HEAD, NULL, 0, "",
		     "no tiobench results found");
}

static void test_dbench_real(void **state)
{
	struct result_set rs;
	struct import_error err;
	const char *k = "6.1.176";

	result_set_init(&rs);
	assert_int_equal(import_file(IMPORT_DBENCH,
				     "import-dbench-4.00-2clients.txt", k, &rs,
				     &err), 46);
	expect_metric(&rs, k, "dbench.throughput", 277.409, "MB/s",
		      DIR_HIGHER);
	expect_metric(&rs, k, "dbench.clients", 2, "", DIR_NONE);
	expect_metric(&rs, k, "dbench.procs", 2, "", DIR_NONE);
	expect_metric(&rs, k, "dbench.max_latency", 23.221, "ms", DIR_LOWER);
	expect_metric(&rs, k, "dbench.op.NTCreateX.count", 43936, "",
		      DIR_NONE);
	expect_metric(&rs, k, "dbench.op.NTCreateX.avg_lat", 0.043, "ms",
		      DIR_LOWER);
	expect_metric(&rs, k, "dbench.op.Flush.max_lat", 22.283, "ms",
		      DIR_LOWER);
	assert_null(find(&rs, k, "dbench.nb_throughput"));
	assert_int_equal(import_file(IMPORT_DBENCH,
				     "import-dbench-4.00-8clients.txt",
				     "6.1.192", &rs, &err), 52);
	expect_metric(&rs, "6.1.192", "dbench.clients", 8, "", DIR_NONE);
	expect_metric(&rs, "6.1.192", "dbench.op.Deltree.count", 8, "",
		      DIR_NONE);
	expect_metric(&rs, "6.1.192", "dbench.procs", 4, "", DIR_NONE);
	/* no kernel given, none in the text */
	assert_int_equal(import_file(IMPORT_DBENCH,
				     "import-dbench-4.00-2clients.txt", NULL,
				     &rs, &err), -1);
	assert_string_equal(err.field, "kernel");
	assert_int_equal(rs.n, 98);
	/* out->kernel stands in for the kernel argument */
	result_set_release(&rs);
	result_set_init(&rs);
	result_set_setstr(&rs.kernel, "6.12.100");
	assert_int_equal(import_file(IMPORT_DBENCH,
				     "import-dbench-4.00-2clients.txt", NULL,
				     &rs, &err), 46);
	expect_metric(&rs, "6.12.100", "dbench.procs", 2, "", DIR_NONE);
	result_set_release(&rs);
}

static void test_dbench_old_mail(void **state)
{
	struct result_set rs;
	struct import_error err;

	result_set_init(&rs);
	assert_int_equal(import_file(IMPORT_DBENCH,
				     "import-dbench-old-mail.txt", "2.4.20",
				     &rs, &err), 12);
	expect_metric(&rs, "2.4.21", "dbench.throughput", 98.4, "MB/s",
		      DIR_HIGHER);
	expect_metric(&rs, "2.4.21", "dbench.nb_throughput", 123.0, "MB/s",
		      DIR_HIGHER);
	expect_metric(&rs, "2.4.21", "dbench.procs", 16, "", DIR_NONE);
	expect_metric(&rs, "2.4.22-axboe-2l", "dbench.throughput", 101.25,
		      "MB/s", DIR_HIGHER);
	expect_metric(&rs, "2.4.22-axboe-2l", "dbench.nb_throughput",
		      126.5625, "MB/s", DIR_HIGHER);
	expect_metric(&rs, "2.4.20", "dbench.throughput", 15.8859, "MB/s",
		      DIR_HIGHER);
	expect_metric(&rs, "2.4.20", "dbench.nb_throughput", 19.8573, "MB/s",
		      DIR_HIGHER);
	expect_metric(&rs, "2.4.23", "dbench.throughput", 412.5, "MB/s",
		      DIR_HIGHER);
	expect_metric(&rs, "2.4.23", "dbench.max_latency", 58.123, "ms",
		      DIR_LOWER);
	result_set_release(&rs);
}

static void test_dbench_errors(void **state)
{
	expect_error(IMPORT_DBENCH, "hello\nThroughput x1 MB/sec  2 clients\n",
		     "k", 2, "Throughput", "not a number 'x1'");
	expect_error(IMPORT_DBENCH, "Throughput 1 MB/sec (NB=abc MB/sec\n",
		     "k", 1, "NB", "not a number 'abc'");
	expect_error(IMPORT_DBENCH, "Throughput 1 MB/sec max_latency=x ms\n",
		     "k", 1, "max_latency", "not a number 'x'");
	expect_error(IMPORT_DBENCH,
		     " Operation      Count    AvgLat    MaxLat\n"
		     " ----------------------------------------\n"
		     " NTCreateX      43936     0.0z3    10.517\n", "k", 3,
		     "AvgLat", "not a number '0.0z3'");
	expect_error(IMPORT_DBENCH,
		     " Operation      Count    AvgLat    MaxLat\n"
		     " ----------------------------------------\n"
		     " NTCreateX      43936     0.03\n", "k", 3, "MaxLat",
		     "missing");
	expect_error(IMPORT_DBENCH,
		     " Operation      Count    AvgLat    MaxLat\n"
		     " ----------------------------------------\n"
		     " NTCreateX      43936     0.03    1.0\n", NULL, 1,
		     "kernel", "no Throughput line");
	expect_error(IMPORT_DBENCH,
		     "6.1.1 Throughput 1 MB/sec\n6.1.1 Throughput 2 MB/sec\n",
		     NULL, 2, "kernel", "second 'dbench.throughput'");
	expect_error(IMPORT_DBENCH, "no numbers here\n", "k", 0, "",
		     "no dbench results found");
}

static void test_readlat(void **state)
{
	struct result_set rs;
	struct import_error err;

	result_set_init(&rs);
	assert_int_equal(import_file(IMPORT_READLAT, "import-readlat-mail.txt",
				     "6.1.170", &rs, &err), 19);
	expect_metric(&rs, "6.1.176", "readlat.read_mb", 30.1, "MB",
		      DIR_NONE);
	expect_metric(&rs, "6.1.176", "readlat.rate", 0.41, "MB/s",
		      DIR_HIGHER);
	expect_metric(&rs, "6.1.176", "readlat.lat_min", 0, "ms", DIR_LOWER);
	expect_metric(&rs, "6.1.176", "readlat.lat_avg", 6.1, "ms",
		      DIR_LOWER);
	expect_metric(&rs, "6.1.176", "readlat.lat_max", 4420.3, "ms",
		      DIR_LOWER);
	expect_metric(&rs, "6.1.176", "readlat.lat_2s", 0.12, "%", DIR_LOWER);
	expect_metric(&rs, "6.1.176", "readlat.lat_10s", 0, "%", DIR_LOWER);
	expect_metric(&rs, "6.1.192+elv-lowlat", "readlat.lat_max", 812.5,
		      "ms", DIR_LOWER);
	expect_metric(&rs, "6.1.192+elv-lowlat", "readlat.rate", 1.92, "MB/s",
		      DIR_HIGHER);
	expect_metric(&rs, "6.1.170", "readlat.read_mb", 12, "MB", DIR_NONE);
	expect_metric(&rs, "6.1.170", "readlat.lat_avg", 9.5, "ms",
		      DIR_LOWER);
	assert_null(find(&rs, "6.1.170", "readlat.lat_2s"));
	result_set_release(&rs);
}

static void test_readlat_errors(void **state)
{
	expect_error(IMPORT_READLAT, "x\nread latency min 0.00 avg x max 1\n",
		     "k", 2, "avg", "not a number 'x'");
	expect_error(IMPORT_READLAT, "reads: 30.1 GB, 0.41 MB/s\n", "k", 1,
		     "reads", "expected 'MB,'");
	expect_error(IMPORT_READLAT, "reads: 30.1 MB, 0.41\n", "k", 1, "rate",
		     "expected 'MB/s'");
	expect_error(IMPORT_READLAT, "reads: 30.1 MB,\n", "k", 1, "rate",
		     "missing");
	expect_error(IMPORT_READLAT,
		     "6.1.1 read latency min 0 avg 1 max 2 > 2s 0.00% > 3s 1%",
		     "k", 1, ">10s", "expected '10s', found '3s'");
	expect_error(IMPORT_READLAT, "reads: 30.1 MB, 0.41 MB/s\n", NULL, 1,
		     "kernel", "no kernel identifier");
	expect_error(IMPORT_READLAT,
		     "reads: 1 MB, 1 MB/s\nreads: 2 MB, 2 MB/s\n", "k", 2,
		     "kernel", "second 'readlat.read_mb'");
}

static void test_fio(void **state)
{
	struct result_set rs;
	struct import_error err;
	const char *k = "6.1.176";

	result_set_init(&rs);
	assert_int_equal(import_file(IMPORT_FIO, "import-fio-randread.json",
				     k, &rs, &err), 12);
	expect_metric(&rs, k, "fio.randread.read.iops", 13812.395868, "IOPS",
		      DIR_HIGHER);
	expect_metric(&rs, k, "fio.randread.read.bw", 55249, "KiB/s",
		      DIR_HIGHER);
	expect_metric(&rs, k, "fio.randread.read.clat_mean", 69.994765892,
		      "us", DIR_LOWER);
	expect_metric(&rs, k, "fio.randread.read.clat_p99_9", 2473.984, "us",
		      DIR_LOWER);
	expect_metric(&rs, k, "fio.randread.usr_cpu", 3.733333, "%",
		      DIR_LOWER);
	expect_metric(&rs, k, "fio.randread.sys_cpu", 36.733333, "%",
		      DIR_LOWER);
	assert_non_null(find(&rs, k, "fio.randread.read.lat_max"));
	assert_non_null(find(&rs, k, "fio.randread.read.clat_p50"));
	assert_null(find(&rs, k, "fio.randread.write.iops"));
	assert_null(find(&rs, k, "fio.randread.trim.iops"));
	result_set_release(&rs);

	result_set_init(&rs);
	assert_int_equal(import_file(IMPORT_FIO, "import-fio-randrw.json", k,
				     &rs, &err), 34);
	expect_metric(&rs, k, "fio.mixed.read.iops", 15777.111444, "IOPS",
		      DIR_HIGHER);
	expect_metric(&rs, k, "fio.mixed.write.bw", 26936, "KiB/s",
		      DIR_HIGHER);
	expect_metric(&rs, k, "fio.seq-write_1.write.iops", 235904.547726,
		      "IOPS", DIR_HIGHER);
	assert_null(find(&rs, k, "fio.seq-write_1.read.iops"));
	assert_int_equal(import_file(IMPORT_FIO, "import-fio-jsonplus.json",
				     k, &rs, &err), 12);
	expect_metric(&rs, k, "fio.plus.read.clat_mean", 40.452407376, "us",
		      DIR_LOWER);
	assert_int_equal(import_file(IMPORT_FIO, "import-fio-noise.json", k,
				     &rs, &err), 12);
	expect_metric(&rs, k, "fio.noisy.write.iops", 263138.930535, "IOPS",
		      DIR_HIGHER);
	assert_int_equal(rs.incomplete, 0);
	result_set_release(&rs);
}

static void test_fio_errors(void **state)
{
	struct strbuf sb, edited;
	char *p;

	expect_error(IMPORT_FIO, "{\"jobs\":[]}", NULL, 0, "kernel",
		     "names no kernel");
	expect_error(IMPORT_FIO, "note: x\n{\"jobs\":[}\n", "k", 2, "",
		     "invalid JSON");
	expect_error(IMPORT_FIO, "plain text", "k", 0, "",
		     "no JSON object found");
	expect_error(IMPORT_FIO, "{\"fio version\":\"3\"}", "k", 0, "jobs",
		     "missing");
	expect_error(IMPORT_FIO, "{\"jobs\":[{\"jobname\":\"a\",\"read\":"
		     "{\"io_bytes\":5,\"iops\":\"9\"}}]}", "k", 0,
		     "jobs[0].read.iops", "not a number");
	expect_error(IMPORT_FIO, "{\"jobs\":[{\"jobname\":\"a\",\"read\":"
		     "{\"io_bytes\":5,\"iops\":9,\"bw\":1,\"clat_ns\":"
		     "{\"mean\":1}}}]}", "k", 0, "jobs[0].read.clat_ns.max",
		     "missing");
	expect_error(IMPORT_FIO, "{\"jobs\":[{\"jobname\":\"\"}]}", "k", 0,
		     "jobs[0].jobname", "empty");
	expect_error(IMPORT_FIO, "{\"jobs\":[{\"jobname\":\"a b\","
		     "\"usr_cpu\":1,\"sys_cpu\":1},{\"jobname\":\"a.b\","
		     "\"usr_cpu\":1,\"sys_cpu\":1}]}", "k", 0, "jobname",
		     "jobs[0] and jobs[1] are both named 'a_b'");
	expect_error(IMPORT_FIO, "{\"jobs\":[]}", "k", 0, "",
		     "no fio results found");
	/* a type error deep in a real output */
	load(&sb, "import-fio-randread.json");
	p = strstr(sb.buf, "\"usr_cpu\" : ");
	assert_non_null(p);
	sb_init(&edited);
	sb_add(&edited, sb.buf, (size_t)(p - sb.buf));
	sb_adds(&edited, "\"usr_cpu\" : \"3.7\"");
	sb_adds(&edited, p + strcspn(p, ","));
	expect_error(IMPORT_FIO, edited.buf, "k", 0, "jobs[0].usr_cpu",
		     "not a number");
	sb_release(&edited);
	sb_release(&sb);
}

static void test_fio_old_and_failed(void **state)
{
	struct result_set rs;
	struct import_error err;

	result_set_init(&rs);
	assert_int_equal(import_str(IMPORT_FIO, "{\"jobs\":[{\"jobname\":"
		"\"old\",\"error\":5,\"read\":{\"io_bytes\":4096,\"iops\":10,"
		"\"bw\":40,\"clat\":{\"mean\":250,\"max\":900,\"percentile\":"
		"{\"99.000000\":800}},\"lat\":{\"mean\":260,\"max\":910}},"
		"\"write\":{\"io_bytes\":0},\"usr_cpu\":1,\"sys_cpu\":2}]}",
		"2.6.32", &rs, &err), 9);
	expect_metric(&rs, "2.6.32", "fio.old.read.clat_mean", 250, "us",
		      DIR_LOWER);
	expect_metric(&rs, "2.6.32", "fio.old.read.clat_p99", 800, "us",
		      DIR_LOWER);
	expect_metric(&rs, "2.6.32", "fio.old.read.lat_max", 910, "us",
		      DIR_LOWER);
	assert_int_equal(rs.incomplete, 1);
	result_set_release(&rs);
}

/*
 * Importers run on klabd's request threads at once: each thread parses
 * its own document, whose one duplicate is at its own place, many times,
 * and must always be told that place.  (The duplicate check once kept
 * its sort context in a global: a second thread's import cleared it in
 * the middle of the first's sort, and klabd crashed under the 1,000-agent
 * load bench.)
 */
struct dup_thread {
	char *doc;
	size_t second;		/* the duplicate's index */
	int wrong;
};

static void *dup_thread_run(void *arg)
{
	struct dup_thread *t = arg;
	struct result_set rs;
	struct import_error err;
	char want[64];
	int k;

	snprintf(want, sizeof(want), "results[%zu].metric", t->second);
	for (k = 0; k < 300; k++) {
		result_set_init(&rs);
		if (import_str(IMPORT_KLAB, t->doc, NULL, &rs, &err) != -1 ||
		    strcmp(err.field, want))
			t->wrong++;
		result_set_release(&rs);
	}
	return NULL;
}

static void test_klab_dup_threads(void **state)
{
	struct dup_thread t[4];
	pthread_t tid[4];
	struct strbuf sb;
	size_t i, j, n;

	(void)state;
	for (i = 0; i < 4; i++) {
		n = 40 + 10 * i;	/* results; the duplicate of m0 last */
		sb_init(&sb);
		sb_adds(&sb, "{\"schema\":\"klab-results/1\",\"kernel\":"
			"\"6.1.170\",\"results\":[");
		for (j = 0; j < n; j++)
			sb_addf(&sb, "%s{\"metric\":\"t%zu.m%zu\",\"unit\":"
				"\"\",\"value\":%zu,\"direction\":\"none\"}",
				j ? "," : "", i, j < n - 1 ? j : 0, j);
		sb_adds(&sb, "]}");
		t[i].doc = sb.buf;
		t[i].second = n - 1;
		t[i].wrong = 0;
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&tid[i], NULL, dup_thread_run,
						&t[i]), 0);
	for (i = 0; i < 4; i++) {
		pthread_join(tid[i], NULL);
		assert_int_equal(t[i].wrong, 0);
		free(t[i].doc);
	}
}

static void test_klab(void **state)
{
	struct result_set a, b;
	struct import_error err;
	json_t *doc;
	char *text;
	size_t i;

	result_set_init(&a);
	assert_int_equal(import_file(IMPORT_TIOBENCH,
				     "import-tiobench-mail.txt", NULL, &a,
				     &err), 80);
	result_set_setstr(&a.rig, "scsi");
	doc = result_set_to_json(&a);
	text = json_dumps(doc, 0);
	result_set_init(&b);
	assert_int_equal(import_str(IMPORT_AUTO, text, NULL, &b, &err), 80);
	assert_string_equal(b.format, "tiobench");
	assert_string_equal(b.rig, "scsi");
	for (i = 0; i < a.n; i++)
		expect_metric(&b, a.v[i].kernel, a.v[i].metric, a.v[i].value,
			      a.v[i].unit, a.v[i].dir);
	free(text);
	json_decref(doc);
	result_set_release(&a);
	result_set_release(&b);

	result_set_init(&b);
	assert_int_equal(import_str(IMPORT_KLAB, "{\"schema\":"
		"\"klab-results/1\",\"incomplete\":true,\"results\":[{"
		"\"metric\":\"iops.total\",\"unit\":\"IOPS\",\"value\":5,"
		"\"direction\":\"higher\"}]}", "6.1.170", &b, &err), 1);
	expect_metric(&b, "6.1.170", "iops.total", 5, "IOPS", DIR_HIGHER);
	assert_string_equal(b.format, "klab");
	assert_int_equal(b.incomplete, 1);
	result_set_release(&b);

	expect_error(IMPORT_KLAB, "{\"schema\":\"klab-results/1\",\"kernel\":"
		     "\"k\",\"results\":[{\"metric\":\"a.b\",\"unit\":\"\","
		     "\"value\":1,\"direction\":\"none\"},{\"metric\":\"a.b\","
		     "\"unit\":\"\",\"value\":2,\"direction\":\"none\"}]}",
		     NULL, 0, "results[1].metric", "second 'a.b'");
	expect_error(IMPORT_KLAB, "{\"schema\":\"klab-results/1\","
		     "\"results\":[{\"metric\":\"a.b\",\"unit\":\"\",\"value\":"
		     "1,\"direction\":\"none\"}]}", NULL, 0,
		     "results[0].kernel", "missing");
	expect_error(IMPORT_KLAB, "{\"schema\":\"klab-results/1\","
		     "\"results\":[]}\ntrailing", NULL, 2, "", "invalid JSON");
	expect_error(IMPORT_KLAB, "[1]", NULL, 1, "", "not an object");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_import_text_auto),
		cmocka_unit_test(test_tiobench_layouts),
		cmocka_unit_test(test_tiobench_trimmed_and_glued),
		cmocka_unit_test(test_tiobench_errors),
		cmocka_unit_test(test_dbench_real),
		cmocka_unit_test(test_dbench_old_mail),
		cmocka_unit_test(test_dbench_errors),
		cmocka_unit_test(test_readlat),
		cmocka_unit_test(test_readlat_errors),
		cmocka_unit_test(test_fio),
		cmocka_unit_test(test_fio_errors),
		cmocka_unit_test(test_fio_old_and_failed),
		cmocka_unit_test(test_klab),
		cmocka_unit_test(test_klab_dup_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
