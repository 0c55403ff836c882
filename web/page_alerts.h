/* SPDX-License-Identifier: MIT */
/*
 * What the alert pages share (page_alerts.c: the list, the feed and the
 * subscriptions; page_alert.c: one alert and its triage, and the list's
 * table of alerts, one row per change).
 */
#ifndef KLAB_WEB_PAGE_ALERTS_H
#define KLAB_WEB_PAGE_ALERTS_H

#include <jansson.h>
#include <stddef.h>

#include "db/alerts.h"
#include "lib/strbuf.h"

/* An event with its triage as JSON (a new reference). */
json_t *page_alert_json(const struct db_alert_event *e);
/* The title of e, a link to its path on klabd when it has one. */
void page_alert_title(struct strbuf *sb, const struct db_alert_event *e);
/* <td>s</td>, s escaped. */
void page_alert_cell(struct strbuf *sb, const char *s);
/* The table of alerts v[0..n) (newest first), one row per group. */
void page_alert_groups(struct strbuf *sb, const struct db_alert_event *v,
		       size_t n);

#endif
