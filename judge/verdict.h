/* SPDX-License-Identifier: MIT */
/*
 * verdict: the rule that turns the cells of two kernels into one of four
 * verdicts, pure functions over numbers (no SQL, no HTTP), used by the
 * comparison model (judge/compare.c) and by bench/bench_verdicts.  The
 * verdicts themselves, their names and their roll-up: judge/decision.h.
 *
 * The unit is the cell (one run: one boot of a job, or one import), whose
 * repetitions are averaged first (rates by harmonic mean, as mmtests
 * does; everything else by arithmetic mean).  Two kernels' cells are
 * compared by the relative change of their means, r = cand / base - 1:
 * Welch's t on log(cand mean / base mean) with its delta-method standard
 * error, or, for latency tails (p99 and up, max), Welch on the logs of the
 * cell values (a ratio of geometric means).  Then, across the page:
 *
 *  - worse / better: the p-value, corrected by Holm over every directional
 *    metric and candidate of its family (headline: alpha 0.008, secondary:
 *    alpha 0.002; 0.01 per page), is below the family's alpha AND |r| is at
 *    least the metric's threshold;
 *  - same: the 90% confidence interval of r lies inside +-threshold (two
 *    one-sided tests at 5%);
 *  - undecided: neither; more cells are needed;
 *  - none: no verdict (a parameter, fewer than 2 cells on a side: "n=1, no
 *    verdict", a metric missing on one side, a zero baseline with a non-zero
 *    candidate, a NaN).
 *
 * threshold = max(floor, noise_k * noise), noise the cell-to-cell CV of the
 * baseline's cells (sd of their logs for tails).  Each side's CV is floored
 * at min_cv_pct and at the quantum of its values, so constant samples never
 * give p = 0.
 */
#ifndef KLAB_VERDICT_H
#define KLAB_VERDICT_H

#include <stddef.h>

#include "judge/decision.h"
#include "lib/results.h"

enum vd_class {
	VC_HEADLINE = 0,	/* each phase's rate and avg latency, iops */
	VC_SECONDARY,		/* percentiles, max, CPU, the rest */
	VC_NCLASSES
};

/* How a metric is averaged and tested, from its name, unit, direction. */
struct vd_kind {
	enum vd_class klass;
	int log_scale;		/* latency tail: test the logs */
	int harmonic;		/* a rate: harmonic mean of repetitions */
};

/* A user floor: METRICGLOB or SUITEGLOB/METRICGLOB, in percent. */
struct vd_floor {
	char suite[64], metric[128];
	double pct;
};

#define VD_MAX_FLOORS 32		/* the configuration's, a request's */
#define VD_MAX_DEFAULT_FLOORS 16	/* the configuration's */

struct config;

struct vd_policy {
	double alpha[VC_NCLASSES];	/* 0.008 headline, 0.002 secondary */
	double alpha_equiv;		/* 0.05: "same" from the 90% CI */
	double floor_pct[VC_NCLASSES];	/* 2 headline, 5 secondary */
	double noise_k;			/* 1.0 */
	/* "same" at a comparison run's cap N (same_cells, 0: off): with N
	 * cells a side or more, the 90% CI inside +-max(threshold, the
	 * change the page's worse test detects half the time there: the
	 * family's Bonferroni t quantile x the smaller of the test's
	 * standard error and the baseline's noise x sqrt(2 / N), at most
	 * same_max_pct), set by vd_decide()
	 * (docs/VERDICTS.md, "Same at the cap"). */
	size_t same_cells;		/* 0; a comparison run: its cap */
	double same_max_pct;		/* 10: that margin at most this */
	double min_cv_pct;		/* 0.5 */
	int bh;				/* 0 Holm (default), 1 BH */
	int unpaired;			/* never test interleaved pairs */
	struct vd_floor floors[VD_MAX_FLOORS];	/* later ones win */
	size_t nfloors;
};

struct vd_result {
	enum cmp_verdict verdict;
	const char *note;	/* static: "n=1, no verdict", ... or "" */
	size_t nb, nc;		/* cells of baseline, candidate */
	double delta_pct;	/* 100 r; NAN when not defined */
	double ci_lo, ci_hi;	/* 90% CI of 100 r; NAN when not tested */
	double p, p_adj;	/* raw and corrected; NAN when not tested */
	double threshold_pct;	/* the threshold used */
	double margin_pct;	/* "same": the CI inside +-margin (>= it) */
	double se, df;		/* the test's standard error (log units)
				 * and degrees of freedom; NAN untested */
	double noise_pct;	/* the baseline's cell CV, NAN when n < 2 */
	double floor_pct;	/* the floor used */
	double sd_pct;		/* sd of the candidate's cells, % of base */
	int tested;		/* took part in the page's correction */
	/* How it was tested: "welch" (Welch's t on the log ratio of the
	 * means), "mann-whitney" (a tail: ranks for p, logs for the CI),
	 * "paired" (interleaved A B cells: one-sample t on the pairs' log
	 * ratios, when the page's cells drift); "" when not tested.  Static. */
	const char *analysis;
	enum vd_class klass;
	enum metric_dir dir;
};

/* The defaults, with the configuration's floors (vd_defaults_*). */
void vd_policy_default(struct vd_policy *p);
/*
 * The configuration's floors (judge/verdict_conf.c), the first floors of
 * every vd_policy_default(): "verdict_floor = [SUITE/]GLOB:PCT, ..." and
 * "floor = GLOB:PCT, ..." in each [suite NAME].  Set at startup before
 * threads read them.  0, or -1 with err naming the file, key and floor
 * (the defaults then hold what came before it).
 */
int vd_defaults_from_config(const struct config *c, char *err,
			    size_t errlen);
/* Add a list of floors separated by commas or blanks, each for suite
 * when it is not NULL; 0 or -1 with err set. */
int vd_defaults_add_floors(const char *suite, const char *list, char *err,
			   size_t errlen);
void vd_defaults_reset(void);
/* The floors in force as defaults: a static array, *out. */
size_t vd_defaults_floors(const struct vd_floor **out);
/* Add "GLOB:PCT" or "SUITE/GLOB:PCT"; -1 when malformed or full. */
int vd_policy_add_floor(struct vd_policy *p, const char *spec);
/* The floor for a metric of a suite (suite may be NULL). */
double vd_floor_for(const struct vd_policy *p, const char *suite,
		    const char *metric, enum vd_class k);
void vd_kind_of(const char *metric, const char *unit, enum metric_dir dir,
		struct vd_kind *out);
/* The cell value of n repetitions (harmonic or arithmetic mean); NAN
 * when n is 0 or a value is not finite (or <= 0 for a harmonic mean). */
double vd_cell_value(const double *reps, size_t n, int harmonic);

/*
 * Test one candidate against the baseline from their cell values: fills
 * everything but p_adj and the final worse/better (the verdict is left
 * V_UNDECIDED or V_SAME for tested metrics until vd_decide).
 */
void vd_test(const struct vd_policy *pol, const struct vd_kind *kind,
	     enum metric_dir dir, double floor_pct, const double *base,
	     size_t nb, const double *cand, size_t nc, struct vd_result *out);
/*
 * The same for n interleaved pairs (base[i], cand[i]) taken in time order
 * (A B A B ...): a one-sample t on d_i = log(cand[i] / base[i]) over n - 1
 * degrees of freedom, so a drift shared by the two cells of a pair
 * cancels.  The change is exp(mean d) - 1 (a ratio of geometric means),
 * the noise sd(d) / sqrt 2 (a cell's noise without the drift), sd(d)
 * floored at sqrt 2 x the minimum CV.  Falls back to vd_test() when a
 * value is not positive or n < 3.
 */
/*
 * The drift n pairs show: the variance of their levels (log sums) over
 * that of their differences (log ratios), about 1 without drift (an
 * F(n-1, n-1) ratio), large when the level moves from pair to pair.
 * Values must be positive.  judge/pairs.c decides from it.
 */
double vd_pairs_f(const double *base, const double *cand, size_t n);
void vd_test_paired(const struct vd_policy *pol, const struct vd_kind *kind,
		    enum metric_dir dir, double floor_pct, const double *base,
		    const double *cand, size_t n, struct vd_result *out);
/*
 * The rigs of a class as a blocking factor (judge/strata.c, issue 31):
 * cells from several rigs, bg[i] (cg[i]) the rig of base[i] (cand[i]).
 * The change is the weighted mean over the rigs that ran both sides of
 * the per-rig log ratios of the means (weights nb_h nc_h / (nb_h +
 * nc_h), fixed by the layout), its variance from each side's CV within
 * a rig pooled over the rigs (n - rigs degrees of freedom), tested as
 * vd_test tests (Welch; the tails' p from a stratified rank-sum test, van
 * Elteren's), the noise the within-rig CV of the baseline.  A rig offset
 * is no change and no noise.  Too few cells to see the spread within a
 * rig: not tested, undecided ("too few cells within each rig").
 */
void vd_test_strata(const struct vd_policy *pol, const struct vd_kind *kind,
		    enum metric_dir dir, double floor_pct, const double *base,
		    const int *bg, size_t nb, const double *cand,
		    const int *cg, size_t nc, struct vd_result *out);
/* For judge/strata.c: the Welch test and the 90% CI of the change; L
 * the estimate on the test's scale (a log ratio, or a linear ratio when
 * lin), a and c the squared standard errors of each side on that scale
 * over dfa and dfc degrees of freedom. */
void vd_welch_fill(const struct vd_policy *pol, double L, double a,
		   double dfa, double c, double dfc, int lin,
		   struct vd_result *r);
/* The step of a quantised metric: the smallest gap between distinct
 * values within a side, 0 when each side is constant. */
double vd_quantum(const double *a, size_t na, const double *b, size_t nb);
/* The page: correct the p-values per class, then decide worse/better. */
void vd_decide(const struct vd_policy *pol, struct vd_result *const *v,
	       size_t n);
/* Holm / Benjamini-Hochberg adjusted p-values (adj may alias nothing). */
void vd_holm(const double *p, size_t n, double *adj);
void vd_bh(const double *p, size_t n, double *adj);
/*
 * An undecided result whose 90% CI lies wholly past its threshold on the
 * worse side: a regression the cells show but the page's correction (or
 * a look's share of the error budget) has not yet decided.  1 or 0.
 */
int vd_leans_worse(const struct vd_result *r);
/* Two-sided Student t quantile: t with P(|T| > t) = p2. */
double vd_t_quantile(double p2, double df);
const char *vd_class_name(enum vd_class k);
/* The rule in one sentence (for page headers), into buf. */
void vd_rule_sentence(const struct vd_policy *p, char *buf, size_t len);

#endif
