// SPDX-License-Identifier: MIT
/*
 * api_changepoints: GET /api/changepoints?rig=R&suite=S&metric=M, the
 * change points found on the history (each filter optional), as cached by
 * the tracker after new results (flow/changepoints.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/api.h"
#include "http/api_util.h"
#include "db/changepoints.h"
#include "klabd/klabd.h"
#include "flow/track.h"

static json_t *cp_json(const void *elem)
{
	const struct db_changepoint *c = elem;

	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:f, s:f,"
			 " s:f, s:f, s:f, s:I, s:I}", "rig", c->rig,
			 "suite", c->suite, "metric", c->metric, "unit",
			 c->unit, "kernel_before", c->kernel_before,
			 "kernel_after", c->kernel_after, "run_after",
			 (json_int_t)c->run_after, "position",
			 (json_int_t)c->position, "mean_before",
			 c->mean_before, "mean_after", c->mean_after,
			 "size_pct", c->size_pct, "p_value", c->p_value,
			 "confidence", 1 - c->p_value, "first_seen",
			 (json_int_t)c->first_seen, "updated",
			 (json_int_t)c->updated);
}

/* A named filter that names nothing is a 404, not an empty list. */
static int cp_filters_check(struct req *rq, const char *rig,
			    const char *suite, const char *metric, char *err,
			    size_t errlen)
{
	struct db_metric *m = NULL;
	struct db_suite su;
	struct db_rig g;
	size_t n = 0, i;
	int found = 0;

	if (rig && db_rig_get(rq->db, rig, &g)) {
		snprintf(err, errlen, "unknown rig '%.100s'", rig);
		return -1;
	}
	if (rig)
		db_rig_release(&g);
	if (suite && db_suite_get(rq->db, suite, &su)) {
		snprintf(err, errlen, "unknown suite '%.100s'", suite);
		return -1;
	}
	if (suite)
		db_suite_release(&su);
	if (!metric)
		return 0;
	if (db_metric_list(rq->db, &m, &n) == DB_OK)
		for (i = 0; i < n && !found; i++)
			found = !strcmp(m[i].name, metric);
	db_metrics_free(m, n);
	if (!found)
		snprintf(err, errlen, "unknown metric '%.100s'", metric);
	return found ? 0 : -1;
}

static const char *filter(struct req *rq, const char *key)
{
	const char *v = query_get(&rq->q, key);

	return v && *v ? v : NULL;
}

int api_changepoints(struct req *rq, struct web_response *r)
{
	const char *rig = filter(rq, "rig"), *suite = filter(rq, "suite");
	const char *metric = filter(rq, "metric");
	struct db_changepoint *v = NULL;
	size_t n = 0;
	char err[300] = "";
	int rc;

	if (cp_filters_check(rq, rig, suite, metric, err, sizeof(err)))
		return web_error_json(r, 404, err);
	rc = db_changepoint_list(rq->db, rig, suite, metric, &v, &n, err,
				 sizeof(err));
	if (rc)
		return web_error_json(r, http_status_of(rc), err);
	rc = api_reply_list(r, "changepoints", v, n, sizeof(*v), cp_json);
	db_changepoints_free(v, n);
	return rc;
}
