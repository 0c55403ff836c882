// SPDX-License-Identifier: MIT
/*
 * import_tiobench: tiobench.pl summary tables as kernel developers paste
 * them.  Four sections ("Sequential Reads", "Random Reads", "Sequential
 * Writes", "Random Writes"), each a title, a two-line header, a dashed rule
 * and one row per kernel:
 *
 *   6.1.176  512  4096  8  41.20 12.31%  0.741  1811.05  0.00000  0.00000  335
 *
 * The text is read as a stream of tokens, not lines, so the same tables
 * import when a mail client re-wrapped them (at 72 columns or onto one
 * single line), when they are quoted ("> ", ">> ") and when prose surrounds
 * them.  The header decides which columns a row has: hand-trimmed tables
 * without File/Blk Size or without the latency percentages are common in
 * old mails.  A row ends the table when its identifier is not followed by
 * two numbers; after that, every fault is an error naming line and column.
 */
#include "import.h"

#include <stdio.h>
#include <string.h>

#include "import_priv.h"
#include "tiobench.h"

enum { C_ID, C_FILE, C_BLK, C_THR, C_RATE, C_CPU, C_AVG, C_MAX, C_LAT2,
       C_LAT10, C_EFF, NCOLS };

/* The column names as errors give them; fields come from tiobench.h in
 * the same order (cols[c] is tiobench_fields[c - C_FILE]). */
static const struct {
	const char *name;	/* column, as errors name it */
	int pct;		/* a trailing '%' is allowed */
} cols[NCOLS] = {
	{ "Identifier", 0 },
	{ "File Size", 0 },
	{ "Blk Size", 0 },
	{ "Num Thr", 0 },
	{ "Rate", 0 },
	{ "CPU%", 1 },
	{ "Avg Latency", 0 },
	{ "Maximum Latency", 0 },
	{ "Lat% >2s", 1 },
	{ "Lat% >10s", 1 },
	{ "CPU Eff", 0 },
};

_Static_assert(NCOLS == TIOBENCH_NFIELDS + 1, "one column per field");

#define ALL_COLS ((1u << NCOLS) - 1)
#define HEADER_WINDOW 64	/* tokens between a title and its rule */

/* The phase whose title starts at t (lx just after t), or -1. */
static int phase_at(const struct itok *t, const struct ilex *lx)
{
	struct ilex peek = *lx;
	struct itok t2;
	size_t i;

	if (!itok_eq(t, "Sequential") && !itok_eq(t, "Random"))
		return -1;
	if (!ilex_next(&peek, &t2))
		return -1;
	for (i = 0; i < TIOBENCH_NPHASES; i++)
		if (itok_eq(t, tiobench_phases[i].w1) &&
		    itok_eq(&t2, tiobench_phases[i].w2))
			return (int)i;
	return -1;
}

static unsigned header_mask(int file, int blk, int max, int nlat, int eff)
{
	unsigned m = ALL_COLS;

	if (!file)
		m &= ~(1u << C_FILE);
	if (!blk)
		m &= ~(1u << C_BLK);
	if (!max)
		m &= ~(1u << C_MAX);
	if (nlat < 2)
		m &= ~(1u << C_LAT10);
	if (nlat < 1)
		m &= ~(1u << C_LAT2);
	if (!eff)
		m &= ~(1u << C_EFF);
	return m;
}

/*
 * Read a section header up to and including its dashed rule.  Returns the
 * column mask, or 0 when no rule follows (then lx is unchanged).
 */
static unsigned section_header(struct ilex *lx)
{
	struct ilex cur = *lx, save;
	struct itok t;
	int file = 0, blk = 0, max = 0, nlat = 0, eff = 0, rate = 0, i;

	for (i = 0; i < HEADER_WINDOW; i++) {
		if (!ilex_next(&cur, &t) || phase_at(&t, &cur) >= 0)
			return 0;
		if (itok_all(&t, '-'))
			break;
		file |= itok_eq(&t, "File");
		blk |= itok_eq(&t, "Blk");
		max |= itok_eq(&t, "Maximum");
		nlat += itok_eq(&t, "Lat%");
		eff |= itok_eq(&t, "Eff");
		rate |= itok_eq(&t, "Rate");
	}
	if (i == HEADER_WINDOW)
		return 0;
	do {	/* the rest of the rule */
		save = cur;
	} while (ilex_next(&cur, &t) && itok_all(&t, '-'));
	*lx = save;
	return rate ? header_mask(file, blk, max, nlat, eff) : ALL_COLS;
}

/* "41.2012.31%": Rate (two decimals) glued to CPU%. */
static int split_glued(const struct itok *t, struct itok *rate,
		       struct itok *cpu)
{
	const char *dot = memchr(t->p, '.', t->n);
	size_t cut;

	if (!t->n || t->p[t->n - 1] != '%' || !dot)
		return 0;
	cut = (size_t)(dot - t->p) + 3;
	if (cut >= t->n - 1 || !memchr(t->p + cut, '.', t->n - cut))
		return 0;
	*rate = *t;
	rate->n = cut;
	*cpu = *t;
	cpu->p += cut;
	cpu->n -= cut;
	return 1;
}

static int value_ok(const struct itok *t, int pct, double *v)
{
	size_t n = t->n;

	if (pct && n > 1 && t->p[n - 1] == '%')
		n--;
	return num_parse(t->p, n, v) == 0;
}

/* A row starts at id: it is followed by two numbers (or number, xx.xx%). */
static int row_candidate(const struct itok *id, const struct ilex *lx)
{
	struct ilex peek = *lx;
	struct itok a, b, r, c;
	double v;

	if (itok_all(id, '-') || itok_all(id, '='))
		return 0;
	if (!ilex_next(&peek, &a) || itok_num(&a, &v))
		return 0;
	if (!ilex_next(&peek, &b))
		return 0;
	return value_ok(&b, 1, &v) || split_glued(&b, &r, &c);
}

struct row {
	struct itok id;
	char kernel[IMPORT_NAME_MAX + 1];
	int nfields, nexpect;
	double v[NCOLS];
	int line[NCOLS];
};

/* Next value token of the row for column c; 0, or -1 with err set. */
static int row_next(struct ilex *lx, struct row *r, int c, struct itok *t,
		    struct import_error *err)
{
	double v;

	if (!ilex_next(lx, t))
		return import_fail(err, r->id.line, cols[c].name, "missing: "
				   "the input ends after %d of %d fields",
				   r->nfields, r->nexpect);
	if (r->id.bol && t->line != r->id.line && !value_ok(t, 1, &v))
		return import_fail(err, r->id.line, cols[c].name, "missing: "
				   "the row has %d fields, expected %d",
				   r->nfields, r->nexpect);
	return 0;
}

static int row_value(struct row *r, int c, const struct itok *t,
		     struct import_error *err)
{
	char show[64];

	if (!value_ok(t, cols[c].pct, &r->v[c])) {
		itok_show(t, show, sizeof(show));
		return import_fail(err, t->line, cols[c].name,
				   "not a number '%s'", show);
	}
	r->line[c] = t->line;
	r->nfields++;
	return 0;
}

static int row_values(struct ilex *lx, struct row *r, unsigned mask,
		      struct import_error *err)
{
	struct itok t, rate, cpu;
	int c;

	for (c = C_FILE; c < NCOLS; c++) {
		if (!(mask & (1u << c)))
			continue;
		if (row_next(lx, r, c, &t, err))
			return -1;
		if (c == C_RATE && split_glued(&t, &rate, &cpu)) {
			if (row_value(r, C_RATE, &rate, err) ||
			    row_value(r, C_CPU, &cpu, err))
				return -1;
			c = C_CPU;
			continue;
		}
		if (row_value(r, c, &t, err))
			return -1;
	}
	return 0;
}

static int row_parse(struct ilex *lx, const struct itok *id, int ph,
		     unsigned mask, struct iacc *acc, struct import_error *err)
{
	struct row r;
	struct ilex peek;
	struct itok t;
	char metric[96], show[64];
	double extra;
	int c, last = id->line;

	memset(&r, 0, sizeof(r));
	r.id = *id;
	r.nfields = 1;
	r.nexpect = __builtin_popcount(mask);
	itok_show(id, show, sizeof(show));
	if (!kernel_id_valid(id->p, id->n) ||
	    itok_copy(id, r.kernel, sizeof(r.kernel)))
		return import_fail(err, id->line, cols[C_ID].name,
				   "invalid kernel identifier '%s'", show);
	if (row_values(lx, &r, mask, err))
		return -1;
	for (c = C_FILE; c < NCOLS; c++)
		if (mask & (1u << c))
			last = r.line[c];
	peek = *lx;
	if (ilex_next(&peek, &t) && t.line == last && !itok_num(&t, &extra)) {
		itok_show(&t, show, sizeof(show));
		return import_fail(err, last, cols[C_EFF].name, "extra value "
				   "'%s' after the last column", show);
	}
	for (c = C_FILE; c < NCOLS; c++) {
		if (!(mask & (1u << c)))
			continue;
		tiobench_metric(metric, sizeof(metric), ph, c - C_FILE);
		iacc_add(acc, r.kernel, metric,
			 tiobench_fields[c - C_FILE].unit, r.v[c],
			 tiobench_fields[c - C_FILE].dir, id->line);
	}
	return 0;
}

/*
 * One section after its title; 1 when it had a header, 0 when not, -1 on
 * error.  Leaves lx after its last row.
 */
static int section_parse(struct ilex *lx, int ph, struct iacc *acc,
			 struct import_error *err)
{
	unsigned mask = section_header(lx);
	struct ilex save;
	struct itok id;

	if (!mask)
		return 0;
	for (;;) {
		save = *lx;
		if (!ilex_next(lx, &id))
			break;
		if (phase_at(&id, lx) >= 0 || !row_candidate(&id, lx)) {
			*lx = save;
			break;
		}
		if (row_parse(lx, &id, ph, mask, acc, err))
			return -1;
	}
	return 1;
}

static int section_of(const char *metric)
{
	size_t i, n;

	for (i = 0; i < TIOBENCH_NPHASES; i++) {
		n = strlen(tiobench_phases[i].key);
		if (!strncmp(metric + 9, tiobench_phases[i].key, n) &&
		    metric[9 + n] == '.')
			return (int)i;
	}
	return 0;
}

int import_tiobench_acc(const char *buf, size_t len, struct iacc *acc,
			struct import_spans *sp, struct import_error *err)
{
	struct ilex lx;
	struct itok t;
	size_t i, j, start;
	int ph, r;

	ilex_init(&lx, buf, len, 1);
	lx.drop_gt = 1;
	while (ilex_next(&lx, &t)) {
		ph = phase_at(&t, &lx);
		if (ph < 0)
			continue;
		start = (size_t)(t.p - buf);
		ilex_next(&lx, &t);	/* the title's second word */
		r = section_parse(&lx, ph, acc, err);
		if (r < 0)
			return -1;
		if (r > 0 && sp)
			import_spans_add(sp, start, lx.pos);
	}
	if (iacc_find_dup(acc, &i, &j))
		return import_fail(err, acc->line[j], cols[C_ID].name,
				   "duplicate kernel '%s' in section '%s' "
				   "(first on line %d)", acc->rs.v[j].kernel,
				   tiobench_phases[section_of(
					   acc->rs.v[j].metric)].title,
				   acc->line[i]);
	return 0;
}

/* Kernel identifiers come from the table; kernel is not used. */
int import_tiobench(const char *buf, size_t len, const char *kernel,
		    struct result_set *out, struct import_error *err)
{
	struct iacc acc;

	iacc_init(&acc);
	if (import_tiobench_acc(buf, len, &acc, NULL, err)) {
		iacc_release(&acc);
		return -1;
	}
	return iacc_finish(&acc, out, err, "tiobench");
}
