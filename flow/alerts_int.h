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

/*
 * The subscription routes' shared steps (api_alerts.c), for the JSON API
 * and the /subscriptions page's forms (alerts_pages.c).  Each answers a
 * refusal in r as JSON (web_error_json) and returns its status.
 * alerts_sub_create: store what doc says for the caller, 0 with *id and
 * secret ("" unless a webhook's).  alerts_sub_of: the subscription of
 * rq->arg, if the caller may manage it, 0 with *s filled.
 * alerts_sub_test: a test alert to s alone, 0 or -1 with err.
 */
struct req;
struct web_response;
struct json_t;
int alerts_sub_create(struct req *rq, struct web_response *r,
		      struct json_t *doc, int64_t *id, char *secret,
		      size_t len);
int alerts_sub_of(struct req *rq, struct web_response *r,
		  struct db_alert_sub *s);
int alerts_sub_test(struct req *rq, const struct db_alert_sub *s,
		    int64_t *event, size_t *n, char *err, size_t errlen);
#define ALERT_MAX_SECRET 256

#endif
