/* SPDX-License-Identifier: MIT */
/*
 * track: the lab running by itself.  One background thread of klabd
 * (the tracker) does two kinds of slow work off the request path:
 *
 *  - it watches the tracked kernel lines (db/track.h): at most once per
 *    track_interval seconds (default 3600) per track, it asks the archive
 *    for the line's newest package (kernels/debian-kernels.sh newest);
 *    when it is new, it fetches it into the catalog (catalog_add_debian)
 *    and queues plain jobs on each of the track's rigs: the new kernel,
 *    then the previous kernel of the line, so that the history grows by
 *    itself with the two measured side by side;
 *  - it watches the tracked git branches (track_git.c): each new head of
 *    the branch (first-parent; the newest only when several commits
 *    arrived) is built and compared, with the adaptive comparison, against
 *    the head tested before it on each rig x suite, and joins the line's
 *    history; a worse verdict (or an undecided one and a change point
 *    for worse between the two heads) starts one bisection over the
 *    range (track_regress.c), whose confirmed culprit is one alert;
 *  - after new results on a rig x suite (an import, a finished job), it
 *    recomputes their change points (flow/changepoints.h).
 */
#ifndef KLAB_CONTROLLER_TRACK_H
#define KLAB_CONTROLLER_TRACK_H

#include <stddef.h>

#include "lib/strbuf.h"

struct klabd;
struct db;
struct bis_view;

#define TRACK_INTERVAL_DEFAULT 3600
#define TRACK_INTERVAL_MIN 2		/* tests; production keeps 3600 */
#define TRACK_INTERVAL_MAX (7 * 86400)

/* Start (reads track_interval; -1 with err on a bad value) and stop the
 * tracker thread. */
int track_start(struct klabd *d, char *err, size_t errlen);
void track_stop(struct klabd *d);
/* Wake the tracker: a new track is checked at once. */
void track_kick(struct klabd *d);
/* Results were stored for rig x suite: recompute their change points
 * soon (no-op when the tracker does not run). */
void track_results_stored(struct klabd *d, const char *rig,
			  const char *suite);

/*
 * The rigs a track names (spec: a rig or a class of rigs, or several
 * comma-separated), checked, into out: the one place a track's --rig is
 * read.  A class stays a class (rig_class_resolve: its jobs and
 * comparisons go to whichever of its rigs is free).  0, or -1 with err
 * naming the rig or class klabd does not know.
 */
int track_rigs_resolve(struct klabd *d, struct db *db, const char *spec,
		       struct strbuf *out, char *err, size_t errlen);

/*
 * Bisection v ended: when a tracked line started it (track_regress.c),
 * its confirmed culprit is one ALERT_REGRESSION (to the subscribers and,
 * with alert_mail_author, to the commit's author) and an undecided or
 * unreproduced range raises nothing; 1 then, 0 when no line started it
 * (the caller alerts as for any bisection).
 */
int track_bisection_done(struct klabd *d, struct db *db,
			 const struct bis_view *v);

#endif
