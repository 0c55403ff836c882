/* SPDX-License-Identifier: MIT */
/*
 * compare_hist: the latency distributions of a comparison.  The runs
 * (cells) of each kernel are found in the comparison, their histograms
 * (lib/lathist.h) read through db/ (db_hist_list) and merged per kernel
 * and phase; the page then draws one tail chart per phase that the
 * baseline and at least one other kernel have (web/chart_cdf.h).
 */
#ifndef KLAB_WEB_COMPARE_HIST_H
#define KLAB_WEB_COMPARE_HIST_H

#include <jansson.h>

#include "judge/compare.h"
#include "lib/strbuf.h"

/* The charts, under a heading; nothing when no phase qualifies. */
void compare_hist_html(struct strbuf *sb, struct db *db,
		       const struct comparison *c);
/* {phase: {kernel: {"unit": "ns", "buckets": [...]}}}, every phase. */
json_t *compare_hist_json(struct db *db, const struct comparison *c);

#endif
