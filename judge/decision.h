/* SPDX-License-Identifier: MIT */
/*
 * decision: the verdict as a fact.  The one home of the verdict's
 * vocabulary (the enum, its names to and from text, which verdicts are
 * decisions) and of the one roll-up that turns a set of verdicts into one
 * (the headline metrics of a comparison run, the comparisons of a
 * submission).  Also the row form of one metric's decision, as a look of
 * a comparison run stores it (db/comparisons.h, table
 * comparison_decisions) and every view reads it back.
 *
 * Everyone above judge/ compares verdicts as enum values: a verdict read
 * from JSON, the database or a form goes through cmp_verdict_of() first.
 */
#ifndef KLAB_DECISION_H
#define KLAB_DECISION_H

#include <stddef.h>

enum cmp_verdict {
	V_NONE = 0,	/* no verdict: see the note */
	V_SAME,
	V_BETTER,
	V_WORSE,
	V_UNDECIDED,
};

/* "same", "better", "worse", "undecided"; "none" for anything else. */
const char *cmp_verdict_name(enum cmp_verdict v);
/* The verdict a name stands for; V_NONE for NULL, "", "none" or a name
 * that is none of the others. */
enum cmp_verdict cmp_verdict_of(const char *name);
/* 1 for a decision (worse, better, same), 0 for undecided and none. */
int cmp_verdict_decided(enum cmp_verdict v);

/*
 * The roll-up.  Verdicts are added one by one; anything not decided
 * (undecided, none, a failed part) counts as open.  The whole is worse
 * when any part is worse, else undecided when any is open, else better
 * when any is better, else same; nothing added is undecided.
 */
struct vd_tally {
	size_t worse, better, same, open;
};

#define VD_TALLY_INIT { 0, 0, 0, 0 }

void vd_tally_add(struct vd_tally *t, enum cmp_verdict v);
/* worse + better + same */
size_t vd_tally_decided(const struct vd_tally *t);
enum cmp_verdict vd_tally_verdict(const struct vd_tally *t);

/*
 * A candidate cell's decision as a row and back.  cmp_decision_of()
 * fills out from the cell of metric, judged at a look of look cells a
 * side; out's strings point into the cell and metric (static notes), so
 * out lives no longer than they do.  cmp_decision_apply() puts a row's
 * verdict and note on cell and, when the row carries figures (look > 0:
 * rows of schema 18 carry the verdict alone), the figures it was decided
 * on; the cell's note then points into d.
 */
struct cmp_cell;
struct db_cmp_decision;

void cmp_decision_of(const char *metric, const struct cmp_cell *cell,
		     int look, struct db_cmp_decision *out);
void cmp_decision_apply(const struct db_cmp_decision *d,
			struct cmp_cell *cell);

#endif
