// SPDX-License-Identifier: MIT
/*
 * events: publish and subscribe between the stages (events.h).
 */
#include <stddef.h>

#include "klabd/events.h"
#include "klabd/klabd.h"

int events_subscribe(struct klabd *d, enum klabd_event_kind kind,
		     klabd_event_fn *fn)
{
	size_t i;

	if (kind < 0 || kind >= EV_NKINDS)
		return -1;
	for (i = 0; i < EVENTS_MAX_SUBS; i++) {
		if (!d->events.sub[kind][i]) {
			d->events.sub[kind][i] = fn;
			return 0;
		}
	}
	return -1;
}

void events_publish(struct klabd *d, const struct klabd_event *e)
{
	size_t i;

	if (e->kind < 0 || e->kind >= EV_NKINDS)
		return;
	for (i = 0; i < EVENTS_MAX_SUBS && d->events.sub[e->kind][i]; i++)
		d->events.sub[e->kind][i](d, e);
}
