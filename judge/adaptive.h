/* SPDX-License-Identifier: MIT */
/*
 * adaptive: when a comparison job has cells enough.  Pure functions over
 * a comparison judged so far, for the job that adds interleaved A B cell
 * pairs until every headline metric is decided (worse, better or same) or
 * a cap is reached.  The job looks at the verdicts only at planned cell
 * counts (default 3, 5, 8, 12 and 20 cells a side), and every look spends
 * an equal share of the page's error budget (alpha / looks, Bonferroni
 * over looks), so that peeking does not raise the false alarm rate above
 * the fixed-n design's.  No HTTP, no SQL: the rig manager calls it.
 */
#ifndef KLAB_ADAPTIVE_H
#define KLAB_ADAPTIVE_H

#include <stddef.h>

#include "judge/compare.h"

#define VD_MAX_LOOKS 16

struct vd_plan {
	size_t looks[VD_MAX_LOOKS];	/* cells a side, increasing */
	size_t nlooks;
	double max_seconds;		/* wall-time cap, 0: none */
	/* A headline worse ends the job, unless another headline metric
	 * is open and leans worse (vd_leans_worse). */
	int stop_on_worse;
};

enum vd_step {
	VD_STEP_DECIDED = 0,	/* every headline metric decided */
	VD_STEP_MORE,		/* run cells up to *next a side */
	VD_STEP_CAP,		/* cap reached: "undecided after N cells" */
};

/* 3, 5, 8, 12, 20 cells a side; 4 hours; stop_on_worse off. */
void vd_plan_default(struct vd_plan *p);
/* Cap at max_cells a side (looks beyond it dropped, the cap made the
 * last look); -1 when max_cells is below the first look. */
int vd_plan_set_cap(struct vd_plan *p, size_t max_cells);
/* The policy of one look: in's error budgets divided by the looks. */
void vd_plan_policy(const struct vd_plan *p, const struct vd_policy *in,
		    struct vd_policy *out);
/*
 * Decisions are final: every cell of prev (the comparison of the previous
 * look) decided worse, better or same keeps that verdict in cur, as a
 * group-sequential design stops testing a hypothesis once it is decided.
 * Metrics and kernels are matched by name.
 */
void vd_plan_carry(const struct comparison *prev, struct comparison *cur);
/*
 * Given c, judged with vd_plan_policy() at cells cells a side, after
 * elapsed seconds: decided, more (up to *next cells a side), or cap.
 * *open receives the headline cells (metric x candidate) not decided.
 */
enum vd_step vd_plan_next(const struct vd_plan *p,
			  const struct comparison *c, size_t cells,
			  double elapsed, size_t *next, size_t *open);
const char *vd_step_name(enum vd_step s);

#endif
