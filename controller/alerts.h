/* SPDX-License-Identifier: MIT */
/*
 * alerts: the lab's bell.  Anything worth telling someone (a submission
 * finished, a worse verdict, a change point on the history, a rig gone
 * offline, a failed build) is one event handed to alerts_emit; the
 * alerts module matches it against the subscriptions and delivers it
 * through their channels (email, webhook, Atom feed), durably.
 */
#ifndef KLAB_ALERTS_H
#define KLAB_ALERTS_H

#include <stddef.h>

struct db;

/* The kinds of event (alert_event.kind). */
#define ALERT_SUBMISSION_FINISHED "submission_finished"
#define ALERT_WORSE_FOUND "worse_found"
#define ALERT_CHANGE_POINT "change_point"
#define ALERT_RIG_OFFLINE "rig_offline"
#define ALERT_BUILD_FAILED "build_failed"

struct alert_event {
	const char *kind;	/* one of ALERT_* */
	/* what subscriptions filter on; NULL when it does not apply */
	const char *rig, *suite, *metric, *submitter;
	const char *title;	/* one line */
	const char *text;	/* plain-text body: the report, ready for mail */
	const char *link;	/* path on klabd ("/submissions/12"), or NULL */
	/* the same kind and key are the same change: alerted once */
	const char *dedup;
};

/*
 * Record ev for delivery to every matching subscription.  0, or -1 with
 * err set.  Safe from any klabd thread; delivery itself happens later,
 * in the background, and survives a restart.
 */
int alerts_emit(struct db *db, const struct alert_event *ev, char *err,
		size_t errlen);

#endif
