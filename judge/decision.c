// SPDX-License-Identifier: MIT
/*
 * The verdict as a fact: its names and the one roll-up (see
 * decision.h).
 */
#include "judge/decision.h"

#include <string.h>

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
