// SPDX-License-Identifier: MIT
/*
 * import_dbench: dbench results.  The final line of dbench 4,
 *
 *   Throughput 412.5 MB/sec  50 clients  50 procs  max_latency=58.123 ms
 *
 * with the per-operation table printed just before it, and the older
 *
 *   Throughput 98.4 MB/sec (NB=123.0 MB/sec  984.0 MBit/sec)  16 procs
 *
 * Either may carry a kernel identifier in front ("2.4.22  Throughput ..."),
 * so one mail can hold several kernels' lines; an operation table belongs
 * to the Throughput line that follows it.  The text is read as tokens
 * (import_text.c), so the lines also import when a mail archive re-flowed
 * them into one paragraph: a result starts at "Throughput V" and takes
 * the values that follow it ("N clients", "N procs", "(NB=V ...)",
 * "max_latency=V ms") up to the first token that is none of them; a table
 * is its header, its dashed rule, then rows of a name and three numbers.
 * Anything else in the mail is prose and skipped.
 */
#include "import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "import_priv.h"

#define OPNAME_MAX 32

struct op {
	char name[OPNAME_MAX + 1];
	double count, avg, max;
	int line;
};

/* The operation table waiting for its Throughput line. */
struct optable {
	struct op *v;
	size_t n, alloc;
	int line;	/* of its header */
};

static void add(struct itext *x, const char *kernel, const char *key,
		const char *unit, double v, enum metric_dir dir, int line)
{
	char metric[96];

	snprintf(metric, sizeof(metric), "dbench.%s", key);
	iacc_add(&x->acc, kernel, metric, unit, v, dir, line);
}

static void flush_ops(struct itext *x, const char *kernel)
{
	struct optable *tb = x->priv;
	char key[80];
	size_t i;

	for (i = 0; i < tb->n; i++) {
		const struct op *o = &tb->v[i];

		snprintf(key, sizeof(key), "op.%s.count", o->name);
		add(x, kernel, key, "", o->count, DIR_NONE, o->line);
		snprintf(key, sizeof(key), "op.%s.avg_lat", o->name);
		add(x, kernel, key, "ms", o->avg, DIR_LOWER, o->line);
		snprintf(key, sizeof(key), "op.%s.max_lat", o->name);
		add(x, kernel, key, "ms", o->max, DIR_LOWER, o->line);
	}
	tb->n = 0;
}

static int op_name_valid(const struct itok *t)
{
	size_t i;

	if (t->n == 0 || t->n > OPNAME_MAX)
		return 0;
	for (i = 0; i < t->n; i++) {
		char c = t->p[i];

		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !(c >= '0' && c <= '9') && c != '_')
			return 0;
	}
	return 1;
}

/* A row, " NTCreateX  1234567  0.123  45.678", after its name. */
static int op_row(struct itext *x, struct ilex *lx, const struct itok *name,
		  struct import_error *err)
{
	struct optable *tb = x->priv;
	struct irec r;
	struct itok t;
	struct op o;
	char show[64];
	double extra;

	memset(&o, 0, sizeof(o));
	memcpy(o.name, name->p, name->n);
	o.line = name->line;
	irec_begin(&r, lx, name, name);
	if (irec_num(&r, "Count", "", &o.count, err) ||
	    irec_num(&r, "AvgLat", "", &o.avg, err) ||
	    irec_num(&r, "MaxLat", "", &o.max, err))
		return -1;
	if (r.bol && irec_peek(&r, &t) && t.line == r.last &&
	    !itok_num(&t, &extra)) {
		itok_show(&t, show, sizeof(show));
		return import_fail(err, t.line, "MaxLat", "extra value '%s' "
				   "after the last column", show);
	}
	ALLOC_GROW(tb->v, tb->n, tb->alloc);
	tb->v[tb->n++] = o;
	return 0;
}

/* A row starts at the next token: a name, then a number. */
static int op_row_next(const struct ilex *lx, struct itok *name)
{
	struct itok v;
	double num;

	return ilex_peek(lx, 0, name) && ilex_peek(lx, 1, &v) &&
	       op_name_valid(name) && !itok_eq(name, "Throughput") &&
	       !itok_num(&v, &num);
}

/* "Operation Count AvgLat MaxLat", a dashed rule, rows: 1, 0, -1. */
static int op_table(struct itext *x, struct ilex *lx, const struct itok *t,
		    struct import_error *err)
{
	static const char *const head[] = { "Count", "AvgLat", "MaxLat" };
	struct optable *tb = x->priv;
	struct ilex cur = *lx;
	struct itok h;
	size_t i;

	if (!itok_eq(t, "Operation"))
		return 0;
	for (i = 0; i < 3; i++)
		if (!ilex_next(&cur, &h) || !itok_eq(&h, head[i]))
			return 0;
	if (!ilex_next(&cur, &h) || !itok_all(&h, '-'))
		return 0;
	while (ilex_peek(&cur, 0, &h) && itok_all(&h, '-'))
		ilex_next(&cur, &h);
	*lx = cur;
	tb->n = 0;
	tb->line = t->line;
	while (op_row_next(lx, &h)) {
		ilex_next(lx, &h);
		if (op_row(x, lx, &h, err))
			return -1;
	}
	return 1;
}

/* Whatever follows the number of "(NB=V MB/sec  V MBit/sec)". */
static void nb_rest(struct irec *r)
{
	struct itok v, u;
	double num;

	irec_take_word(r, "MB/sec");
	if (ilex_peek(r->lx, 0, &v) && !itok_num(&v, &num) &&
	    ilex_peek(r->lx, 1, &u) && itok_prefix(&u, "MBit/sec")) {
		irec_take(r);
		irec_take(r);
	}
	irec_take_word(r, ")");
}

/* t (taken) is key and a value, or key alone and the value next. */
static int keyed_num(struct irec *r, const struct itok *t, size_t keylen,
		     const char *field, double *v, struct import_error *err)
{
	struct itok val = *t;
	char show[64];

	val.p += keylen;
	val.n -= keylen;
	if (!val.n)
		return irec_num(r, field, "", v, err);
	if (!itok_num(&val, v))
		return 0;
	itok_show(&val, show, sizeof(show));
	return import_fail(err, t->line, field, "not a number '%s'", show);
}

/* A pair "N clients", "N procs" or "(sync open)" at t, u: 1 or 0. */
static int pair_item(struct itext *x, struct irec *r, const char *kernel,
		     const struct itok *t, const struct itok *u)
{
	double v;

	if (!itok_num(t, &v) &&
	    (itok_eq(u, "clients") || itok_eq(u, "procs"))) {
		add(x, kernel, itok_eq(u, "clients") ? "clients" : "procs",
		    "", v, DIR_NONE, r->line);
	} else if (!itok_eq(t, "(sync") ||
		   !(itok_eq(u, "open)") || itok_eq(u, "dirs)"))) {
		return 0;
	}
	irec_take(r);
	irec_take(r);
	return 1;
}

/* The next value after "MB/sec": 1 taken, 0 the result ends, -1. */
static int throughput_item(struct itext *x, struct irec *r,
			   const char *kernel, struct import_error *err)
{
	struct itok t, u;
	double v;

	if (!irec_peek(r, &t))
		return 0;
	if (itok_prefix(&t, "(NB=")) {
		irec_take(r);
		if (keyed_num(r, &t, 4, "NB", &v, err))
			return -1;
		add(x, kernel, "nb_throughput", "MB/s", v, DIR_HIGHER,
		    r->line);
		nb_rest(r);
		return 1;
	}
	if (itok_prefix(&t, "max_latency=")) {
		irec_take(r);
		if (keyed_num(r, &t, 12, "max_latency", &v, err))
			return -1;
		add(x, kernel, "max_latency", "ms", v, DIR_LOWER, r->line);
		irec_take_word(r, "ms");
		return 1;
	}
	return ilex_peek(r->lx, 1, &u) && pair_item(x, r, kernel, &t, &u);
}

/* "Throughput V MB/sec" at t, or "Throughput V" cut short. */
static int throughput_starts(const struct ilex *lx, const struct itok *t)
{
	struct itok v, u;
	double num;

	if (!itok_eq(t, "Throughput") || !ilex_peek(lx, 0, &v))
		return 0;
	if (ilex_peek(lx, 1, &u) && itok_eq(&u, "MB/sec"))
		return 1;
	return !itok_num(&v, &num);
}

static int throughput(struct itext *x, struct ilex *lx, const struct itok *t,
		      const struct itok *lead, const char **from,
		      struct import_error *err)
{
	char id[IMPORT_NAME_MAX + 1];
	const char *kernel = x->kernel;
	const struct itok *first = t;
	struct irec r;
	double v;
	int rc;

	if (!throughput_starts(lx, t))
		return 0;
	if (!itok_lead_kernel(lead, t, id, sizeof(id))) {
		kernel = id;
		first = lead;
		*from = lead->p;
	}
	irec_begin(&r, lx, first, t);
	if (irec_num(&r, "Throughput", "", &v, err) ||
	    irec_word(&r, "Throughput", "MB/sec", err))
		return -1;
	if (!kernel)
		return import_fail(err, r.line, "kernel", "no kernel "
				   "identifier: none in front of Throughput "
				   "and none given");
	flush_ops(x, kernel);
	add(x, kernel, "throughput", "MB/s", v, DIR_HIGHER, r.line);
	do {
		rc = throughput_item(x, &r, kernel, err);
	} while (rc > 0);
	return rc < 0 ? -1 : 1;
}

static int dbench_at(struct itext *x, struct ilex *lx, const struct itok *t,
		     const struct itok *lead, const char **from,
		     struct import_error *err)
{
	int r = op_table(x, lx, t, err);

	return r ? r : throughput(x, lx, t, lead, from, err);
}

/* A table with no Throughput line after it: the default kernel's. */
static int dbench_end(struct itext *x, struct import_error *err)
{
	struct optable *tb = x->priv;

	if (tb->n && !x->kernel)
		return import_fail(err, tb->line, "kernel", "operation table "
				   "has no Throughput line after it and no "
				   "kernel given");
	flush_ops(x, x->kernel);
	return 0;
}

static void dbench_release(struct itext *x)
{
	struct optable *tb = x->priv;

	free(tb->v);
	free(tb);
	x->priv = NULL;
}

static void dbench_init(struct itext *x)
{
	x->priv = xcalloc(1, sizeof(struct optable));
}

const struct itext_ops itext_dbench = {
	.name = "dbench",
	.fmt = IMPORT_DBENCH,
	.init = dbench_init,
	.at = dbench_at,
	.end = dbench_end,
	.release = dbench_release,
};

int import_dbench(const char *buf, size_t len, const char *kernel,
		  struct result_set *out, struct import_error *err)
{
	return itext_import(&itext_dbench, buf, len, kernel, out, err);
}
