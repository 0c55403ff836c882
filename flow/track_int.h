/* SPDX-License-Identifier: MIT */
/*
 * track_int: what the tracker's files share (track.c, track_git.c,
 * track_regress.c); nothing outside flow/track*.c includes it.
 */
#ifndef KLAB_FLOW_TRACK_INT_H
#define KLAB_FLOW_TRACK_INT_H

#include <stddef.h>
#include <stdint.h>

#include "db/track.h"
#include "klabd/klabd.h"

/* The line's name in alerts and pages: "debian/newest-6.1",
 * "git/NAME/BRANCH" (a heap string). */
char *track_line_name(const struct db_track *tr);

/* Queue a plain job of kernel on every rig x suite of tr; the number of
 * jobs queued (failures logged). */
int64_t track_queue(struct klabd *d, struct db *db, const struct db_track *tr,
		    const char *kernel);

/* One pass over git line tr: the open head moved on (built, compared,
 * judged), and when due (the branch's turn, every track_interval) the
 * branch's new head taken.  1 while the line has work under way (the
 * tracker comes back in a second), else 0. */
int track_git_pass(struct klabd *d, struct db *db, const struct db_track *tr,
		   int due);

/* track_regress.c: head h of tr came out worse against prev (h->worse
 * names the rig, suite and metrics): one bisection over prev..h, unless
 * h has one.  worse_cmp: the comparison that came out worse there, the
 * bisection's verification (0: a change point's, measured again).  0,
 * or -1 with err. */
int track_bisect_start(struct klabd *d, struct db *db,
		       const struct db_track *tr, struct db_track_head *h,
		       const struct db_track_head *prev, int64_t worse_cmp,
		       char *err, size_t errlen);

/* After the change points of rig x suite were recomputed: a worse one
 * between two consecutive tested heads of a git line, the later one
 * undecided by its comparison, bisects their range (once). */
void track_changepoints_check(struct klabd *d, struct db *db,
			      const char *rig, const char *suite);
/* Head h of git line tr was just judged (against prev): when undecided,
 * a change point for worse already found between the two bisects their
 * range, as track_changepoints_check would have, had it come after. */
void track_head_undecided(struct klabd *d, struct db *db,
			  const struct db_track *tr, struct db_track_head *h,
			  const struct db_track_head *prev);

#endif
