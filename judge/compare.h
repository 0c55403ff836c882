/* SPDX-License-Identifier: MIT */
/*
 * compare: the comparison model behind every compare page, text report,
 * CSV, JSON and regression alert.  Given 2..N kernels it gathers every
 * result of every metric from the database on one rig, one suite and one
 * job configuration (scale, scheduler, command line), groups them into
 * cells (a cell is one run: one boot of a job, or one import; its
 * repetitions are averaged into the cell's value) and judges each kernel
 * against the baseline with the rule of judge/verdict.h: worse, better,
 * same or undecided, with error control across the whole page.
 *
 * It never pools: with no rig (suite) named it derives the only one the
 * kernels' runs have (a class of rigs, named, gives the runs of all its
 * rigs, each rig a stratum of the test), and refuses (DB_INVALID naming
 * the choices) when there are several; runs of jobs with different
 * scale, scheduler or command line, or made under different
 * configurations of the rig (profile, disks, CPUs, memory, QEMU
 * version: lib/rigconf.h), are refused the same way unless the caller
 * picks one.
 * Runs that are not "done" (interrupted, failed) never count.
 */
#ifndef KLAB_COMPARE_H
#define KLAB_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "judge/verdict.h"
#include "lib/query.h"
#include "lib/stats.h"

struct cmp_cell {
	int present;		/* this kernel has values for the metric */
	struct summary s;	/* over the cell values: s.n is the cells */
	double *cellv;		/* s.n cell values, in run order */
	double *values;		/* every repetition value, in order */
	size_t nvalues;
	int64_t *runs;		/* the run (cell) of each value */
	/* The rig of each cell value, an index into the comparison's rigs;
	 * NULL when the runs came from one rig. */
	int *cellrig;
	/* The spread within a boot: the pooled sd of the repetitions about
	 * their cell's mean (db/reps.h), over within_df degrees of freedom;
	 * NAN when no cell kept two complete repetitions. */
	double within_sd;
	size_t within_df;
	double within_ss;	/* sum of squares, while it is gathered */
	double delta_pct;	/* = vd.delta_pct, NAN when undefined */
	struct vd_result vd;	/* the verdict and its numbers */
	enum cmp_verdict verdict;	/* = vd.verdict */
};

struct cmp_metric {
	char *name, *unit;
	enum metric_dir dir;
	struct vd_kind kind;
	struct cmp_cell *cells;	/* one per kernel, same order */
};

struct cmp_opts {
	struct vd_policy pol;
	/* Pick one job configuration; NULL / scale < 0: not named. */
	const char *scheduler, *cmdline;
	double scale;
	/* Only the runs of these jobs (sorted ascending), as a comparison
	 * run (flow/comparisons.c) judges its own cells; NULL: any. */
	const int64_t *jobs;
	size_t njobs;
	/* Pick one rig configuration by its short hash (or a prefix of at
	 * least 4 digits; "none": runs without one); NULL: not named. */
	const char *rigconf;
};

struct comparison {
	char **kernels;
	size_t nk;
	size_t baseline;	/* index into kernels */
	char *rig, *suite;	/* named or derived; NULL: no runs at all */
	char *config;		/* "scale=1 scheduler= cmdline=", "imported" */
	/* The rig configuration of every run that entered (lib/rigconf.h):
	 * its short hash and canonical text, "" when not recorded; NULL
	 * when no run entered. */
	char *rigconf_hash, *rigconf;
	size_t rigconf_left_out;	/* unrecorded runs left out */
	/* The rigs the runs that entered came from, sorted: several when
	 * rig names a class (issue 31: the rig is then a blocking factor
	 * of the test, vd_test_strata), and each run's rig by run id. */
	char **rigs;
	size_t nrigs;
	struct cmp_run_rig {
		int64_t run;
		int rig;
	} *run_rig;
	size_t nrun_rig;
	struct cmp_metric *m;	/* sorted by name */
	size_t nm;
	struct vd_policy pol;
};

void cmp_opts_default(struct cmp_opts *o);
/*
 * Options from a compare request: floor=[SUITE/]GLOB:PCT (repeatable,
 * after the configuration's floors: later ones win), correction=holm|bh,
 * pairing=auto|off (off: never test interleaved cells as pairs), scale=,
 * scheduler=, cmdline= (pick one job configuration), rigconf= (pick one
 * rig configuration).  The strings point into q.  DB_INVALID with err set
 * when a value is malformed.
 */
int cmp_opts_from_query(struct cmp_opts *o, struct query *q, char *err,
			size_t errlen);
/*
 * Build the comparison; opts NULL means defaults.  Returns DB_OK, or a
 * DB_E* code with err set (an unknown kernel is DB_NOTFOUND naming it,
 * fewer than 1 kernel, a baseline out of range or results that would be
 * pooled across rigs, suites, job or rig configurations DB_INVALID).
 */
int compare_build(struct db *db, const char *const *kernels, size_t nk,
		  size_t baseline, const char *rig, const char *suite,
		  const struct cmp_opts *opts, struct comparison *out,
		  char *err, size_t errlen);
void compare_release(struct comparison *c);
/* NULL when the comparison has no such metric. */
const struct cmp_metric *compare_find(const struct comparison *c,
				      const char *metric);
/* Cells judged worse than the baseline; headline metrics only unless
 * all is set. */
size_t compare_count_worse(const struct comparison *c, int all);
/* Judge every metric of a comparison whose cells are filled in (the
 * database-free half of compare_build, for tests and the benchmark). */
void compare_judge(struct comparison *c);

#endif
