// SPDX-License-Identifier: MIT
/*
 * Adaptive repetition: the plan of looks, the error budget of one look
 * and the decision after each (see adaptive.h).
 */
#include "judge/adaptive.h"

#include <string.h>

void vd_plan_default(struct vd_plan *p)
{
	static const size_t def[] = { 3, 5, 8, 12, 20 };

	memset(p, 0, sizeof(*p));
	memcpy(p->looks, def, sizeof(def));
	p->nlooks = sizeof(def) / sizeof(def[0]);
	p->max_seconds = 4 * 3600;
}

int vd_plan_set_cap(struct vd_plan *p, size_t max_cells)
{
	size_t i;

	if (!p->nlooks || max_cells < p->looks[0])
		return -1;
	for (i = 0; i < p->nlooks && p->looks[i] < max_cells; i++)
		;
	if (i == VD_MAX_LOOKS)
		return -1;
	p->looks[i] = max_cells;
	p->nlooks = i + 1;
	return 0;
}

void vd_plan_policy(const struct vd_plan *p, const struct vd_policy *in,
		    struct vd_policy *out)
{
	int k;

	*out = *in;
	/* "same" at the cap: the margin the last look can resolve */
	if (p->nlooks)
		out->same_cells = p->looks[p->nlooks - 1];
	for (k = 0; k < VC_NCLASSES; k++)
		out->alpha[k] = in->alpha[k] / (double)(p->nlooks ? p->nlooks :
							1);
}

void vd_plan_carry(const struct comparison *prev, struct comparison *cur)
{
	size_t i, k, j;

	for (i = 0; i < cur->nm; i++) {
		struct cmp_metric *m = &cur->m[i];
		const struct cmp_metric *pm = compare_find(prev, m->name);

		for (k = 0; pm && k < cur->nk; k++)
			for (j = 0; j < prev->nk; j++) {
				const struct cmp_cell *pc = &pm->cells[j];

				if (strcmp(prev->kernels[j], cur->kernels[k]) ||
				    !cmp_verdict_decided(pc->verdict))
					continue;
				m->cells[k].verdict = pc->verdict;
				m->cells[k].vd.verdict = pc->verdict;
				m->cells[k].vd.note =
					"decided at an earlier look";
			}
	}
}

/* Headline cells not decided; *worse: how many are decided worse;
 * *leaning: how many of the open ones lean worse (vd_leans_worse). */
static size_t open_headline(const struct comparison *c, size_t *worse,
			    size_t *leaning)
{
	size_t i, k, n = 0;

	*worse = *leaning = 0;
	for (i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];

		if (m->kind.klass != VC_HEADLINE || m->dir == DIR_NONE)
			continue;
		for (k = 0; k < c->nk; k++) {
			enum cmp_verdict v = m->cells[k].verdict;

			if (k == c->baseline || !m->cells[k].present ||
			    !m->cells[c->baseline].present)
				continue;
			*worse += v == V_WORSE;
			*leaning += vd_leans_worse(&m->cells[k].vd);
			/* a zero baseline or a NaN can never be decided */
			n += v == V_UNDECIDED ||
			     (v == V_NONE && !strcmp(m->cells[k].vd.note,
						     "n=1, no verdict"));
		}
	}
	return n;
}

enum vd_step vd_plan_next(const struct vd_plan *p,
			  const struct comparison *c, size_t cells,
			  double elapsed, size_t *next, size_t *open)
{
	size_t i, worse, leaning;

	*open = open_headline(c, &worse, &leaning);
	*next = cells;
	/* stop_on_worse: the verdict is known, but not while another
	 * headline metric leans worse, a regression the report would
	 * otherwise leave undecided (docs/VERDICTS.md) */
	if (!*open || (p->stop_on_worse && worse && !leaning))
		return VD_STEP_DECIDED;
	if (p->max_seconds > 0 && elapsed >= p->max_seconds)
		return VD_STEP_CAP;
	for (i = 0; i < p->nlooks; i++)
		if (p->looks[i] > cells) {
			*next = p->looks[i];
			return VD_STEP_MORE;
		}
	return VD_STEP_CAP;
}

const char *vd_step_name(enum vd_step s)
{
	switch (s) {
	case VD_STEP_DECIDED: return "decided";
	case VD_STEP_MORE: return "more";
	default: return "cap";
	}
}
