// SPDX-License-Identifier: MIT
/*
 * The verdict as a fact: its names, the one roll-up, and a cell's
 * decision as a row of comparison_decisions and back (see decision.h).
 */
#include "judge/decision.h"

#include <string.h>

#include "db/comparisons.h"
#include "judge/compare.h"

const char *cmp_verdict_name(enum cmp_verdict v)
{
	switch (v) {
	case V_SAME: return "same";
	case V_BETTER: return "better";
	case V_WORSE: return "worse";
	case V_UNDECIDED: return "undecided";
	default: return "none";
	}
}

enum cmp_verdict cmp_verdict_of(const char *name)
{
	static const enum cmp_verdict all[] = {
		V_SAME, V_BETTER, V_WORSE, V_UNDECIDED,
	};
	size_t i;

	for (i = 0; name && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(name, cmp_verdict_name(all[i])))
			return all[i];
	return V_NONE;
}

int cmp_verdict_decided(enum cmp_verdict v)
{
	return v == V_WORSE || v == V_BETTER || v == V_SAME;
}

void vd_tally_add(struct vd_tally *t, enum cmp_verdict v)
{
	t->worse += v == V_WORSE;
	t->better += v == V_BETTER;
	t->same += v == V_SAME;
	t->open += !cmp_verdict_decided(v);
}

size_t vd_tally_decided(const struct vd_tally *t)
{
	return t->worse + t->better + t->same;
}

enum cmp_verdict vd_tally_verdict(const struct vd_tally *t)
{
	if (t->worse)
		return V_WORSE;
	if (t->open || !vd_tally_decided(t))
		return V_UNDECIDED;
	return t->better ? V_BETTER : V_SAME;
}

void cmp_decision_of(const char *metric, const struct cmp_cell *cell,
		     int look, struct db_cmp_decision *out)
{
	const struct vd_result *r = &cell->vd;

	memset(out, 0, sizeof(*out));
	out->metric = (char *)metric;
	out->verdict = (char *)cmp_verdict_name(cell->verdict);
	out->final = cmp_verdict_decided(cell->verdict);
	out->look = look;
	out->note = (char *)(r->note ? r->note : "");
	out->analysis = (char *)(r->analysis ? r->analysis : "");
	out->tested = r->tested;
	out->n_base = (int)r->nb;
	out->n_cand = (int)r->nc;
	out->delta_pct = cell->delta_pct;
	out->ci_lo = r->ci_lo;
	out->ci_hi = r->ci_hi;
	out->p = r->p;
	out->p_adj = r->p_adj;
	out->threshold_pct = r->threshold_pct;
	out->floor_pct = r->floor_pct;
	out->noise_pct = r->noise_pct;
	out->sd_pct = r->sd_pct;
}

void cmp_decision_apply(const struct db_cmp_decision *d,
			struct cmp_cell *cell)
{
	struct vd_result *r = &cell->vd;

	cell->verdict = cmp_verdict_of(d->verdict);
	r->verdict = cell->verdict;
	r->note = d->note;
	if (d->look <= 0)
		return;
	r->analysis = d->analysis;
	r->tested = d->tested;
	r->nb = (size_t)d->n_base;
	r->nc = (size_t)d->n_cand;
	cell->delta_pct = d->delta_pct;
	r->delta_pct = d->delta_pct;
	r->ci_lo = d->ci_lo;
	r->ci_hi = d->ci_hi;
	r->p = d->p;
	r->p_adj = d->p_adj;
	r->threshold_pct = d->threshold_pct;
	r->floor_pct = d->floor_pct;
	r->noise_pct = d->noise_pct;
	r->sd_pct = d->sd_pct;
}
