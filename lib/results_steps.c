// SPDX-License-Identifier: MIT
/*
 * results_steps: where a run's time went, the "steps" member of a
 * klab-results/1 document (docs/RESULTS.md): [{"step": NAME, "rep": N,
 * "secs": S}, ...] in the order the steps ran.  A workload names its own
 * (tiotest: each phase and each cache drop), klab-run adds the warm-up
 * and each repetition's background start and stop, the agent its
 * preparation; klabd stores them with the job (db/jobs.h) beside its own
 * (hand-out, boot, upload).  Not a measurement: nothing compares them.
 */
#include "results.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ident.h"

void result_set_step_add(struct result_set *rs, const char *name, int rep,
			 double secs)
{
	struct result_step *s;

	ALLOC_GROW(rs->steps, rs->nsteps, rs->steps_alloc);
	s = &rs->steps[rs->nsteps++];
	s->name = xstrdup(name);
	s->rep = rep;
	s->secs = secs > 0 && isfinite(secs) ? secs : 0;
}

void result_set_steps_take(struct result_set *dst,
			   const struct result_set *src, int rep)
{
	size_t i;

	for (i = 0; i < src->nsteps; i++)
		result_set_step_add(dst, src->steps[i].name,
				    src->steps[i].rep ? src->steps[i].rep : rep,
				    src->steps[i].secs);
}

double result_set_steps_secs(const struct result_set *rs)
{
	double t = 0;
	size_t i;

	for (i = 0; i < rs->nsteps; i++)
		t += rs->steps[i].secs;
	return t;
}

void result_set_steps_release(struct result_set *rs)
{
	size_t i;

	for (i = 0; i < rs->nsteps; i++)
		free(rs->steps[i].name);
	free(rs->steps);
	rs->steps = NULL;
	rs->nsteps = 0;
	rs->steps_alloc = 0;
}

json_t *result_set_steps_to_json(const struct result_set *rs)
{
	json_t *a;
	size_t i;

	if (!rs->nsteps)
		return NULL;
	a = json_array();
	if (!a)
		abort();
	for (i = 0; i < rs->nsteps; i++)
		json_array_append_new(a, json_pack("{s:s, s:i, s:f}", "step",
						   rs->steps[i].name, "rep",
						   rs->steps[i].rep, "secs",
						   rs->steps[i].secs));
	return a;
}

/* One element: {"step": ident, "rep": 0..1000, "secs": finite >= 0}. */
static int step_from_json(struct result_set *rs, const json_t *o, size_t i,
			  struct import_error *err)
{
	json_t *name = json_object_get(o, "step");
	json_t *rep = json_object_get(o, "rep");
	json_t *secs = json_object_get(o, "secs");
	char field[48];
	double t;

	snprintf(field, sizeof(field), "steps[%zu]", i);
	if (!json_is_object(o))
		return import_fail(err, 0, field, "not an object");
	snprintf(field, sizeof(field), "steps[%zu].step", i);
	if (!json_is_string(name) ||
	    ident_checks(IDENT_METRIC, json_string_value(name), NULL, 0))
		return import_fail(err, 0, field, "not a valid step name");
	snprintf(field, sizeof(field), "steps[%zu].rep", i);
	if (rep && !json_is_null(rep) &&
	    (!json_is_integer(rep) || json_integer_value(rep) < 0 ||
	     json_integer_value(rep) > 1000))
		return import_fail(err, 0, field, "not an integer from 0 to "
				   "1000");
	snprintf(field, sizeof(field), "steps[%zu].secs", i);
	t = json_number_value(secs);
	if (!json_is_number(secs) || !isfinite(t) || t < 0)
		return import_fail(err, 0, field, "not a number of seconds");
	result_set_step_add(rs, json_string_value(name),
			    json_is_integer(rep) ?
			    (int)json_integer_value(rep) : 0, t);
	return 0;
}

int result_set_steps_from_json(struct result_set *rs, const json_t *v,
			       struct import_error *err)
{
	size_t i;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return import_fail(err, 0, "steps", "not an array");
	if (json_array_size(v) > RESULT_MAX_STEPS)
		return import_fail(err, 0, "steps", "more than %d steps",
				   RESULT_MAX_STEPS);
	for (i = 0; i < json_array_size(v); i++)
		if (step_from_json(rs, json_array_get(v, i), i, err))
			return -1;
	return 0;
}
