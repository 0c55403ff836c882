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
/*
 * The alerts v[0..n) (newest first) by group, as /alerts shows them:
 * groups by their newest alert, newest first, the alerts of a group
 * oldest first (its first alert first).  *order (n indexes into v) and
 * *starts (the number returned + 1) are heap arrays the caller frees:
 * group k is v[order[starts[k]]] .. v[order[starts[k + 1] - 1]].
 * Returns the number of groups.
 */
size_t page_alert_group_order(const struct db_alert_event *v, size_t n,
			      size_t **order, size_t **starts);
/* The state of the group v[ix[0..n)]: its alerts' if they share one,
 * else each state with its count ("mixed: 2 new, 1 acknowledged"). */
void page_alert_group_state(struct strbuf *sb, const struct db_alert_event *v,
			    const size_t *ix, size_t n);
/* Its metrics, each a link to its alert (id="event-ID"). */
void page_alert_group_metrics(struct strbuf *sb,
			      const struct db_alert_event *v,
			      const size_t *ix, size_t n);
/* The table of alerts v[0..n) (newest first), one row per group. */
void page_alert_groups(struct strbuf *sb, const struct db_alert_event *v,
		       size_t n);

#endif
