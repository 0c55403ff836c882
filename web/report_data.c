// SPDX-License-Identifier: MIT
/*
 * A comparison as data: CSV (one line per metric x kernel, for
 * spreadsheets and scripts) and JSON (jansson; the /compare?format=json
 * body and what the CLI and alerts read).  Every number of the comparison
 * is here, including each repetition's value in JSON.
 */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "format.h"
#include "page.h"

static void csv_num(struct strbuf *sb, double v)
{
	if (isfinite(v))
		sb_addf(sb, ",%.10g", v);
	else
		sb_addc(sb, ',');
}

static void csv_cell(struct strbuf *sb, const struct comparison *c,
		     const struct cmp_metric *m, size_t k)
{
	const struct cmp_cell *cell = &m->cells[k];

	sb_add_csv(sb, m->name);
	sb_addc(sb, ',');
	sb_add_csv(sb, m->unit);
	sb_addf(sb, ",%s,", metric_dir_name(m->dir));
	sb_add_csv(sb, c->kernels[k]);
	sb_addf(sb, ",%d,%zu", k == c->baseline, cell->s.n);
	if (!cell->present) {
		sb_adds(sb, ",,,,,,,none,0\n");
		return;
	}
	csv_num(sb, cell->s.mean);
	csv_num(sb, cell->s.stddev);
	csv_num(sb, cell->s.min);
	csv_num(sb, cell->s.max);
	if (m->cells[c->baseline].present)
		csv_num(sb, cell->delta_pct);
	else
		sb_addc(sb, ',');
	if (cell->verdict != V_NONE && !cell->indicative && cell->s.n >= 2)
		csv_num(sb, cell->p);
	else
		sb_addc(sb, ',');
	sb_addf(sb, ",%s,%d\n", cmp_verdict_name(cell->verdict),
		cell->indicative);
}

void report_csv(struct strbuf *sb, const struct comparison *c)
{
	size_t i, k;

	sb_adds(sb, "metric,unit,direction,kernel,baseline,n,mean,stddev,min,"
		"max,delta_pct,p_value,verdict,indicative\n");
	for (i = 0; i < c->nm; i++)
		for (k = 0; k < c->nk; k++)
			csv_cell(sb, c, &c->m[i], k);
}

/* A double as JSON; non-finite values (never expected) become null. */
static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *json_cell(const struct comparison *c,
			 const struct cmp_metric *m, size_t k)
{
	const struct cmp_cell *cell = &m->cells[k];
	json_t *o = json_object(), *vals;
	size_t i;

	json_object_set_new(o, "kernel", page_jstr(c->kernels[k]));
	json_object_set_new(o, "n", json_integer((json_int_t)cell->s.n));
	if (!cell->present) {
		json_object_set_new(o, "verdict", json_string("none"));
		return o;
	}
	json_object_set_new(o, "mean", jnum(cell->s.mean));
	json_object_set_new(o, "stddev", jnum(cell->s.stddev));
	json_object_set_new(o, "min", jnum(cell->s.min));
	json_object_set_new(o, "max", jnum(cell->s.max));
	json_object_set_new(o, "cv", jnum(cell->s.cv));
	vals = json_array();
	for (i = 0; i < cell->s.n; i++)
		json_array_append_new(vals, jnum(cell->values[i]));
	json_object_set_new(o, "values", vals);
	if (m->cells[c->baseline].present)
		json_object_set_new(o, "delta_pct", jnum(cell->delta_pct));
	if (cell->verdict != V_NONE && !cell->indicative && cell->s.n >= 2)
		json_object_set_new(o, "p", jnum(cell->p));
	json_object_set_new(o, "verdict",
			    json_string(cmp_verdict_name(cell->verdict)));
	json_object_set_new(o, "indicative", json_boolean(cell->indicative));
	return o;
}

static json_t *json_metrics(const struct comparison *c)
{
	json_t *arr = json_array();
	size_t i, k;

	for (i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];
		json_t *o = json_object(), *cells = json_array();

		json_object_set_new(o, "name", page_jstr(m->name));
		json_object_set_new(o, "unit", page_jstr(m->unit));
		json_object_set_new(o, "direction",
				    json_string(metric_dir_name(m->dir)));
		for (k = 0; k < c->nk; k++)
			json_array_append_new(cells, json_cell(c, m, k));
		json_object_set_new(o, "cells", cells);
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *report_json(const struct comparison *c)
{
	json_t *o = json_object(), *ks = json_array(), *opts, *sum;
	size_t k, better, worse, same;

	if (!o || !ks)
		abort();
	for (k = 0; k < c->nk; k++)
		json_array_append_new(ks, page_jstr(c->kernels[k]));
	json_object_set_new(o, "kernels", ks);
	json_object_set_new(o, "baseline",
			    page_jstr(c->kernels[c->baseline]));
	json_object_set_new(o, "rig", page_jstr(c->rig));
	json_object_set_new(o, "suite", page_jstr(c->suite));
	opts = json_pack("{s:f, s:f, s:f}", "alpha", c->opts.alpha,
			 "min_pct", c->opts.min_pct, "single_pct",
			 c->opts.single_pct);
	json_object_set_new(o, "options", opts);
	json_object_set_new(o, "metrics", json_metrics(c));
	fmt_count(c, &better, &worse, &same);
	sum = json_pack("{s:I, s:I, s:I}", "worse", (json_int_t)worse,
			"better", (json_int_t)better, "same", (json_int_t)same);
	json_object_set_new(o, "summary", sum);
	return o;
}
