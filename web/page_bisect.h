/* SPDX-License-Identifier: MIT */
/*
 * The pages of bisections: /bisections (newest first) and /bisections/ID
 * (its steps, the range still open, an estimate of the steps left and,
 * at the end, the report; it reloads itself while it runs).  The HTTP
 * layer loads everything (web/ includes no controller header).
 */
#ifndef KLAB_WEB_PAGE_BISECT_H
#define KLAB_WEB_PAGE_BISECT_H

#include "db/bisections.h"
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

/* /bisections/new: the form of a Debian bisection (fields filled from
 * q: good, bad, rig, suite, metric, max_cells, scale, scheduler,
 * cmdline) posting to /bisections; csrf NULL: a sign-in link instead.
 * error set: shown above the form, the page answered with status. */
int web_bisect_form(const struct query *q, const char *csrf, int status,
		    const char *error, struct web_response *r);

#endif
