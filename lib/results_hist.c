// SPDX-License-Identifier: MIT
/*
 * results_hist: the per-phase latency histograms a klab-results/1
 * document may carry beside its numbers ("hist": {phase: {"unit": "ns",
 * "buckets": [[upper, count], ...]}}, docs/RESULTS.md).  They belong to
 * the document's kernel.  Kept as numbers (struct lathist): the JSON is
 * read once, and the data layer stores the buckets as they are
 * (db/db_hist.c).
 */
#include "results.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"
#include "lathist.h"

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		abort();
	return p;
}

static struct result_hist *hist_find(const struct result_set *rs,
				     const char *phase)
{
	size_t i;

	for (i = 0; i < rs->nhist; i++)
		if (!strcmp(rs->hist[i].phase, phase))
			return &rs->hist[i];
	return NULL;
}

void result_set_hist_merge(struct result_set *rs, const char *phase,
			   const struct lathist *h)
{
	struct result_hist *rh = hist_find(rs, phase);

	if (!rh) {
		rs->hist = realloc(rs->hist, (rs->nhist + 1) *
				   sizeof(*rs->hist));
		if (!rs->hist)
			abort();
		rh = &rs->hist[rs->nhist++];
		rh->phase = xstrdup(phase);
		lathist_init(&rh->h);
	}
	lathist_merge(&rh->h, h);
}

void result_set_hist_take(struct result_set *dst, const struct result_set *src)
{
	size_t i;

	for (i = 0; i < src->nhist; i++)
		result_set_hist_merge(dst, src->hist[i].phase,
				      &src->hist[i].h);
}

void result_set_hist_release(struct result_set *rs)
{
	size_t i;

	for (i = 0; i < rs->nhist; i++) {
		free(rs->hist[i].phase);
		lathist_release(&rs->hist[i].h);
	}
	free(rs->hist);
	rs->hist = NULL;
	rs->nhist = 0;
}

json_t *result_set_hist_to_json(const struct result_set *rs)
{
	json_t *o, *v;
	size_t i;

	if (!rs->nhist)
		return NULL;
	o = json_object();
	if (!o)
		abort();
	for (i = 0; i < rs->nhist; i++) {
		v = lathist_to_json(&rs->hist[i].h);
		json_object_set_new(o, rs->hist[i].phase, v);
	}
	return o;
}

int result_set_hist_from_json(struct result_set *rs, const json_t *v,
			      struct import_error *err)
{
	const char *phase;
	struct lathist h;
	char field[160], msg[160];
	json_t *one;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return import_fail(err, 0, "hist", "not an object");
	if (json_object_size(v) > RESULT_MAX_HISTS)
		return import_fail(err, 0, "hist", "more than %d phases",
				   RESULT_MAX_HISTS);
	json_object_foreach((json_t *)v, phase, one) {
		snprintf(field, sizeof(field), "hist.%.120s", phase);
		if (ident_checks(IDENT_METRIC, phase, NULL, 0))
			return import_fail(err, 0, field, "not a valid phase "
					   "name");
		lathist_init(&h);
		if (lathist_from_json(&h, one, msg, sizeof(msg)))
			return import_fail(err, 0, field, "%s", msg);
		result_set_hist_merge(rs, phase, &h);
		lathist_release(&h);
	}
	return 0;
}
