// SPDX-License-Identifier: MIT
/*
 * strata: the test of a candidate against its baseline when their cells
 * ran on several rigs of one class (issue 31, rig pools).  Identical rigs
 * are not identical machines: one may run a few percent faster than the
 * other, always.  Pooling their cells would take that offset for noise
 * (and for a change, when one side ran more on the faster rig), so the
 * rig is a blocking factor: each rig compares base with candidate on its
 * own cells, and the rigs' changes are combined (see vd_test_strata in
 * verdict.h, docs/VERDICTS.md "Rig pools").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/rank.h"
#include "judge/verdict.h"

struct stratum {
	size_t n[2];		/* cells: 0 base, 1 candidate */
	double mean[2];		/* of the values, or of their logs */
	double ss[2];		/* squared residuals, relative (linear) */
};

struct strata {
	struct stratum *s;
	size_t ns;		/* rigs, by index */
	size_t common;		/* rigs that ran both sides */
	size_t n[2];		/* cells on those rigs */
	double df[2];		/* n - common */
	double mean[2];		/* of those cells (linear scale) */
	int logs;
};

static double val(const struct strata *st, double x)
{
	return st->logs ? log(x) : x;
}

/* The per-rig means and the within-rig squared residuals; 0, or -1 when
 * a rig's mean is not positive (no relative change within it). */
static int strata_fill(struct strata *st, const double *const v[2],
		       const int *const g[2], const size_t n[2])
{
	struct stratum *h;
	size_t s, i;

	for (s = 0; s < 2; s++)
		for (i = 0; i < n[s]; i++) {
			h = &st->s[g[s][i]];
			h->n[s]++;
			h->mean[s] += val(st, v[s][i]);
		}
	for (i = 0; i < st->ns; i++)
		for (s = 0; s < 2; s++)
			if (st->s[i].n[s])
				st->s[i].mean[s] /= (double)st->s[i].n[s];
	for (s = 0; s < 2; s++)
		for (i = 0; i < n[s]; i++) {
			double m, e;

			h = &st->s[g[s][i]];
			if (!h->n[0] || !h->n[1])
				continue;
			m = h->mean[s];
			if (!st->logs && !(m > 0))
				return -1;
			e = st->logs ? val(st, v[s][i]) - m : (v[s][i] - m) / m;
			h->ss[s] += e * e;
			st->n[s]++;
			st->mean[s] += v[s][i];
		}
	for (i = 0; i < st->ns; i++)
		st->common += st->s[i].n[0] && st->s[i].n[1];
	for (s = 0; s < 2; s++) {
		st->df[s] = (double)st->n[s] - (double)st->common;
		if (st->n[s])
			st->mean[s] /= (double)st->n[s];
	}
	return 0;
}

/* The combined log ratio and the two sides' variance factors: the
 * weighted mean of the rigs' log ratios, sum of (w_h / W)^2 / n_h. */
static double strata_change(const struct strata *st, double f[2])
{
	double w, W = 0, L = 0;
	size_t i;

	f[0] = f[1] = 0;
	for (i = 0; i < st->ns; i++) {
		const struct stratum *h = &st->s[i];

		if (!h->n[0] || !h->n[1])
			continue;
		w = (double)(h->n[0] * h->n[1]) / (double)(h->n[0] + h->n[1]);
		W += w;
		L += w * (st->logs ? h->mean[1] - h->mean[0] :
			  log(h->mean[1] / h->mean[0]));
	}
	for (i = 0; i < st->ns; i++) {
		const struct stratum *h = &st->s[i];

		if (!h->n[0] || !h->n[1])
			continue;
		w = (double)(h->n[0] * h->n[1]) / (double)(h->n[0] + h->n[1]);
		f[0] += (w / W) * (w / W) / (double)h->n[0];
		f[1] += (w / W) * (w / W) / (double)h->n[1];
	}
	return L / W;
}

/* The cells of side s on rig h into out; their count. */
static size_t rig_cells(const double *v, const int *g, size_t n, int h,
			double *out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (g[i] == h)
			out[k++] = v[i];
	return k;
}

/* van Elteren's stratified rank-sum test: each rig's Mann-Whitney U
 * about its mean, weighted 1 / (N_h + 1), normal approximation. */
static double strata_rank_p(const struct strata *st, const double *const v[2],
			    const int *const g[2], const size_t n[2])
{
	double *x = malloc((n[0] + n[1] + 1) * sizeof(*x)), num = 0, var = 0;
	double *y = x + n[1];
	struct vd_mw mw;
	size_t i, nx, ny;

	if (!x)
		abort();
	for (i = 0; i < st->ns; i++) {
		double N, u;

		nx = rig_cells(v[1], g[1], n[1], (int)i, x);
		ny = rig_cells(v[0], g[0], n[0], (int)i, y);
		if (!nx || !ny || vd_mann_whitney(x, nx, y, ny, &mw))
			continue;
		N = (double)(nx + ny);
		u = mw.w - (double)(nx * ny) / 2;
		num += u / (N + 1);
		var += (double)(nx * ny) * (N + 1) / 12 / ((N + 1) * (N + 1));
	}
	free(x);
	return var > 0 ? erfc(fabs(num) / sqrt(var) / sqrt(2)) : NAN;
}

static void untested(struct vd_result *r, const char *why)
{
	r->tested = 0;
	r->verdict = V_UNDECIDED;
	r->p = r->ci_lo = r->ci_hi = NAN;
	r->note = why;
	r->analysis = "";
}

static int max_rig(const int *g, size_t n, int m)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (g[i] > m)
			m = g[i];
	return m;
}

void vd_test_strata(const struct vd_policy *pol, const struct vd_kind *kind,
		    enum metric_dir dir, double floor_pct, const double *base,
		    const int *bg, size_t nb, const double *cand,
		    const int *cg, size_t nc, struct vd_result *r)
{
	const double *const v[2] = { base, cand };
	const int *const g[2] = { bg, cg };
	const size_t n[2] = { nb, nc };
	double min_cv = pol->min_cv_pct / 100, f[2], sd[2], q, L;
	struct strata st;
	size_t i;

	/* what the pooled test says of the numbers: missing, n=1, zero */
	vd_test(pol, kind, dir, floor_pct, base, nb, cand, nc, r);
	if (!r->tested)
		return;
	memset(&st, 0, sizeof(st));
	st.ns = (size_t)max_rig(cg, nc, max_rig(bg, nb, 0)) + 1;
	st.s = calloc(st.ns, sizeof(*st.s));
	if (!st.s)
		abort();
	st.logs = kind->log_scale;
	for (i = 0; st.logs && i < nb + nc; i++)
		st.logs = (i < nb ? base[i] : cand[i - nb]) > 0;
	if (strata_fill(&st, v, g, n))
		goto out;	/* a rig's mean is 0: the pooled test stands */
	if (!st.common || !(st.mean[0] > 0)) {
		untested(r, "no rig ran both sides");
		goto out;
	}
	L = strata_change(&st, f);
	r->delta_pct = 100 * expm1(L);	/* the change within the rigs */
	if (st.df[0] < 1 || st.df[1] < 1) {
		untested(r, "too few cells within each rig");
		goto out;
	}
	for (i = 0; i < 2; i++) {
		double ss = 0;
		size_t h;

		for (h = 0; h < st.ns; h++)
			ss += st.s[h].ss[i];
		sd[i] = sqrt(ss / st.df[i]);
	}
	r->sd_pct = 100 * sd[1];
	r->noise_pct = 100 * sd[0];
	r->threshold_pct = fmax(r->floor_pct, pol->noise_k * r->noise_pct);
	q = st.logs ? 0 : vd_quantum(base, nb, cand, nc) / sqrt(12);
	for (i = 0; i < 2; i++)
		sd[i] = fmax(sd[i], fmax(min_cv, st.mean[i] > 0 ?
					 q / st.mean[i] : 0));
	vd_welch_fill(pol, L, sd[0] * sd[0] * f[0], st.df[0],
		      sd[1] * sd[1] * f[1], st.df[1], 0, r);
	r->analysis = "stratified";
	q = kind->log_scale ? strata_rank_p(&st, v, g, n) : NAN;
	if (!isnan(q)) {
		r->p = q;
		r->analysis = "stratified-ranks";
	}
out:
	free(st.s);
}
