/* SPDX-License-Identifier: MIT */
/*
 * comparisons: comparison runs with adaptive repetition.  A comparison
 * queues interleaved A B cell pairs (jobs) of a base and a candidate
 * kernel on one rig, or a class of identical rigs (lab/rig_class.c:
 * whichever rig of the class is free takes the next cell, each rig
 * leaning to the side it ran less, db_queue_next), and suite; the
 * driver thread (comparisons.c) waits until both sides have the cells
 * of the current look, judges exactly
 * the comparison's own cells (judge/compare.h with its jobs as the
 * filter, the look's share of the error budget and the decisions of
 * earlier looks carried), stores the look's decisions (one row a metric,
 * judge/decision.h) and asks judge/adaptive.h whether to queue more
 * pairs, stop as decided, or stop at the cap.  Everything it knows is in
 * the database (db/comparisons.h), so a restarted klabd resumes it.
 *
 * The view is what the API, the pages, submissions and bisections read:
 * the row, the verdict table (the cells' figures from the samples, the
 * verdicts from the stored decisions), and the outcome rolled up into
 * one verdict and one line.
 */
#ifndef KLAB_COMPARISONS_H
#define KLAB_COMPARISONS_H

#include "db/comparisons.h"
#include "judge/adaptive.h"
#include "judge/compare.h"

#define CMPRUN_MAX_FAILED 2	/* failed cells that fail the comparison */

struct cmprun_view {
	struct db_comparison c;
	struct comparison cmp;	/* its own cells, the decisions on them */
	struct db_cmp_decision *dec;	/* as stored, by metric */
	size_t ndec;
	struct vd_plan plan;
	size_t headline, decided, open;	/* headline metrics */
	enum cmp_verdict verdict;	/* rolled up; V_NONE: failed */
	char summary[200];	/* "worse: 1 headline metric", ... */
};

/* A headline metric with a direction, present on both sides: one that
 * counts in a comparison run's outcome. */
int cmprun_headline(const struct cmp_metric *m);

/* Fill the plan of a comparison (its cap and wall time). */
void cmprun_plan(const struct db_comparison *c, struct vd_plan *plan);
/*
 * Load comparison id: its done cells, with the decisions its looks
 * stored (between looks, the cells judged so far with nothing decided
 * that a look did not decide).  DB_OK, or a DB_E* code with err set
 * (DB_NOTFOUND: no such id).  The view is released by
 * cmprun_view_release in every case.
 */
int cmprun_view_load(struct db *db, int64_t id, struct cmprun_view *v,
		     char *err, size_t errlen);
void cmprun_view_release(struct cmprun_view *v);
/*
 * Queue cells of c so that each side has planned cells done or under way
 * (failed ones replaced), the sides interleaved (A B A B ...), inside the
 * caller's transaction.  DB_OK or a DB_E* code with err set.
 */
int cmprun_queue(struct db *db, const struct db_comparison *c, int planned,
		 char *err, size_t errlen);
/*
 * End the caller's transaction that queued cells: rolled back when rc is
 * not DB_OK (rc returned), else committed, and then the rig manager and
 * the comparison driver are woken.  The commit's code.
 */
struct klabd;
int cmprun_commit(struct klabd *d, struct db *db, int rc);
/* One pass of the comparison driver (d->cmprun, arg a struct klabd):
 * steps every unfinished comparison run, so a restart resumes them;
 * driver_kick(d->cmprun) after a change. */
long cmprun_pass(void *arg);

#endif
