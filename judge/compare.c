// SPDX-License-Identifier: MIT
/*
 * The comparison model: the samples of the runs that enter (chosen by
 * compare_scope.c: one rig, one suite, one job configuration, one rig
 * configuration, status "done") grouped by metric, kernel and cell, and
 * every cell judged against the baseline by judge/verdict.c; beside it,
 * the spread of the repetitions inside each cell (the within-boot sd).
 * See compare.h.
 */
#include "judge/compare_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/cells.h"
#include "db/reps.h"
#include "judge/pairs.h"
#include "lib/alloc.h"
#include "lib/rigconf.h"

void cmp_opts_default(struct cmp_opts *o)
{
	memset(o, 0, sizeof(*o));
	vd_policy_default(&o->pol);
	o->scale = -1;
}

/* ---- samples into metrics and cells ------------------------------- */

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
	vd_kind_of(m->name, m->unit, m->dir, &m->kind);
	m->cells = calloc(c->nk, sizeof(*m->cells));
	if (!m->name || !m->unit || !m->cells)
		abort();
	return m;
}

static void cell_add(struct cmp_cell *cell, double v, int64_t run)
{
	double *p = realloc(cell->values, (cell->nvalues + 1) * sizeof(*p));
	int64_t *r = realloc(cell->runs, (cell->nvalues + 1) * sizeof(*r));

	if (!p || !r)
		abort();
	cell->values = p;
	cell->runs = r;
	cell->values[cell->nvalues] = v;
	cell->runs[cell->nvalues++] = run;
	cell->present = 1;
}

static int run_rig_cmp(const void *a, const void *b)
{
	return cmp_i64(&((const struct cmp_run_rig *)a)->run,
		       &((const struct cmp_run_rig *)b)->run);
}

/* The rig (index into c->rigs) of a run; 0 when unknown. */
static int run_rig_of(const struct comparison *c, int64_t run)
{
	struct cmp_run_rig key = { run, 0 }, *f;

	if (!c->nrun_rig)
		return 0;
	f = bsearch(&key, c->run_rig, c->nrun_rig, sizeof(key), run_rig_cmp);
	return f ? f->rig : 0;
}

/* Values of one run are adjacent: each run becomes one cell value. */
static void cells_make(const struct comparison *c, const struct cmp_metric *m,
		       struct cmp_cell *cell)
{
	size_t i, start = 0, n = 0;

	free(cell->cellv);
	free(cell->cellrig);
	cell->cellrig = NULL;
	cell->cellv = malloc((cell->nvalues + 1) * sizeof(*cell->cellv));
	if (c->nrigs > 1)
		cell->cellrig = xcalloc(cell->nvalues + 1,
					sizeof(*cell->cellrig));
	if (!cell->cellv)
		abort();
	for (i = 1; i <= cell->nvalues; i++)
		if (i == cell->nvalues || cell->runs[i] != cell->runs[start]) {
			if (cell->cellrig)
				cell->cellrig[n] = run_rig_of(c,
							cell->runs[start]);
			cell->cellv[n++] = vd_cell_value(cell->values + start,
							 i - start,
							 m->kind.harmonic);
			start = i;
		}
	stats_summarize(cell->cellv, n, &cell->s);
}

static int metric_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cmp_metric *)a)->name,
		      ((const struct cmp_metric *)b)->name);
}

/*
 * Whether metric m belongs to a phase served from the page cache: some
 * run of some kernel reported "<phase>.cached" above 0 for the phase m
 * is in (workloads/devstat.h).  A verdict never rests on such a phase.
 */
static int phase_cached(const struct comparison *c, const char *name)
{
	const char *dot = strrchr(name, '.');
	const struct cmp_metric *f;
	char key[256];
	size_t k, i;

	if (!dot || (size_t)(dot - name) + sizeof(".cached") > sizeof(key))
		return 0;
	snprintf(key, sizeof(key), "%.*s.cached", (int)(dot - name), name);
	f = compare_find(c, key);
	for (k = 0; f && k < c->nk; k++)
		for (i = 0; i < f->cells[k].nvalues; i++)
			if (f->cells[k].values[i] > 0)
				return 1;
	return 0;
}

static void judge_cell(struct comparison *c, struct cmp_metric *m,
		       size_t k, int cached, double floor, int paired)
{
	const struct cmp_cell *b = &m->cells[c->baseline];
	struct cmp_cell *cell = &m->cells[k];
	enum metric_dir dir = k == c->baseline || cached ? DIR_NONE : m->dir;

	if (dir != DIR_NONE && b->cellrig && cell->cellrig)
		vd_test_strata(&c->pol, &m->kind, dir, floor, b->cellv,
			       b->cellrig, b->s.n, cell->cellv, cell->cellrig,
			       cell->s.n, &cell->vd);
	else if (dir != DIR_NONE && paired && cmp_pairs_interleaved(b, cell))
		vd_test_paired(&c->pol, &m->kind, dir, floor, b->cellv,
			       cell->cellv, cell->s.n, &cell->vd);
	else
		vd_test(&c->pol, &m->kind, dir, floor, b->cellv, b->s.n,
			cell->cellv, cell->s.n, &cell->vd);
}

static void judge_metric(struct comparison *c, struct cmp_metric *m,
			 const int *paired, struct vd_result **all, size_t *na)
{
	const struct cmp_cell *b = &m->cells[c->baseline];
	double floor = vd_floor_for(&c->pol, c->suite, m->name,
				    m->kind.klass);
	int cached = m->dir != DIR_NONE && phase_cached(c, m->name);
	size_t k;

	for (k = 0; k < c->nk; k++) {
		struct cmp_cell *cell = &m->cells[k];

		judge_cell(c, m, k, cached, floor, paired[k]);
		if (k == c->baseline) {
			cell->vd.note = "baseline";
			cell->vd.delta_pct = cell->present ? 0 : NAN;
		} else if (cached) {
			/* shown as data: the change, never a verdict */
			cell->vd.note = "served from cache, no verdict";
			if (b->s.n && cell->s.n && b->s.mean > 0)
				cell->vd.delta_pct = 100 * (cell->s.mean /
							    b->s.mean - 1);
		} else if (cell->vd.tested) {
			all[(*na)++] = &cell->vd;
		}
	}
}

void compare_judge(struct comparison *c)
{
	struct vd_result **all = calloc(c->nm * c->nk + 1, sizeof(*all));
	int *paired = calloc(c->nk + 1, sizeof(*paired));
	size_t i, k, na = 0;

	if (!all || !paired)
		abort();
	if (c->nm)	/* qsort(NULL, 0) is undefined; sorted for bsearch */
		qsort(c->m, c->nm, sizeof(*c->m), metric_cmp);
	for (i = 0; i < c->nm; i++)
		for (k = 0; k < c->nk; k++)
			cells_make(c, &c->m[i], &c->m[i].cells[k]);
	/* pairs on one rig only: a pool's rigs are strata instead */
	for (k = 0; k < c->nk; k++)
		paired[k] = !c->pol.unpaired && k != c->baseline &&
			    c->nrigs < 2 && cmp_pairs_page(c, k);
	for (i = 0; i < c->nm; i++)
		judge_metric(c, &c->m[i], paired, all, &na);
	vd_decide(&c->pol, all, na);
	free(all);
	free(paired);
	for (i = 0; i < c->nm; i++)
		for (k = 0; k < c->nk; k++) {
			struct cmp_cell *cell = &c->m[i].cells[k];

			cell->verdict = cell->vd.verdict;
			cell->delta_pct = cell->vd.delta_pct;
		}
}

static int kernel_index(const struct comparison *c, const char *k)
{
	size_t i;

	for (i = 0; i < c->nk; i++)
		if (!strcmp(c->kernels[i], k))
			return (int)i;
	return -1;
}

static void fill(struct comparison *c, const struct db_sample *s, size_t ns,
		 const struct scope *sc)
{
	size_t i, hint = 0;
	int k = -1;

	for (i = 0; i < ns; i++) {
		if (!bsearch(&s[i].run_id, sc->ids, sc->nids,
			     sizeof(*sc->ids), cmp_i64))
			continue;
		if (k < 0 || strcmp(c->kernels[k], s[i].kernel)) {
			k = kernel_index(c, s[i].kernel);
			hint = 0;
		}
		if (k < 0)
			continue;
		cell_add(&metric_get(c, &s[i], &hint)->cells[k], s[i].value,
			 s[i].run_id);
	}
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rigs of the runs that entered, sorted, and each run's rig. */
static void rigs_fill(struct comparison *c, const struct scope *sc)
{
	size_t i, j;
	char **f;

	c->run_rig = xcalloc(sc->nids + 1, sizeof(*c->run_rig));
	c->rigs = xcalloc(sc->nruns + 1, sizeof(*c->rigs));
	for (i = 0; i < sc->nruns; i++) {
		const struct db_cell_run *r = &sc->runs[i];

		if (!bsearch(&r->id, sc->ids, sc->nids, sizeof(*sc->ids),
			     cmp_i64))
			continue;
		for (j = 0; j < c->nrigs && strcmp(c->rigs[j], r->rig); j++)
			;
		if (j == c->nrigs)
			c->rigs[c->nrigs++] = xstrdup(r->rig);
	}
	if (c->nrigs)
		qsort(c->rigs, c->nrigs, sizeof(*c->rigs), str_cmp);
	for (i = 0; i < sc->nruns; i++) {
		const struct db_cell_run *r = &sc->runs[i];

		if (!bsearch(&r->id, sc->ids, sc->nids, sizeof(*sc->ids),
			     cmp_i64))
			continue;
		f = bsearch(&r->rig, c->rigs, c->nrigs, sizeof(*c->rigs),
			    str_cmp);
		c->run_rig[c->nrun_rig].run = r->id;
		c->run_rig[c->nrun_rig++].rig = f ? (int)(f - c->rigs) : 0;
	}
	qsort(c->run_rig, c->nrun_rig, sizeof(*c->run_rig), run_rig_cmp);
}

/* ---- the spread within a boot ----------------------------------- */

/* The kernel whose cell of m holds run, or -1. */
static int within_kernel(const struct comparison *c, const struct cmp_metric *m,
			 int64_t run)
{
	size_t k, i;

	for (k = 0; k < c->nk; k++)
		for (i = 0; i < m->cells[k].nvalues; i++)
			if (m->cells[k].runs[i] == run)
				return (int)k;
	return -1;
}

/* One run's complete repetitions of one metric, v[0..n). */
static void within_group(struct comparison *c, const struct db_rep *v,
			 size_t n)
{
	struct cmp_metric *m = NULL;
	double mean = 0;
	size_t i;
	int k;

	for (i = 0; i < c->nm && !m; i++)
		if (!strcmp(c->m[i].name, v[0].metric))
			m = &c->m[i];
	k = m && n > 1 ? within_kernel(c, m, v[0].run_id) : -1;
	if (k < 0)
		return;
	for (i = 0; i < n; i++)
		mean += v[i].value / (double)n;
	for (i = 0; i < n; i++)
		m->cells[k].within_ss += (v[i].value - mean) *
					 (v[i].value - mean);
	m->cells[k].within_df += n - 1;
}

/* within_sd of every cell from the repetitions of the runs that entered. */
static void within_fill(struct db *db, struct comparison *c,
			const struct scope *sc)
{
	struct db_rep *v = NULL, *w;
	size_t n = 0, i, j, k, start;

	if (db_run_reps(db, sc->ids, sc->nids, &v, &n))
		n = 0;	/* the spread is extra: the verdict stands without */
	w = malloc((n + 1) * sizeof(*w));
	if (!w)
		abort();
	for (i = 0, j = 0; i < n; i++)
		if (v[i].complete)
			w[j++] = v[i];
	/* rows come by run, then metric */
	for (start = 0, i = 1; i <= j; i++)
		if (i == j || w[i].run_id != w[start].run_id ||
		    strcmp(w[i].metric, w[start].metric)) {
			within_group(c, w + start, i - start);
			start = i;
		}
	free(w);
	db_reps_free(v, n);
	for (i = 0; i < c->nm; i++)
		for (k = 0; k < c->nk; k++) {
			struct cmp_cell *cell = &c->m[i].cells[k];

			cell->within_sd = cell->within_df ?
				sqrt(cell->within_ss / (double)cell->within_df)
				: NAN;
		}
}

int compare_build(struct db *db, const char *const *kernels, size_t nk,
		  size_t baseline, const char *rig, const char *suite,
		  const struct cmp_opts *opts, struct comparison *out,
		  char *err, size_t errlen)
{
	struct scope sc = { NULL, 0, NULL, 0, 0 };
	struct db_sample *s = NULL;
	struct cmp_opts def;
	size_t ns = 0, i;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!nk || baseline >= nk) {
		snprintf(err, errlen, nk ? "baseline out of range" :
			 "no kernels to compare");
		return DB_INVALID;
	}
	if (!opts) {
		cmp_opts_default(&def);
		opts = &def;
	}
	out->pol = opts->pol;
	out->kernels = calloc(nk, sizeof(char *));
	if (!out->kernels)
		abort();
	for (i = 0; i < nk; i++)
		out->kernels[i] = xstrdup(kernels[i]);
	out->nk = nk;
	out->baseline = baseline;
	rc = db_samples(db, kernels, nk, rig, suite, NULL, &s, &ns, err,
			errlen);
	if (!rc)
		rc = scope_build(db, kernels, nk, rig, suite, opts, out, &sc,
				 err, errlen);
	if (!rc) {
		rigs_fill(out, &sc);
		fill(out, s, ns, &sc);
		compare_judge(out);
		within_fill(db, out, &sc);
	}
	db_samples_free(s, ns);
	scope_release(&sc);
	if (rc)
		compare_release(out);
	return rc;
}

const struct cmp_metric *compare_find(const struct comparison *c,
				      const char *metric)
{
	struct cmp_metric key;

	key.name = (char *)metric;
	if (!c->nm)	/* bsearch(NULL, 0) is undefined */
		return NULL;
	return bsearch(&key, c->m, c->nm, sizeof(*c->m), metric_cmp);
}

size_t compare_count_worse(const struct comparison *c, int all)
{
	size_t i, j, n = 0;

	for (i = 0; i < c->nm; i++)
		for (j = 0; j < c->nk; j++)
			n += c->m[i].cells[j].verdict == V_WORSE &&
			     (all || c->m[i].kind.klass == VC_HEADLINE);
	return n;
}

void compare_release(struct comparison *c)
{
	size_t i, j;

	if (!c)
		return;
	for (i = 0; i < c->nm; i++) {
		for (j = 0; j < c->nk; j++) {
			free(c->m[i].cells[j].values);
			free(c->m[i].cells[j].runs);
			free(c->m[i].cells[j].cellv);
			free(c->m[i].cells[j].cellrig);
		}
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
	free(c->config);
	free(c->rigconf_hash);
	free(c->rigconf);
	for (i = 0; i < c->nrigs; i++)
		free(c->rigs[i]);
	free(c->rigs);
	free(c->run_rig);
	memset(c, 0, sizeof(*c));
}

int cmp_opts_from_query(struct cmp_opts *o, struct query *q, char *err,
			size_t errlen)
{
	const char **v = NULL, *s;
	size_t n, i;
	char *end;
	int rc = 0;

	cmp_opts_default(o);
	n = query_all(q, "floor", 0, &v);
	for (i = 0; i < n && !rc; i++)
		if (vd_policy_add_floor(&o->pol, v[i])) {
			snprintf(err, errlen, "invalid floor '%.100s' (want "
				 "[SUITE/]METRIC-GLOB:PERCENT, at most %d)",
				 v[i], VD_MAX_FLOORS);
			rc = DB_INVALID;
		}
	free(v);
	s = query_get(q, "correction");
	if (!rc && s && *s && strcmp(s, "holm") && strcmp(s, "bh")) {
		snprintf(err, errlen, "invalid correction '%.60s' (holm or "
			 "bh)", s);
		rc = DB_INVALID;
	}
	o->pol.bh = s && !strcmp(s, "bh");
	s = query_get(q, "pairing");
	if (!rc && s && *s && strcmp(s, "auto") && strcmp(s, "off")) {
		snprintf(err, errlen, "invalid pairing '%.60s' (auto or off)",
			 s);
		rc = DB_INVALID;
	}
	o->pol.unpaired = s && !strcmp(s, "off");
	s = query_get(q, "scale");
	if (!rc && s && *s) {
		o->scale = strtod(s, &end);
		if (*end || !(o->scale >= 0)) {
			snprintf(err, errlen, "invalid scale '%.60s'", s);
			rc = DB_INVALID;
		}
	}
	s = query_get(q, "scheduler");
	o->scheduler = s && *s ? s : NULL;
	o->cmdline = query_get(q, "cmdline");
	s = query_get(q, "rigconf");
	o->rigconf = s && *s ? s : NULL;
	if (!rc && o->rigconf && strcmp(s, "none") &&
	    (strlen(s) < 4 || strlen(s) > RIGCONF_HASH_LEN ||
	     s[strspn(s, "0123456789abcdef")])) {
		snprintf(err, errlen, "invalid rigconf '%.60s' (a rig "
			 "configuration's hash, or none)", s);
		rc = DB_INVALID;
	}
	return rc;
}
