// SPDX-License-Identifier: MIT
/*
 * Unit tests for workloads/tiotext.c: tiotest's --text output read back by
 * import_tiobench() gives the same numbers to the precision printed, for
 * ordinary values, wide values that fill their columns, and a subset of
 * phases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/import.h"
#include "workloads/tiotext.h"

static const struct {
	const char *field;
	double tol;	/* absolute, from the printed precision */
	int rel;	/* also tol x value (CPU% has 4 digits) */
} fields[] = {
	{ "file_size", 0.5, 0 }, { "blk_size", 0.5, 0 }, { "threads", 0.5, 0 },
	{ "rate", 0.005, 0 }, { "cpu", 0.0005, 1 }, { "avg_lat", 0.0005, 0 },
	{ "max_lat", 0.005, 0 }, { "lat_2s", 0.000005, 0 },
	{ "lat_10s", 0.000005, 0 }, { "cpu_eff", 0.5, 0 },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static void add_phase(struct result_set *rs, const char *phase,
		      const double *v)
{
	char name[128];
	size_t i;

	for (i = 0; i < NFIELDS; i++) {
		snprintf(name, sizeof(name), "tiobench.%s.%s", phase,
			 fields[i].field);
		result_set_add(rs, NULL, name, "", v[i], DIR_NONE);
	}
}

static double lookup(const struct result_set *rs, const char *name)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].metric, name) == 0)
			return rs->v[i].value;
	fail_msg("metric '%s' missing after import", name);
	return NAN;
}

static void round_trip(const struct result_set *rs, const char *id,
		       int nphases)
{
	struct strbuf sb = STRBUF_INIT;
	struct result_set back;
	struct import_error err;
	size_t i, k;

	sb_init(&sb);
	assert_int_equal(tiotext_format(&sb, rs, id), nphases);
	result_set_init(&back);
	if (import_tiobench(sb.buf, sb.len, NULL, &back, &err) < 0)
		fail_msg("import failed: line %d %s: %s\n%s", err.line,
			 err.field, err.msg, sb.buf);
	for (k = 0; k < rs->n; k++) {
		double want = rs->v[k].value, got, tol;

		if (strncmp(rs->v[k].metric, "tiobench.", 9) != 0)
			continue;
		for (i = 0; i < NFIELDS; i++) {
			const char *dot = strrchr(rs->v[k].metric, '.');

			if (strcmp(dot + 1, fields[i].field) == 0)
				break;
		}
		if (i == NFIELDS)
			continue;	/* not a text column (lat_p99) */
		got = lookup(&back, rs->v[k].metric);
		tol = fields[i].tol;
		if (fields[i].rel && tol * fabs(want) > tol)
			tol *= fabs(want);
		if (fabs(got - want) > tol + 1e-9)
			fail_msg("%s: wrote %.6f, read back %.6f",
				 rs->v[k].metric, want, got);
	}
	for (i = 0; i < back.n; i++)
		assert_string_equal(back.v[i].kernel, id);
	result_set_release(&back);
	sb_release(&sb);
}

static void test_four_phases(void **state)
{
	static const double a[] = { 512, 4096, 8, 41.2049, 12.3112, 0.74149,
				    1811.0512, 0, 0, 334.69 };
	static const double b[] = { 512, 4096, 8, 0.4712, 9.99987, 213.6291,
				    1301.6812, 0.01234, 0.00051, 85.3 };
	struct result_set rs;

	result_set_init(&rs);
	result_set_setstr(&rs.kernel, "6.1.176");
	add_phase(&rs, "seq_read", a);
	add_phase(&rs, "rand_read", b);
	add_phase(&rs, "seq_write", a);
	add_phase(&rs, "rand_write", b);
	result_set_add(&rs, NULL, "tiobench.seq_read.lat_p99", "ms", 3,
		       DIR_LOWER);
	round_trip(&rs, "6.1.176", 4);
	result_set_release(&rs);
}

static void test_wide_values(void **state)
{
	/* values that fill or overflow their columns still parse */
	static const double w[] = { 131072, 1048576, 1024, 12345.67, 1234.5,
				    123456.789, 98765432.1, 99.5, 12.25,
				    99999 };
	struct result_set rs;

	result_set_init(&rs);
	add_phase(&rs, "rand_write", w);
	round_trip(&rs, "6.12.117+deb12-cloud-amd64-with-a-long-suffix", 1);
	result_set_release(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_four_phases),
		cmocka_unit_test(test_wide_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
