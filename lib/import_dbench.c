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
 * to the Throughput line that follows it.  Lines are read one by one (quote
 * marks stripped); a line is a result line when "Throughput" is followed by
 * a value and "MB/sec", anything else in the mail is prose and skipped.
 */
#include "import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_priv.h"

#define OPNAME_MAX 32

struct op {
	char name[OPNAME_MAX + 1];
	double count, avg, max;
	int line;
};

struct dbench {
	struct iacc acc;
	const char *kernel;	/* default for lines that name none */
	struct op *ops;		/* table waiting for its Throughput line */
	size_t nops, aops;
	int table_line;		/* line of the table header, 0: none */
	int in_table;		/* 1 after the header, 2 after the rule */
};

static void add(struct dbench *d, const char *kernel, const char *key,
		const char *unit, double v, enum metric_dir dir, int line)
{
	char metric[96];

	snprintf(metric, sizeof(metric), "dbench.%s", key);
	iacc_add(&d->acc, kernel, metric, unit, v, dir, line);
}

static void flush_ops(struct dbench *d, const char *kernel)
{
	char key[80];
	size_t i;

	for (i = 0; i < d->nops; i++) {
		const struct op *o = &d->ops[i];

		snprintf(key, sizeof(key), "op.%s.count", o->name);
		add(d, kernel, key, "", o->count, DIR_NONE, o->line);
		snprintf(key, sizeof(key), "op.%s.avg_lat", o->name);
		add(d, kernel, key, "ms", o->avg, DIR_LOWER, o->line);
		snprintf(key, sizeof(key), "op.%s.max_lat", o->name);
		add(d, kernel, key, "ms", o->max, DIR_LOWER, o->line);
	}
	d->nops = 0;
	d->table_line = 0;
}

static int num_field(const struct itok *t, int line, const char *field,
		     double *v, struct import_error *err)
{
	char show[64];

	if (t && !itok_num(t, v))
		return 0;
	if (!t)
		return import_fail(err, line, field, "missing");
	itok_show(t, show, sizeof(show));
	return import_fail(err, line, field, "not a number '%s'", show);
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

/* A row of the operation table: " NTCreateX  1234567  0.123  45.678". */
static int op_row(struct dbench *d, const struct itok *t, size_t n, int line,
		  struct import_error *err)
{
	static const char *const names[] = { "Operation", "Count", "AvgLat",
					     "MaxLat" };
	struct op o;
	char show[64];

	if (n > 4) {
		itok_show(&t[4], show, sizeof(show));
		return import_fail(err, line, "MaxLat", "extra value '%s' "
				   "after the last column", show);
	}
	memset(&o, 0, sizeof(o));
	memcpy(o.name, t[0].p, t[0].n);
	o.line = line;
	if (num_field(n > 1 ? &t[1] : NULL, line, names[1], &o.count, err) ||
	    num_field(n > 2 ? &t[2] : NULL, line, names[2], &o.avg, err) ||
	    num_field(n > 3 ? &t[3] : NULL, line, names[3], &o.max, err))
		return -1;
	if (d->nops == d->aops) {
		d->aops = d->aops ? d->aops * 2 : 16;
		d->ops = realloc(d->ops, d->aops * sizeof(*d->ops));
		if (!d->ops)
			abort();
	}
	d->ops[d->nops++] = o;
	return 0;
}

/* Table header, rule and rows; 1 when the line belonged to the table. */
static int op_table(struct dbench *d, const struct itok *t, size_t n,
		    int line, struct import_error *err)
{
	double v;

	if (n == 4 && itok_eq(&t[0], "Operation") && itok_eq(&t[1], "Count") &&
	    itok_eq(&t[2], "AvgLat") && itok_eq(&t[3], "MaxLat")) {
		d->nops = 0;
		d->table_line = line;
		d->in_table = 1;
		return 1;
	}
	if (d->in_table == 1) {
		d->in_table = (n == 1 && itok_all(&t[0], '-')) ? 2 : 0;
		return d->in_table != 0;
	}
	if (d->in_table == 2 && n >= 2 && op_name_valid(&t[0]) &&
	    !itok_eq(&t[0], "Throughput") && !itok_num(&t[1], &v))
		return op_row(d, t, n, line, err) ? -1 : 1;
	d->in_table = 0;
	return 0;
}

/* 1 with *val set when t[*i] is "key=V" (V may be the next token). */
static int keyed(const struct itok *t, size_t n, size_t *i, const char *key,
		 struct itok *val)
{
	size_t kl = strlen(key);

	if (t[*i].n < kl || memcmp(t[*i].p, key, kl))
		return 0;
	*val = t[*i];
	val->p += kl;
	val->n -= kl;
	if (val->n == 0 && *i + 1 < n)
		*val = t[++*i];
	return 1;
}

/* What follows "Throughput V MB/sec": NB=, clients, procs, max_latency. */
static int throughput_rest(struct dbench *d, const char *kernel,
			   const struct itok *t, size_t n, size_t i, int line,
			   struct import_error *err)
{
	struct itok val;
	double v;

	for (; i < n; i++) {
		if (keyed(t, n, &i, "(NB=", &val)) {
			if (num_field(&val, line, "NB", &v, err))
				return -1;
			add(d, kernel, "nb_throughput", "MB/s", v, DIR_HIGHER,
			    line);
		} else if (keyed(t, n, &i, "max_latency=", &val)) {
			if (num_field(&val, line, "max_latency", &v, err))
				return -1;
			add(d, kernel, "max_latency", "ms", v, DIR_LOWER, line);
		} else if (i + 1 < n && !itok_num(&t[i], &v) &&
			   (itok_eq(&t[i + 1], "clients") ||
			    itok_eq(&t[i + 1], "procs"))) {
			add(d, kernel, itok_eq(&t[i + 1], "clients") ?
			    "clients" : "procs", "", v, DIR_NONE, line);
			i++;
		}
	}
	return 0;
}

size_t dbench_throughput_at(const struct itok *t, size_t n)
{
	size_t k;

	if (n >= 3 && itok_eq(&t[0], "Throughput"))
		k = 0;
	else if (n >= 4 && itok_eq(&t[1], "Throughput"))
		k = 1;
	else
		return 0;
	return itok_eq(&t[k + 2], "MB/sec") ? k + 1 : 0;
}

static int throughput_line(struct dbench *d, const struct itok *t, size_t n,
			   int line, struct import_error *err)
{
	char id[IMPORT_NAME_MAX + 1];
	const char *kernel = d->kernel;
	size_t k;
	double v;

	if (!(k = dbench_throughput_at(t, n)))
		return 0;
	k--;
	if (num_field(&t[k + 1], line, "Throughput", &v, err))
		return -1;
	if (k == 1 && !itok_kernel(&t[0], id, sizeof(id)))
		kernel = id;
	if (!kernel)
		return import_fail(err, line, "kernel", "no kernel identifier: "
				   "none in front of Throughput and none given");
	flush_ops(d, kernel);
	add(d, kernel, "throughput", "MB/s", v, DIR_HIGHER, line);
	return throughput_rest(d, kernel, t, n, k + 3, line, err);
}

static int one_line(void *ctx, const struct itok *t, size_t n, int line,
		    struct import_error *err)
{
	struct dbench *d = ctx;
	int r = op_table(d, t, n, line, err);

	if (r < 0 || (!r && throughput_line(d, t, n, line, err)))
		return -1;
	return 0;
}

int import_dbench(const char *buf, size_t len, const char *kernel,
		  struct result_set *out, struct import_error *err)
{
	struct dbench d;

	memset(&d, 0, sizeof(d));
	iacc_init(&d.acc);
	d.kernel = import_default_kernel(kernel, out);
	if (iline_each(buf, len, one_line, &d, err))
		goto out_fail;
	if (d.nops && !d.kernel) {
		import_fail(err, d.table_line, "kernel", "operation table has "
			    "no Throughput line after it and no kernel given");
		goto out_fail;
	}
	flush_ops(&d, d.kernel);
	free(d.ops);
	return iacc_finish(&d.acc, out, err, "dbench");

out_fail:
	free(d.ops);
	iacc_release(&d.acc);
	return -1;
}
