/* SPDX-License-Identifier: MIT */
/*
 * alerts_int: what the files of the alerts module share (alerts.c, the
 * delivery loop; alerts_send.c, the channels) and nobody else sees.
 */
#ifndef KLAB_ALERTS_INT_H
#define KLAB_ALERTS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "flow/alerts.h"
#include "db/alerts.h"
#include "lib/strbuf.h"

/* The mail for e to s (headers and body, CRLF lines), into sb. */
void alerts_mail_compose(struct strbuf *sb, const struct alerts_conf *c,
			 const struct db_alert_sub *s,
			 const struct db_alert_event *e, int64_t delivery);
/* The webhook's JSON body, a malloc'd string. */
char *alerts_webhook_body(const struct alerts_conf *c,
			  const struct db_alert_sub *s,
			  const struct db_alert_event *e, int64_t delivery);
/* One attempt of delivery over the subscription's channel: 0, or -1
 * with err saying why (the target is not named: it may hold a secret). */
int alerts_send(const struct alerts_conf *c, const struct db_alert_sub *s,
		const struct db_alert_event *e, int64_t delivery, char *err,
		size_t errlen);

#endif
