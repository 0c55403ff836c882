// SPDX-License-Identifier: MIT
/*
 * changepoints: the history's change points kept up to date and alerted
 * once.  See changepoints.h.
 */
#define CP_MAX_PERMUTATIONS 19999
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/alerts.h"
#include "flow/changepoints.h"
#include "db/changepoints.h"
#include "db/track.h"
#include "judge/changepoint.h"
#include "judge/verdict.h"
#include "lib/alloc.h"
#include "lib/ident.h"
#include "lib/strbuf.h"

/* Index of kernel k among names[0..*ng), added when new (linear: a
 * history has tens of kernels, and this runs off the request path). */
static size_t kernel_group(const char **names, size_t *ng, const char *k)
{
	size_t g;

	for (g = *ng; g-- > 0;)
		if (!strcmp(names[g], k))
			return g;
	names[*ng] = k;
	return (*ng)++;
}

/* 1 when every kernel in names was imported, 0 if not, -1 on error. */
static int all_imported(struct db *db, const char **names, size_t ng)
{
	size_t g;
	char *src;
	int imported = 1;

	for (g = 0; g < ng && imported; g++) {
		src = db_kernel_source(db, names[g]);
		if (!src)
			return -1;
		imported = !strcmp(src, "import") || !*src;
		free(src);
	}
	return imported;
}

int changepoints_order(struct db *db, const struct db_sample *s, size_t n,
		       size_t **order, unsigned char **cut_ok)
{
	const char **names = xrealloc(NULL, (n + 1) * sizeof(*names));
	size_t *grp = xrealloc(NULL, (n + 1) * sizeof(*grp));
	size_t *start = NULL, i, g, ng = 0;
	int imported;

	*order = xrealloc(NULL, (n + 1) * sizeof(**order));
	*cut_ok = NULL;
	for (i = 0; i < n; i++)
		grp[i] = kernel_group(names, &ng, s[i].kernel);
	imported = all_imported(db, names, ng);
	for (i = 0; imported && i < n; i++)
		(*order)[i] = i;
	if (!imported) {
		/* counting sort by group, stable: each kernel in time order */
		start = calloc(ng + 1, sizeof(*start));
		*cut_ok = calloc(n + 1, 1);
		if (!start || !*cut_ok)
			abort();
		for (i = 0; i < n; i++)
			start[grp[i] + 1]++;
		for (g = 0; g < ng; g++) {
			start[g + 1] += start[g];
			(*cut_ok)[start[g]] = 1;
		}
		for (i = 0; i < n; i++)
			(*order)[start[grp[i]]++] = i;
	}
	free(start);
	free(grp);
	free(names);
	return imported < 0 ? -1 : 0;
}

/* The line a history of rig x suite follows, for its alerts: the one
 * track that queues suite on rig ("debian/newest-6.1"), "" when none
 * or several do (an imported history).  A heap string. */
static char *cp_line(struct db *db, const char *rig, const char *suite)
{
	struct strbuf line = STRBUF_INIT;
	struct db_track *v = NULL;
	size_t n = 0, i, found = 0;

	sb_init(&line);
	if (db_track_list(db, &v, &n))
		n = 0;
	for (i = 0; i < n; i++) {
		if (!ident_list_has(v[i].suite, suite) ||
		    !ident_list_has(v[i].rigs, rig))
			continue;
		if (!found++)
			sb_addf(&line, "%s/%s", v[i].distro, v[i].line);
	}
	if (found > 1)
		sb_reset(&line);
	db_tracks_free(v, n);
	return sb_detach(&line, NULL);
}

/* The alert of a new change point c of metric on rig x suite. */
static void cp_alert(struct db *db, const struct db_changepoint *c,
		     const char *rig, const char *suite, const char *metric)
{
	struct strbuf title = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf link = STRBUF_INIT, key = STRBUF_INIT;
	struct strbuf group = STRBUF_INIT;
	char *line = cp_line(db, rig, suite);
	struct alert_event ev;
	char err[256];

	sb_init(&title);
	sb_init(&text);
	sb_init(&link);
	sb_init(&key);
	sb_addf(&title, "change point in %s on rig %s, suite %s: %s -> %s, "
		"%+.1f%%", metric, rig, suite, c->kernel_before,
		c->kernel_after, c->size_pct);
	sb_addf(&text, "%s\n\nmetric:  %s\nrig:     %s\nsuite:   %s\n"
		"before:  %s, mean %.6g\nafter:   %s, mean %.6g\n"
		"size:    %+.2f%%\np-value: %.4g (e-divisive, permutation "
		"test)\n", title.buf, metric, rig, suite, c->kernel_before,
		c->mean_before, c->kernel_after, c->mean_after, c->size_pct,
		c->p_value);
	sb_adds(&link, "/history?metric=");
	sb_add_urlenc(&link, metric);
	sb_adds(&link, "&rig=");
	sb_add_urlenc(&link, rig);
	sb_adds(&link, "&suite=");
	sb_add_urlenc(&link, suite);
	sb_addf(&key, "%s/%s/%s/%s", rig, suite, metric, c->kernel_after);
	/* one change: the same pair of kernels on the same rig, whatever
	 * the metric or the suite */
	sb_init(&group);
	sb_addf(&group, "cp/%s/%s/%s", rig, c->kernel_before,
		c->kernel_after);
	memset(&ev, 0, sizeof(ev));
	ev.line = line;
	ev.before = c->kernel_before;
	ev.after = c->kernel_after;
	ev.group = group.buf;
	ev.kind = ALERT_CHANGE_POINT;
	ev.rig = rig;
	ev.suite = suite;
	ev.metric = metric;
	ev.title = title.buf;
	ev.text = text.buf;
	ev.link = link.buf;
	ev.dedup = key.buf;
	if (alerts_emit(db, &ev, err, sizeof(err)))
		fprintf(stderr, "klabd: cannot alert change point '%s': %s\n",
			key.buf, err);
	sb_release(&title);
	sb_release(&text);
	sb_release(&link);
	sb_release(&key);
	sb_release(&group);
	free(line);
}

/* The change points of one series, as cache rows (kernel names borrowed
 * from s: the caller frees only the array), positions counted from base. */
static int cp_search_one(struct db *db, const struct db_sample *s, size_t n,
			 const struct cp_params *p, size_t base,
			 struct db_changepoint **out, size_t *nout)
{
	size_t *order, i, nc = 0;
	unsigned char *ok;
	struct cp_point *c = NULL;
	double *x;
	int rc;

	*out = NULL;
	*nout = 0;
	if (changepoints_order(db, s, n, &order, &ok)) {
		free(order);
		free(ok);
		return -1;
	}
	x = xrealloc(NULL, (n + 1) * sizeof(*x));
	for (i = 0; i < n; i++)
		x[i] = s[order[i]].value;
	rc = cp_find(x, n, ok, p, &c, &nc);
	if (!rc && nc) {
		*out = calloc(nc, sizeof(**out));
		if (!*out)
			abort();
	}
	for (i = 0; !rc && i < nc; i++) {
		struct db_changepoint *d = &(*out)[i];

		d->kernel_before = s[order[c[i].idx - 1]].kernel;
		d->kernel_after = s[order[c[i].idx]].kernel;
		d->run_after = s[order[c[i].idx]].run_id;
		d->position = (int64_t)(base + c[i].idx);
		d->mean_before = c[i].mean_before;
		d->mean_after = c[i].mean_after;
		d->size_pct = cp_size_pct(&c[i]);
		d->p_value = c[i].p;
	}
	*nout = rc ? 0 : nc;
	free(c);
	free(x);
	free(order);
	free(ok);
	return rc;
}

static int same_conf(const struct db_sample *a, const struct db_sample *b)
{
	return !strcmp(a->rigconf ? a->rigconf : "",
		       b->rigconf ? b->rigconf : "");
}

/*
 * The change points of one history.  Runs under different rig
 * configurations (another disk model, memory size, QEMU, suite text:
 * lib/rigconf.h) are never one series, as they are never one column of
 * a comparison: each configuration's points (in the order of its first
 * run) are searched on their own, so a change of the rig is never
 * reported, nor alerted, as a change between two kernels.
 */
static int cp_search(struct db *db, const struct db_sample *s, size_t n,
		     const struct cp_params *p, struct db_changepoint **out,
		     size_t *nout)
{
	struct db_changepoint *v = NULL, *all = NULL;
	struct db_sample *part;
	unsigned char *done;
	size_t i, j, np, nv, nall = 0, base = 0;
	int rc = 0;

	for (i = 1; i < n && same_conf(&s[0], &s[i]); i++)
		;
	if (i >= n)
		return cp_search_one(db, s, n, p, 0, out, nout);
	done = calloc(n, 1);
	part = calloc(n, sizeof(*part));
	if (!done || !part)
		abort();
	for (i = 0; i < n && !rc; i++) {
		if (done[i])
			continue;
		for (np = 0, j = i; j < n; j++)
			if (!done[j] && same_conf(&s[i], &s[j])) {
				part[np++] = s[j];
				done[j] = 1;
			}
		rc = cp_search_one(db, part, np, p, base, &v, &nv);
		if (!rc && nv) {
			all = xrealloc(all, (nall + nv) * sizeof(*all));
			memcpy(all + nall, v, nv * sizeof(*v));
			nall += nv;
		}
		free(v);
		v = NULL;
		base += np;
	}
	free(part);
	free(done);
	if (rc) {
		free(all);
		all = NULL;
		nall = 0;
	}
	*out = all;
	*nout = nall;
	return rc;
}

/*
 * A line's own history only: the samples of kernels a build made (a
 * submission's or a bisection's A/B pair, a build by hand) are moved past
 * the end, so the first *kept are the lab's lines (Debian kernels a track
 * followed, the heads of a tracked git line, imported histories).  0, or
 * -1 on a database error.
 */
static int line_only(struct db *db, struct db_sample *s, size_t n,
		     size_t *kept)
{
	struct db_sample t;
	size_t i, k = 0;
	char *src;
	int drop;

	for (i = 0; i < n; i++) {
		src = db_kernel_source(db, s[i].kernel);
		if (!src)
			return -1;
		/* a tracked git line's heads are builds of its own */
		drop = !strcmp(src, "build") &&
		       db_track_head_kernel(db, s[i].kernel) != 1;
		free(src);
		if (drop)
			continue;
		t = s[k];
		s[k++] = s[i];
		s[i] = t;
	}
	*kept = k;
	return 0;
}

/* One metric of a refresh: its history, what is searched of it, how. */
struct cp_series {
	const char *metric;
	struct db_sample *s;
	size_t n, kept;		/* all loaded, the line's first */
	int searched;		/* directional, with points */
	enum vd_class klass;
};

/* Load each metric's history and class it; counts of searched metrics
 * per class into count.  0 or -1. */
static int series_load(struct db *db, const char *rig, const char *suite,
		       struct cp_series *v, size_t n, size_t *count,
		       char *err, size_t errlen)
{
	struct vd_kind kind;
	size_t i;

	for (i = 0; i < n; i++) {
		if (db_history(db, v[i].metric, rig, suite, 0, &v[i].s,
			       &v[i].n, err, errlen))
			return -1;
		if (line_only(db, v[i].s, v[i].n, &v[i].kept)) {
			snprintf(err, errlen, "cannot read the kernels of "
				 "'%s'", v[i].metric);
			return -1;
		}
		if (!v[i].kept || v[i].s[0].dir == DIR_NONE)
			continue;
		vd_kind_of(v[i].metric, v[i].s[0].unit, v[i].s[0].dir, &kind);
		v[i].klass = kind.klass;
		v[i].searched = 1;
		count[kind.klass]++;
	}
	return 0;
}

/* The search of one series: the family's alpha split over its metrics
 * (Bonferroni, at most p->sig), with permutations enough to reach it. */
static void series_params(const struct cp_params *p,
			  const struct vd_policy *pol, enum vd_class k,
			  size_t count, struct cp_params *out)
{
	double sig = pol->alpha[k] / (double)(count ? count : 1);

	*out = *p;
	if (sig < out->sig)
		out->sig = sig;
	if ((double)out->permutations < 3.0 / out->sig)
		out->permutations = (int)(3.0 / out->sig) + 1;
	if (out->permutations > CP_MAX_PERMUTATIONS)
		out->permutations = CP_MAX_PERMUTATIONS;
}

/* Drop the change points under the metric's threshold; the count kept. */
static size_t over_floor(struct db_changepoint *v, size_t n, double floor)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (fabs(v[i].size_pct) >= floor)
			v[k++] = v[i];
	return k;
}

/* Refresh one series: search, store, alert; new change points or -1. */
static int cp_metric(struct db *db, const char *rig, const char *suite,
		     const struct cp_series *se, const struct cp_params *p,
		     const struct vd_policy *pol, char *err, size_t errlen)
{
	struct db_changepoint *v = NULL;
	size_t nv = 0, i;
	int rc, fresh = 0;

	if (se->searched && cp_search(db, se->s, se->kept, p, &v, &nv)) {
		snprintf(err, errlen, "cannot search the history of '%s'",
			 se->metric);
		return -1;
	}
	if (nv)
		nv = over_floor(v, nv, vd_floor_for(pol, suite, se->metric,
						    se->klass));
	rc = db_changepoints_store(db, rig, suite, se->metric, v, nv, err,
				   errlen);
	for (i = 0; !rc && i < nv; i++) {
		if (!v[i].fresh)
			continue;
		fresh++;
		/* a tracked git line's step is the robot's to judge: its
		 * heads' comparison, then a bisection, whose culprit is
		 * the change's one alert (flow/track_regress.c) */
		if (db_track_head_kernel(db, v[i].kernel_after))
			continue;
		cp_alert(db, &v[i], rig, suite, se->metric);
	}
	/* a fixed alert of this metric whose line is back closes */
	if (!rc && se->searched &&
	    alerts_fixed_check(db, rig, suite, se->metric, se->s, se->kept,
			       v, nv) < 0)
		fprintf(stderr, "klabd: cannot check the fixed alerts of '%s' "
			"on rig '%s' suite '%s'\n", se->metric, rig, suite);
	free(v);
	return rc ? -1 : fresh;
}

int changepoints_refresh(struct db *db, const char *rig, const char *suite,
			 const struct cp_params *p, char *err, size_t errlen)
{
	size_t count[VC_NCLASSES] = { 0 }, n = 0, i;
	struct cp_params def, sp;
	struct vd_policy pol;
	struct cp_series *v;
	char **names = NULL;
	int rc = 0, k;

	if (!p) {
		cp_params_default(&def);
		p = &def;
	}
	vd_policy_default(&pol);
	if (db_changepoint_metrics(db, rig, suite, &names, &n, err, errlen))
		return -1;
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i].metric = names[i];
	if (series_load(db, rig, suite, v, n, count, err, errlen))
		rc = -1;
	for (i = 0; i < n && rc >= 0; i++) {
		series_params(p, &pol, v[i].klass, count[v[i].klass], &sp);
		k = cp_metric(db, rig, suite, &v[i], &sp, &pol, err, errlen);
		rc = k < 0 ? -1 : rc + k;
	}
	for (i = 0; i < n; i++)
		db_samples_free(v[i].s, v[i].n);
	free(v);
	db_names_free(names, n);
	return rc;
}
