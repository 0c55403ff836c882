// SPDX-License-Identifier: MIT
/*
 * The verdict rule (see verdict.h): kinds of metrics, cell values, the
 * test of one candidate against its baseline, and the page-wide error
 * control that turns significant changes into worse or better.
 */
#include "judge/verdict.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/rank.h"
#include "lib/stats.h"

void vd_policy_default(struct vd_policy *p)
{
	const struct vd_floor *f;

	memset(p, 0, sizeof(*p));
	p->nfloors = vd_defaults_floors(&f);
	memcpy(p->floors, f, p->nfloors * sizeof(*f));
	/* 1% of A/A pages with any worse or better (docs/VERDICTS.md) */
	p->alpha[VC_HEADLINE] = 0.008;
	p->alpha[VC_SECONDARY] = 0.002;
	p->alpha_equiv = 0.05;
	p->floor_pct[VC_HEADLINE] = 2.0;
	p->floor_pct[VC_SECONDARY] = 5.0;
	p->noise_k = 1.0;
	p->same_max_pct = 10.0;
	p->min_cv_pct = 0.5;
}

int vd_policy_add_floor(struct vd_policy *p, const char *spec)
{
	const char *eq = strrchr(spec, ':'), *slash;
	struct vd_floor *f;
	char *end;
	size_t sl, ml;

	if (!eq || p->nfloors == VD_MAX_FLOORS)
		return -1;
	f = &p->floors[p->nfloors];
	f->pct = strtod(eq + 1, &end);
	if (end == eq + 1 || *end || !isfinite(f->pct) || f->pct < 0 ||
	    f->pct > 1000)
		return -1;
	slash = memchr(spec, '/', (size_t)(eq - spec));
	sl = slash ? (size_t)(slash - spec) : 0;
	ml = (size_t)(eq - spec) - (slash ? sl + 1 : 0);
	if (!ml || sl >= sizeof(f->suite) || ml >= sizeof(f->metric))
		return -1;
	memcpy(f->suite, spec, sl);
	f->suite[sl] = '\0';
	memcpy(f->metric, slash ? slash + 1 : spec, ml);
	f->metric[ml] = '\0';
	p->nfloors++;
	return 0;
}

/*
 * Metrics declared apart from their field's class, by whole name (fnmatch,
 * first match wins; docs/VERDICTS.md "Error control across the page"):
 * the machine's CPU per I/O (workloads/syscpu.h) is a headline metric of
 * the iops suites, which are about CPU, and a secondary one elsewhere;
 * either way its floor is 5%: at 100 ticks a second a short phase's CPU
 * time is coarse, and a smaller change in CPU per I/O is not worth a
 * submitter's attention.
 */
static const struct vd_rule {
	const char *glob;
	enum vd_class klass;
	double floor_pct;	/* at least the class's */
} rules[] = {
	{ "iops.sys_cpu_per_op", VC_HEADLINE, 5.0 },
	{ "*.sys_cpu_per_op", VC_SECONDARY, 5.0 },
};

static const struct vd_rule *rule_of(const char *metric)
{
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(*rules); i++)
		if (!fnmatch(rules[i].glob, metric, 0))
			return &rules[i];
	return NULL;
}

double vd_floor_for(const struct vd_policy *p, const char *suite,
		    const char *metric, enum vd_class k)
{
	const struct vd_rule *r = rule_of(metric);
	double pct = p->floor_pct[k];
	size_t i;

	if (r && r->floor_pct > pct)
		pct = r->floor_pct;

	for (i = 0; i < p->nfloors; i++) {
		const struct vd_floor *f = &p->floors[i];

		if (*f->suite && (!suite || fnmatch(f->suite, suite, 0)))
			continue;
		if (!fnmatch(f->metric, metric, 0))
			pct = f->pct;
	}
	return pct;
}

static int field_is(const char *field, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(field, *set))
			return 1;
	return 0;
}

void vd_kind_of(const char *metric, const char *unit, enum metric_dir dir,
		struct vd_kind *out)
{
	static const char *const headline[] = {
		"rate", "avg_lat", "lat_avg", "total", "iops", "throughput",
		"nb_throughput", NULL
	};
	const char *field = strrchr(metric, '.');
	const struct vd_rule *r = rule_of(metric);

	field = field ? field + 1 : metric;
	out->klass = r ? r->klass : field_is(field, headline) ? VC_HEADLINE :
		     VC_SECONDARY;
	out->log_scale = strstr(field, "p99") != NULL ||
			 strstr(field, "max") != NULL;
	out->harmonic = result_is_rate(unit, dir);
}

double vd_cell_value(const double *reps, size_t n, int harmonic)
{
	double sum = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++) {
		if (!isfinite(reps[i]))
			return NAN;
		/* a stalled repetition (rate 0) makes the harmonic mean 0 */
		if (harmonic && reps[i] <= 0)
			return 0;
		sum += harmonic ? 1 / reps[i] : reps[i];
	}
	return harmonic ? (double)n / sum : sum / (double)n;
}

const char *vd_class_name(enum vd_class k)
{
	return k == VC_HEADLINE ? "headline" : "secondary";
}

int vd_leans_worse(const struct vd_result *r)
{
	if (r->verdict != V_UNDECIDED || isnan(r->threshold_pct))
		return 0;
	if (r->dir == DIR_LOWER)
		return r->ci_lo > r->threshold_pct;
	return r->dir == DIR_HIGHER && r->ci_hi < -r->threshold_pct;
}

double vd_t_quantile(double p2, double df)
{
	double lo = 0, hi = 1e6;
	int i;

	if (!(p2 > 0 && p2 < 1) || !(df > 0))
		return NAN;
	for (i = 0; i < 200 && hi - lo > 1e-12 * (1 + lo); i++) {
		double mid = (lo + hi) / 2;

		if (stats_t_p(mid, df) > p2)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* ---- one candidate against the baseline --------------------------- */

struct side {
	double mean, sd;
	int pos, zero;		/* every value > 0, every value == 0 */
};

static void side_of(const double *v, size_t n, int logs, struct side *s)
{
	double sum = 0, ss = 0;
	size_t i;

	s->pos = s->zero = 1;
	for (i = 0; i < n; i++) {
		s->pos &= v[i] > 0;
		s->zero &= v[i] == 0;
		sum += logs ? log(v[i]) : v[i];
	}
	s->mean = sum / (double)n;
	for (i = 0; i < n; i++) {
		double d = (logs ? log(v[i]) : v[i]) - s->mean;

		ss += d * d;
	}
	s->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
}

static int all_finite(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The smallest positive gap between two values of one side: v sorted
 * into tmp, gap folded into q (0: none yet). */
static double side_quantum(const double *v, size_t n, double *tmp, double q)
{
	size_t i;

	memcpy(tmp, v, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), dbl_cmp);
	for (i = 1; i < n; i++)
		if (tmp[i] > tmp[i - 1] && (q == 0 || tmp[i] - tmp[i - 1] < q))
			q = tmp[i] - tmp[i - 1];
	return q;
}

/* The step of a quantised metric: the smallest gap between distinct
 * values within a side (the gap between the sides is the effect), 0 when
 * each side is constant. */
double vd_quantum(const double *a, size_t na, const double *b, size_t nb)
{
	double *tmp = malloc((na > nb ? na : nb) * sizeof(*tmp) + 1), q;

	if (!tmp)
		abort();
	q = side_quantum(a, na, tmp, 0);
	q = side_quantum(b, nb, tmp, q);
	free(tmp);
	return q;
}

static void result_init(struct vd_result *r, const struct vd_kind *kind,
			enum metric_dir dir, size_t nb, size_t nc,
			double floor_pct)
{
	memset(r, 0, sizeof(*r));
	r->verdict = V_NONE;
	r->note = "";
	r->nb = nb;
	r->nc = nc;
	r->delta_pct = r->ci_lo = r->ci_hi = r->p = r->p_adj = NAN;
	r->se = r->df = NAN;
	r->noise_pct = r->sd_pct = NAN;
	r->floor_pct = r->threshold_pct = r->margin_pct = floor_pct;
	r->klass = kind->klass;
	r->dir = dir;
	r->analysis = "";
}

/* Why there is no verdict, or NULL when the sides can be tested. */
static const char *untestable(enum metric_dir dir, const double *base,
			      size_t nb, const double *cand, size_t nc)
{
	if (dir == DIR_NONE)
		return "a parameter, no direction";
	if (!nb)
		return "missing in the baseline";
	if (!nc)
		return "missing in the candidate";
	if (!all_finite(base, nb) || !all_finite(cand, nc))
		return "not a number among the cells";
	return NULL;
}

/* same when the 90% CI lies inside +-margin, else undecided */
static void same_or_open(struct vd_result *r, double margin)
{
	r->margin_pct = margin;
	r->verdict = r->ci_lo > -margin && r->ci_hi < margin ? V_SAME :
		     V_UNDECIDED;
}

void vd_welch_fill(const struct vd_policy *pol, double L, double a,
		   double dfa, double c, double dfc, int lin,
		   struct vd_result *r)
{
	double se = sqrt(a + c), df, q;

	df = (a + c) * (a + c) / (a * a / dfa + c * c / dfc);
	r->p = stats_t_p(L / se, df);
	r->se = se;
	r->df = df;
	r->analysis = "welch";
	q = vd_t_quantile(2 * pol->alpha_equiv, df);
	r->ci_lo = 100 * (lin ? L - q * se : expm1(L - q * se));
	r->ci_hi = 100 * (lin ? L + q * se : expm1(L + q * se));
	r->tested = 1;
	same_or_open(r, r->threshold_pct);
}

/* A tail's p from the ranks; its CI and delta stay on the log scale. */
static void tail_rank_p(const double *base, size_t nb, const double *cand,
			size_t nc, struct vd_result *r)
{
	struct vd_mw mw;

	if (!r->tested || vd_mann_whitney(cand, nc, base, nb, &mw))
		return;
	r->p = mw.p;
	r->analysis = "mann-whitney";
}

static void vd_test_welch(const struct vd_policy *pol,
			  const struct vd_kind *kind, enum metric_dir dir,
			  double floor_pct, const double *base, size_t nb,
			  const double *cand, size_t nc, struct vd_result *r)
{
	double min_cv = pol->min_cv_pct / 100, sb, sc, q;
	struct side b, c;
	int logs;

	result_init(r, kind, dir, nb, nc, floor_pct);
	r->note = untestable(dir, base, nb, cand, nc);
	if (r->note)
		return;
	r->note = "";
	side_of(base, nb, 0, &b);
	side_of(cand, nc, 0, &c);
	logs = kind->log_scale && b.pos && c.pos;
	if (b.zero && c.zero) {
		r->delta_pct = 0;
	} else if (b.mean <= 0) {
		r->note = b.mean == 0 ? "zero baseline, no relative change" :
			  "negative baseline, no relative change";
		return;
	} else if (logs) {
		side_of(base, nb, 1, &b);
		side_of(cand, nc, 1, &c);
		r->delta_pct = 100 * expm1(c.mean - b.mean);
		r->sd_pct = 100 * c.sd;
	} else {
		r->delta_pct = 100 * (c.mean / b.mean - 1);
		r->sd_pct = c.mean != 0 ? 100 * c.sd / fabs(c.mean) : NAN;
	}
	if (nb < 2 || nc < 2) {
		r->note = "n=1, no verdict";
		return;
	}
	if (b.zero && c.zero) {
		r->verdict = V_SAME;
		r->note = "zero on both sides";
		return;
	}
	r->noise_pct = 100 * (logs ? b.sd : b.sd / b.mean);
	if (pol->noise_k * r->noise_pct > r->threshold_pct)
		r->threshold_pct = pol->noise_k * r->noise_pct;
	if (logs) {
		sb = fmax(b.sd, min_cv);
		sc = fmax(c.sd, min_cv);
		vd_welch_fill(pol, c.mean - b.mean, sb * sb / (double)nb,
			      (double)(nb - 1), sc * sc / (double)nc,
			      (double)(nc - 1), 0, r);
		return;
	}
	q = vd_quantum(base, nb, cand, nc) / sqrt(12);
	sb = fmax(b.sd, fmax(min_cv * b.mean, q)) / b.mean;
	if (c.mean > 0) {
		sc = fmax(c.sd, fmax(min_cv * c.mean, q)) / c.mean;
		vd_welch_fill(pol, log(c.mean / b.mean), sb * sb / (double)nb,
			      (double)(nb - 1), sc * sc / (double)nc,
			      (double)(nc - 1), 0, r);
	} else {
		sc = fmax(c.sd, q) / b.mean;
		vd_welch_fill(pol, c.mean / b.mean - 1, sb * sb / (double)nb,
			      (double)(nb - 1), sc * sc / (double)nc,
			      (double)(nc - 1), 1, r);
	}
}

void vd_test(const struct vd_policy *pol, const struct vd_kind *kind,
	     enum metric_dir dir, double floor_pct, const double *base,
	     size_t nb, const double *cand, size_t nc, struct vd_result *r)
{
	vd_test_welch(pol, kind, dir, floor_pct, base, nb, cand, nc, r);
	if (kind->log_scale)
		tail_rank_p(base, nb, cand, nc, r);
}

/* ---- interleaved pairs -------------------------------------------- */

static int all_positive(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(v[i] > 0))
			return 0;
	return 1;
}

double vd_pairs_f(const double *base, const double *cand, size_t n)
{
	double ms = 0, md = 0, vs = 0, vd = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		ms += log(cand[i] * base[i]) / (double)n;
		md += log(cand[i] / base[i]) / (double)n;
	}
	for (i = 0; i < n; i++) {
		double a = log(cand[i] * base[i]) - ms;
		double b = log(cand[i] / base[i]) - md;

		vs += a * a;
		vd += b * b;
	}
	return vd > 0 ? vs / vd : vs > 0 ? INFINITY : 1;
}

/* The step of a quantised metric for pairs: the smallest gap between
 * distinct values of both sides pooled (within a side, a drift spreads
 * the values far beyond the step). */
static double pooled_quantum(const double *a, const double *b, size_t n)
{
	double *all = malloc(2 * n * sizeof(*all) + 1), *tmp, q;

	tmp = malloc(2 * n * sizeof(*tmp) + 1);
	if (!all || !tmp)
		abort();
	memcpy(all, a, n * sizeof(*a));
	memcpy(all + n, b, n * sizeof(*b));
	q = side_quantum(all, 2 * n, tmp, 0);
	free(all);
	free(tmp);
	return q;
}

void vd_test_paired(const struct vd_policy *pol, const struct vd_kind *kind,
		    enum metric_dir dir, double floor_pct, const double *base,
		    const double *cand, size_t n, struct vd_result *r)
{
	double sum = 0, ss = 0, bsum = 0, mean, sd, se, q, floor_sd;
	size_t i;

	if (n < 3 || dir == DIR_NONE || !all_finite(base, n) ||
	    !all_finite(cand, n) || !all_positive(base, n) ||
	    !all_positive(cand, n)) {
		vd_test(pol, kind, dir, floor_pct, base, n, cand, n, r);
		return;
	}
	result_init(r, kind, dir, n, n, floor_pct);
	for (i = 0; i < n; i++) {
		sum += log(cand[i] / base[i]);
		bsum += base[i];
	}
	mean = sum / (double)n;
	for (i = 0; i < n; i++) {
		double d = log(cand[i] / base[i]) - mean;

		ss += d * d;
	}
	sd = sqrt(ss / (double)(n - 1));
	r->delta_pct = 100 * expm1(mean);
	r->sd_pct = 100 * sd / sqrt(2);
	r->noise_pct = r->sd_pct;
	if (pol->noise_k * r->noise_pct > r->threshold_pct)
		r->threshold_pct = pol->noise_k * r->noise_pct;
	/* the quantum of a quantised metric, relative to the baseline */
	floor_sd = kind->log_scale ? 0 :
		   pooled_quantum(base, cand, n) / sqrt(12) /
		   (bsum / (double)n);
	floor_sd = sqrt(2) * fmax(pol->min_cv_pct / 100, floor_sd);
	se = fmax(sd, floor_sd) / sqrt((double)n);
	r->p = stats_t_p(mean / se, (double)(n - 1));
	r->se = se;
	r->df = (double)(n - 1);
	q = vd_t_quantile(2 * pol->alpha_equiv, (double)(n - 1));
	r->ci_lo = 100 * expm1(mean - q * se);
	r->ci_hi = 100 * expm1(mean + q * se);
	r->tested = 1;
	r->analysis = "paired";
	same_or_open(r, r->threshold_pct);
}

/* ---- the page ----------------------------------------------------- */

struct pidx {
	double p;
	size_t i;
};

static int pidx_cmp(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static struct pidx *sorted(const double *p, size_t n)
{
	struct pidx *s = malloc((n ? n : 1) * sizeof(*s));
	size_t i;

	if (!s)
		abort();
	for (i = 0; i < n; i++) {
		s[i].p = p[i];
		s[i].i = i;
	}
	qsort(s, n, sizeof(*s), pidx_cmp);
	return s;
}

void vd_holm(const double *p, size_t n, double *adj)
{
	struct pidx *s = sorted(p, n);
	double run = 0;
	size_t j;

	for (j = 0; j < n; j++) {
		double a = fmin(1, (double)(n - j) * s[j].p);

		run = fmax(run, a);
		adj[s[j].i] = run;
	}
	free(s);
}

void vd_bh(const double *p, size_t n, double *adj)
{
	struct pidx *s = sorted(p, n);
	double run = 1;
	size_t j;

	for (j = n; j-- > 0;) {
		double a = fmin(1, (double)n * s[j].p / (double)(j + 1));

		run = fmin(run, a);
		adj[s[j].i] = run;
	}
	free(s);
}

/*
 * "same" at a comparison run's cap N, at the look of N cells a side (not
 * before: earlier looks keep the threshold, so a change of at least the
 * margin gets about one 5% chance of "same", not one a look): the margin
 * is the change the worse test detects half the time at n >= N cells a
 * side, its Bonferroni quantile (alpha / m, the first Holm step) times
 * the smaller of the test's standard error and the one both sides would
 * have with the baseline's noise s, s sqrt(2 / n); never below the
 * threshold, at most same_max_pct (a wider "same" says nothing).  A
 * change at least that large is called same about 5% of the time (the
 * 90% CI), and a smaller one is one the cap could not have called worse
 * even half the time.  A noisier candidate widens the CI, never the
 * margin.
 */
static void same_at_cap(const struct vd_policy *pol, double alpha,
			struct vd_result *r)
{
	double n = (double)(r->nb < r->nc ? r->nb : r->nc), e, q;

	if (r->verdict != V_UNDECIDED || !(r->df > 0) || n < 2 ||
	    n < (double)pol->same_cells || !isfinite(r->noise_pct))
		return;
	q = vd_t_quantile(alpha, r->df);
	e = fmin(pol->same_max_pct, q * fmin(100 * r->se,
		 fmax(r->noise_pct, pol->min_cv_pct) * sqrt(2 / n)));
	if (e > r->threshold_pct)
		same_or_open(r, e);
}

void vd_decide(const struct vd_policy *pol, struct vd_result *const *v,
	       size_t n)
{
	double *p = malloc((n ? n : 1) * 2 * sizeof(*p)), *adj = p + n;
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx)), i, m;
	int k;

	if (!p || !idx)
		abort();
	for (k = 0; k < VC_NCLASSES; k++) {
		for (i = m = 0; i < n; i++)
			if (v[i]->tested && (int)v[i]->klass == k) {
				idx[m] = i;
				p[m++] = v[i]->p;
			}
		(pol->bh ? vd_bh : vd_holm)(p, m, adj);
		for (i = 0; i < m; i++) {
			struct vd_result *r = v[idx[i]];
			int up = r->delta_pct > 0;

			r->p_adj = adj[i];
			if (pol->same_cells >= 2)
				same_at_cap(pol, pol->alpha[k] / (double)m, r);
			if (adj[i] < pol->alpha[k] &&
			    fabs(r->delta_pct) >= r->threshold_pct)
				r->verdict = up == (r->dir == DIR_HIGHER) ?
					V_BETTER : V_WORSE;
		}
	}
	free(p);
	free(idx);
}

void vd_rule_sentence(const struct vd_policy *p, char *buf, size_t len)
{
	char margin[200] = "threshold";

	if (p->same_cells >= 2)
		snprintf(margin, sizeof(margin), "max(threshold, the change "
			 "the test detects half the time at the cap of %zu "
			 "cells a side with the baseline's noise, at most "
			 "%g%%)", p->same_cells, p->same_max_pct);
	snprintf(buf, len, "A cell is one run (its repetitions averaged, "
		 "rates by harmonic mean); worse or better means the test on "
		 "the cells (Welch's t on the log ratio, Mann-Whitney ranks "
		 "for tails, a paired t on interleaved A B pairs%s) is "
		 "significant after %s "
		 "correction across the page (headline alpha %g, secondary "
		 "%g) and the change is at least the threshold, max(floor "
		 "%g%%/%g%%, %g x the baseline's cell CV); same means the "
		 "90%% CI lies within +-%s; otherwise undecided; one "
		 "cell a side gives no verdict.",
		 p->unpaired ? ", off here" : "",
		 p->bh ? "Benjamini-Hochberg" : "Holm",
		 p->alpha[VC_HEADLINE], p->alpha[VC_SECONDARY],
		 p->floor_pct[VC_HEADLINE], p->floor_pct[VC_SECONDARY],
		 p->noise_k, margin);
}
