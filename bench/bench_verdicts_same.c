// SPDX-License-Identifier: MIT
/*
 * bench_verdicts --same: can a comparison run end "same", and what does
 * "same" let through?  A page is 8 headline metrics shaped like
 * tiobench's (4 rates, higher is better, and 4 average latencies), each
 * cell normal with the rig's CV, judged as the engine judges a comparison
 * run: vd_test() per metric, vd_decide() across the page with a look's
 * share of the budget (vd_plan_policy()), the looks of the default plan
 * capped at 8, 12 or 20 cells a side, decisions final, the run done when
 * every headline metric is decided.  Each page is judged twice on the
 * same cells: by the rule without the margin at the cap (same_cells 0:
 * "same" when the 90% CI lies inside +-threshold) and with it (the
 * engine's now: inside +-max(threshold, the change the worse test
 * detects half the time at the cap)).  Shifted pages move the first rate
 * down by T, 1.5 T, 2 T (T = max(2%, CV), the threshold) and by the
 * margin E at the cap (from the true CV).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_verdicts.h"
#include "judge/adaptive.h"
#include "judge/verdict.h"

#define NHEAD 8
#define MAXN 20

struct same_tally {
	size_t pages, all_same, alarm, same0, worse0, cells;
};

static double cells[2][NHEAD][MAXN];

static void draw_page(double cv, double shift, size_t n)
{
	size_t s, i, c;

	for (s = 0; s < 2; s++)
		for (i = 0; i < NHEAD; i++)
			for (c = 0; c < n; c++)
				cells[s][i][c] = (s && !i ? 1 - shift : 1) *
						 (i < 4 ? 100 : 10) *
						 (1 + cv * rng_normal());
}

/* One run of the plan on the drawn cells; the last look's verdicts. */
static void judge_run(const struct vd_plan *plan,
		      const struct vd_policy *look, struct same_tally *t)
{
	static const struct vd_kind rate = { VC_HEADLINE, 0, 1 };
	static const struct vd_kind lat = { VC_HEADLINE, 0, 0 };
	struct vd_result r[NHEAD], *pr[NHEAD];
	enum cmp_verdict fin[NHEAD];
	size_t l, i, n = 0, open, same;
	int alarm = 0;

	for (i = 0; i < NHEAD; i++) {
		fin[i] = V_UNDECIDED;
		pr[i] = &r[i];
	}
	for (l = 0; l < plan->nlooks; l++) {
		n = plan->looks[l];
		for (i = 0; i < NHEAD; i++)
			vd_test(look, i < 4 ? &rate : &lat,
				i < 4 ? DIR_HIGHER : DIR_LOWER,
				look->floor_pct[VC_HEADLINE], cells[0][i], n,
				cells[1][i], n, &r[i]);
		vd_decide(look, pr, NHEAD);
		for (i = open = 0; i < NHEAD; i++) {
			if (!cmp_verdict_decided(fin[i]))
				fin[i] = r[i].verdict;
			open += !cmp_verdict_decided(fin[i]);
		}
		if (!open)
			break;
	}
	for (i = same = 0; i < NHEAD; i++) {
		same += fin[i] == V_SAME;
		alarm |= fin[i] == V_WORSE || fin[i] == V_BETTER;
	}
	t->pages++;
	t->cells += n;
	t->all_same += same == NHEAD;
	t->alarm += alarm;
	t->same0 += fin[0] == V_SAME;
	t->worse0 += fin[0] == V_WORSE;
}

/* pages pages at one setting, judged by both rules (t[0] without the
 * margin at the cap, t[1] with it). */
static void same_setting(double cv, double shift, size_t cap, size_t pages,
			 struct same_tally *t)
{
	struct vd_policy pol, look[2];
	struct vd_plan plan;
	size_t p;

	memset(t, 0, 2 * sizeof(*t));
	vd_plan_default(&plan);
	if (vd_plan_set_cap(&plan, cap))
		abort();
	vd_policy_default(&pol);
	vd_plan_policy(&plan, &pol, &look[1]);
	look[0] = look[1];
	look[0].same_cells = 0;
	for (p = 0; p < pages; p++) {
		draw_page(cv, shift, cap);
		judge_run(&plan, &look[0], &t[0]);
		judge_run(&plan, &look[1], &t[1]);
	}
}

static double pc(size_t a, size_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* The margin at the cap from the true CV: the Bonferroni t quantile of a
 * look's headline alpha over the 8 metrics, Welch's df at the cap. */
static double margin(double cv, size_t cap)
{
	struct vd_policy pol, look;
	struct vd_plan plan;
	double q;

	vd_plan_default(&plan);
	if (vd_plan_set_cap(&plan, cap))
		abort();
	vd_policy_default(&pol);
	vd_plan_policy(&plan, &pol, &look);
	q = vd_t_quantile(look.alpha[VC_HEADLINE] / NHEAD,
			  2.0 * (double)(cap - 1));
	return fmax(fmax(0.02, cv), q * cv * sqrt(2.0 / (double)cap));
}

static const double same_cvs[] = { 0.005, 0.01, 0.015, 0.02, 0.03 };
static const size_t same_caps[] = { 8, 12, 20 };

void same_tables(size_t pages)
{
	struct same_tally t[2], s[4][2];
	size_t a, b, k;

	printf("| CV | cap | margin E at the cap | A/A all 8 same: now | "
	       "new | A/A mean cells a side: now | new | A/A any worse/"
	       "better: now | new |\n|---|---|---|---|---|---|---|---|---|\n");
	for (a = 0; a < 5; a++)
		for (b = 0; b < 3; b++) {
			double cv = same_cvs[a];
			double E = margin(cv, same_caps[b]);

			same_setting(cv, 0, same_caps[b], pages, t);
			printf("| %.1f%% | %zu | %.1f%% | %.1f%% | %.1f%% | "
			       "%.1f | %.1f | %.2f%% | %.2f%% |\n", 100 * cv,
			       same_caps[b], 100 * E, pc(t[0].all_same, pages),
			       pc(t[1].all_same, pages),
			       (double)t[0].cells / (double)pages,
			       (double)t[1].cells / (double)pages,
			       pc(t[0].alarm, pages), pc(t[1].alarm, pages));
		}
	printf("\n%zu pages per row, each judged by both rules on the same "
	       "cells.\n\nOne rate dropped by the change shown: called same "
	       "(decided worse), now / new.\n\n| CV | cap | T | drop T | "
	       "drop 1.5 T | drop 2 T | drop E |\n|---|---|---|---|---|---|"
	       "---|\n", pages);
	for (a = 0; a < 5; a++)
		for (b = 0; b < 3; b++) {
			double cv = same_cvs[a], T = fmax(0.02, cv);
			double E = margin(cv, same_caps[b]);
			double d[4] = { T, 1.5 * T, 2 * T, E };

			printf("| %.1f%% | %zu | %.1f%% |", 100 * cv,
			       same_caps[b], 100 * T);
			for (k = 0; k < 4; k++) {
				same_setting(cv, d[k], same_caps[b], pages,
					     s[k]);
				printf(" %.1f (%.1f) / %.1f (%.1f) |",
				       pc(s[k][0].same0, pages),
				       pc(s[k][0].worse0, pages),
				       pc(s[k][1].same0, pages),
				       pc(s[k][1].worse0, pages));
			}
			printf("\n");
			fflush(stdout);
		}
}
