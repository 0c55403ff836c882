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
/* The one mail for the n alerts ev[0..n) of one group to s. */
void alerts_mail_compose_group(struct strbuf *sb, const struct alerts_conf *c,
			       const struct db_alert_sub *s,
			       const struct db_alert_event *ev, size_t n,
			       int64_t delivery);
/* The webhook's JSON body, a malloc'd string. */
char *alerts_webhook_body(const struct alerts_conf *c,
			  const struct db_alert_sub *s,
			  const struct db_alert_event *e, int64_t delivery);
/* One attempt of delivery over the subscription's channel: 0, or -1
 * with err saying why (the target is not named: it may hold a secret). */
int alerts_send(const struct alerts_conf *c, const struct db_alert_sub *s,
		const struct db_alert_event *e, int64_t delivery, char *err,
		size_t errlen);
/* alerts_send of the n alerts ev[0..n) of one group: one mail for them
 * all by email, ev[0] alone by any other channel. */
int alerts_send_group(const struct alerts_conf *c,
		      const struct db_alert_sub *s,
		      const struct db_alert_event *ev, size_t n,
		      int64_t delivery, char *err, size_t errlen);

/*
 * Change the state of the n alerts v[0..n) as ch says (v[0] the one
 * the change names), log each and raise one ALERT_STATE_CHANGED
 * notice, in one transaction (alerts_triage.c; klab's own closing,
 * alerts_fixed.c).  0, or -1 with err.
 */
struct db_alert_change;
int alerts_state_commit(struct db *db, const struct db_alert_event *v,
			size_t n, const struct db_alert_change *ch, char *err,
			size_t errlen);

#endif
