// SPDX-License-Identifier: MIT
/*
 * The driver of bisections (see bisect.h): one thread that, about once a
 * second and whenever it is kicked, walks the running bisections.  Each
 * has at most one open step: its two kernels (the reference, the good
 * end or for the confirmation the answer's parent, and the step's own)
 * are built (series, git) or fetched (debian) first, then one comparison run
 * judges them (comparisons.h); the step's mark comes from
 * the named metrics only: a look that decided one of them worse, or all
 * of them same, ends the comparison there (its queued cells cancelled),
 * whatever the other headline metrics do.  A step with no open step
 * next asks judge/bisect_pick.h what to test, or for kind git `git bisect`
 * itself (bisect_git.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/alerts.h"
#include "flow/bisect.h"
#include "lab/build.h"
#include "lab/catalog.h"
#include "flow/driver.h"
#include "judge/adaptive.h"
#include "judge/bisect_pick.h"
#include "judge/bisect_pick_git.h"
#include "lib/alloc.h"
#include "lib/ident.h"
#include "lib/strbuf.h"
#include "lab/rig.h"
#include "flow/track.h"

#define BISRUN_PERIOD_S 1

enum kready { K_READY, K_WAIT, K_FAIL };

/*
 * The kernel of candidate idx: known, built or fetched now (debian),
 * queued or waited for (series).  K_FAIL with why set.
 */
static enum kready bis_kernel(struct klabd *d, struct db *db,
			      const struct db_bisection *b,
			      struct db_bis_cand *c, char *why, size_t len)
{
	struct strbuf pat = STRBUF_INIT;
	struct db_build bd;
	char ident[64], *k = NULL;
	enum kready r = K_WAIT;
	int64_t bid;
	size_t i;

	if (*c->kernel)
		return K_READY;
	if (!strcmp(b->kind, "debian")) {
		if (catalog_add_debian(d, db, c->file, &k, why, len))
			/* cut short by a shutdown: fetched again on restart */
			return __atomic_load_n(&d->stopping, __ATOMIC_RELAXED) ?
			       K_WAIT : K_FAIL;
		db_bisection_set_kernel(db, b->id, c->idx, k, 0);
		alloc_str_set(&c->kernel, k);
		free(k);
		return K_READY;
	}
	if (!c->build) {
		struct db_bis_cand *all = NULL;
		struct strbuf gb = STRBUF_INIT;
		size_t n = 0;
		int git = !strcmp(b->kind, "git");

		sb_init(&pat);
		sb_init(&gb);
		if (!git && db_bisection_candidates(db, b->id, &all, &n))
			return K_WAIT;
		for (i = 1; i <= (size_t)c->idx && i < n; i++)
			sb_addf(&pat, "%s%s", i > 1 ? "\n" : "", all[i].file);
		db_bis_cands_free(all, n);
		/* git: the base at the candidate's commit, no patch */
		sb_addf(&gb, "%s%s%s", b->base, git ? "@" : "",
			git ? c->file : "");
		snprintf(ident, sizeof(ident), "bis%lld-%d", (long long)b->id,
			 c->idx);
		if (!db_build_add(db, ident, gb.buf, pat.buf, b->who, 1,
				  &bid)) {
			db_bisection_set_kernel(db, b->id, c->idx, NULL, bid);
			c->build = bid;
			build_kick(d);
		}
		sb_release(&pat);
		sb_release(&gb);
		return K_WAIT;
	}
	if (db_build_get(db, c->build, &bd))
		return K_WAIT;
	if (!strcmp(bd.state, "done")) {
		db_bisection_set_kernel(db, b->id, c->idx, bd.ident, 0);
		alloc_str_set(&c->kernel, bd.ident);
		r = K_READY;
	} else if (!strcmp(bd.state, "failed")) {
		snprintf(why, len, "build %lld failed: %.300s",
			 (long long)bd.id, bd.error);
		r = K_FAIL;
	}
	db_build_release(&bd);
	return r;
}

/* A comparison of candidate against base for step s, its first look
 * queued, its cells with b's job configuration; confirm: the larger
 * cap.  Both kernels are measured afresh, interleaved, at every step:
 * the base's cells of an earlier step were run at another time, and a
 * drift of the host between the two (t5104: a build's write-back) made
 * a harmless step worse when they were borrowed. */
static int bis_cmp_start(struct klabd *d, struct db *db,
			 const struct db_bisection *b, const char *base,
			 const char *cand, int confirm, int64_t *id,
			 char *err, size_t errlen)
{
	struct db_comparison c;
	struct vd_plan plan;
	int cap = b->max_cells * (confirm ? BIS_CONFIRM_FACTOR : 1), rc;

	if (cap > SUB_MAX_CELLS)
		cap = SUB_MAX_CELLS;
	memset(&c, 0, sizeof(c));
	vd_plan_default(&plan);
	vd_plan_set_cap(&plan, (size_t)cap);
	c.base = (char *)base;
	c.candidate = (char *)cand;
	c.rig = b->rig;
	c.suite = b->suite;
	c.scale = b->scale;
	c.scheduler = b->scheduler;
	c.cmdline = b->cmdline;
	c.floors = "";
	c.max_cells = (int)plan.looks[plan.nlooks - 1];
	c.max_seconds = plan.max_seconds;
	/* no stop_on_worse: a headline metric worse but not a named one
	 * would end the comparison with the named ones still open, and
	 * the step would be skipped; bis_step_cmp ends it on the named */
	c.stop_on_worse = 0;
	c.planned = (int)plan.looks[0];
	c.who = b->who;
	if (db_begin(db))
		return DB_ERR;
	rc = db_comparison_add(db, &c, &c.id, err, errlen);
	if (!rc)
		rc = cmprun_queue(db, &c, c.planned, err, errlen);
	rc = cmprun_commit(d, db, rc);
	if (!rc)
		*id = c.id;
	return rc;
}

/* The change of metric name at the ends (the verify step's view: the
 * bad end against the good), when they showed it worse; else NAN. */
static double ends_change(const struct cmprun_view *ends, const char *name)
{
	size_t i;

	for (i = 0; ends && ends->cmp.nk == 2 && i < ends->cmp.nm; i++) {
		const struct cmp_metric *m = &ends->cmp.m[i];

		if (!strcmp(m->name, name))
			return m->cells[1].present &&
			       m->cells[1].verdict == V_WORSE ?
			       m->cells[1].vd.delta_pct : NAN;
	}
	return NAN;
}

/* 1 when comparison v's cells are those of one of its looks, both sides
 * in: its planned look, or an earlier one the comparison runner has
 * already planned past (it queues the next look's cells as soon as a
 * look leaves a headline metric open, often before this driver's pass:
 * a harmless step then waited for its cap, 8 cells a side, where its
 * named metric was on the good side at 5; t5104, 2026-12-07). */
static int bis_at_look(const struct cmprun_view *v)
{
	struct vd_plan p;
	size_t k, n = (size_t)v->c.done[0];

	if (v->c.done[0] >= v->c.planned && v->c.done[1] >= v->c.planned)
		return 1;
	if (v->c.done[1] != v->c.done[0] || v->c.max_cells < 1)
		return 0;
	vd_plan_default(&p);
	if (vd_plan_set_cap(&p, (size_t)v->c.max_cells))
		return 0;
	for (k = 0; k < p.nlooks; k++)
		if (p.looks[k] == n)
			return 1;
	return 0;
}

/* The mark of a comparison from the named metrics: 'b' worse, 'g' all
 * same or better, 0 open; delta and cells of the view into s.  With the
 * ends' view (every step after the verification), at a look: 'g' too
 * when every named metric the ends showed worse is on the good end's
 * side of half their change, 'b' when one is past it (bisect_side). */
static int bis_judge(const struct db_bisection *b, struct cmprun_view *v,
		     const struct cmprun_view *ends, struct db_bis_step *s)
{
	struct strbuf dl = STRBUF_INIT;
	int named = 0, decided = 0, worse = 0, reg = 0, gside = 0, bside = 0;
	int look = bis_at_look(v);
	enum bis_mark side;
	double e;
	size_t i;

	sb_init(&dl);
	for (i = 0; v->cmp.nk == 2 && i < v->cmp.nm; i++) {
		const struct cmp_metric *m = &v->cmp.m[i];
		const struct cmp_cell *c = &m->cells[1];

		if (!ident_list_has(b->metrics, m->name) || !c->present ||
		    !m->cells[0].present)
			continue;
		named++;
		worse += c->verdict == V_WORSE;
		decided += cmp_verdict_decided(c->verdict);
		sb_addf(&dl, "%s%s %+.1f%%", dl.len ? "; " : "", m->name,
			c->vd.delta_pct);
		if (isfinite(c->vd.ci_lo))
			sb_addf(&dl, " [%+.1f%%, %+.1f%%]", c->vd.ci_lo,
				c->vd.ci_hi);
		sb_addf(&dl, " %s", cmp_verdict_name(c->verdict));
		e = ends_change(ends, m->name);
		if (!isfinite(e))
			continue;
		reg++;
		side = bisect_side(e, c->vd.ci_lo, c->vd.ci_hi);
		gside += side == BIS_GOOD;
		bside += side == BIS_BAD;
		sb_addf(&dl, ", %s half the ends' %+.1f%%",
			side == BIS_GOOD ? "this side of" : side == BIS_BAD ?
			"past" : "across", e);
	}
	alloc_str_set(&s->delta, dl.buf);
	/* the cells this step ran (an older klab lent it base cells) */
	s->cells = v->c.done[0] - v->c.borrowed + v->c.done[1];
	sb_release(&dl);
	if (worse || (look && bside))
		return 'b';
	if (named && decided == named)
		return 'g';
	return look && reg && gside == reg ? 'g' : 0;
}

/* End step s with mark and reason. */
static void bis_mark(struct db *db, struct db_bis_step *s, const char *mark,
		     const char *reason)
{
	alloc_str_set(&s->mark, mark);
	alloc_str_set(&s->reason, reason);
	if (db_bisection_step_set(db, s))
		fprintf(stderr, "klabd: cannot record bisection step %lld\n",
			(long long)s->id);
}

/* The comparison of an open step: judged, ended early on the named
 * metrics, or waited for.  ends_id: the verification's comparison (0:
 * none, or s is the verification). */
static void bis_step_cmp(struct db *db, const struct db_bisection *b,
			 struct db_bis_step *s, int64_t ends_id)
{
	struct cmprun_view v, ends;
	char err[700], why[800];
	int active, m, ended = 0, have_ends = 0;

	if (cmprun_view_load(db, s->comparison, &v, err, sizeof(err))) {
		cmprun_view_release(&v);
		return;
	}
	if (ends_id && ends_id != s->comparison) {
		have_ends = !cmprun_view_load(db, ends_id, &ends, err,
					      sizeof(err));
		if (!have_ends)
			cmprun_view_release(&ends);
	}
	active = !strcmp(v.c.state, "queued") || !strcmp(v.c.state,
							  "running");
	m = bis_judge(b, &v, have_ends ? &ends : NULL, s);
	if (have_ends)
		cmprun_view_release(&ends);
	if (active && m) {
		/* the named metrics are decided, at a look (between looks
		 * the view keeps only the looks' stored decisions):
		 * the rest need not be, and the next look's cells go */
		db_comparison_update(db, v.c.id, "decided", v.c.planned,
				     v.c.open, NULL);
		db_comparison_cancel(db, v.c.id);
		active = 0;
		ended = 1;
	}
	if (active) {
		db_bisection_step_set(db, s);	/* cells so far */
	} else if (!strcmp(v.c.state, "failed")) {
		snprintf(why, sizeof(why), "cells failed: %.700s", v.c.error);
		bis_mark(db, s, "skip", why);
	} else if (m) {
		/* ended here: v.summary still describes the running run */
		if (ended)
			snprintf(why, sizeof(why), "%s decided after %d+%d "
				 "cells, the other headline metrics not waited "
				 "for", b->metrics, v.c.done[0], v.c.done[1]);
		bis_mark(db, s, m == 'b' ? "bad" : "good",
			 ended ? why : v.summary);
	} else {
		snprintf(why, sizeof(why), "undecided after %d cells a side: "
			 "%.600s", v.c.planned, v.summary);
		bis_mark(db, s, "skip", why);
	}
	cmprun_view_release(&v);
}

/* Move an open step on: kernels, then its comparison. */
static void bis_step_open(struct klabd *d, struct db *db,
			  struct bis_view *v, struct db_bis_step *s)
{
	const struct db_bisection *b = &v->b;
	int ref = !strcmp(s->purpose, "confirm") ? s->idx - 1 : 0;
	enum kready kr, ks;
	char why[600] = "", why2[600] = "", err[700];
	int64_t cid = 0;

	if (s->comparison) {
		size_t i;
		int64_t ends_id = 0;

		for (i = 0; i < v->nsteps; i++)
			if (!strcmp(v->steps[i].purpose, "verify") &&
			    !strcmp(v->steps[i].mark, "bad"))
				ends_id = v->steps[i].comparison;
		bis_step_cmp(db, b, s, ends_id);
		return;
	}
	kr = bis_kernel(d, db, b, &v->cands[ref], why2, sizeof(why2));
	ks = bis_kernel(d, db, b, &v->cands[s->idx], why, sizeof(why));
	if (s->build != v->cands[s->idx].build ||
	    strcmp(s->kernel, v->cands[s->idx].kernel)) {
		s->build = v->cands[s->idx].build;
		alloc_str_set(&s->kernel, v->cands[s->idx].kernel);
		db_bisection_step_set(db, s);
	}
	if (kr == K_FAIL) {
		snprintf(err, sizeof(err), "reference %s: %.500s",
			 v->cands[ref].label, why2);
		bis_mark(db, s, "skip", err);
	} else if (ks == K_FAIL) {
		bis_mark(db, s, "skip", why);
	} else if (kr == K_READY && ks == K_READY) {
		if (bis_cmp_start(d, db, b, v->cands[ref].kernel,
				  v->cands[s->idx].kernel,
				  !strcmp(s->purpose, "confirm"), &cid, err,
				  sizeof(err))) {
			bis_mark(db, s, "skip", err);
			return;
		}
		s->comparison = cid;
		db_bisection_step_set(db, s);
	}
}

static void bis_alert(struct db *db, const struct bis_view *v,
		      const char *text)
{
	char title[400], link[64], key[64], err[300];
	struct alert_event ev;

	snprintf(title, sizeof(title), "bisection %lld by %s: %s",
		 (long long)v->b.id, v->b.who, v->b.outcome);
	snprintf(link, sizeof(link), "/bisections/%lld", (long long)v->b.id);
	snprintf(key, sizeof(key), "bisection:%lld", (long long)v->b.id);
	memset(&ev, 0, sizeof(ev));
	ev.kind = ALERT_BISECTION_DONE;
	ev.rig = v->b.rig;
	ev.suite = v->b.suite;
	ev.submitter = v->b.who;
	ev.title = title;
	ev.text = text;
	ev.link = link;
	ev.dedup = key;
	if (alerts_emit(db, &ev, err, sizeof(err)))
		fprintf(stderr, "klabd: bisection %lld: alert: %s\n",
			(long long)v->b.id, err);
}

/* The bisection ends with outcome (answer -1: none): report, alert. */
static void bis_finish(struct klabd *d, struct db *db, int64_t id,
		       const char *state, int answer, const char *outcome)
{
	struct strbuf rep = STRBUF_INIT;
	struct bis_view v;
	char err[300];

	sb_init(&rep);
	db_bisection_update(db, id, NULL, "done", answer, outcome, NULL,
			    NULL);
	if (!bis_view_load(db, id, &v, err, sizeof(err))) {
		bis_report(&v, &rep);
		db_bisection_update(db, id, state, NULL, -2, NULL, rep.buf,
				    NULL);
		alloc_str_set(&v.b.state, state);
		/* a tracked line's bisection alerts its culprit only */
		if (!track_bisection_done(d, db, &v))
			bis_alert(db, &v, rep.buf);
		if (!strcmp(v.b.kind, "git"))
			bis_git_cleanup(d, id);
	}
	fprintf(stderr, "klabd: bisection %lld: %s\n", (long long)id, outcome);
	bis_view_release(&v);
	sb_release(&rep);
}

static void bis_add_step(struct klabd *d, struct db *db, int64_t id,
			 int idx, const char *purpose)
{
	int64_t sid;

	if (db_bisection_step_add(db, id, idx, purpose, &sid))
		fprintf(stderr, "klabd: bisection %lld: cannot add a step\n",
			(long long)id);
	driver_kick(d->bisrun);
}

/* The marks of the bisection steps (and the verified bad end). */
static void bis_marks(const struct bis_view *v, enum bis_mark *marks)
{
	size_t i;
	int m;

	for (i = 0; i < v->nsteps; i++) {
		if (strcmp(v->steps[i].purpose, "step"))
			continue;
		m = bisect_mark_parse(v->steps[i].mark);
		if (m > 0 && (size_t)v->steps[i].idx < v->ncands)
			marks[v->steps[i].idx] = (enum bis_mark)m;
	}
}

/* git: the next step as git bisect says. */
static void bis_next_git(struct klabd *d, struct db *db, struct bis_view *v)
{
	struct bis_git_step nx;
	char err[600], out[800];
	int64_t id = v->b.id;

	if (bis_git_next(d, db, v, &nx, err, sizeof(err))) {
		if (__atomic_load_n(&d->stopping, __ATOMIC_RELAXED))
			return;	/* cut short: asked again on restart */
		snprintf(out, sizeof(out), "git bisect failed: %.600s", err);
		db_bisection_update(db, id, NULL, NULL, -2, NULL, NULL, out);
		bis_finish(d, db, id, "failed", -1, out);
		return;
	}
	if (nx.steps_left >= 0)
		db_bisection_set_hint(db, id, nx.steps_left);
	if (nx.state == BIS_GIT_TEST) {
		db_bisection_update(db, id, NULL, "step", -2, NULL, NULL, NULL);
		bis_add_step(d, db, id, nx.idx, "step");
	} else if (nx.state == BIS_GIT_FOUND) {
		db_bisection_update(db, id, NULL, "confirm", nx.idx, NULL, NULL,
				    NULL);
		bis_add_step(d, db, id, nx.idx, "confirm");
	} else {
		snprintf(out, sizeof(out), "cannot tell: git bisect has only "
			 "skipped commits left between %s and %s",
			 v->cands[0].label, v->cands[1].label);
		bis_finish(d, db, id, "finished", -1, out);
	}
}

/* No step open: the next one, or the end. */
static void bis_next(struct klabd *d, struct db *db, struct bis_view *v)
{
	const struct db_bisection *b = &v->b;
	const struct db_bis_step *last = v->nsteps ?
					 &v->steps[v->nsteps - 1] : NULL;
	int git = !strcmp(b->kind, "git");
	size_t n = git ? 1 : v->ncands - 1;
	enum bis_mark *marks;
	struct bis_next nx;
	char out[600];

	if (!last) {
		bis_add_step(d, db, b->id, (int)n, "verify");
		return;
	}
	if (!strcmp(last->purpose, "verify") && strcmp(last->mark, "bad")) {
		snprintf(out, sizeof(out), "the range does not regress on %s: "
			 "%s %s against %s (%.300s)", b->metrics,
			 v->cands[n].label, last->mark, v->cands[0].label,
			 last->reason);
		bis_finish(d, db, b->id, "finished", -1, out);
		return;
	}
	if (!strcmp(last->purpose, "confirm")) {
		const struct db_bis_cand *c = &v->cands[last->idx];

		snprintf(out, sizeof(out), "first bad: %s%s%s, %s by a fresh "
			 "sample against its parent", c->label, *c->author ?
			 " by " : "", c->author, !strcmp(last->mark, "bad") ?
			 "confirmed" : "NOT confirmed");
		bis_finish(d, db, b->id, "finished", last->idx, out);
		return;
	}
	if (git) {
		bis_next_git(d, db, v);
		return;
	}
	marks = calloc(n + 1, sizeof(*marks));
	if (!marks)
		abort();
	bis_marks(v, marks);
	bisect_next(marks, n, &nx);
	free(marks);
	if (nx.state == BIS_TEST) {
		db_bisection_update(db, b->id, NULL, "step", -2, NULL, NULL,
				    NULL);
		bis_add_step(d, db, b->id, (int)nx.next, "step");
	} else if (nx.state == BIS_FOUND) {
		db_bisection_update(db, b->id, NULL, "confirm", (int)nx.next,
				    NULL, NULL, NULL);
		bis_add_step(d, db, b->id, (int)nx.next, "confirm");
	} else {
		snprintf(out, sizeof(out), "cannot tell: only skipped steps "
			 "between %s and %s", v->cands[nx.good].label,
			 v->cands[nx.bad].label);
		bis_finish(d, db, b->id, "finished", -1, out);
	}
}

static void bis_one(struct klabd *d, struct db *db, int64_t id)
{
	struct bis_view v;
	struct db_bis_step *open = NULL;
	char err[300];
	size_t i;

	if (bis_view_load(db, id, &v, err, sizeof(err)) || v.ncands < 2)
		goto out;
	for (i = 0; i < v.nsteps; i++)
		if (!*v.steps[i].mark)
			open = &v.steps[i];
	if (open && open->idx >= 0 && (size_t)open->idx < v.ncands) {
		bis_step_open(d, db, &v, open);
		if (*open->mark)	/* marked now: on to the next at once */
			driver_kick(d->bisrun);
	} else if (!open) {
		bis_next(d, db, &v);
	}
out:
	bis_view_release(&v);
}

/* One walk of the bisections; the seconds until the next. */
long bisrun_pass(void *arg)
{
	struct klabd *d = arg;
	struct db_bisection *v = NULL;
	struct db *db;
	size_t n = 0, i;

	db = klabd_db_get_logged(d, "bisections");
	if (!db)
		return BISRUN_PERIOD_S;
	if (db_bisection_list(db, 1, 0, &v, &n))
		fprintf(stderr, "klabd: cannot list the bisections\n");
	for (i = 0; i < n; i++)
		bis_one(d, db, v[i].id);
	db_bisections_free(v, n);
	klabd_db_put(d, db);
	return BISRUN_PERIOD_S;
}
