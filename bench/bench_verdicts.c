// SPDX-License-Identifier: MIT
/*
 * bench_verdicts: the verdict rule (judge/verdict.c, through the same
 * compare_judge() klabd runs) proved by simulation.  A page is two
 * kernels with n cells each and 20 directional metrics shaped like four
 * tiobench phases (rate and average latency: headline; max latency, CPU
 * and p99: secondary; max and p99 with log-normal noise, the rest normal),
 * every metric with the rig noise CV.  For each CV (3, 5, 17%) and n (3,
 * 5, 10 cells a side) it runs A/A pages (nothing changed: how many pages
 * show any worse or better verdict) and pages where the first phase's rate
 * drops by 5, 10 or 25% (how often that metric is decided worse, called
 * same, or called better), and prints a markdown table.
 *
 *   bench_verdicts [--adaptive|--adaptive-worse] [--pages N] [--seed S]
 *                  [--alpha-scale F]
 *       the table; with --adaptive, pages judged at the looks of the
 *       default plan (judge/adaptive.h) until every headline metric is
 *       decided or 20 cells a side, against the fixed n of the same power
 *       (--adaptive-worse: the plan also ends at the first headline worse)
 *       (--alpha-scale multiplies the default error budgets, headline
 *       0.008 and secondary 0.002, 1% a page: 5 gives the 5% of before)
 *       (--pairing auto|off: the cells interleaved A B A B as a
 *       comparison run queues them, tested as pairs or not; --drift PCT:
 *       a linear drift of every level from the first cell to the last)
 *   bench_verdicts --same [--pages N] [--seed S]
 *       "same" at a comparison run's cap (bench_verdicts_same.c): 8
 *       headline metrics, the adaptive plan capped at 8, 12, 20 cells,
 *       the rule without and with the margin at the cap
 *   bench_verdicts --drift PCT [--pages N]
 *       A/A alarms and power for a 10% drop, cells interleaved, tested
 *       unpaired and paired, without and with the drift
 *   bench_verdicts --emit DIR --cv PCT --cells N --shift PCT --pages N
 *                  [--seed S] [--prefix P]
 *       writes the pages as klab-results/1 documents (DIR/PxPAGE-TIME
 *       .json, one per cell, named by its place in time, kernels
 *       PxPAGE-base and PxPAGE-cand, prefix "v" by default) and the
 *       verdicts compare_judge() gives them
 *       (DIR/expected.txt: "PxPAGE METRIC VERDICT" lines) for
 *       bench_verdicts.sh, which imports them into a real klabd and checks
 *       that GET /api/compare agrees.
 *
 * Build (from the top of the tree, after make):
 *   cc -std=c11 -D_GNU_SOURCE -O2 -I. -o build/bench_verdicts \
 *      bench/bench_verdicts.c bench/bench_verdicts_same.c build/libcore.a \
 *      $(pkg-config --cflags --libs jansson sqlite3 libcrypto) -lm
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench/bench_verdicts.h"
#include "judge/adaptive.h"
#include "judge/compare.h"
#include "lib/alloc.h"

#define NMETRICS 20

struct spec {
	char name[64];
	const char *unit;
	enum metric_dir dir;
	double base;
	int lognormal;
};

static struct spec specs[NMETRICS];
static double alpha_scale = 1;	/* --alpha-scale: another budget */
static int stop_on_worse;	/* --adaptive-worse: the plan's variant */
/* The cells' order in time: 0 every base cell then every candidate cell
 * (as bench_verdicts.sh imports them), 1 interleaved pairs A B B A A B
 * (as a comparison run queues them: pairs are tested when they drift). */
static int interleave;
static double drift;		/* the level's drift from first to last cell */
static int unpaired;		/* the policy's pairing=off */

static void specs_init(void)
{
	static const char *const phases[] = { "seq_read", "seq_write",
					      "rand_read", "rand_write" };
	static const struct {
		const char *field, *unit;
		enum metric_dir dir;
		double base;
		int lognormal;
	} f[] = {
		{ "rate", "MB/s", DIR_HIGHER, 40, 0 },
		{ "avg_lat", "ms", DIR_LOWER, 0.7, 0 },
		{ "max_lat", "ms", DIR_LOWER, 1800, 1 },
		{ "cpu", "%", DIR_LOWER, 12, 0 },
		{ "lat_p99", "ms", DIR_LOWER, 5, 1 },
	};
	size_t p, i, k = 0;

	for (p = 0; p < 4; p++)
		for (i = 0; i < 5; i++, k++) {
			snprintf(specs[k].name, sizeof(specs[k].name),
				 "tiobench.%s.%s", phases[p], f[i].field);
			specs[k].unit = f[i].unit;
			specs[k].dir = f[i].dir;
			specs[k].base = f[i].base;
			specs[k].lognormal = f[i].lognormal;
		}
}

/* ---- random numbers: splitmix64 and Box-Muller --------------------- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double rng_normal(void)
{
	double u1 = ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
	double u2 = (double)(rng_next() >> 11) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* One cell's value of metric i: the candidate's first metric shifted. */
static double draw(size_t i, double cv, double shift, int cand)
{
	double mu = specs[i].base * (cand && i == 0 ? 1 - shift : 1);

	if (specs[i].lognormal)
		return mu * exp(cv * rng_normal());
	return mu * (1 + cv * rng_normal());
}

/* ---- one page ------------------------------------------------------ */

/* A page's numbers: v[side][cell][metric]. */
struct page {
	size_t n;
	double v[2][20][NMETRICS];
};

/* The place in time of cell c of side s, 0 .. 2n - 1. */
static size_t cell_time(size_t n, size_t s, size_t c)
{
	if (interleave)		/* A B B A A B ...: the order alternates */
		return 2 * c + (c % 2 ? 1 - s : s);
	return s * n + c;
}

static void page_draw(struct page *pg, size_t n, double cv, double shift)
{
	size_t s, c, i;

	pg->n = n;
	for (s = 0; s < 2; s++)
		for (c = 0; c < n; c++) {
			/* a linear drift of the rig across the cells */
			double f = 1 + drift * (double)cell_time(n, s, c) /
				   (double)(2 * n - 1);

			for (i = 0; i < NMETRICS; i++)
				pg->v[s][c][i] = f * draw(i, cv, shift,
							  (int)s);
		}
}

static void policy(struct vd_policy *pol)
{
	vd_policy_default(pol);
	pol->alpha[VC_HEADLINE] *= alpha_scale;
	pol->alpha[VC_SECONDARY] *= alpha_scale;
	pol->unpaired = unpaired;
}

/* The comparison klabd would build from the first n cells of a page. */
static void page_judge_n(const struct page *pg, size_t n,
			 const struct vd_policy *pol, struct comparison *c)
{
	size_t i, s, k;

	memset(c, 0, sizeof(*c));
	c->pol = *pol;
	c->nk = 2;
	c->kernels = calloc(2, sizeof(char *));
	c->m = calloc(NMETRICS, sizeof(*c->m));
	if (!c->kernels || !c->m)
		abort();
	c->kernels[0] = xstrdup("base");
	c->kernels[1] = xstrdup("cand");
	c->nm = NMETRICS;
	for (i = 0; i < NMETRICS; i++) {
		struct cmp_metric *m = &c->m[i];

		m->name = xstrdup(specs[i].name);
		m->unit = xstrdup(specs[i].unit);
		m->dir = specs[i].dir;
		vd_kind_of(m->name, m->unit, m->dir, &m->kind);
		m->cells = calloc(2, sizeof(*m->cells));
		if (!m->cells)
			abort();
		for (s = 0; s < 2; s++) {
			struct cmp_cell *cell = &m->cells[s];

			cell->values = malloc(n * sizeof(double));
			cell->runs = malloc(n * sizeof(int64_t));
			if (!cell->values || !cell->runs)
				abort();
			for (k = 0; k < n; k++) {
				cell->values[k] = pg->v[s][k][i];
				cell->runs[k] = (int64_t)cell_time(pg->n, s,
								   k) + 1;
			}
			cell->nvalues = n;
			cell->present = 1;
		}
	}
	compare_judge(c);
}

static void page_judge(const struct page *pg, struct comparison *c)
{
	struct vd_policy pol;

	policy(&pol);
	page_judge_n(pg, pg->n, &pol, c);
}

struct tally {
	size_t pages, any_alarm, worse0, same0, better0, other_alarm;
};

static void page_count(const struct comparison *c, struct tally *t)
{
	const struct cmp_metric *m0 = compare_find(c, specs[0].name);
	size_t i, alarms = 0, other = 0;

	for (i = 0; i < c->nm; i++) {
		enum cmp_verdict v = c->m[i].cells[1].verdict;
		int hit = v == V_WORSE || v == V_BETTER;

		alarms += hit;
		other += hit && &c->m[i] != m0;
	}
	t->pages++;
	t->any_alarm += alarms > 0;
	t->other_alarm += other > 0;
	t->worse0 += m0->cells[1].verdict == V_WORSE;
	t->same0 += m0->cells[1].verdict == V_SAME;
	t->better0 += m0->cells[1].verdict == V_BETTER;
}

static void run_setting(double cv, size_t n, double shift, size_t pages,
			struct tally *t)
{
	struct comparison c;
	struct page pg;
	size_t p;

	memset(t, 0, sizeof(*t));
	for (p = 0; p < pages; p++) {
		page_draw(&pg, n, cv, shift);
		page_judge(&pg, &c);
		page_count(&c, t);
		compare_release(&c);
	}
}

static double pct(size_t a, size_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* The CVs (coefficients of variation) both tables have a row group for. */
static const double table_cvs[] = { 0.03, 0.05, 0.17 };
#define TABLE_NCVS (sizeof(table_cvs) / sizeof(table_cvs[0]))

/* Print row(cv, x, pages) for each CV and each x below nx. */
static void table_rows(void (*row)(double, size_t, size_t), size_t nx,
		       size_t pages)
{
	size_t i, x;

	for (i = 0; i < TABLE_NCVS; i++)
		for (x = 0; x < nx; x++)
			row(table_cvs[i], x, pages);
}

/* One row of table(): A/A and three shifts at cv with the x-th cell
 * count a side. */
static void table_row(double cv, size_t x, size_t pages)
{
	static const size_t ns[] = { 3, 5, 10 };
	static const double shifts[] = { 0.05, 0.10, 0.25 };
	struct tally aa, t[3];
	size_t n = ns[x], k;

	run_setting(cv, n, 0, pages, &aa);
	for (k = 0; k < 3; k++)
		run_setting(cv, n, shifts[k], pages, &t[k]);
	printf("| %.0f%% | %zu | %.2f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | "
	       "%.2f%% |\n", cv * 100, n, pct(aa.any_alarm, aa.pages),
	       pct(t[0].worse0, t[0].pages), pct(t[1].worse0, t[1].pages),
	       pct(t[2].worse0, t[2].pages), pct(t[2].same0, t[2].pages),
	       pct(t[0].other_alarm + t[1].other_alarm + t[2].other_alarm,
		   3 * pages));
	fflush(stdout);
}

static void table(size_t pages)
{
	printf("| CV | cells a side | A/A pages with any worse/better | "
	       "5%% drop: worse | 10%% drop: worse | 25%% drop: worse | "
	       "25%% drop called same | shifted pages, false alarm "
	       "elsewhere |\n|---|---|---|---|---|---|---|---|\n");
	table_rows(table_row, 3, pages);
	printf("\n%zu pages per row and column (A/A and each shift), 20 "
	       "metrics a page, error budget headline %g, secondary %g.\n",
	       pages, 0.008 * alpha_scale, 0.002 * alpha_scale);
}

/* ---- drift: interleaved pairs against unpaired cells --------------- */

/* One row of drift_table(): n and drift from x, A/A and a 10% drop,
 * tested unpaired and paired (the cells interleaved either way). */
static void drift_row(double cv, size_t x, size_t pages)
{
	static const size_t ns[] = { 5, 10 };
	double d = x % 2 ? drift : 0, keep = drift;
	struct tally aa[2], t[2];
	size_t n = ns[x / 2], k;

	drift = d;
	for (k = 0; k < 2; k++) {
		unpaired = !k;
		run_setting(cv, n, 0, pages, &aa[k]);
		run_setting(cv, n, 0.10, pages, &t[k]);
	}
	unpaired = 0;
	drift = keep;
	printf("| %.0f%% | %zu | %.0f%% | %.2f%% | %.2f%% | %.1f%% | "
	       "%.1f%% |\n", cv * 100, n, d * 100,
	       pct(aa[0].any_alarm, pages), pct(aa[1].any_alarm, pages),
	       pct(t[0].worse0, pages), pct(t[1].worse0, pages));
	fflush(stdout);
}

static void drift_table(size_t pages)
{
	interleave = 1;
	printf("| CV | cells a side | drift | A/A pages with any "
	       "worse/better: unpaired | paired | 10%% drop: worse, "
	       "unpaired | paired |\n|---|---|---|---|---|---|---|\n");
	table_rows(drift_row, 4, pages);
	printf("\n%zu pages per row and column; cells interleaved "
	       "A B B A A B ...; "
	       "the drift is a linear change of every metric's level from "
	       "the first cell to the last; error budget headline %g, "
	       "secondary %g.\n", pages, 0.008 * alpha_scale,
	       0.002 * alpha_scale);
}

/* ---- adaptive repetition against fixed n --------------------------- */

struct adapt {
	struct tally t;
	size_t cells, capped;
};

/* Pages judged at the plan's looks until decided or capped. */
static void run_adaptive(double cv, double shift, size_t pages,
			 struct adapt *a)
{
	struct vd_policy pol, look;
	struct vd_plan plan;
	struct comparison c, prev;
	struct page pg;
	enum vd_step st;
	size_t p, n, next, open;
	int have;

	memset(a, 0, sizeof(*a));
	vd_plan_default(&plan);
	plan.stop_on_worse = stop_on_worse;
	policy(&pol);
	vd_plan_policy(&plan, &pol, &look);
	for (p = 0; p < pages; p++) {
		page_draw(&pg, plan.looks[plan.nlooks - 1], cv, shift);
		for (n = plan.looks[0], have = 0;; n = next) {
			page_judge_n(&pg, n, &look, &c);
			if (have)
				vd_plan_carry(&prev, &c);
			if (have)
				compare_release(&prev);
			st = vd_plan_next(&plan, &c, n, 0, &next, &open);
			if (st != VD_STEP_MORE)
				break;
			prev = c;
			have = 1;
		}
		page_count(&c, &a->t);
		a->cells += n;
		a->capped += st == VD_STEP_CAP;
		compare_release(&c);
	}
}

/* The smallest fixed n (3..20) whose power is at least power, or 0. */
static size_t fixed_for(double cv, double shift, double power, size_t pages)
{
	struct tally t;
	size_t n;

	for (n = 3; n <= 20; n++) {
		run_setting(cv, n, shift, pages, &t);
		if ((double)t.worse0 >= power * (double)t.pages)
			return n;
	}
	return 0;
}

/* One row of adaptive_table(): the rate at cv dropped by the x-th
 * shift. */
static void adaptive_row(double cv, size_t x, size_t pages)
{
	static const double shifts[] = { 0, 0.05, 0.10, 0.25 };
	double shift = shifts[x];
	struct adapt a;
	size_t fx;

	run_adaptive(cv, shift, pages, &a);
	/* a fixed n is only worth naming for real power */
	fx = shift > 0 && 2 * a.t.worse0 >= a.t.pages ?
		fixed_for(cv, shift, (double)a.t.worse0 / (double)a.t.pages,
			  pages) : 0;
	printf("| %.0f%% | %.0f%% | %.1f | %.1f%% | %.2f%% | %.1f%% | ",
	       cv * 100, shift * 100, (double)a.cells / (double)pages,
	       pct(a.capped, pages), pct(a.t.any_alarm, pages),
	       pct(a.t.worse0, pages));
	if (!shift || 2 * a.t.worse0 < a.t.pages)
		printf("- |\n");
	else if (fx)
		printf("%zu |\n", fx);
	else
		printf("> 20 |\n");
	fflush(stdout);
}

static void adaptive_table(size_t pages)
{
	printf("| CV | rate drop | adaptive: mean cells a side | capped at "
	       "20 | pages with any worse/better | rate decided worse | "
	       "fixed n a side with that power |\n"
	       "|---|---|---|---|---|---|---|\n");
	table_rows(adaptive_row, 4, pages);
	printf("\n%zu pages per row; looks at 3, 5, 8, 12, 20 cells a side, "
	       "each with a fifth of the error budget, decisions final; the "
	       "job ends when every headline metric is worse, better or "
	       "same%s.\n", pages, stop_on_worse ?
	       ", or as soon as one is worse and none open leans worse" :
	       "");
}

/* ---- pages as documents, for the import + HTTP path ---------------- */

static const char *prefix = "v";

static int emit_cell(const char *dir, size_t p, int side, size_t c,
		     const struct page *pg)
{
	char path[4096];
	FILE *f;
	size_t i;

	/* named by the cell's place in time: a glob imports them in order */
	snprintf(path, sizeof(path), "%s/%s%zu-%03zu.json", dir, prefix, p,
		 cell_time(pg->n, (size_t)side, c));
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "bench_verdicts: cannot write '%s': %s\n",
			path, strerror(errno));
		return -1;
	}
	fprintf(f, "{\"schema\":\"klab-results/1\",\"kernel\":\"%s%zu-%s\","
		"\"results\":[", prefix, p, side ? "cand" : "base");
	for (i = 0; i < NMETRICS; i++)
		fprintf(f, "%s{\"metric\":\"%s\",\"unit\":\"%s\",\"value\":"
			"%.17g,\"direction\":\"%s\"}", i ? "," : "",
			specs[i].name, specs[i].unit, pg->v[side][c][i],
			metric_dir_name(specs[i].dir));
	fputs("]}\n", f);
	return fclose(f) ? -1 : 0;
}

static int emit(const char *dir, double cv, size_t n, double shift,
		size_t pages)
{
	struct comparison c;
	struct page pg;
	char path[4096];
	size_t p, k, i;
	FILE *ex;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "%s/expected.txt", dir);
	ex = fopen(path, "w");
	if (!ex)
		return -1;
	for (p = 0; p < pages; p++) {
		page_draw(&pg, n, cv, shift);
		for (k = 0; k < n; k++)
			if (emit_cell(dir, p, 0, k, &pg) ||
			    emit_cell(dir, p, 1, k, &pg))
				goto out_err;
		page_judge(&pg, &c);
		for (i = 0; i < c.nm; i++)
			fprintf(ex, "%s%zu %s %s\n", prefix, p, c.m[i].name,
				cmp_verdict_name(c.m[i].cells[1].verdict));
		compare_release(&c);
	}
	return fclose(ex) ? -1 : 0;

out_err:
	fclose(ex);
	return -1;
}

static int usage(void)
{
	fputs("usage: bench_verdicts [--adaptive|--adaptive-worse|--same] "
	      "[--pages N] [--seed S] "
	      "[--alpha-scale F] [--pairing auto|off] [--drift PCT]\n"
	      "       bench_verdicts --emit DIR --cv PCT --cells N "
	      "--shift PCT --pages N [--seed S] [--prefix P]\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	double cv = 5, shift = 0;
	size_t pages = 1000, n = 5;
	int i, adaptive = 0, drifting = 0, same = 0;

	rng_state = 20261201;
	if (argc > 1 && (!strcmp(argv[1], "--adaptive") ||
			 !strcmp(argv[1], "--adaptive-worse"))) {
		adaptive = 1;
		stop_on_worse = !strcmp(argv[1], "--adaptive-worse");
		argv++;
		argc--;
	} else if (argc > 1 && !strcmp(argv[1], "--same")) {
		same = 1;
		argv++;
		argc--;
	}
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--pages"))
			pages = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--seed"))
			rng_state = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--emit"))
			dir = argv[i + 1];
		else if (!strcmp(argv[i], "--alpha-scale"))
			alpha_scale = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--prefix"))
			prefix = argv[i + 1];
		else if (!strcmp(argv[i], "--cv"))
			cv = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--cells"))
			n = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--shift"))
			shift = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--drift")) {
			drifting = 1;
			drift = strtod(argv[i + 1], NULL) / 100;
		} else if (!strcmp(argv[i], "--pairing")) {
			interleave = 1;
			unpaired = !strcmp(argv[i + 1], "off");
		} else {
			return usage();
		}
	}
	if (i != argc || !pages || n < 1 || n > 20)
		return usage();
	specs_init();
	if (same) {
		same_tables(pages);
		return 0;
	}
	if (dir)
		return emit(dir, cv / 100, n, shift / 100, pages) ? 1 : 0;
	if (drifting && !adaptive)
		drift_table(pages);
	else if (adaptive)
		adaptive_table(pages);
	else
		table(pages);
	return 0;
}
