/* SPDX-License-Identifier: MIT */
/*
 * chart_cdf: latency distributions as tail curves, one per kernel, on
 * log-log axes: x is the latency (decade ticks, 1 ns to minutes), y the
 * fraction of requests slower than x (1 - CDF, decade ticks from 100%
 * down to one request in the largest series, at most 10^-6).  A tail
 * that moved shows as a curve that leaves the others at the bottom.
 * Draws what it is given: plain arrays of bucket upper bounds and counts
 * (lib/lathist.h's layout).  All text is escaped.
 */
#ifndef KLAB_WEB_CHART_CDF_H
#define KLAB_WEB_CHART_CDF_H

#include <stddef.h>
#include <stdint.h>

#include "lib/strbuf.h"

struct cdf_series {
	const char *name;	/* legend text */
	const uint64_t *up;	/* bucket upper bounds, ns, increasing */
	const uint64_t *cnt;	/* requests per bucket */
	size_t n;
};

/*
 * Append one <svg class="chart cdf"> with a <path class="cdf"> per
 * non-empty series (the first is drawn as the baseline) and a legend.
 */
void chart_cdf_svg(struct strbuf *sb, const char *title,
		   const struct cdf_series *s, size_t ns);

#endif
