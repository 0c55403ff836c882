// SPDX-License-Identifier: MIT
/*
 * changepoint: e-divisive means with a permutation test, see
 * changepoint.h.  One work area per call holds the segment being tested
 * (values and their ranks), a shuffled copy, the Fenwick tree and the
 * running within-sums; the segments are searched depth first.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/changepoint.h"
#include "lib/alloc.h"
#include "lib/rand.h"

#define CP_DEFAULT_SEED 0x6b6c61622d637021ULL

struct cp_rank {
	double v;
	size_t i;
};

struct cp_work {
	const double *x;
	const unsigned char *ok;
	const struct cp_params *p;
	double *v, *pv;		/* segment values, shuffled copy */
	size_t *pos, *ppos;	/* their ranks in the segment */
	struct cp_rank *rk;
	size_t *fc;		/* Fenwick tree: counts and sums by rank */
	double *fs;
	double *wl, *wr;	/* within-sums of prefixes and suffixes */
	struct cp_point *out;
	size_t nout, alloc;
};

void cp_params_default(struct cp_params *p)
{
	p->min_size = 3;
	p->sig = 0.01;
	p->permutations = 199;
	p->seed = 0;
}

double cp_size_pct(const struct cp_point *c)
{
	if (c->mean_before == 0)
		return 0;
	return (c->mean_after - c->mean_before) / fabs(c->mean_before) * 100;
}

static void fen_add(size_t *fc, double *fs, size_t m, size_t pos, double v)
{
	size_t i;

	for (i = pos + 1; i <= m; i += i & (0 - i)) {
		fc[i]++;
		fs[i] += v;
	}
}

/* Count and sum of the entries ranked below pos. */
static void fen_below(const size_t *fc, const double *fs, size_t pos,
		      size_t *c, double *s)
{
	size_t i;

	*c = 0;
	*s = 0;
	for (i = pos; i > 0; i -= i & (0 - i)) {
		*c += fc[i];
		*s += fs[i];
	}
}

/*
 * w[k] = sum over pairs i < j of |v_i - v_j| inside v[0..k) (forward) or
 * inside v[k..m) (backward), for every k in 0..m.
 */
static void within_sums(struct cp_work *w, const double *v,
			const size_t *pos, size_t m, int backward, double *out)
{
	size_t k, i, c = 0, cl;
	double s = 0, sl, d;

	memset(w->fc, 0, (m + 1) * sizeof(*w->fc));
	memset(w->fs, 0, (m + 1) * sizeof(*w->fs));
	out[backward ? m : 0] = 0;
	for (k = 0; k < m; k++) {
		i = backward ? m - 1 - k : k;
		fen_below(w->fc, w->fs, pos[i], &cl, &sl);
		d = v[i] * (double)cl - sl + (s - sl) - v[i] * (double)(c - cl);
		fen_add(w->fc, w->fs, m, pos[i], v[i]);
		c++;
		s += v[i];
		if (backward)
			out[i] = out[i + 1] + d;
		else
			out[k + 1] = out[k] + d;
	}
}

/* The best allowed cut of v[0..m) (0: none) and its statistic *q. */
static size_t best_cut(struct cp_work *w, const double *v, const size_t *pos,
		       size_t m, const unsigned char *ok, double *q)
{
	size_t t, best = 0, min = w->p->min_size;
	double tot, a, b, between, e, qt;

	within_sums(w, v, pos, m, 0, w->wl);
	within_sums(w, v, pos, m, 1, w->wr);
	tot = w->wl[m];
	*q = -INFINITY;
	for (t = min; t + min <= m; t++) {
		if (ok && !ok[t])
			continue;
		a = (double)t;
		b = (double)(m - t);
		between = tot - w->wl[t] - w->wr[t];
		e = 2 * between / (a * b) - 2 * w->wl[t] / (a * (a - 1)) -
		    2 * w->wr[t] / (b * (b - 1));
		qt = a * b / (a + b) * e;
		if (qt > *q) {
			*q = qt;
			best = t;
		}
	}
	return best;
}

static int rank_cmp(const void *pa, const void *pb)
{
	const struct cp_rank *a = pa, *b = pb;

	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Copy x[lo..lo+m) into the work area with the ranks of its values. */
static void segment_load(struct cp_work *w, size_t lo, size_t m)
{
	size_t i;

	for (i = 0; i < m; i++) {
		w->v[i] = w->x[lo + i];
		w->rk[i].v = w->v[i];
		w->rk[i].i = i;
	}
	qsort(w->rk, m, sizeof(*w->rk), rank_cmp);
	for (i = 0; i < m; i++)
		w->pos[w->rk[i].i] = i;
}

static uint64_t seed_of(uint64_t seed, size_t lo, size_t m)
{
	uint64_t z = (seed ? seed : CP_DEFAULT_SEED) ^
		     ((uint64_t)lo * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)m;

	/* splitmix64's finaliser spreads nearby segments apart */
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z ? z : CP_DEFAULT_SEED;
}

/*
 * The permutation p-value of statistic q for the segment in w->v: the
 * share of shuffles whose best cut scores at least q, counting q itself.
 * Stops once the answer cannot fall to the significance level.
 */
static double perm_p(struct cp_work *w, size_t lo, size_t m, double q)
{
	const struct cp_params *p = w->p;
	uint64_t s = seed_of(p->seed, lo, m);
	double qp, tol = 1e-9 * fabs(q);
	size_t i, j, tp;
	int r, over = 0;
	double tv;

	memcpy(w->pv, w->v, m * sizeof(*w->pv));
	memcpy(w->ppos, w->pos, m * sizeof(*w->ppos));
	for (r = 1; r <= p->permutations; r++) {
		for (i = m - 1; i > 0; i--) {
			j = (size_t)(rand_xorshift64(&s) % (i + 1));
			tv = w->pv[i];
			w->pv[i] = w->pv[j];
			w->pv[j] = tv;
			tp = w->ppos[i];
			w->ppos[i] = w->ppos[j];
			w->ppos[j] = tp;
		}
		best_cut(w, w->pv, w->ppos, m, w->ok ? w->ok + lo : NULL,
			 &qp);
		if (qp >= q - tol)
			over++;
		if ((over + 1.0) / (p->permutations + 1.0) > p->sig)
			return (over + 1.0) / (r + 1.0);
	}
	return (over + 1.0) / (p->permutations + 1.0);
}

/* Search x[lo..hi) for changes, depth first. */
static void segment_search(struct cp_work *w, size_t lo, size_t hi)
{
	size_t m = hi - lo, t;
	struct cp_point *c;
	double q, pv;

	if (m < 2 * w->p->min_size)
		return;
	segment_load(w, lo, m);
	t = best_cut(w, w->v, w->pos, m, w->ok ? w->ok + lo : NULL, &q);
	if (!t || !(q > 0))
		return;
	pv = perm_p(w, lo, m, q);
	if (pv > w->p->sig)
		return;
	ALLOC_GROW(w->out, w->nout, w->alloc);
	c = &w->out[w->nout++];
	memset(c, 0, sizeof(*c));
	c->idx = lo + t;
	c->q = q;
	c->p = pv;
	segment_search(w, lo, lo + t);
	segment_search(w, lo + t, hi);
}

static int point_cmp(const void *pa, const void *pb)
{
	const struct cp_point *a = pa, *b = pb;

	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static double mean_of(const double *x, size_t lo, size_t hi)
{
	double s = 0;
	size_t i;

	for (i = lo; i < hi; i++)
		s += x[i];
	return hi > lo ? s / (double)(hi - lo) : 0;
}

/* Sort the changes and give each the means of its neighbouring segments. */
static void points_finish(struct cp_work *w, size_t n)
{
	size_t i, lo, hi;

	if (w->nout > 1)
		qsort(w->out, w->nout, sizeof(*w->out), point_cmp);
	for (i = 0; i < w->nout; i++) {
		lo = i ? w->out[i - 1].idx : 0;
		hi = i + 1 < w->nout ? w->out[i + 1].idx : n;
		w->out[i].mean_before = mean_of(w->x, lo, w->out[i].idx);
		w->out[i].mean_after = mean_of(w->x, w->out[i].idx, hi);
	}
}

int cp_find(const double *x, size_t n, const unsigned char *cut_ok,
	    const struct cp_params *p, struct cp_point **out, size_t *nout)
{
	struct cp_work w;

	*out = NULL;
	*nout = 0;
	if (p->min_size < 2 || !(p->sig > 0 && p->sig < 1) ||
	    p->permutations < 1 || (n && !x))
		return -1;
	if (n < 2 * p->min_size)
		return 0;
	memset(&w, 0, sizeof(w));
	w.x = x;
	w.ok = cut_ok;
	w.p = p;
	w.v = xrealloc(NULL, n * sizeof(*w.v));
	w.pv = xrealloc(NULL, n * sizeof(*w.pv));
	w.pos = xrealloc(NULL, n * sizeof(*w.pos));
	w.ppos = xrealloc(NULL, n * sizeof(*w.ppos));
	w.rk = xrealloc(NULL, n * sizeof(*w.rk));
	w.fc = xrealloc(NULL, (n + 1) * sizeof(*w.fc));
	w.fs = xrealloc(NULL, (n + 1) * sizeof(*w.fs));
	w.wl = xrealloc(NULL, (n + 1) * sizeof(*w.wl));
	w.wr = xrealloc(NULL, (n + 1) * sizeof(*w.wr));
	segment_search(&w, 0, n);
	points_finish(&w, n);
	free(w.v);
	free(w.pv);
	free(w.pos);
	free(w.ppos);
	free(w.rk);
	free(w.fc);
	free(w.fs);
	free(w.wl);
	free(w.wr);
	*out = w.out;
	*nout = w.nout;
	return 0;
}
