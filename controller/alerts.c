// SPDX-License-Identifier: MIT
/*
 * alerts: the event interface of controller/alerts.h.  Until the outbox
 * and channels land (issue 11), an event is only written to klabd's log.
 */
#include <stdio.h>

#include "controller/alerts.h"

int alerts_emit(struct db *db, const struct alert_event *ev, char *err,
		size_t errlen)
{
	(void)db;
	(void)err;
	(void)errlen;
	fprintf(stderr, "klabd: alert %s: %s\n", ev->kind,
		ev->title ? ev->title : "");
	return 0;
}
