/* SPDX-License-Identifier: MIT */
/*
 * submissions: a patch submitted for testing, from request to verdict.
 * A submission names a base, a patch series, rigs and suites; it is
 * checked at once (submission_create: every patch must apply, or the
 * request is refused naming the patch, file and hunk, and nothing is
 * stored), then a driver thread (submissions.c) moves it through its
 * stages: build (the base and the patched tree, through the kernel
 * builder and its cache), cells (one comparison run per rig x suite,
 * comparisons.h, each cell with the submission's job configuration:
 * scale, scheduler, kernel parameters), verdict, report and alert.
 * Everything it knows is in the database (db/submissions.h), so a
 * restarted klabd resumes it.
 * The three ways in (the /submit form, POST /api/submissions and klab
 * submit) fill one struct sub_input and call submission_create.
 */
#ifndef KLAB_SUBMISSIONS_H
#define KLAB_SUBMISSIONS_H

#include "lib/patchcheck.h"

#include <stddef.h>
#include <stdint.h>

#include "flow/comparisons.h"
#include "db/builds.h"
#include "db/submissions.h"
#include "klabd/klabd.h"
#include "klabd/outcome.h"

/* patch files (or pastes) of a request; patches after splitting */
#define SUB_MAX_FILES PATCH_MAX_FILES
#define SUB_MAX_PATCHES PATCH_MAX_PIECES
#define SUB_MAX_LIST 16		/* rigs, suites */
#define SUB_MAX_CELLS 200	/* cells a side, as comparison runs */

struct sub_file {
	const char *name;	/* as uploaded ("0001-fix.patch") */
	const char *text;
	size_t len;
};

/* A request, its strings borrowed from the caller. */
struct sub_input {
	const char *base;
	struct sub_file file[SUB_MAX_FILES];
	size_t nfiles;
	const char *rig[SUB_MAX_LIST], *suite[SUB_MAX_LIST];
	size_t nrigs, nsuites;	/* 0: the configuration's defaults */
	const char *note;	/* NULL: none */
	long max_cells;		/* 0: the configuration's default */
	/* the job configuration of every cell: 0, NULL or "" the suite's
	 * scale, the rig's scheduler, no kernel parameter */
	double scale;
	const char *scheduler, *cmdline;
};

/*
 * Split file f as build-kernel.sh does (messages of an mbox, those
 * without a diff, such as a cover letter, dropped) into p[*n], p[*n + 1]
 * ... (at most SUB_MAX_PATCHES in all), each with its subject (without
 * "[PATCH n/m] ", the file name when it has none) in subj[] and a heap
 * name, "FILE[i/k]" when there are several (the caller frees it).  The
 * count of patches found (0: no diff in f), -1 when p is full (then
 * nothing of f is in p).
 */
#define SUB_SUBJECT_MAX 200
/* 1 when the len bytes at s are only blanks (or none): no upload. */
int sub_blank(const char *s, size_t len);
/* The messages of f (an mbox: one per "From " line; else f whole):
 * their offsets and lengths, at most max.  The count. */
size_t sub_series_messages(const struct sub_file *f, size_t *off,
			   size_t *len, size_t max);
int sub_series_split(const struct sub_file *f, struct db_sub_patch *p,
		     size_t *n, char subj[][SUB_SUBJECT_MAX + 1]);
/*
 * Check in (base, rigs, suites, job configuration, patches split and
 * applied with build-kernel.sh --check) and store a submission by c;
 * the driver takes it from there.  OUT_OK with *id set, else an outcome
 * with err naming the problem, and nothing stored: OUT_INVALID bad
 * input, OUT_NOTFOUND an unknown rig, OUT_FORBIDDEN a kernel parameter
 * not allowed, OUT_REFUSED and OUT_TOOBIG a patch refused (one that does
 * not apply, the caps of build_series_check: the caller records these
 * two), OUT_BUSY, OUT_ERROR.
 */
enum outcome submission_create(struct klabd *d, struct db *db,
			       const struct caller *c,
			       const struct sub_input *in, int64_t *id,
			       char *err, size_t errlen);
/* Cancel submission id for c (its submitter, or an operator): OUT_OK,
 * or an outcome with err set (OUT_FORBIDDEN another's, OUT_NOTFOUND,
 * OUT_CONFLICT already ended, OUT_ERROR). */
enum outcome submission_cancel(struct klabd *d, struct db *db,
			       const struct caller *c, int64_t id, char *err,
			       size_t errlen);

/* A submission as its page and the API show it. */
struct sub_view {
	struct db_submission s;
	struct db_sub_patch *patches;
	size_t npatches;
	struct db_sub_stage *stages;
	size_t nstages;
	struct db_sub_cell *cells;
	size_t ncells;
	struct cmprun_view *views;	/* one per cell */
	int *judged;			/* views[i] loaded */
	struct db_build build[2];	/* base, patched; id 0: none */
	struct db_queue_job *jobs;	/* the cells' jobs */
	size_t njobs;
	int ahead;			/* running submissions before it */
};

/* Load submission id with everything its page shows: DB_OK or a DB_E*
 * code with err set.  Released by sub_view_release in every case. */
int sub_view_load(struct db *db, int64_t id, struct sub_view *v, char *err,
		  size_t errlen);
void sub_view_release(struct sub_view *v);
/* The mail-ready text report of v (base, patches, rigs, suites, the job
 * configuration unless the default, outcome, each cell's comparison
 * report with its LKP-style decided changes). */
void sub_report(const struct sub_view *v, struct strbuf *sb);

/* One pass of the submission driver (d->subrun, arg a struct klabd):
 * steps every running submission, so a restart resumes them;
 * driver_kick(d->subrun) after a change. */
long subrun_pass(void *arg);

#endif
