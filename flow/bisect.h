/* SPDX-License-Identifier: MIT */
/*
 * bisect: find the first bad patch or kernel release by itself.  A
 * bisection names what is bisected (a patch series on a base, each step
 * built through the kernel builder as base + patches 1..k; or a line of
 * Debian kernel packages, each step fetched through the catalog), one
 * rig, one suite and the metrics that regress; or a git range good..bad
 * of a configured git base, each step the commit `git bisect` chooses,
 * built as NAME@COMMIT (bisect_git.c).  bisection_create checks
 * the request and stores the candidates (bisect_create.c); a driver
 * thread (bisect.c) verifies the ends (the bad end must be worse than
 * the good end on a named metric), then runs one comparison (the engine
 * of comparisons.h) per step of the kernel against the good end, marks
 * it bad (worse on a named metric), good (same) or skip (undecided at
 * the cap, a build, fetch or cell failure), asks judge/bisect_pick.h for the
 * next step, confirms the answer against its parent with a fresh, larger
 * sample, writes the report and alerts (bisection_done).  Everything is
 * in the database (db/bisections.h): a restarted klabd resumes.
 */
#ifndef KLAB_BISECT_H
#define KLAB_BISECT_H

#include <stddef.h>
#include <stdint.h>

#include "flow/comparisons.h"
#include "db/bisections.h"
#include "klabd/klabd.h"
#include "klabd/outcome.h"
#include "flow/submissions.h"

#define BIS_MAX_METRICS 8
/* Cells a side of a step: the comparisons' own cap.  A step is good only
 * when its 90% CI lies within the threshold, which is the rig's noise
 * when that is above the floor; that needs more than 2 t^2 cells a side
 * (about 9), and with 8 a harmless step came out same about one time in
 * five (docs/VERDICTS.md, "Bisection"). */
#define BIS_MAX_CELLS_DEFAULT 20
#define BIS_CONFIRM_FACTOR 2	/* the confirmation's cap: this x */

/* A request, its strings borrowed from the caller. */
struct bis_input {
	const char *kind;	/* series debian git */
	const char *base;	/* series; git: a git base's name */
	struct sub_file file[SUB_MAX_FILES];
	size_t nfiles;
	const char *good, *bad;	/* debian: upstream versions; git:
				 * commits of the base */
	/* git: the ends' kernels when the lab built them already (a
	 * tracked line's heads, flow/track_regress.c), NULL: built here */
	const char *kernel_good, *kernel_bad;
	/* git: the comparison of those two kernels that came out worse on
	 * rig, suite and metrics (a tracked line's head), taken as the
	 * verification instead of measuring the range again; 0: none */
	int64_t ends_cmp;
	const char *rig, *suite;
	const char *metric[BIS_MAX_METRICS];
	size_t nmetrics;
	long max_cells;		/* 0: BIS_MAX_CELLS_DEFAULT */
	/* the job configuration of every step's cells: 0, NULL or "" the
	 * suite's scale, the rig's scheduler, no kernel parameter */
	double scale;
	const char *scheduler, *cmdline;
};

/*
 * Check in (kind, rig, suite, metrics, cap, job configuration; a series
 * split into its patches, stored and applied to base; a Debian range
 * resolved against the archive's list) and store a bisection by c.
 * OUT_OK with *id set, else an outcome with err naming the problem, and
 * nothing stored: OUT_INVALID, OUT_FORBIDDEN a kernel parameter not
 * allowed, OUT_NOTFOUND an unknown rig, git base or release, OUT_REFUSED
 * and OUT_TOOBIG a patch refused (as build_series_check: the caller
 * records these two), OUT_BUSY, OUT_ERROR.
 */
enum outcome bisection_create(struct klabd *d, struct db *db,
			      const struct caller *c,
			      const struct bis_input *in, int64_t *id,
			      char *err, size_t errlen);

/* A bisection as its page and the API show it. */
struct bis_view {
	struct db_bisection b;
	struct db_bis_cand *cands;
	size_t ncands;
	struct db_bis_step *steps;
	size_t nsteps;
	size_t good, bad;	/* the open range now */
	size_t steps_left;	/* estimate */
};
int bis_view_load(struct db *db, int64_t id, struct bis_view *v, char *err,
		  size_t errlen);
void bis_view_release(struct bis_view *v);
/* The mail-ready text report: culprit, evidence table, how sure. */
void bis_report(const struct bis_view *v, struct strbuf *sb);

/* bisect_git.c: kind git.  The repository of a configured git base
 * (NULL: none such). */
const char *bis_git_repo(struct klabd *d, const char *base);
/* Commit name (from request field field) resolved in repo of base:
 * candidate c (heap: full hash as file, "HASH12 subject" label, subject,
 * author), or -1 with err naming the field. */
int bis_git_commit(const char *repo, const char *field, const char *name,
		   const char *base, struct db_bis_cand *c, char *err,
		   size_t errlen);
/* good must be an ancestor of bad: -1 with err naming 'good' if not;
 * *count the commits of good..bad. */
int bis_git_range(const char *repo, const char *good, const char *bad,
		  long *count, char *err, size_t errlen);
struct bis_git_step {
	int state;		/* enum bis_git_state */
	int idx;		/* TEST: the candidate to test; FOUND: the
				 * first bad, its first parent at idx - 1 */
	int steps_left;		/* git's estimate, -1 */
};
/* Ask git bisect (a private clone replayed from v's marks) for the next
 * step; new candidates are stored (v->cands may be reloaded).  0, or -1
 * with err. */
int bis_git_next(struct klabd *d, struct db *db, struct bis_view *v,
		 struct bis_git_step *nx, char *err, size_t errlen);
/* Remove the private clone of bisection id. */
void bis_git_cleanup(struct klabd *d, int64_t id);

/* One pass of the bisection driver (d->bisrun, arg a struct klabd);
 * driver_kick(d->bisrun) after a change. */
long bisrun_pass(void *arg);

#endif
