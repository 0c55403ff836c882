// SPDX-License-Identifier: MIT
/*
 * The comparison model: samples from the database grouped by metric and
 * kernel, summarised, and judged against the baseline.  See compare.h.
 */
#include "judge/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cmp_opts_default(struct cmp_opts *o)
{
	o->alpha = 0.05;
	o->min_pct = 1.0;
	o->single_pct = 5.0;
}

const char *cmp_verdict_name(enum cmp_verdict v)
{
	switch (v) {
	case V_SAME: return "same";
	case V_BETTER: return "better";
	case V_WORSE: return "worse";
	default: return "none";
	}
}

static struct cmp_metric *metric_get(struct comparison *c,
				     const struct db_sample *s, size_t *hint)
{
	struct cmp_metric *m;
	size_t i;

	/* samples come sorted by kernel, then metric, so each kernel meets
	 * the metrics in the same order: try where the last one was first */
	for (i = *hint; i < *hint + 2 && i < c->nm; i++)
		if (!strcmp(c->m[i].name, s->metric)) {
			*hint = i;
			return &c->m[i];
		}
	for (i = 0; i < c->nm; i++)
		if (!strcmp(c->m[i].name, s->metric)) {
			*hint = i;
			return &c->m[i];
		}
	*hint = c->nm;
	m = realloc(c->m, (c->nm + 1) * sizeof(*m));
	if (!m)
		abort();
	c->m = m;
	m = &c->m[c->nm++];
	m->name = strdup(s->metric);
	m->unit = strdup(s->unit ? s->unit : "");
	m->dir = s->dir;
	m->cells = calloc(c->nk, sizeof(*m->cells));
	if (!m->name || !m->unit || !m->cells)
		abort();
	return m;
}

static void cell_add(struct cmp_cell *cell, double v)
{
	double *p = realloc(cell->values, (cell->s.n + 1) * sizeof(*p));

	if (!p)
		abort();
	cell->values = p;
	cell->values[cell->s.n++] = v;
	cell->present = 1;
}

static void judge(const struct cmp_opts *o, enum metric_dir dir,
		  const struct cmp_cell *base, struct cmp_cell *cell)
{
	double d;
	int up;

	cell->p = 1.0;
	cell->verdict = V_NONE;
	if (!cell->present || !base->present)
		return;
	d = base->s.mean != 0 ?
		(cell->s.mean - base->s.mean) / fabs(base->s.mean) * 100 : 0;
	cell->delta_pct = d;
	if (dir == DIR_NONE || cell == base)
		return;
	up = (dir == DIR_HIGHER) == (d > 0);
	if (base->s.n >= 2 && cell->s.n >= 2) {
		cell->p = stats_welch_p(&cell->s, &base->s);
		if (cell->p < o->alpha && fabs(d) >= o->min_pct)
			cell->verdict = up ? V_BETTER : V_WORSE;
		else
			cell->verdict = V_SAME;
		return;
	}
	cell->indicative = 1;
	if (fabs(d) >= o->single_pct)
		cell->verdict = up ? V_BETTER : V_WORSE;
	else
		cell->verdict = V_SAME;
}

static int metric_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cmp_metric *)a)->name,
		      ((const struct cmp_metric *)b)->name);
}

static int kernel_index(const struct comparison *c, const char *k)
{
	size_t i;

	for (i = 0; i < c->nk; i++)
		if (!strcmp(c->kernels[i], k))
			return (int)i;
	return -1;
}

static void summarise(struct comparison *c)
{
	size_t i, j;

	for (i = 0; i < c->nm; i++) {
		struct cmp_metric *m = &c->m[i];

		for (j = 0; j < c->nk; j++) {
			size_t n = m->cells[j].s.n;

			stats_summarize(m->cells[j].values, n, &m->cells[j].s);
		}
		for (j = 0; j < c->nk; j++)
			judge(&c->opts, m->dir, &m->cells[c->baseline],
			      &m->cells[j]);
	}
	qsort(c->m, c->nm, sizeof(*c->m), metric_cmp);
}

int compare_build(struct db *db, const char *const *kernels, size_t nk,
		  size_t baseline, const char *rig, const char *suite,
		  const struct cmp_opts *opts, struct comparison *out,
		  char *err, size_t errlen)
{
	struct db_sample *s = NULL;
	size_t ns = 0, i, hint = 0;
	int rc, k = -1;

	memset(out, 0, sizeof(*out));
	if (!nk || baseline >= nk) {
		snprintf(err, errlen, nk ? "baseline out of range" :
			 "no kernels to compare");
		return DB_INVALID;
	}
	rc = db_samples(db, kernels, nk, rig, suite, NULL, &s, &ns, err,
			errlen);
	if (rc)
		return rc;
	if (opts)
		out->opts = *opts;
	else
		cmp_opts_default(&out->opts);
	out->kernels = calloc(nk, sizeof(char *));
	if (!out->kernels)
		abort();
	for (i = 0; i < nk; i++)
		out->kernels[i] = strdup(kernels[i]);
	out->nk = nk;
	out->baseline = baseline;
	out->rig = rig ? strdup(rig) : NULL;
	out->suite = suite ? strdup(suite) : NULL;
	for (i = 0; i < ns; i++) {
		if (k < 0 || strcmp(out->kernels[k], s[i].kernel)) {
			k = kernel_index(out, s[i].kernel);
			hint = 0;
		}
		if (k < 0)
			continue;
		cell_add(&metric_get(out, &s[i], &hint)->cells[k], s[i].value);
	}
	db_samples_free(s, ns);
	summarise(out);
	return DB_OK;
}

const struct cmp_metric *compare_find(const struct comparison *c,
				      const char *metric)
{
	struct cmp_metric key;

	key.name = (char *)metric;
	return bsearch(&key, c->m, c->nm, sizeof(*c->m), metric_cmp);
}

size_t compare_count_worse(const struct comparison *c)
{
	size_t i, j, n = 0;

	for (i = 0; i < c->nm; i++)
		for (j = 0; j < c->nk; j++)
			n += c->m[i].cells[j].verdict == V_WORSE;
	return n;
}

void compare_release(struct comparison *c)
{
	size_t i, j;

	if (!c)
		return;
	for (i = 0; i < c->nm; i++) {
		for (j = 0; j < c->nk; j++)
			free(c->m[i].cells[j].values);
		free(c->m[i].cells);
		free(c->m[i].name);
		free(c->m[i].unit);
	}
	free(c->m);
	for (i = 0; i < c->nk; i++)
		free(c->kernels[i]);
	free(c->kernels);
	free(c->rig);
	free(c->suite);
	memset(c, 0, sizeof(*c));
}
