/* SPDX-License-Identifier: MIT */
/*
 * changepoints: keeps the change points of the lab's history up to date.
 * After new results for a rig x suite, every directional metric's history
 * there is ordered as the history page orders it, searched with
 * judge/changepoint.h, and stored in the cache (db/changepoints.h); a
 * change point never seen before raises an ALERT_CHANGE_POINT event,
 * but for one into a head of a tracked git line.
 * Alerts worth a person's time (issue 32):
 *  - a history is a line's own: the kernels a build made (a submission's
 *    or a bisection's A/B pair, a build by hand) are never in it, but the
 *    heads of a tracked git line (its history) are;
 *  - a change point into a git line's head raises no alert by itself:
 *    the line's robot judges it (flow/track_regress.c: a bisection when
 *    it is for worse and the head's own comparison ended undecided),
 *    and only a culprit it confirms is an alert (ALERT_REGRESSION), so a
 *    range that does not reproduce leaves nothing open;
 *  - only directional metrics are searched (never a counter or a
 *    parameter), each family's error budget the verdicts' (judge/verdict.c:
 *    headline 0.008, secondary 0.002 per rig x suite) split over its
 *    metrics, so an unchanged lab raises about one alert in a hundred
 *    refreshes, not one per refresh;
 *  - a change point smaller than the metric's verdict threshold (its
 *    floor: 2% headline, 5% secondary, or the configured one) is dropped.
 */
#ifndef KLAB_CONTROLLER_CHANGEPOINTS_H
#define KLAB_CONTROLLER_CHANGEPOINTS_H

#include <stddef.h>

struct db;
struct db_sample;
struct cp_params;

/*
 * The order a history is searched in: grouped by kernel (first
 * appearance in time, as /history draws it) with changes only between
 * kernels, unless every kernel of it was imported (then time order, a
 * change anywhere).  *order (malloc'd, n entries) indexes s; *cut_ok
 * (malloc'd or NULL: anywhere) is in that order.  0, or -1 on a database
 * error.
 */
int changepoints_order(struct db *db, const struct db_sample *s, size_t n,
		       size_t **order, unsigned char **cut_ok);
/*
 * Recompute, store and alert the change points of every metric of rig x
 * suite with parameters p (NULL: the defaults).  The number of new change
 * points, or -1 with err set.
 */
int changepoints_refresh(struct db *db, const char *rig, const char *suite,
			 const struct cp_params *p, char *err, size_t errlen);

#endif
