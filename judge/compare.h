/* SPDX-License-Identifier: MIT */
/*
 * compare: the comparison model behind every compare page, text report,
 * CSV, JSON and regression alert.  Given 2..N kernels, a rig and a suite it
 * gathers every repetition of every metric from the database, summarises
 * them, and judges each kernel against the baseline kernel:
 *
 *  - both sides with >= 2 repetitions: Welch's t-test; "better"/"worse"
 *    when p < alpha and the change is at least min_pct, else "same";
 *  - otherwise (one pasted row each): "better"/"worse" when the change is
 *    at least single_pct, marked indicative;
 *  - metrics with direction "none" (file size, threads) get no verdict.
 */
#ifndef KLAB_COMPARE_H
#define KLAB_COMPARE_H

#include <stddef.h>

#include "db/db.h"
#include "lib/stats.h"

enum cmp_verdict {
	V_NONE = 0,	/* no data, a parameter, or the baseline itself */
	V_SAME,
	V_BETTER,
	V_WORSE,
};

struct cmp_cell {
	int present;		/* this kernel has values for the metric */
	struct summary s;
	double *values;		/* s.n values, in repetition order */
	double delta_pct;	/* (mean - base mean) / |base mean| * 100 */
	double p;		/* Welch p-value, 1 when not computable */
	int indicative;		/* verdict from one value per side only */
	enum cmp_verdict verdict;
};

struct cmp_metric {
	char *name, *unit;
	enum metric_dir dir;
	struct cmp_cell *cells;	/* one per kernel, same order */
};

struct cmp_opts {
	double alpha;		/* default 0.05 */
	double min_pct;		/* default 1.0 */
	double single_pct;	/* default 5.0 */
};

struct comparison {
	char **kernels;
	size_t nk;
	size_t baseline;	/* index into kernels */
	char *rig, *suite;	/* NULL: any */
	struct cmp_metric *m;	/* sorted by name */
	size_t nm;
	struct cmp_opts opts;
};

void cmp_opts_default(struct cmp_opts *o);
/*
 * Build the comparison; opts NULL means defaults.  Returns DB_OK, or a
 * DB_E* code with err set (an unknown kernel is DB_NOTFOUND naming it,
 * fewer than 1 kernel or a baseline out of range DB_INVALID).
 */
int compare_build(struct db *db, const char *const *kernels, size_t nk,
		  size_t baseline, const char *rig, const char *suite,
		  const struct cmp_opts *opts, struct comparison *out,
		  char *err, size_t errlen);
void compare_release(struct comparison *c);
/* NULL when the comparison has no such metric. */
const struct cmp_metric *compare_find(const struct comparison *c,
				      const char *metric);
const char *cmp_verdict_name(enum cmp_verdict v);
/* Number of (kernel, metric) cells judged worse than the baseline. */
size_t compare_count_worse(const struct comparison *c);

#endif
