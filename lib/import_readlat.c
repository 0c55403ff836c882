// SPDX-License-Identifier: MIT
/*
 * import_readlat: the read-latency summary that streaming-read tests print
 * and kernel developers quote in scheduler threads:
 *
 *   reads: 30.1 MB, 0.41 MB/s
 *   read latency min 0.00 avg 6.1 max 4420.3 > 2s 0.00% > 10s 0.00%
 *
 * Each line may carry a kernel identifier in front ("2.4.22 reads: ...");
 * a pair belongs to the kernel it names, or to the default kernel.  Lines
 * that start otherwise are prose and skipped; a line that starts like a
 * result must have every value, or the import fails naming line and field.
 */
#include "import.h"

#include <stdio.h>
#include <string.h>

#include "import_priv.h"

/* The document being read: results so far, the kernel given. */
struct readlat {
	struct iacc acc;
	const char *dflt;
};

struct cursor {
	const struct itok *t;
	size_t n, i;
	int line;
};

static const struct itok *cur_next(struct cursor *c)
{
	return c->i < c->n ? &c->t[c->i++] : NULL;
}

/* A value token for field; trailing '%' or ',' allowed when strip says. */
static int cur_num(struct cursor *c, const char *field, const char *strip,
		   double *v, struct import_error *err)
{
	const struct itok *t = cur_next(c);
	char show[64];
	size_t n;

	if (!t)
		return import_fail(err, c->line, field, "missing");
	n = t->n;
	if (n > 1 && strchr(strip, t->p[n - 1]))
		n--;
	if (!num_parse(t->p, n, v))
		return 0;
	itok_show(t, show, sizeof(show));
	return import_fail(err, c->line, field, "not a number '%s'", show);
}

/* The label word (">2s" may come as ">" "2s"); 0 or -1 with err set. */
static int cur_label(struct cursor *c, const char *label, const char *field,
		     struct import_error *err)
{
	const struct itok *t = cur_next(c);
	char show[64];

	if (t && label[0] == '>' && itok_eq(t, ">")) {
		t = cur_next(c);
		label++;
	}
	if (t && itok_eq(t, label))
		return 0;
	if (!t)
		return import_fail(err, c->line, field, "missing");
	itok_show(t, show, sizeof(show));
	return import_fail(err, c->line, field, "expected '%s', found '%s'",
			   label, show);
}

static int reads_line(struct iacc *acc, const char *kernel, struct cursor *c,
		      struct import_error *err)
{
	const struct itok *t;
	double mb, rate;

	if (cur_num(c, "reads", "", &mb, err))
		return -1;
	t = cur_next(c);
	if (!t || !(itok_eq(t, "MB,") || itok_eq(t, "MB")))
		return import_fail(err, c->line, "reads", "expected 'MB,'");
	if (itok_eq(t, "MB") && c->i < c->n && itok_eq(&c->t[c->i], ","))
		c->i++;
	if (cur_num(c, "rate", "", &rate, err))
		return -1;
	t = cur_next(c);
	if (!t || !itok_eq(t, "MB/s"))
		return import_fail(err, c->line, "rate", "expected 'MB/s'");
	iacc_add(acc, kernel, "readlat.read_mb", "MB", mb, DIR_NONE, c->line);
	iacc_add(acc, kernel, "readlat.rate", "MB/s", rate, DIR_HIGHER,
		 c->line);
	return 0;
}

static const struct {
	const char *label, *metric, *unit;
} lat_fields[] = {
	{ "min", "readlat.lat_min", "ms" },
	{ "avg", "readlat.lat_avg", "ms" },
	{ "max", "readlat.lat_max", "ms" },
	{ ">2s", "readlat.lat_2s", "%" },
	{ ">10s", "readlat.lat_10s", "%" },
};

/* "min V avg V max V > 2s P% > 10s P%"; the two shares are optional. */
static int latency_line(struct iacc *acc, const char *kernel,
			struct cursor *c, struct import_error *err)
{
	double v[5];
	size_t i;

	for (i = 0; i < 5; i++) {
		if (i == 3 && c->i == c->n)
			break;
		if (cur_label(c, lat_fields[i].label, lat_fields[i].label,
			      err) ||
		    cur_num(c, lat_fields[i].label, "%", &v[i], err))
			return -1;
	}
	while (i-- > 0)
		iacc_add(acc, kernel, lat_fields[i].metric, lat_fields[i].unit,
			 v[i], DIR_LOWER, c->line);
	return 0;
}

/* 1 when the tokens at k start a result line (and how many words). */
static int line_kind(const struct itok *t, size_t n, size_t k, size_t *words)
{
	if (k < n && itok_eq(&t[k], "reads:")) {
		*words = 1;
		return 1;
	}
	if (k + 1 < n && itok_eq(&t[k], "read") &&
	    itok_eq(&t[k + 1], "latency")) {
		*words = 2;
		return 2;
	}
	return 0;
}

static int one_line(void *ctx, const struct itok *t, size_t n, int line,
		    struct import_error *err)
{
	struct readlat *r = ctx;
	struct iacc *acc = &r->acc;
	char id[IMPORT_NAME_MAX + 1];
	const char *kernel = r->dflt;
	struct cursor c = { t, n, 0, line };
	size_t words = 0;
	int kind = line_kind(t, n, 0, &words);

	if (!kind) {
		kind = line_kind(t, n, 1, &words);
		if (!kind || itok_kernel(&t[0], id, sizeof(id)))
			return 0;
		kernel = id;
		c.i = 1;
	}
	c.i += words;
	if (!kernel)
		return import_fail(err, line, "kernel", "no kernel identifier: "
				   "none in front of the line and none given");
	if (kind == 1)
		return reads_line(acc, kernel, &c, err);
	return latency_line(acc, kernel, &c, err);
}

int import_readlat(const char *buf, size_t len, const char *kernel,
		   struct result_set *out, struct import_error *err)
{
	struct readlat r;

	iacc_init(&r.acc);
	r.dflt = import_default_kernel(kernel, out);
	if (iline_each(buf, len, one_line, &r, err)) {
		iacc_release(&r.acc);
		return -1;
	}
	return iacc_finish(&r.acc, out, err, "read latency");
}
