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
	const struct vd_result *r = &cell->vd;

	sb_add_csv(sb, m->name);
	sb_addc(sb, ',');
	sb_add_csv(sb, m->unit);
	sb_addf(sb, ",%s,%s,", metric_dir_name(m->dir),
		vd_class_name(m->kind.klass));
	sb_add_csv(sb, c->kernels[k]);
	sb_addf(sb, ",%d,%zu,%zu", k == c->baseline, cell->s.n,
		cell->nvalues);
	if (!cell->present) {
		sb_adds(sb, ",,,,,,,,,,,none,,\n");
		return;
	}
	csv_num(sb, cell->s.mean);
	csv_num(sb, cell->s.stddev);
	csv_num(sb, cell->s.min);
	csv_num(sb, cell->s.max);
	csv_num(sb, cell->delta_pct);
	csv_num(sb, r->tested ? r->ci_lo : NAN);
	csv_num(sb, r->tested ? r->ci_hi : NAN);
	csv_num(sb, r->tested ? r->p : NAN);
	csv_num(sb, r->tested ? r->p_adj : NAN);
	csv_num(sb, r->tested ? r->threshold_pct : NAN);
	sb_addf(sb, ",%s,", cmp_verdict_name(cell->verdict));
	sb_add_csv(sb, r->note ? r->note : "");
	csv_num(sb, cell->within_df ? cell->within_sd : NAN);
	sb_addc(sb, '\n');
}

void report_csv(struct strbuf *sb, const struct comparison *c)
{
	size_t i, k;

	sb_adds(sb, "metric,unit,direction,class,kernel,baseline,n,reps,mean,"
		"stddev,min,max,delta_pct,ci_lo_pct,ci_hi_pct,p_value,p_adj,"
		"threshold_pct,verdict,note,within_sd\n");
	for (i = 0; i < c->nm; i++)
		for (k = 0; k < c->nk; k++)
			csv_cell(sb, c, &c->m[i], k);
}

/* A double as JSON; non-finite values become null. */
static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jarr(const double *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, jnum(v[i]));
	return a;
}

/* The verdict's numbers: p, corrected p, CI, threshold, state, n. */
static void json_verdict(json_t *o, const struct cmp_cell *cell)
{
	const struct vd_result *r = &cell->vd;

	json_object_set_new(o, "delta_pct", jnum(cell->delta_pct));
	json_object_set_new(o, "verdict",
			    json_string(cmp_verdict_name(cell->verdict)));
	json_object_set_new(o, "note", json_string(r->note ? r->note : ""));
	if (!r->tested)
		return;
	json_object_set_new(o, "p", jnum(r->p));
	json_object_set_new(o, "p_adj", jnum(r->p_adj));
	json_object_set_new(o, "ci_pct", json_pack("[o, o]", jnum(r->ci_lo),
						   jnum(r->ci_hi)));
	json_object_set_new(o, "threshold_pct", jnum(r->threshold_pct));
	json_object_set_new(o, "floor_pct", jnum(r->floor_pct));
	json_object_set_new(o, "noise_pct", jnum(r->noise_pct));
	json_object_set_new(o, "n_base", json_integer((json_int_t)r->nb));
	json_object_set_new(o, "analysis", json_string(r->analysis));
}

static json_t *json_cell(const struct comparison *c,
			 const struct cmp_metric *m, size_t k)
{
	const struct cmp_cell *cell = &m->cells[k];
	json_t *o = json_object();

	json_object_set_new(o, "kernel", page_jstr(c->kernels[k]));
	json_object_set_new(o, "n", json_integer((json_int_t)cell->s.n));
	json_object_set_new(o, "reps", json_integer((json_int_t)
						    cell->nvalues));
	if (!cell->present) {
		json_object_set_new(o, "verdict", json_string("none"));
		json_object_set_new(o, "note", json_string(cell->vd.note ?
							   cell->vd.note : ""));
		return o;
	}
	json_object_set_new(o, "mean", jnum(cell->s.mean));
	json_object_set_new(o, "stddev", jnum(cell->s.stddev));
	/* the repetitions' spread inside a boot, beside the cells' */
	json_object_set_new(o, "within_sd", jnum(cell->within_df ?
						 cell->within_sd : NAN));
	json_object_set_new(o, "within_df",
			    json_integer((json_int_t)cell->within_df));
	json_object_set_new(o, "min", jnum(cell->s.min));
	json_object_set_new(o, "max", jnum(cell->s.max));
	json_object_set_new(o, "cv", jnum(cell->s.cv));
	json_object_set_new(o, "cells", jarr(cell->cellv, cell->s.n));
	json_object_set_new(o, "values", jarr(cell->values, cell->nvalues));
	json_verdict(o, cell);
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
		json_object_set_new(o, "class", json_string(
				    vd_class_name(m->kind.klass)));
		json_object_set_new(o, "scale", json_string(
				    m->kind.log_scale ? "log" : "linear"));
		json_object_set_new(o, "cell_mean", json_string(
				    m->kind.harmonic ? "harmonic" :
				    "arithmetic"));
		for (k = 0; k < c->nk; k++)
			json_array_append_new(cells, json_cell(c, m, k));
		json_object_set_new(o, "cells", cells);
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *json_policy(const struct vd_policy *p)
{
	json_t *fl = json_array();
	size_t i;
	char rule[900];

	for (i = 0; i < p->nfloors; i++)
		json_array_append_new(fl, json_pack("{s:s, s:s, s:f}", "suite",
				      p->floors[i].suite, "metric",
				      p->floors[i].metric, "pct",
				      p->floors[i].pct));
	vd_rule_sentence(p, rule, sizeof(rule));
	return json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, "
			 "s:f, s:o}", "rule", rule, "correction",
			 p->bh ? "benjamini-hochberg" : "holm",
			 "pairing", p->unpaired ? "off" : "auto",
			 "alpha_headline", p->alpha[VC_HEADLINE],
			 "alpha_secondary", p->alpha[VC_SECONDARY],
			 "alpha_equivalence", p->alpha_equiv,
			 "floor_headline_pct", p->floor_pct[VC_HEADLINE],
			 "floor_secondary_pct", p->floor_pct[VC_SECONDARY],
			 "noise_k", p->noise_k, "min_cv_pct", p->min_cv_pct,
			 "floors", fl);
}

json_t *report_json(const struct comparison *c)
{
	json_t *o = json_object(), *ks = json_array(), *sum;
	struct fmt_counts n;
	size_t k;

	if (!o || !ks)
		abort();
	for (k = 0; k < c->nk; k++)
		json_array_append_new(ks, page_jstr(c->kernels[k]));
	json_object_set_new(o, "kernels", ks);
	json_object_set_new(o, "baseline",
			    page_jstr(c->kernels[c->baseline]));
	json_object_set_new(o, "rig", page_jstr(c->rig));
	/* the rigs the cells came from: several for a class (issue 31) */
	json_object_set_new(o, "rigs", ks = json_array());
	for (k = 0; ks && k < c->nrigs; k++)
		json_array_append_new(ks, page_jstr(c->rigs[k]));
	json_object_set_new(o, "suite", page_jstr(c->suite));
	json_object_set_new(o, "config", page_jstr(c->config));
	json_object_set_new(o, "rigconf", page_jstr(c->rigconf_hash));
	json_object_set_new(o, "rigconf_left_out",
			    json_integer((json_int_t)c->rigconf_left_out));
	json_object_set_new(o, "options", json_policy(&c->pol));
	json_object_set_new(o, "metrics", json_metrics(c));
	fmt_count(c, &n);
	sum = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "worse",
			(json_int_t)n.worse, "better", (json_int_t)n.better,
			"same", (json_int_t)n.same, "undecided",
			(json_int_t)n.undecided, "none", (json_int_t)n.none,
			"headline_worse", (json_int_t)n.headline_worse);
	json_object_set_new(o, "summary", sum);
	return o;
}
