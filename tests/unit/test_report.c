// SPDX-License-Identifier: MIT
/*
 * Unit tests for web/report_*.c: the plain-text report (tiobench tables
 * exactly as tiobench.pl prints them, aligned columns, +-sd rows, delta
 * lines with verdicts and p-values, dbench and read-latency lines, the
 * generic table within 100 columns, ASCII only), and the CSV and JSON
 * shapes, from results imported into a temporary database; a run that
 * did not complete is left out of comparisons and history, the
 * repetitions stored inside a run give each cell its within-boot sd, and
 * the machine's CPU per I/O reaches the text report and the compare page
 * with its verdict (headline for iops, secondary for tiobench's phases).
 */
#include "web_testlib.h"

#include <jansson.h>
#include <math.h>

#include "db/reps.h"
#include "web/format.h"
#include "web/page.h"
#include "web/report.h"

static const struct tio_row r176 = { 512, 4096, 8, 41.20, 12.31, 0.741,
				     1811.05, 0, 0, 335 };
static const struct tio_row r192 = { 512, 4096, 8, 43.02, 12.90, 0.702,
				     1650.40, 0, 0, 333 };

static char *text_of(struct wfix *f, const char *const *k, size_t nk)
{
	struct comparison c;
	struct strbuf sb = STRBUF_INIT;

	wfix_compare(f, k, nk, &c);
	sb_init(&sb);
	report_text(&sb, &c);
	compare_release(&c);
	return sb_detach(&sb, NULL);
}

/* Every line plain ASCII, no tab, at most max columns. */
static void assert_pasteable(const char *s, size_t max)
{
	size_t col = 0;

	for (; *s; s++) {
		if (*s == '\n') {
			col = 0;
			continue;
		}
		assert_true(*s >= 0x20 && *s < 0x7f);
		col++;
		if (col > max)
			fail_msg("line longer than %zu: ...%.40s", max, s - 40);
	}
}

static void test_tiobench_exact(void **state)
{
	struct wfix *f = *state;
	struct result_set rs;
	const char *k[] = { "6.1.176", "6.1.192" };
	char *t;

	result_set_init(&rs);
	wfix_tio(&rs, "6.1.176", "seq_read", &r176);
	wfix_tio(&rs, "6.1.192", "seq_read", &r192);
	wfix_import(f, &rs, NULL);
	t = text_of(f, k, 2);
	/* tiobench's table as it prints: 110 columns, too wide to split */
	/* !checksrc! disable LONGLINE 6 */
	assert_non_null(strstr(t,
"\nSequential Reads\n"
"                              File  Blk   Num                   Avg      Maximum      Lat%     Lat%    CPU\n"
"Identifier                    Size  Size  Thr   Rate  (CPU%)  Latency    Latency      >2s      >10s    Eff\n"
"---------------------------- ------ ----- ---  ------ ------ --------- -----------  -------- -------- -----\n"
"6.1.176                       512   4096    8   41.20 12.31%     0.741     1811.05   0.00000  0.00000   335\n"
"6.1.192                       512   4096    8   43.02 12.90%     0.702     1650.40   0.00000  0.00000   333\n"
"  6.1.192 vs 6.1.176: rate +4.4% (n=1, no verdict), avg lat -5.3% (n=1, no verdict),\n"
"    max lat -8.9% (n=1, no verdict), cpu +4.8% (n=1, no verdict)\n"));
	assert_non_null(strstr(t, "klab comparison: 6.1.176 (baseline), "
			       "6.1.192\nrig: scsi, suite: tio\n"
			       "configuration: imported\n"
			       "cells (runs): 6.1.176 x1, 6.1.192 x1\n"
			       "verdicts: A cell is one run"));
	assert_non_null(strstr(t, "\nsummary: 0 metrics worse (0 headline), "
			       "0 better, 0 same, 0 undecided, 7 without "
			       "verdict"));
	assert_non_null(strstr(t, "decided changes (cells: mean +-stddev%)\n"
			       "             base   %change         candidate"
			       "  metric\n  no metric decided worse or "
			       "better\n"));
	assert_null(strstr(t, "Random Reads"));
	assert_null(strstr(t, "+-sd"));
	assert_pasteable(t, 107);
	free(t);
}

/* Start and end columns of the whitespace-separated tokens of a line. */
static size_t tokens(const char *line, size_t *start, size_t *end,
		     size_t max)
{
	size_t i = 0, n = 0;

	while (line[i] && line[i] != '\n' && n < max) {
		while (line[i] == ' ')
			i++;
		if (!line[i] || line[i] == '\n')
			break;
		start[n] = i;
		while (line[i] && line[i] != ' ' && line[i] != '\n')
			i++;
		end[n++] = i;
	}
	return n;
}

static const char *line_starting(const char *t, const char *prefix)
{
	const char *p = t;

	while (p && *p) {
		if (!strncmp(p, prefix, strlen(prefix)))
			return p;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return NULL;
}

static void test_columns_aligned(void **state)
{
	struct wfix *f = *state;
	struct result_set rs;
	static const char longk[] = "6.1.192+elv-lowlat-with-a-very-long-name";
	const char *k[] = { "6.1.176", longk };
	struct tio_row a = r176, b = r192;
	size_t s0[16], e0[16], s1[16], e1[16], sh[16], eh[16], n, i;
	const char *l0, *l1, *h, *rule;
	char *t;

	b.max_lat = 28425.08;
	b.cpu = 2.389;
	a.rate = 0.53;
	result_set_init(&rs);
	wfix_tio(&rs, k[0], "rand_write", &a);
	wfix_tio(&rs, k[1], "rand_write", &b);
	wfix_import(f, &rs, NULL);
	t = text_of(f, k, 2);
	l0 = line_starting(t, "6.1.176 ");
	l1 = line_starting(t, longk);
	h = line_starting(t, "Identifier");
	rule = line_starting(t, "-----");
	assert_non_null(l0);
	assert_non_null(l1);
	assert_non_null(h);
	n = tokens(l0, s0, e0, 16);
	assert_int_equal(n, 11);
	assert_int_equal(tokens(l1, s1, e1, 16), 11);
	assert_int_equal(s0[1], s1[1]);		/* file size: left-aligned */
	for (i = 2; i < n; i++)			/* the rest: right-aligned */
		assert_int_equal(e0[i], e1[i]);
	assert_true(s1[1] > strlen(longk));	/* the identifier fits */
	tokens(h, sh, eh, 16);
	assert_int_equal(sh[1], s0[1]);		/* "Size" over the sizes */
	/* the rule spans the identifier, then ends where the values end
	 * from Num Thr on (as in tiobench.pl's own output) */
	assert_int_equal(tokens(rule, sh, eh, 16), 11);
	assert_int_equal(eh[0] + 2, s0[1]);
	for (i = 3; i < n; i++)
		assert_int_equal(eh[i], e0[i]);
	free(t);
}

static void test_repetitions(void **state)
{
	struct wfix *f = *state;
	const char *k[] = { "6.1.176", "6.1.192" };
	struct result_set rs;
	int rep;
	char *t;

	for (rep = 0; rep < 3; rep++) {
		struct tio_row a = r176, b = r192;

		a.rate += rep * 0.1;
		b.rate += rep * 0.1;
		a.avg_lat += rep * 0.002;
		b.avg_lat += rep * 0.002;
		result_set_init(&rs);
		wfix_tio(&rs, k[0], "seq_read", &a);
		wfix_tio(&rs, k[1], "seq_read", &b);
		wfix_import(f, &rs, NULL);
	}
	t = text_of(f, k, 2);
	assert_non_null(strstr(t, "cells (runs): 6.1.176 x3, 6.1.192 x3\n"));
	/* !checksrc! disable LONGLINE 2 */
	assert_non_null(strstr(t,
"6.1.176                       512   4096    8   41.30 12.31%     0.743     1811.05   0.00000  0.00000   335\n"
"  +-sd (n=3)                                     0.10 0.000%     0.002        0.00   0.00000  0.00000     0\n"));
	/* rate +4.4% with sd 0.1 on three runs each: significant */
	assert_non_null(strstr(t, "rate +4.4% (better, p<0.001)"));
	assert_non_null(strstr(t, "\n       41.30 +-  0%     +4.4%         "
			       "43.12 +-  0%  tiobench.seq_read.rate (better, "
			       "headline)\n"));
	/* +4.8% CPU, constant: significant, but under the 5% floor of a
	 * secondary metric, and its CI reaches past it */
	assert_non_null(strstr(t, "cpu +4.8% (undecided, p<0.001)"));
	assert_pasteable(t, 107);
	free(t);
}

static void test_dbench_readlat_lines(void **state)
{
	struct wfix *f = *state;
	const char *k[] = { "6.1.176", "6.1.192" };
	struct result_set rs;
	char *t;

	result_set_init(&rs);
	result_set_add(&rs, k[0], "dbench.throughput", "MB/s", 412.5,
		       DIR_HIGHER);
	result_set_add(&rs, k[0], "dbench.clients", "", 50, DIR_NONE);
	result_set_add(&rs, k[0], "dbench.procs", "", 50, DIR_NONE);
	result_set_add(&rs, k[0], "dbench.max_latency", "ms", 58.123,
		       DIR_LOWER);
	result_set_add(&rs, k[1], "dbench.throughput", "MB/s", 300,
		       DIR_HIGHER);
	result_set_add(&rs, k[1], "dbench.max_latency", "ms", 40, DIR_LOWER);
	result_set_add(&rs, k[0], "readlat.read_mb", "MB", 30.1, DIR_NONE);
	result_set_add(&rs, k[0], "readlat.rate", "MB/s", 0.41, DIR_HIGHER);
	result_set_add(&rs, k[0], "readlat.lat_min", "ms", 0, DIR_LOWER);
	result_set_add(&rs, k[0], "readlat.lat_avg", "ms", 6.1, DIR_LOWER);
	result_set_add(&rs, k[0], "readlat.lat_max", "ms", 4420.3, DIR_LOWER);
	result_set_add(&rs, k[0], "readlat.lat_2s", "%", 0, DIR_LOWER);
	result_set_add(&rs, k[0], "readlat.lat_10s", "%", 0, DIR_LOWER);
	wfix_import(f, &rs, NULL);
	t = text_of(f, k, 2);
	assert_non_null(strstr(t, "\ndbench\n6.1.176  Throughput 412.500 "
		"MB/sec  50 clients  50 procs  max_latency=58.123 ms\n"
		"6.1.192  Throughput 300.000 MB/sec  max_latency=40.000 ms\n"
		"  6.1.192 vs 6.1.176: throughput -27.3% (n=1, no verdict), "
		"max latency -31.2% (n=1, no verdict)\n"));
	assert_non_null(strstr(t, "\nRead latency\n"
		"6.1.176  reads: 30.1 MB, 0.41 MB/s\n"
		"6.1.176  read latency min 0.00 avg 6.1 max 4420.3 > 2s 0.00% "
		"> 10s 0.00%\n"));
	assert_null(strstr(t, "Other metrics"));
	free(t);
}

static void test_generic_and_hostile(void **state)
{
	struct wfix *f = *state;
	const char *k[] = { "6.1.176-base-kernel", "6.1.177-candidate-1",
		"6.1.178-candidate-2", "6.1.179-candidate-3",
		"<script>alert(1)</script>\xc3\xa9" };
	struct result_set rs;
	size_t i;
	int rep;
	char *t;

	for (rep = 0; rep < 3; rep++) {		/* three cells each */
		result_set_init(&rs);
		for (i = 0; i < 5; i++) {
			result_set_add(&rs, k[i], "fio.randread.read.iops",
				       "IOPS", 4000 + 400.0 * (double)i + rep,
				       DIR_HIGHER);
			result_set_add(&rs, k[i],
				       "fio.randread.read.clat_p99", "us",
				       1200 + 300.0 * (double)i + rep,
				       DIR_LOWER);
		}
		wfix_import(f, &rs, NULL);
	}
	t = text_of(f, k, 5);
	assert_pasteable(t, 100);
	assert_non_null(strstr(t, "<script>alert(1)</script>??"));
	assert_non_null(strstr(t, "Other metrics (means; delta and verdict "
			       "against 6.1.176-base-kernel)\nmetric"));
	/* iops +10% better, p99 +25% worse for the first candidate */
	assert_non_null(strstr(t, "fio.randread.read.iops     IOPS"));
	assert_non_null(strstr(t, "4401  +10.0% better"));
	assert_non_null(strstr(t, "1501  +25.0% worse"));
	/* five kernels do not fit in 100 columns: a second block */
	assert_non_null(strstr(strstr(t, "Other metrics") + 20, "\n\nmetric"));
	assert_non_null(strstr(t, "summary: 4 metrics worse (0 headline), 4 "
			       "better, 0 same, 0 undecided, 0 without "
			       "verdict (4 kernels\n"
			       "    against 6.1.176-base-kernel)"));
	free(t);
}

/* CPU per I/O: a kernel that pays 3x the CPU per request at the same
 * IOPS is worse on it, headline on iops, secondary on a tiobench phase. */
static void test_cpu_per_op(void **state)
{
	struct wfix *f = *state;
	const char *k[] = { "6.1.192", "6.1.192+cpu-kworker" };
	struct strbuf sb = STRBUF_INIT;
	struct comparison c;
	struct result_set rs;
	const char *row;
	size_t i;
	int cell;
	json_t *j;
	char *t;

	for (cell = 0; cell < 4; cell++) {
		result_set_init(&rs);
		for (i = 0; i < 2; i++) {
			double cpu = (i ? 600 : 200) + cell;

			result_set_add(&rs, k[i], "iops.total", "IOPS",
				       120 + 0.1 * cell, DIR_HIGHER);
			result_set_add(&rs, k[i], "iops.sys_cpu_per_op", "us",
				       cpu, DIR_LOWER);
			result_set_add(&rs, k[i], "iops.kthread_share", "%",
				       i ? 70 : 10, DIR_NONE);
			result_set_add(&rs, k[i],
				       "tiobench.rand_read.sys_cpu_per_op",
				       "us", cpu, DIR_LOWER);
		}
		wfix_import(f, &rs, NULL);
	}
	t = text_of(f, k, 2);
	assert_pasteable(t, 100);
	row = strstr(t, "\niops.sys_cpu_per_op ");
	assert_non_null(row);
	assert_non_null(strstr(row, "+198.5% worse"));
	assert_non_null(strstr(t, "\ntiobench.rand_read.sys_cpu_per_op "));
	assert_non_null(strstr(t, "iops.kthread_share"));
	assert_non_null(strstr(t, "  iops.sys_cpu_per_op (worse, headline)\n"));
	assert_non_null(strstr(t, "  tiobench.rand_read.sys_cpu_per_op "
			       "(worse)\n"));
	free(t);
	wfix_compare(f, k, 2, &c);
	sb_init(&sb);
	page_compare_tables(&sb, &c);
	row = strstr(sb.buf, ">iops.sys_cpu_per_op</a>");
	assert_non_null(row);
	assert_non_null(strstr(row, "worse"));
	assert_true(strstr(row, "</tr>") > strstr(row, "worse"));
	assert_non_null(strstr(sb.buf, ">tiobench.rand_read.sys_cpu_per_op"
			       "</a>"));
	assert_non_null(strstr(sb.buf, "2 metrics worse</span> (1 "
			       "headline)"));
	/* the CSV and JSON carry it with its class and floor */
	sb.len = 0;
	report_csv(&sb, &c);
	assert_non_null(strstr(sb.buf, "\niops.sys_cpu_per_op,us,lower,"
			       "headline,6.1.192+cpu-kworker,0,4,4,601.5,"));
	assert_non_null(strstr(sb.buf, "\ntiobench.rand_read.sys_cpu_per_op,"
			       "us,lower,secondary,"));
	j = report_json(&c);
	for (i = 0; i < json_array_size(json_object_get(j, "metrics")); i++) {
		json_t *m = json_array_get(json_object_get(j, "metrics"), i);

		if (strcmp(json_string_value(json_object_get(m, "name")),
			   "iops.sys_cpu_per_op"))
			continue;
		m = json_array_get(json_object_get(m, "cells"), 1);
		assert_string_equal(json_string_value(json_object_get(m,
				    "verdict")), "worse");
		assert_true(json_real_value(json_object_get(m, "floor_pct")) ==
			    5);
		break;
	}
	assert_true(i < json_array_size(json_object_get(j, "metrics")));
	json_decref(j);
	sb_release(&sb);
	compare_release(&c);
}

static void test_ascii(void **state)
{
	char buf[16];

	fmt_ascii(buf, sizeof(buf), "a\tb\x01\xff\xc3\xa9 z");
	assert_string_equal(buf, "a?b???? z");
	fmt_ascii(buf, 4, "abcdef");
	assert_string_equal(buf, "abc");
}

static size_t count_char(const char *s, char ch)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == ch;
	return n;
}

static void test_csv_json(void **state)
{
	struct wfix *f = *state;
	const char *k[] = { "6.1.176", "6.1.192", "6.1.200" };
	struct result_set rs;
	struct comparison c;
	struct strbuf sb = STRBUF_INIT;
	json_t *j, *m, *cell;
	const char *line;

	result_set_init(&rs);
	wfix_tio(&rs, k[0], "seq_read", &r176);
	wfix_tio(&rs, k[1], "seq_read", &r192);
	result_set_add(&rs, k[2], "iops.total", "IOPS", 10, DIR_HIGHER);
	wfix_import(f, &rs, NULL);
	wfix_compare(f, k, 3, &c);
	sb_init(&sb);
	report_csv(&sb, &c);
	assert_int_equal(c.nm, 11);
	assert_int_equal(count_char(sb.buf, '\n'), 1 + 11 * 3);
	assert_non_null(strstr(sb.buf, "metric,unit,direction,class,kernel,"
		"baseline,n,reps,mean,stddev,min,max,delta_pct,ci_lo_pct,"
		"ci_hi_pct,p_value,p_adj,threshold_pct,verdict,note,"
		"within_sd\n"));
	for (line = sb.buf; *line; line = strchr(line, '\n') + 1) {
		const char *e = strchr(line, '\n');
		size_t commas = 0;
		int quoted = 0;

		for (; line < e; line++) {
			quoted ^= *line == '"';
			commas += *line == ',' && !quoted;
		}
		assert_int_equal(commas, 20);
	}
	assert_non_null(strstr(sb.buf, "\ntiobench.seq_read.rate,MB/s,higher,"
		"headline,6.1.192,0,1,1,43.02,0,43.02,43.02,4.417475728,,,,,,"
		"none,\"n=1, no verdict\",\n"));
	assert_non_null(strstr(sb.buf, "\niops.total,IOPS,higher,headline,"
			       "6.1.176,1,0,0,,,,,,,,,,,none,,\n"));
	assert_non_null(strstr(sb.buf, "\niops.total,IOPS,higher,headline,"
			       "6.1.200,0,1,1,10,0,10,10,,,,,,,none,"
			       "missing in the baseline,\n"));
	j = report_json(&c);
	assert_string_equal(json_string_value(json_object_get(j, "baseline")),
			    "6.1.176");
	assert_int_equal(json_array_size(json_object_get(j, "kernels")), 3);
	m = json_array_get(json_object_get(j, "metrics"), 0);
	assert_string_equal(json_string_value(json_object_get(m, "name")),
			    "iops.total");
	assert_int_equal(json_array_size(json_object_get(m, "cells")), 3);
	cell = json_array_get(json_object_get(m, "cells"), 2);
	assert_int_equal(json_integer_value(json_object_get(cell, "n")), 1);
	assert_true(json_is_array(json_object_get(cell, "values")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
		j, "summary"), "worse")),
		(json_int_t)compare_count_worse(&c, 1));
	json_decref(j);
	sb_release(&sb);
	compare_release(&c);
}

/* One run of kernel k on scsi x tio with iops.total = v (the mean of
 * reps[0..nreps) when given, stored as its repetitions); its id. */
static int64_t import_run(struct wfix *f, const char *k, double v,
			  int incomplete, const double *reps, size_t nreps)
{
	struct db_import_opts o = { 0 };
	struct result_set rs, rep;
	int64_t *ids = NULL, id;
	size_t n = 0, i;

	result_set_init(&rs);
	result_set_setstr(&rs.kernel, k);
	result_set_add(&rs, k, "iops.total", "IOPS", v, DIR_HIGHER);
	rs.incomplete = incomplete;
	if (incomplete)
		result_set_setstr(&rs.error, "dbench failed (exit 1)");
	o.rig = "scsi";
	o.suite = "tio";
	if (db_import(f->db, &rs, &o, &ids, &n, f->err, sizeof(f->err)))
		fail_msg("import: %s", f->err);
	assert_int_equal(n, 1);
	id = ids[0];
	free(ids);
	for (i = 0; i < nreps; i++) {
		result_set_init(&rep);
		result_set_add(&rep, k, "iops.total", "IOPS", reps[i],
			       DIR_HIGHER);
		result_set_add(&rep, k, "no.such.metric", "", 1, DIR_NONE);
		assert_int_equal(db_run_reps_add(f->db, id, (int)i + 1, 1,
						 &rep, f->err,
						 sizeof(f->err)), DB_OK);
		result_set_release(&rep);
	}
	result_set_release(&rs);
	return id;
}

/* A run that did not complete (its numbers partial, warm-up metrics and
 * all) never enters a comparison or the history. */
static void test_incomplete_left_out(void **state)
{
	struct wfix *f = *state;
	const char *k[] = { "6.1.176", "6.1.192" };
	const struct cmp_metric *m;
	struct db_sample *h = NULL;
	struct comparison c;
	size_t nh = 0, i;

	import_run(f, k[0], 100, 0, NULL, 0);
	import_run(f, k[0], 102, 0, NULL, 0);
	import_run(f, k[1], 90, 0, NULL, 0);
	import_run(f, k[1], 92, 0, NULL, 0);
	import_run(f, k[1], 1e6, 1, NULL, 0);	/* incomplete */
	wfix_compare(f, k, 2, &c);
	m = compare_find(&c, "iops.total");
	assert_non_null(m);
	assert_int_equal(m->cells[1].s.n, 2);
	assert_int_equal(m->cells[1].nvalues, 2);
	assert_true(m->cells[1].s.mean == 91);
	compare_release(&c);
	assert_int_equal(db_history(f->db, "iops.total", "scsi", "tio", 0, &h,
				    &nh, f->err, sizeof(f->err)), DB_OK);
	assert_int_equal(nh, 4);
	for (i = 0; i < nh; i++)
		assert_true(h[i].value < 1000);
	db_samples_free(h, nh);
}

/* Each repetition stored as a sample of its run: read back in order, a
 * repeat refused, and the within-boot sd beside the cells' sd. */
static void test_reps(void **state)
{
	struct wfix *f = *state;
	const char *k[] = { "6.1.176", "6.1.192" };
	const double a[] = { 99, 101 }, b[] = { 101, 103 }, c2[] = { 90, 94 };
	const struct cmp_metric *m;
	struct result_set rep;
	struct comparison c;
	struct db_rep *v = NULL;
	int64_t run;
	size_t n = 0;
	json_t *j, *cell;

	run = import_run(f, k[0], 100, 0, a, 2);
	import_run(f, k[0], 102, 0, b, 2);
	import_run(f, k[1], 92, 0, c2, 2);
	import_run(f, k[1], 90, 0, NULL, 0);
	assert_int_equal(db_run_reps(f->db, &run, 1, &v, &n), DB_OK);
	assert_int_equal(n, 2);		/* the unknown metric is skipped */
	assert_int_equal(v[0].rep, 1);
	assert_true(v[0].value == 99 && v[1].value == 101 && v[1].complete);
	assert_string_equal(v[1].metric, "iops.total");
	db_reps_free(v, n);
	result_set_init(&rep);
	result_set_add(&rep, k[0], "iops.total", "IOPS", 1, DIR_HIGHER);
	assert_int_equal(db_run_reps_add(f->db, run, 1, 1, &rep, f->err,
					 sizeof(f->err)), DB_CONFLICT);
	assert_non_null(strstr(f->err, "stored twice"));
	assert_int_equal(db_run_reps_add(f->db, run, 0, 1, &rep, f->err,
					 sizeof(f->err)), DB_INVALID);
	result_set_release(&rep);
	wfix_compare(f, k, 2, &c);
	m = compare_find(&c, "iops.total");
	/* the cell stays the unit: means 100 and 102 */
	assert_int_equal(m->cells[0].s.n, 2);
	assert_true(fabs(m->cells[0].s.stddev - sqrt(2)) < 1e-9);
	/* within: (1 + 1 + 1 + 1) / 2 df -> sqrt(2) */
	assert_int_equal(m->cells[0].within_df, 2);
	assert_true(fabs(m->cells[0].within_sd - sqrt(2)) < 1e-9);
	/* one run with repetitions (90, 94), one without */
	assert_int_equal(m->cells[1].within_df, 1);
	assert_true(fabs(m->cells[1].within_sd - sqrt(8)) < 1e-9);
	j = report_json(&c);
	cell = json_array_get(json_object_get(json_array_get(
		json_object_get(j, "metrics"), 0), "cells"), 1);
	assert_true(fabs(json_real_value(json_object_get(cell, "within_sd")) -
			 sqrt(8)) < 1e-9);
	assert_int_equal(json_integer_value(json_object_get(cell,
							    "within_df")), 1);
	json_decref(j);
	compare_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tiobench_exact,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_columns_aligned,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_repetitions,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_dbench_readlat_lines,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_generic_and_hostile,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_cpu_per_op,
						wfix_setup, wfix_teardown),
		cmocka_unit_test(test_ascii),
		cmocka_unit_test_setup_teardown(test_csv_json,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_incomplete_left_out,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_reps,
						wfix_setup, wfix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
