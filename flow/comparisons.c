// SPDX-License-Identifier: MIT
/*
 * The driver of comparison runs (see comparisons.h): one thread that,
 * about once a second and whenever it is kicked, walks the comparisons
 * still queued or running in the database.  For each it keeps both sides
 * supplied with cells up to the current look (replacing failed ones until
 * CMPRUN_MAX_FAILED), and once both sides have the look's cells done it
 * judges them and asks judge/adaptive.h what next.
 *
 * It never takes the rig manager's lock but through rigmgr_kick() (after
 * its database work, to wake the rigs' long polls), and it never writes
 * a job's state but for cancelling the queued cells of a failed
 * comparison; the rig manager stays the one writer of jobs handed out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flow/comparisons.h"
#include "flow/bisect.h"
#include "flow/driver.h"
#include "flow/submissions.h"
#include "klabd/klabd.h"
#include "lab/rig.h"
#include "lib/alloc.h"

#define CMPRUN_PERIOD_S 1	/* between two walks when nothing kicks */

void cmprun_plan(const struct db_comparison *c, struct vd_plan *plan)
{
	vd_plan_default(plan);
	if (c->max_cells > 0)
		vd_plan_set_cap(plan, (size_t)c->max_cells);
	plan->max_seconds = c->max_seconds;
	plan->stop_on_worse = c->stop_on_worse;
}

/* The options of a look: the floors asked for, the look's error budget,
 * and only the comparison's own done cells (none when njobs is 0). */
static void cmprun_opts(const struct db_comparison *c,
			const struct vd_plan *plan, const int64_t *jobs,
			size_t njobs, struct cmp_opts *o)
{
	static const int64_t none;
	struct vd_policy pol;
	const char *p = c->floors;
	char spec[256];
	size_t n;

	cmp_opts_default(o);
	while (*p) {
		n = strcspn(p, "\n");
		if (n && n < sizeof(spec)) {
			memcpy(spec, p, n);
			spec[n] = '\0';
			vd_policy_add_floor(&o->pol, spec);
		}
		p += n + (p[n] == '\n');
	}
	pol = o->pol;
	vd_plan_policy(plan, &pol, &o->pol);
	o->jobs = jobs ? jobs : &none;
	o->njobs = njobs;
}

int cmprun_headline(const struct cmp_metric *m)
{
	return m->kind.klass == VC_HEADLINE && m->dir != DIR_NONE &&
	       m->cells[0].present && m->cells[1].present;
}

static int decision_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct db_cmp_decision *)elem)->metric);
}

static const struct db_cmp_decision *
decision_find(const struct cmprun_view *v, const char *metric)
{
	if (!v->ndec)	/* bsearch(NULL, 0) is undefined */
		return NULL;
	return bsearch(metric, v->dec, v->ndec, sizeof(*v->dec),
		       decision_cmp);
}

/* The comparison ended at the look its rows were written at: the cells
 * are the ones they were judged on. */
static int decisions_at_look(const struct cmprun_view *v)
{
	size_t i;

	for (i = 0; i < v->ndec; i++)
		if (v->dec[i].look == v->c.planned)
			return 1;
	return 0;
}

/*
 * The stored decisions onto the candidate's cells.  A final one (worse,
 * better, same: decided at a look, as vd_plan_carry() keeps them in
 * memory) always; the others when the run ended at the look that wrote
 * them.  Anywhere else the cells judged now are shown, but nothing is
 * decided that a look did not decide: the error budget is spent at the
 * looks only.  judging: the driver's own look, whose verdicts stand.
 */
static void decisions_apply(struct cmprun_view *v, int judging)
{
	struct comparison *cmp = &v->cmp;
	int at = !judging && decisions_at_look(v);
	const struct db_cmp_decision *d;
	struct cmp_cell *cell;
	size_t i;

	for (i = 0; cmp->nk == 2 && i < cmp->nm; i++) {
		cell = &cmp->m[i].cells[1];
		d = decision_find(v, cmp->m[i].name);
		if (d && (d->final || at)) {
			cmp_decision_apply(d, cell);
			if (d->final)
				cell->vd.note = "decided at an earlier look";
		} else if (!judging && cmp_verdict_decided(cell->verdict)) {
			cell->verdict = V_UNDECIDED;
			cell->vd.verdict = V_UNDECIDED;
			cell->vd.note = "between looks: not decided yet";
		}
	}
}

/* The outcome in one line. */
static void view_summary(struct cmprun_view *v, const struct vd_tally *t)
{
	const struct db_comparison *c = &v->c;

	if (!strcmp(c->state, "failed")) {
		snprintf(v->summary, sizeof(v->summary), "failed: %s",
			 c->error);
	} else if (!strcmp(c->state, "undecided")) {
		snprintf(v->summary, sizeof(v->summary), "undecided after %d "
			 "cells: %zu of %zu headline metrics open", c->planned,
			 v->open, v->headline);
	} else if (!strcmp(c->state, "decided")) {
		snprintf(v->summary, sizeof(v->summary), "%s after %d cells: "
			 "%zu worse, %zu better, %zu same of %zu headline "
			 "metrics", cmp_verdict_name(v->verdict), c->planned,
			 t->worse, t->better, t->same, v->headline);
	} else {
		snprintf(v->summary, sizeof(v->summary), "%s: cells %d+%d of "
			 "%d a side, %zu of %zu headline metrics decided",
			 c->state, c->done[0], c->done[1], c->planned,
			 v->decided, v->headline);
	}
}

/* Headline metrics present on both sides, decided and open, rolled up
 * into one verdict (judge/decision.h; none for a failed run); the
 * outcome in one line. */
static void view_sum(struct cmprun_view *v)
{
	struct vd_tally t = VD_TALLY_INIT;
	size_t i;

	for (i = 0; v->cmp.nk == 2 && i < v->cmp.nm; i++)
		if (cmprun_headline(&v->cmp.m[i]))
			vd_tally_add(&t, v->cmp.m[i].cells[1].verdict);
	v->decided = vd_tally_decided(&t);
	v->open = t.open;
	v->headline = v->decided + v->open;
	v->verdict = strcmp(v->c.state, "failed") ? vd_tally_verdict(&t) :
		     V_NONE;
	view_summary(v, &t);
}

/* The model of the comparison's own done cells, judged with the look's
 * error budget. */
static int view_model(struct db *db, struct cmprun_view *v, char *err,
		      size_t errlen)
{
	const char *k[2];
	int64_t *jobs = NULL;
	struct cmp_opts o;
	size_t nj = 0;
	int rc = db_comparison_done_jobs(db, v->c.id, &jobs, &nj);

	if (rc) {
		snprintf(err, errlen, "cannot list the cells of comparison "
			 "%lld", (long long)v->c.id);
		return rc;
	}
	cmprun_opts(&v->c, &v->plan, jobs, nj, &o);
	k[0] = v->c.base;
	k[1] = v->c.candidate;
	rc = compare_build(db, k, 2, 0, v->c.rig, v->c.suite, &o, &v->cmp,
			   err, errlen);
	free(jobs);
	return rc;
}

/* Load comparison id, its model and its decisions (see
 * decisions_apply() for judging). */
static int view_load(struct db *db, int64_t id, struct cmprun_view *v,
		     int judging, char *err, size_t errlen)
{
	int rc;

	memset(v, 0, sizeof(*v));
	rc = db_comparison_get(db, id, &v->c);
	if (rc) {
		snprintf(err, errlen, "%s comparison %lld", rc == DB_NOTFOUND ?
			 "unknown" : "cannot read", (long long)id);
		return rc;
	}
	cmprun_plan(&v->c, &v->plan);
	rc = db_comparison_decisions(db, id, &v->dec, &v->ndec);
	if (rc) {
		snprintf(err, errlen, "cannot read the decisions of "
			 "comparison %lld", (long long)id);
		return rc;
	}
	rc = view_model(db, v, err, errlen);
	if (rc)
		return rc;
	decisions_apply(v, judging);
	view_sum(v);
	return DB_OK;
}

int cmprun_view_load(struct db *db, int64_t id, struct cmprun_view *v,
		     char *err, size_t errlen)
{
	return view_load(db, id, v, 0, err, errlen);
}

void cmprun_view_release(struct cmprun_view *v)
{
	db_comparison_release(&v->c);
	compare_release(&v->cmp);
	db_cmp_decisions_free(v->dec, v->ndec);
	v->dec = NULL;
	v->ndec = 0;
}

int cmprun_commit(struct klabd *d, struct db *db, int rc)
{
	if (rc) {
		db_rollback(db);
		return rc;
	}
	rc = db_commit(db);
	if (!rc) {
		rigmgr_kick(d);
		driver_kick(d->cmprun);
	}
	return rc;
}

int cmprun_queue(struct db *db, const struct db_comparison *c, int planned,
		  char *err, size_t errlen)
{
	struct db_job_new jn;
	int need[2], s, i, j, rc = 0;
	int64_t job;

	memset(&jn, 0, sizeof(jn));
	jn.rig = c->rig;
	jn.suite = c->suite;
	jn.scheduler = c->scheduler;
	jn.cmdline = c->cmdline;
	jn.scale = c->scale;
	for (s = 0; s < 2; s++)
		need[s] = planned - (c->total[s] - c->failed[s]);
	/* pairs A B, B A, A B ...: a drift of the rig favours neither */
	for (i = 0; !rc && (i < need[0] || i < need[1]); i++)
		for (j = 0; !rc && j < 2; j++) {
			s = (planned - need[0] + i) % 2 ? 1 - j : j;
			if (i >= need[s])
				continue;
			jn.kernel = s ? c->candidate : c->base;
			rc = db_comparison_job_add(db, c->id, s, &jn, &job, err,
						   errlen);
		}
	return rc;
}

/* Where a comparison goes: its state, planned cells a side, headline
 * metrics open, and the decisions of a look (none: ndec 0). */
struct cmprun_move {
	const char *state;
	int planned, open;
	const struct db_cmp_decision *dec;
	size_t ndec;
};

/* Move c as mv says (the cells up to mv->planned queued, a look's
 * decisions stored), in one transaction. */
static int cmprun_advance(struct klabd *d, struct db *db,
			  const struct db_comparison *c,
			  const struct cmprun_move *mv, char *err,
			  size_t errlen)
{
	int rc = db_begin(db) ? DB_ERR : DB_OK;

	if (!rc)
		rc = cmprun_queue(db, c, mv->planned, err, errlen);
	if (!rc && mv->ndec)
		rc = db_comparison_decide(db, c->id, mv->dec, mv->ndec);
	if (!rc)
		rc = db_comparison_update(db, c->id, mv->state, mv->planned,
					  mv->open, NULL);
	if (rc) {
		db_rollback(db);
		return rc;
	}
	rc = db_commit(db);
	if (!rc)
		rigmgr_kick(d);
	return rc;
}

static void cmprun_fail(struct db *db, const struct db_comparison *c,
			const char *why)
{
	int n;

	fprintf(stderr, "klabd: comparison %lld failed: %s\n",
		(long long)c->id, why);
	if (db_comparison_update(db, c->id, "failed", c->planned, c->open,
				 why))
		fprintf(stderr, "klabd: cannot record comparison %lld\n",
			(long long)c->id);
	n = db_comparison_cancel(db, c->id);
	if (n > 0)
		fprintf(stderr, "klabd: comparison %lld: %d queued cells "
			"cancelled\n", (long long)c->id, n);
}

/* The decisions of a look at c's planned cells: one a metric, the
 * candidate's cell of each (heap array; its strings point into v). */
static struct db_cmp_decision *look_decisions(const struct cmprun_view *v,
					      size_t *n)
{
	struct db_cmp_decision *dec;
	size_t i;

	*n = v->cmp.nk == 2 ? v->cmp.nm : 0;
	dec = xcalloc(*n + 1, sizeof(*dec));
	for (i = 0; i < *n; i++)
		cmp_decision_of(v->cmp.m[i].name, &v->cmp.m[i].cells[1],
				v->c.planned, &dec[i]);
	return dec;
}

/* Both sides have the look's cells: judge them, store the decisions,
 * then more, decided or cap. */
static void cmprun_look(struct klabd *d, struct db *db,
			const struct db_comparison *c)
{
	struct db_cmp_decision *dec = NULL;
	struct cmprun_move mv;
	struct cmprun_view v;
	enum vd_step step;
	size_t next, open;
	char err[700] = "";
	int rc;

	rc = view_load(db, c->id, &v, 1, err, sizeof(err));
	if (rc == DB_INVALID || (!rc && !v.headline)) {
		cmprun_fail(db, c, rc ? err : "the cells have no headline "
			    "metric on both sides");
		goto out;
	}
	if (rc) {
		fprintf(stderr, "klabd: comparison %lld: %s\n",
			(long long)c->id, err);
		goto out;
	}
	step = vd_plan_next(&v.plan, &v.cmp, (size_t)c->planned,
			    difftime(time(NULL), (time_t)c->created), &next,
			    &open);
	fprintf(stderr, "klabd: comparison %lld: look at %d cells a side: "
		"%zu headline open: %s%s%zu\n", (long long)c->id, c->planned,
		open, vd_step_name(step), step == VD_STEP_MORE ? " to " : " ",
		next);
	dec = look_decisions(&v, &mv.ndec);
	mv.dec = dec;
	mv.state = step == VD_STEP_MORE ? "running" : step ==
		   VD_STEP_DECIDED ? "decided" : "undecided";
	mv.planned = step == VD_STEP_MORE ? (int)next : c->planned;
	mv.open = (int)open;
	rc = cmprun_advance(d, db, c, &mv, err, sizeof(err));
	if (step != VD_STEP_MORE) {
		driver_kick(d->subrun);	/* its submission may be waiting */
		driver_kick(d->bisrun);	/* or its bisection */
	}
	if (rc == DB_NOTFOUND || rc == DB_INVALID)
		cmprun_fail(db, c, err[0] ? err : "cannot queue cells");
	else if (rc)
		fprintf(stderr, "klabd: comparison %lld: cannot record the "
			"look: %s\n", (long long)c->id, err);
out:
	free(dec);
	cmprun_view_release(&v);
}

static void cmprun_step(struct klabd *d, struct db *db,
			const struct db_comparison *c)
{
	char err[600] = "", *why;
	const char *state = c->started ? "running" : "queued";
	struct cmprun_move mv;
	int s, short_side = 0, rc;

	if (c->failed[0] + c->failed[1] >= CMPRUN_MAX_FAILED) {
		why = db_comparison_job_error(db, c->id);
		snprintf(err, sizeof(err), "%d cells failed, the last: %s",
			 c->failed[0] + c->failed[1], why);
		free(why);
		cmprun_fail(db, c, err);
		return;
	}
	if (c->done[0] >= c->planned && c->done[1] >= c->planned) {
		cmprun_look(d, db, c);
		return;
	}
	for (s = 0; s < 2; s++)
		short_side |= c->total[s] - c->failed[s] < c->planned;
	if (!short_side && !strcmp(state, c->state))
		return;
	mv.state = state;
	mv.planned = c->planned;
	mv.open = c->open;
	mv.dec = NULL;
	mv.ndec = 0;
	rc = cmprun_advance(d, db, c, &mv, err, sizeof(err));
	if (rc == DB_NOTFOUND || rc == DB_INVALID)
		cmprun_fail(db, c, err);
}

/* One walk of the comparisons; the seconds until the next. */
long cmprun_pass(void *arg)
{
	struct klabd *d = arg;
	struct db_comparison *v = NULL;
	struct db *db;
	size_t n = 0, i;

	db = klabd_db_get_logged(d, "comparisons");
	if (!db)
		return CMPRUN_PERIOD_S;
	if (db_comparison_list(db, 1, 0, &v, &n))
		fprintf(stderr, "klabd: cannot list the comparisons\n");
	for (i = 0; i < n; i++)
		cmprun_step(d, db, &v[i]);
	db_comparisons_free(v, n);
	klabd_db_put(d, db);
	return CMPRUN_PERIOD_S;
}
