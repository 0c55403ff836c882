// SPDX-License-Identifier: MIT
/*
 * import_readlat: the read-latency summary that streaming-read tests print
 * and kernel developers quote in scheduler threads:
 *
 *   reads: 30.1 MB, 0.41 MB/s
 *   read latency min 0.00 avg 6.1 max 4420.3 > 2s 0.00% > 10s 0.00%
 *
 * Each line may carry a kernel identifier in front ("2.4.22 reads: ...");
 * a pair belongs to the kernel it names, or to the default kernel.  The
 * text is read as tokens (import_text.c), so the lines also import when a
 * mail archive re-flowed them into one paragraph: a result starts at
 * "reads: V" or "read latency min" and ends with its last value (the two
 * shares when "> 2s" follows the maximum).  Everything else is prose and
 * skipped ("the read latency went up"); a result that has started must
 * have every value, or the import fails naming line and field.
 */
#include "import.h"

#include "import_priv.h"

/* "reads: V MB, V MB/s" after "reads:". */
static int reads_rest(struct itext *x, struct irec *r, const char *kernel,
		      struct import_error *err)
{
	double mb, rate;

	if (irec_num(r, "reads", "", &mb, err))
		return -1;
	if (!irec_take_word(r, "MB,")) {
		if (!irec_take_word(r, "MB"))
			return irec_unfit(r, "reads", "MB,", err);
		irec_take_word(r, ",");
	}
	if (irec_num(r, "rate", "", &rate, err) ||
	    irec_word(r, "rate", "MB/s", err))
		return -1;
	iacc_add(&x->acc, kernel, "readlat.read_mb", "MB", mb, DIR_NONE,
		 r->line);
	iacc_add(&x->acc, kernel, "readlat.rate", "MB/s", rate, DIR_HIGHER,
		 r->line);
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

/* A label; ">2s" may come as "> 2s" (the '>' is dropped as a quote). */
static int take_label(struct irec *r, const char *label,
		      struct import_error *err)
{
	const char *shown = label;
	struct itok t;

	if (irec_take_word(r, label))
		return 0;
	if (label[0] != '>')
		return irec_unfit(r, label, label, err);
	if (irec_take_word(r, label + 1))
		return 0;
	if (irec_peek(r, &t) && t.p[0] != '>')
		shown = label + 1;
	return irec_unfit(r, label, shown, err);
}

/* The shares follow the maximum: the next token is ">2s" or "2s". */
static int shares_follow(const struct irec *r)
{
	struct itok t;

	return irec_peek(r, &t) && (itok_eq(&t, ">2s") || itok_eq(&t, "2s"));
}

/* "min V avg V max V > 2s P% > 10s P%"; the two shares are optional. */
static int latency_rest(struct itext *x, struct irec *r, const char *kernel,
			struct import_error *err)
{
	double v[5];
	size_t i;

	for (i = 0; i < 5; i++) {
		if (i == 3 && !shares_follow(r))
			break;
		if (take_label(r, lat_fields[i].label, err) ||
		    irec_num(r, lat_fields[i].label, "%", &v[i], err))
			return -1;
	}
	while (i-- > 0)
		iacc_add(&x->acc, kernel, lat_fields[i].metric,
			 lat_fields[i].unit, v[i], DIR_LOWER, r->line);
	return 0;
}

/* 1: "reads: V" at t, 2: "read latency min", 0: neither. */
static int readlat_kind(const struct ilex *lx, const struct itok *t)
{
	struct itok a, b;
	double v;

	if (itok_eq(t, "reads:"))
		return ilex_peek(lx, 0, &a) && !itok_num(&a, &v);
	if (!itok_eq(t, "read") || !ilex_peek(lx, 1, &b))
		return 0;
	ilex_peek(lx, 0, &a);
	return itok_eq(&a, "latency") && itok_eq(&b, "min") ? 2 : 0;
}

static int readlat_at(struct itext *x, struct ilex *lx, const struct itok *t,
		      const struct itok *lead, const char **from,
		      struct import_error *err)
{
	char id[IMPORT_NAME_MAX + 1];
	const char *kernel = x->kernel;
	const struct itok *first = t;
	int kind = readlat_kind(lx, t);
	struct irec r;

	if (!kind)
		return 0;
	if (!itok_lead_kernel(lead, t, id, sizeof(id))) {
		kernel = id;
		first = lead;
		*from = lead->p;
	}
	irec_begin(&r, lx, first, t);
	if (kind == 2)
		irec_take(&r);	/* "latency" */
	if (!kernel)
		return import_fail(err, r.line, "kernel", "no kernel "
				   "identifier: none in front of the line "
				   "and none given");
	if (kind == 1 ? reads_rest(x, &r, kernel, err) :
	    latency_rest(x, &r, kernel, err))
		return -1;
	return 1;
}

const struct itext_ops itext_readlat = {
	.name = "read latency",
	.fmt = IMPORT_READLAT,
	.at = readlat_at,
};

int import_readlat(const char *buf, size_t len, const char *kernel,
		   struct result_set *out, struct import_error *err)
{
	return itext_import(&itext_readlat, buf, len, kernel, out, err);
}
