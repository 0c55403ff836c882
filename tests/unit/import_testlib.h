/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the importer unit tests (included after cmocka.h):
 * loading tests/data files, importing from exact-size heap copies so that
 * ASan sees any read past the end, looking results up, and checking that a
 * failed import names the expected line and field and leaves its output
 * untouched.  Header-only because the Makefile builds each test_*.c alone.
 */
#ifndef KLAB_IMPORT_TESTLIB_H
#define KLAB_IMPORT_TESTLIB_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/import.h"
#include "lib/strbuf.h"

/* A tiobench section head: the first row is on line 5. */
#define TIO_HEAD \
	"Sequential Reads\n" \
	"                              File  Blk   Num                   " \
	"Avg      Maximum      Lat%     Lat%    CPU\n" \
	"Identifier                    Size  Size  Thr   Rate  (CPU%)  " \
	"Latency    Latency      >2s      >10s    Eff\n" \
	"---------------------------- ------ ----- ---  ------ ------ " \
	"--------- -----------  -------- -------- -----\n"

static inline void load(struct strbuf *sb, const char *name)
{
	const char *top = getenv("TOP");
	char path[512];

	snprintf(path, sizeof(path), "%s/tests/data/%s", top ? top : ".",
		 name);
	sb_init(sb);
	if (sb_read_file(sb, path))
		fail_msg("cannot read '%s'", path);
}

/* import_text on an exact-size heap copy of buf[0..len). */
static inline int import_mem(enum import_format f, const char *buf,
			     size_t len, const char *kernel,
			     struct result_set *rs, struct import_error *err)
{
	char *copy = malloc(len ? len : 1);
	int n;

	assert_non_null(copy);
	memcpy(copy, buf, len);
	memset(err, 0, sizeof(*err));
	n = import_text(copy, len, f, kernel, rs, err);
	free(copy);
	return n;
}

static inline int import_str(enum import_format f, const char *s,
			     const char *kernel, struct result_set *rs,
			     struct import_error *err)
{
	return import_mem(f, s, strlen(s), kernel, rs, err);
}

static inline int import_file(enum import_format f, const char *name,
			      const char *kernel, struct result_set *rs,
			      struct import_error *err)
{
	struct strbuf sb;
	int n;

	load(&sb, name);
	n = import_mem(f, sb.buf, sb.len, kernel, rs, err);
	sb_release(&sb);
	return n;
}

static inline const struct result *find(const struct result_set *rs,
					const char *kernel,
					const char *metric)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].metric, metric) && rs->v[i].kernel &&
		    !strcmp(rs->v[i].kernel, kernel))
			return &rs->v[i];
	return NULL;
}

static inline void expect_metric(const struct result_set *rs,
				 const char *kernel, const char *metric,
				 double value, const char *unit,
				 enum metric_dir dir)
{
	const struct result *r = find(rs, kernel, metric);

	if (!r)
		fail_msg("no '%s' for kernel '%s'", metric, kernel);
	if (fabs(r->value - value) > 1e-9 * fmax(1.0, fabs(value)))
		fail_msg("%s %s: %.17g, expected %.17g", kernel, metric,
			 r->value, value);
	if (strcmp(r->unit, unit))
		fail_msg("%s: unit '%s', expected '%s'", metric, r->unit,
			 unit);
	if (r->dir != dir)
		fail_msg("%s: direction %d, expected %d", metric, r->dir,
			 dir);
}

/*
 * Import text in format f and expect failure on line, naming field, with
 * msg somewhere in the message; the output set must be left as it was.
 */
static inline void expect_error(enum import_format f, const char *text,
				const char *kernel, int line,
				const char *field, const char *msg)
{
	struct result_set rs;
	struct import_error err;

	result_set_init(&rs);
	result_set_add(&rs, "before", "x.y", "", 1, DIR_NONE);
	if (import_str(f, text, kernel, &rs, &err) != -1)
		fail_msg("accepted: %s", text);
	if (err.line != line || strcmp(err.field, field) ||
	    !strstr(err.msg, msg))
		fail_msg("got line %d field '%s' msg '%s', expected line %d "
			 "field '%s' msg '%s'", err.line, err.field, err.msg,
			 line, field, msg);
	assert_int_equal(rs.n, 1);
	assert_string_equal(rs.v[0].metric, "x.y");
	assert_null(rs.format);
	result_set_release(&rs);
}

#endif
