/* SPDX-License-Identifier: MIT */
/*
 * events: how one stage of the pipeline tells the others what happened
 * without calling them by name.  A stage publishes an event (a build
 * ended, a rig went offline); the stages that care subscribed to its kind
 * at start, in one place (klabd.c, events_wire): the alerts raise a
 * mail, the drivers wake the workflows waiting for it.  Lower rooms (lab/)
 * then include nothing of the upper ones (flow/).
 *
 * Subscriptions are made before any thread starts and never change, so
 * publishing takes no lock.  A subscriber runs on the publisher's thread,
 * with the publisher's database handle: it must be short (write a row,
 * kick a driver), never slow work.
 */
#ifndef KLAB_EVENTS_H
#define KLAB_EVENTS_H

#include <stdint.h>

struct db;
struct klabd;

enum klabd_event_kind {
	EV_BUILD_DONE,		/* id: the build; name: its kernel */
	EV_BUILD_FAILED,	/* id: the build; name: its base; text: why */
	EV_RIG_OFFLINE,		/* name: the rig */
	EV_NKINDS
};

struct klabd_event {
	enum klabd_event_kind kind;
	struct db *db;		/* the publisher's handle, for a row */
	int64_t id;
	const char *name;
	const char *text;
};

typedef void klabd_event_fn(struct klabd *d, const struct klabd_event *e);

#define EVENTS_MAX_SUBS 4	/* subscribers of one kind */

struct klabd_events {
	klabd_event_fn *sub[EV_NKINDS][EVENTS_MAX_SUBS];
};

/* At start, before threads: fn hears every event of kind.  0, or -1 when
 * kind has EVENTS_MAX_SUBS subscribers already. */
int events_subscribe(struct klabd *d, enum klabd_event_kind kind,
		     klabd_event_fn *fn);
/* Tell every subscriber of e->kind, in the order they subscribed. */
void events_publish(struct klabd *d, const struct klabd_event *e);

#endif
