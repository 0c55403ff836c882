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
 *  - after new results on a rig x suite (an import, a finished job), it
 *    recomputes their change points (flow/changepoints.h).
 */
#ifndef KLAB_CONTROLLER_TRACK_H
#define KLAB_CONTROLLER_TRACK_H

#include <stddef.h>

struct klabd;

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

#endif
