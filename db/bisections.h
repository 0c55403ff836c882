/* SPDX-License-Identifier: MIT */
/*
 * bisections: bisections in the database.  A bisection (flow/bisect.c
 * drives it) names what is bisected (kind series: a base and a patch
 * series; debian: a line of packages), the rig, suite and metrics it
 * judges on, its cap and its job configuration (scale, scheduler,
 * kernel parameters); its candidates are rows 0 (the good end) .. N
 * (the bad end), each with its label (patch subject and author, or
 * package version) and its kernel once built or fetched; its steps are
 * rows too (a verification of the ends, a bisection step, the final
 * confirmation), each with its build, kernel, comparison run and mark,
 * so a restarted klabd resumes every bisection where it was.
 */
#ifndef KLAB_DB_BISECTIONS_H
#define KLAB_DB_BISECTIONS_H

#include <stdint.h>

#include "db.h"

struct db_bisection {
	int64_t id;
	char *kind;		/* series debian git */
	char *base;		/* series: the base as queued; git: the
				 * base's name; "" */
	char *good, *bad;	/* the ends as asked */
	char *rig, *suite;
	char *metrics;		/* ',' separated */
	int max_cells;		/* cells a side of a step */
	double scale;		/* the job configuration of every step's */
	char *scheduler;	/* cells: scale (<= 0 stored as 1), */
	char *cmdline;		/* scheduler and kernel parameters, "" */
	char *state;		/* running finished failed */
	char *phase;		/* verify step confirm done */
	int answer;		/* first bad index, -1: none yet */
	char *outcome;		/* one line */
	char *report;		/* the mail-ready text */
	char *error;
	char *who;
	int64_t created, finished;
	int steps_hint;		/* git: git's "roughly K steps"; -1 */
};

struct db_bis_cand {
	int idx;
	char *label;		/* "[3/8] subject", "6.1.180", "1a2b3c4d5e6f
				 * subject" */
	char *subject, *author;
	char *file;		/* series: the patch file; debian: package;
				 * git: the full commit */
	char *kernel;		/* its catalog ident once known, "" */
	int64_t build;		/* series: its build, 0: none yet */
};

struct db_bis_step {
	int64_t id;
	int idx;
	char *purpose;		/* verify step confirm */
	int64_t build;		/* 0: none */
	char *kernel;		/* "" until built or fetched */
	int64_t comparison;	/* 0: none yet */
	char *mark;		/* good bad skip, "" while open */
	char *reason;		/* why a skip, or the comparison's summary */
	char *delta;		/* "-20.0% [-21.0%, -19.0%]" on the metrics */
	int cells;		/* cells run, both sides */
	int64_t created, finished;
};

/* A new bisection b (state running, phase verify) with its n candidates,
 * in one transaction; *id its id.  DB_OK or a DB_E* code with err. */
int db_bisection_add(struct db *db, const struct db_bisection *b,
		     const struct db_bis_cand *c, size_t n, int64_t *id,
		     char *err, size_t errlen);
/* DB_OK, DB_NOTFOUND or DB_ERR. */
int db_bisection_get(struct db *db, int64_t id, struct db_bisection *out);
/* Newest first; active: only running ones, oldest first; limit <= 0:
 * all. */
int db_bisection_list(struct db *db, int active, int limit,
		      struct db_bisection **out, size_t *n);
/* Set state, phase, outcome, report, error (NULL: keep each) and answer
 * (< -1: keep); finished is stamped when state is not running. */
int db_bisection_update(struct db *db, int64_t id, const char *state,
			const char *phase, int answer, const char *outcome,
			const char *report, const char *error);
int db_bisection_candidates(struct db *db, int64_t id,
			    struct db_bis_cand **out, size_t *n);
/* git: git's estimate of the steps left. */
int db_bisection_set_hint(struct db *db, int64_t id, int steps_hint);
/* git: one more candidate c (c->idx the next free index), its kernel
 * and build as given. */
int db_bisection_cand_add(struct db *db, int64_t id,
			  const struct db_bis_cand *c);
/* The bisection whose candidate build is: *id, DB_OK; DB_NOTFOUND when
 * build is no candidate's; DB_ERR. */
int db_bisection_of_build(struct db *db, int64_t build, int64_t *id);
/* Record candidate idx's kernel (NULL: keep) and build (0: keep). */
int db_bisection_set_kernel(struct db *db, int64_t id, int idx,
			    const char *kernel, int64_t build);
/* Steps oldest first. */
int db_bisection_steps(struct db *db, int64_t id, struct db_bis_step **out,
		       size_t *n);
int db_bisection_step_add(struct db *db, int64_t id, int idx,
			  const char *purpose, int64_t *step);
/* Add the verify step of candidate idx (the bad end) as comparison cmp,
 * one that ran already: judged at once, not measured again; its kernel
 * is the comparison's candidate.  DB_NOTFOUND: no comparison cmp. */
int db_bisection_verified(struct db *db, int64_t id, int idx, int64_t cmp);
/* Write build, kernel, comparison, mark, reason, delta and cells of s
 * (by s->id); finished stamped when mark is set. */
int db_bisection_step_set(struct db *db, const struct db_bis_step *s);

/*
 * The bisection of a change: the newest one (one that found its first
 * bad candidate before any other) whose page is link (a bisection_done
 * alert's "/bisections/ID"; "" or NULL: none) or whose ends are the
 * kernels before and after, as asked or as the kernels of its good
 * candidate (0) and of a later one.  DB_OK with *b filled and, when it
 * found one (b->answer >= 0), the first bad candidate in *c (else
 * c->idx is -1 and c is empty, to release all the same); DB_NOTFOUND
 * when no bisection is of that change, or DB_ERR.
 */
int db_bisection_of_change(struct db *db, const char *link,
			   const char *before, const char *after,
			   struct db_bisection *b, struct db_bis_cand *c);

void db_bisection_release(struct db_bisection *b);
void db_bisections_free(struct db_bisection *v, size_t n);
void db_bis_cand_release(struct db_bis_cand *c);
void db_bis_step_release(struct db_bis_step *s);
void db_bis_cands_free(struct db_bis_cand *v, size_t n);
void db_bis_steps_free(struct db_bis_step *v, size_t n);

#endif
