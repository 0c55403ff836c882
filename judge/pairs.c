// SPDX-License-Identifier: MIT
/*
 * Interleaved pairs (see pairs.h): the layout of a candidate's cells in
 * run order, and the page's drift that decides whether they are tested
 * as pairs.
 */
#include "judge/pairs.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "judge/compare.h"

/* The run of each of a cell's cell values (the first of its group). */
static int64_t *cell_run_ids(const struct cmp_cell *cell)
{
	int64_t *ids = malloc((cell->nvalues + 1) * sizeof(*ids));
	size_t i, n = 0;

	if (!ids)
		abort();
	for (i = 0; i < cell->nvalues; i++)
		if (!i || cell->runs[i] != cell->runs[i - 1])
			ids[n++] = cell->runs[i];
	return ids;
}

/* Runs are numbered as they are stored, so a comparison run's pairs
 * qualify; a replaced cell, or one side imported after the other, does
 * not. */
int cmp_pairs_interleaved(const struct cmp_cell *b, const struct cmp_cell *k)
{
	int64_t *x, *y;
	size_t i, n = b->s.n;
	int ok = n >= 3 && k->s.n == n;

	if (!ok)
		return 0;
	x = cell_run_ids(b);
	y = cell_run_ids(k);
	for (i = 0; i < n && ok; i++)
		ok = x[i] != y[i] && (i + 1 == n ||
			(x[i] > y[i] ? x[i] : y[i]) <
			(x[i + 1] < y[i + 1] ? x[i + 1] : y[i + 1]));
	free(x);
	free(y);
	return ok;
}

static int cells_positive(const struct cmp_cell *cell)
{
	size_t i;

	for (i = 0; i < cell->s.n; i++)
		if (!(cell->cellv[i] > 0) || !isfinite(cell->cellv[i]))
			return 0;
	return 1;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int cmp_pairs_page(const struct comparison *c, size_t k)
{
	double *f = malloc((c->nm + 1) * sizeof(*f)), med;
	size_t i, n = 0;

	if (!f)
		abort();
	for (i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];
		const struct cmp_cell *b = &m->cells[c->baseline];
		const struct cmp_cell *x = &m->cells[k];

		if (m->dir == DIR_NONE || !b->present || !x->present)
			continue;
		if (!cmp_pairs_interleaved(b, x)) {
			n = 0;	/* one metric out of step: no pairs */
			break;
		}
		if (cells_positive(b) && cells_positive(x))
			f[n++] = vd_pairs_f(b->cellv, x->cellv, b->s.n);
	}
	if (n)
		qsort(f, n, sizeof(*f), dbl_cmp);
	med = n ? (n % 2 ? f[n / 2] : (f[n / 2 - 1] + f[n / 2]) / 2) : 0;
	free(f);
	return med > CMP_PAIRS_F;
}
