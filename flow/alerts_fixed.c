// SPDX-License-Identifier: MIT
/*
 * alerts_fixed: a fixed alert closes itself when its metric is back to
 * its level (flow/alerts.h, docs/VERDICTS.md "A fixed alert closes
 * itself").  After new results for a rig x suite, the line's history of
 * each metric with fixed change-point alerts is read in the order the
 * change points were searched in, and the level before the change (the
 * points since the change point before it, or since the start) is
 * compared with where the line is now by the verdicts' own equivalence
 * test (judge/verdict.h vd_test: the 90% confidence interval of the
 * change inside +- the metric's threshold is "same").  Where the line
 * is now: the cells of the kernel that fixed it, else of the line's
 * newest kernel, when it came after the change and has two cells or
 * more; else the points after a later change point.  Back: the alert
 * is closed, by "klab", saying so in its log and in one notice.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/alerts.h"
#include "db/changepoints.h"
#include "flow/alerts_int.h"
#include "flow/changepoints.h"
#include "judge/verdict.h"
#include "lib/alloc.h"
#include "lib/strbuf.h"

/* One rig configuration of a line's history, in the search's order. */
struct line_pts {
	double *x;
	const char **kern;	/* borrowed from the samples */
	size_t n;
};

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* The points of s[0..n) under rigconf, ordered as the search orders
 * them (changepoints_order).  0, or -1 on a database error. */
static int line_points(struct db *db, const struct db_sample *s, size_t n,
		       const char *rigconf, struct line_pts *p)
{
	struct db_sample *part = xcalloc(n + 1, sizeof(*part));
	unsigned char *ok = NULL;
	size_t *order = NULL, i, np = 0;
	int rc;

	for (i = 0; i < n; i++)
		if (!strcmp(nz(s[i].rigconf), rigconf))
			part[np++] = s[i];
	rc = changepoints_order(db, part, np, &order, &ok);
	p->x = xcalloc(np + 1, sizeof(*p->x));
	p->kern = xcalloc(np + 1, sizeof(*p->kern));
	for (i = 0; !rc && i < np; i++) {
		p->x[i] = part[order[i]].value;
		p->kern[i] = part[order[i]].kernel;
	}
	p->n = rc ? 0 : np;
	free(order);
	free(ok);
	free(part);
	return rc;
}

/* The first point of kernel in p, p->n when none. */
static size_t first_of(const struct line_pts *p, const char *kernel)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->kern[i], kernel))
			break;
	return i;
}

/* The points of kernel k into out; how many. */
static size_t kernel_points(const struct line_pts *p, const char *k,
			    double *out)
{
	size_t i, m = 0;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->kern[i], k))
			out[m++] = p->x[i];
	return m;
}

static double mean(const double *x, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : NAN;
}

/* How the alert's line is judged: the level, where it is now. */
struct level_view {
	size_t a;		/* the change: the first point after it */
	size_t lo;		/* the level: points lo .. a - 1 */
	double *now;		/* where the line is now */
	size_t nnow;
	const char *now_at;	/* the kernel now is, or its first */
	int segment;		/* now: the points since a change point */
	struct vd_result res;
};

/* Where the line is now, after the change at a: into v (0), or -1 when
 * it cannot say yet. */
static int level_now(const struct line_pts *p, const size_t *cuts,
		     size_t ncuts, const char *fixed_kernel,
		     struct level_view *v)
{
	const char *k = NULL;
	size_t i, hi = 0;

	if (*fixed_kernel && first_of(p, fixed_kernel) > v->a &&
	    first_of(p, fixed_kernel) < p->n)
		k = fixed_kernel;
	else if (p->n && first_of(p, p->kern[p->n - 1]) > v->a)
		k = p->kern[p->n - 1];
	if (k) {
		v->nnow = kernel_points(p, k, v->now);
		v->now_at = k;
	}
	if (v->nnow >= 2)
		return 0;
	for (i = 0; i < ncuts; i++)
		if (cuts[i] > v->a && cuts[i] > hi)
			hi = cuts[i];
	if (!hi || p->n - hi < 2)
		return -1;
	v->nnow = p->n - hi;
	memcpy(v->now, p->x + hi, v->nnow * sizeof(*v->now));
	v->now_at = p->kern[hi];
	v->segment = 1;
	return 0;
}

/* 1 when the line p is back to the level before the change at
 * kernel_after; 0 when not, or not yet known. */
static int level_back(const struct line_pts *p, const size_t *cuts,
		      size_t ncuts, const struct db_alert_event *a,
		      const struct vd_policy *pol, const struct vd_kind *kind,
		      enum metric_dir dir, double floor, struct level_view *v)
{
	size_t i;

	v->a = first_of(p, a->kernel_after);
	if (v->a == 0 || v->a >= p->n)
		return 0;
	v->lo = 0;
	for (i = 0; i < ncuts; i++)
		if (cuts[i] < v->a && cuts[i] > v->lo)
			v->lo = cuts[i];
	if (v->a - v->lo < 2 || level_now(p, cuts, ncuts, a->fixed_kernel, v))
		return 0;
	vd_test(pol, kind, dir, floor, p->x + v->lo, v->a - v->lo, v->now,
		v->nnow, &v->res);
	return v->res.verdict == V_SAME;
}

/* Close alert a: its log and notice say why. */
static int close_alert(struct db *db, const struct db_alert_event *a,
		       const struct line_pts *p, const struct level_view *v,
		       const char *unit)
{
	struct db_alert_change ch = { "closed", a->fixed_commit,
				      a->fixed_kernel, 0, ALERT_BY_KLAB, "" };
	struct strbuf why = STRBUF_INIT;
	char err[300];
	int rc;

	sb_init(&why);
	sb_addf(&why, "closed by klab: %s is back to its level: %.6g %s now "
		"(%s %s, %zu %s) against %.6g %s before the change %s -> %s "
		"(%zu points); %+.2f%%, 90%% CI [%+.2f%%, %+.2f%%] inside "
		"+-%.2f%%: the verdicts' \"same\".", a->metric,
		mean(v->now, v->nnow), unit, v->segment ? "since" : "kernel",
		v->now_at, v->nnow, v->segment ? "points" : "cells",
		mean(p->x + v->lo, v->a - v->lo), unit, a->kernel_before,
		a->kernel_after, v->a - v->lo, v->res.delta_pct,
		v->res.ci_lo, v->res.ci_hi, v->res.threshold_pct);
	ch.text = why.buf;
	rc = alerts_state_commit(db, a, 1, &ch, err, sizeof(err));
	if (rc)
		fprintf(stderr, "klabd: %s\n", err);
	else
		fprintf(stderr, "klabd: alert %lld %s\n", (long long)a->id,
			why.buf);
	sb_release(&why);
	return rc;
}

/* Check one fixed alert against the line s[0..n). */
static int check_one(struct db *db, const char *suite,
		     const struct db_alert_event *a, const struct db_sample *s,
		     size_t n, const struct db_changepoint *cps, size_t ncp)
{
	struct level_view v;
	struct line_pts p;
	struct vd_policy pol;
	struct vd_kind kind;
	size_t *cuts, i, j, nc = 0;
	int rc = 0, back;

	for (i = 0; i < n && strcmp(s[i].kernel, a->kernel_after); i++)
		;
	if (i == n)
		return 0;	/* the change is no longer in the line */
	if (line_points(db, s, n, nz(s[i].rigconf), &p))
		return -1;
	cuts = xcalloc(ncp + 1, sizeof(*cuts));
	for (j = 0; j < ncp; j++)
		if (first_of(&p, cps[j].kernel_after) < p.n)
			cuts[nc++] = first_of(&p, cps[j].kernel_after);
	memset(&v, 0, sizeof(v));
	v.now = xcalloc(p.n + 1, sizeof(*v.now));
	vd_kind_of(a->metric, s[i].unit, s[i].dir, &kind);
	vd_policy_default(&pol);
	back = level_back(&p, cuts, nc, a, &pol, &kind, s[i].dir,
			  vd_floor_for(&pol, suite, a->metric, kind.klass), &v);
	if (back)
		rc = close_alert(db, a, &p, &v, nz(s[i].unit));
	free(v.now);
	free(cuts);
	free(p.x);
	free(p.kern);
	return rc ? -1 : back;
}

int alerts_fixed_check(struct db *db, const char *rig, const char *suite,
		       const char *metric, const struct db_sample *s, size_t n,
		       const struct db_changepoint *cps, size_t ncp)
{
	struct db_alert_event *v = NULL;
	size_t nv = 0, i;
	int k, closed = 0;

	if (!n || db_alert_fixed_list(db, rig, suite, metric, &v, &nv))
		return n ? -1 : 0;
	for (i = 0; i < nv && closed >= 0; i++) {
		k = check_one(db, suite, &v[i], s, n, cps, ncp);
		closed = k < 0 ? -1 : closed + k;
	}
	db_alert_events_free(v, nv);
	return closed;
}
