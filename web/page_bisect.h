/* SPDX-License-Identifier: MIT */
/*
 * The pages of bisections: /bisections (newest first) and /bisections/ID
 * (its steps, the range still open, an estimate of the steps left and,
 * at the end, the report; it reloads itself while it runs).  The HTTP
 * layer loads everything (web/ includes no controller header).
 */
#ifndef KLAB_WEB_PAGE_BISECT_H
#define KLAB_WEB_PAGE_BISECT_H

#include "db/bisect.h"
#include "web.h"

struct web_bisect {
	const struct db_bisection *b;
	const struct db_bis_cand *cands;
	size_t ncands;
	const struct db_bis_step *steps;
	size_t nsteps;
	size_t good, bad, steps_left;
};

int web_bisection(const struct web_bisect *w, struct query *q,
		  struct web_response *r);
int web_bisections(const struct db_bisection *v, size_t n, struct query *q,
		   struct web_response *r);

#endif
