/* SPDX-License-Identifier: MIT */
/*
 * track: the kernel lines klabd watches (flow/track.c).  A track is of
 * one of two kinds (distro): a distribution's line ("debian",
 * "newest-6.1"), or a git branch ("git", line "NAME/BRANCH" of a [base
 * NAME] git = PATH; flow/track_git.c); it names the rigs and the suites
 * its new kernels run on, and remembers the newest package or head
 * tested, the kernel it became, and when the archive or the repository
 * was last asked.  A git line's heads (tested, or being tested) are rows
 * of their own, in the order tested: the line's history.
 */
#ifndef KLAB_DB_TRACK_H
#define KLAB_DB_TRACK_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

struct db_track {
	int64_t id;
	char *distro;		/* the kind: "debian" or "git" */
	char *line;		/* "newest-6.1", "newest-6.12"; git:
				 * "NAME/BRANCH" */
	char *rigs;		/* comma-separated rig names */
	char *suite;		/* git: comma-separated suites */
	char *last_package;	/* newest package seen, "" before the first;
				 * git: the last tested head's commit */
	char *last_kernel;	/* its catalog ident, "" before the first */
	int64_t checks;		/* archive checks made */
	int64_t last_check;	/* unix seconds, 0: never */
	char *last_error;	/* of the last check, "" when it went well */
	int64_t jobs;		/* jobs queued so far */
	char *who;		/* who asked for it */
	int64_t created;
	/* git lines (migration 22), "" and 0 for Debian's: the base and
	 * branch, what the line does now (idle building comparing
	 * bisecting), the commits of the branch not tested (skipped between
	 * tested heads, or after the last one), the cap of a comparison's
	 * cells a side (0: the default) */
	char *base, *branch, *state;
	int64_t backlog;
	int64_t max_cells;
	double scale;		/* of its cells (migration 25): 1 by default,
				 * and when added with 0 */
};

/* One head of a git line. */
struct db_track_head {
	int64_t id, track_id;
	char *hash;		/* the full commit */
	char *subject, *author;
	char *kernel;		/* "" until built */
	int64_t build;		/* its build, 0 none yet */
	int64_t prev;		/* the head it is compared against, 0: the
				 * line's first */
	int64_t skipped;	/* first-parent commits between prev and it
				 * that were not tested */
	char *state;		/* building comparing tested failed */
	char *verdict;		/* first, same, better, worse, undecided,
				 * failed: rolled up over rigs x suites */
	char *worse;		/* "RIG SUITE METRIC[,METRIC...]": the first
				 * cell that came out worse, "" none */
	char *comparisons;	/* ids, ',' separated */
	int64_t bisection;	/* over prev..it, 0 none */
	char *error;
	int64_t created, updated;
};

/* Add a track; *id its id.  DB_CONFLICT when the same one exists. */
int db_track_add(struct db *db, const struct db_track *t, int64_t *id,
		 char *err, size_t errlen);
int db_track_get(struct db *db, int64_t id, struct db_track *out);
/* Oldest first. */
int db_track_list(struct db *db, struct db_track **out, size_t *n);
/* DB_NOTFOUND when there is no track id. */
int db_track_delete(struct db *db, int64_t id, char *err, size_t errlen);
/* A check happened at now: error (NULL or "" when none) recorded. */
int db_track_checked(struct db *db, int64_t id, int64_t now,
		     const char *error);
/* A new package became kernel, and jobs more jobs were queued. */
int db_track_advance(struct db *db, int64_t id, const char *package,
		     const char *kernel, int64_t jobs);
/* A git line's state and backlog now. */
int db_track_set_state(struct db *db, int64_t id, const char *state,
		       int64_t backlog);
void db_track_release(struct db_track *t);

/* ---- the heads of a git line ------------------------------------- */
/* Add head h of track h->track_id (state building); *id its id.
 * DB_CONFLICT when that commit is a head of the line already. */
int db_track_head_add(struct db *db, const struct db_track_head *h,
		      int64_t *id);
/* Store what changed of h (kernel, build, state, verdict, worse,
 * comparisons, bisection, error). */
int db_track_head_set(struct db *db, const struct db_track_head *h);
int db_track_head_get(struct db *db, int64_t id, struct db_track_head *out);
/* The heads of track id, oldest first (limit <= 0: all; else the newest
 * limit). */
int db_track_heads(struct db *db, int64_t id, int limit,
		   struct db_track_head **out, size_t *n);
/* The head whose bisection is bisection: DB_NOTFOUND when none. */
int db_track_head_of_bisection(struct db *db, int64_t bisection,
			       struct db_track_head *out);
/* 1 when kernel is a head of a git line (its history), 0 if not, -1. */
int db_track_head_kernel(struct db *db, const char *kernel);
void db_track_head_release(struct db_track_head *h);
void db_track_heads_free(struct db_track_head *v, size_t n);
void db_tracks_free(struct db_track *v, size_t n);

#endif
