/* SPDX-License-Identifier: MIT */
/*
 * compare_int: what the two halves of the comparison model share and
 * nobody else sees.  compare_scope.c decides which runs enter (one rig,
 * suite, job and rig configuration), compare.c gathers their samples
 * into cells and judges them.
 */
#ifndef KLAB_COMPARE_INT_H
#define KLAB_COMPARE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "judge/compare.h"

struct db_cell_run;

struct scope {
	struct db_cell_run *runs;	/* the kernels' runs */
	size_t nruns;
	int64_t *ids;		/* the runs that enter, sorted */
	size_t nids;
	int rig_named;		/* the runs are those of the rig or class
				 * named (db_cell_runs chose them) */
};

/* qsort / bsearch order of int64_t values. */
int cmp_i64(const void *a, const void *b);
/*
 * The runs of kernels that enter: out->rig and out->suite named or
 * derived, out->config, out->rigconf_hash and out->rigconf set, the runs'
 * ids into sc (sorted).  DB_OK, or DB_INVALID with err naming the choices
 * when runs would be pooled (or a DB_E* code of the database).  sc is
 * released by scope_release in every case.
 */
int scope_build(struct db *db, const char *const *kernels, size_t nk,
		const char *rig, const char *suite, const struct cmp_opts *o,
		struct comparison *out, struct scope *sc, char *err,
		size_t errlen);
void scope_release(struct scope *sc);

#endif
