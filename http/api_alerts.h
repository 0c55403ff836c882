/* SPDX-License-Identifier: MIT */
/*
 * api_alerts: the subscription routes' shared steps (api_alerts.c), for
 * the JSON API and the /subscriptions page's forms (alerts_pages.c).
 * Each answers a refusal in r as JSON (web_error_json) and returns its
 * status.  alerts_sub_create: store what doc says for the caller, 0 with
 * *id and secret ("" unless a webhook's).  alerts_sub_of: the
 * subscription of rq->arg, if the caller may manage it, 0 with *s filled.
 * alerts_sub_test: a test alert to s alone, 0 or -1 with err.
 */
#ifndef KLAB_HTTP_API_ALERTS_H
#define KLAB_HTTP_API_ALERTS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "db/alerts.h"
#include "http/req.h"

#define ALERT_MAX_SECRET 256	/* bytes of a webhook's secret */

int alerts_sub_create(struct req *rq, struct web_response *r, json_t *doc,
		      int64_t *id, char *secret, size_t len);
int alerts_sub_of(struct req *rq, struct web_response *r,
		  struct db_alert_sub *s);
int alerts_sub_test(struct req *rq, const struct db_alert_sub *s,
		    int64_t *event, size_t *n, char *err, size_t errlen);

#endif
