// SPDX-License-Identifier: MIT
/*
 * The plain-text comparison report: what a kernel developer pastes into a
 * mail.  Header lines (kernels, rig, suite, configuration, cells, the
 * verdict rule in one sentence), the four tiobench sections in
 * tiobench.pl's own layout with one row per kernel (mean over cells, a
 * "+-sd" row under it when there were several), dbench and read-latency
 * lines as those tools print them, a delta line per candidate kernel after
 * each section, a generic table for every other metric, an LKP-style
 * table of the decided changes (%change +- stddev) and a summary.  Plain
 * ASCII, no tabs, lines wrapped before REPORT_WIDTH where they can be.
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

struct text {
	struct strbuf *sb;
	const struct comparison *c;
	char **id;		/* identifiers made safe for plain text */
	int idw;		/* widest identifier */
};

/* A line of comma-separated items wrapped before REPORT_WIDTH. */
struct wrap {
	struct strbuf *sb;
	size_t start;		/* offset of the current line */
	int n;
};

static void wrap_begin(struct wrap *w, struct strbuf *sb, const char *lead)
{
	w->sb = sb;
	w->start = sb->len;
	w->n = 0;
	sb_adds(sb, lead);
}

static void wrap_item(struct wrap *w, const char *item)
{
	size_t cur = w->sb->len - w->start;

	if (w->n && cur + 2 + strlen(item) > REPORT_WIDTH) {
		sb_adds(w->sb, ",\n");
		w->start = w->sb->len;
		sb_adds(w->sb, "    ");
	} else if (w->n) {
		sb_adds(w->sb, ", ");
	}
	sb_adds(w->sb, item);
	w->n++;
}

static void wrap_end(struct wrap *w)
{
	sb_addc(w->sb, '\n');
}

/* Text wrapped at spaces before REPORT_WIDTH, continued indented. */
static void words(struct strbuf *sb, const char *lead, const char *text)
{
	size_t col = strlen(lead), len;
	const char *sp;

	sb_adds(sb, lead);
	while (*text) {
		sp = strchr(text, ' ');
		len = sp ? (size_t)(sp - text) : strlen(text);
		if (col > 4 && col + 1 + len > REPORT_WIDTH) {
			sb_adds(sb, "\n   ");
			col = 3;
		}
		sb_addf(sb, " %.*s", (int)len, text);
		col += len + 1;
		text += len;
		while (*text == ' ')
			text++;
	}
	sb_addc(sb, '\n');
}

/* ---- header and summary ------------------------------------------- */

static void text_header(struct text *t)
{
	const struct comparison *c = t->c;
	struct wrap w;
	char item[900];
	size_t k;

	wrap_begin(&w, t->sb, "klab comparison: ");
	for (k = 0; k < c->nk; k++) {
		snprintf(item, sizeof(item), "%s%s", t->id[k],
			 k == c->baseline ? " (baseline)" : "");
		wrap_item(&w, item);
	}
	wrap_end(&w);
	fmt_ascii(item, 256, c->rig ? c->rig : "any");
	sb_addf(t->sb, "rig: %s, ", item);
	fmt_ascii(item, 256, c->suite ? c->suite : "any");
	sb_addf(t->sb, "suite: %s\n", item);
	if (c->config) {
		fmt_ascii(item, 256, c->config);
		sb_addf(t->sb, "configuration: %s\n", item);
	}
	if (c->rigconf_hash && *c->rigconf_hash)
		sb_addf(t->sb, "rig configuration: %s%s\n", c->rigconf_hash,
			c->rigconf_left_out ? " (older runs without one left "
			"out: rigconf=none shows them)" : "");
	wrap_begin(&w, t->sb, "cells (runs): ");
	for (k = 0; k < c->nk; k++) {
		snprintf(item, sizeof(item), "%s x%zu", t->id[k],
			 fmt_reps(c, k));
		wrap_item(&w, item);
	}
	wrap_end(&w);
	vd_rule_sentence(&c->pol, item, sizeof(item));
	words(t->sb, "verdicts:", item);
}

static void text_summary(struct text *t)
{
	size_t cand = t->c->nk - 1;
	struct fmt_counts n;
	char line[700];

	fmt_count(t->c, &n);
	if (!t->c->nm)
		sb_adds(t->sb, "\nno results for these kernels on this rig "
			"and suite\n");
	snprintf(line, sizeof(line), "%zu metric%s worse (%zu headline), "
		 "%zu better, %zu same, %zu undecided, %zu without verdict "
		 "(%zu kernel%s against %s)", n.worse, n.worse == 1 ? "" : "s",
		 n.headline_worse, n.better, n.same, n.undecided, n.none,
		 cand, cand == 1 ? "" : "s", t->id[t->c->baseline]);
	sb_addc(t->sb, '\n');
	words(t->sb, "summary:", line);
}

/* ---- delta lines -------------------------------------------------- */

struct delta_item {
	const char *metric;	/* full metric name */
	const char *label;	/* "rate" */
	int main;		/* named even when "same" */
};

static void delta_text(char *buf, size_t len, const char *label,
		       const struct cmp_cell *cell)
{
	char d[32], p[32], v[64];

	fmt_delta(d, sizeof(d), cell);
	fmt_p(p, sizeof(p), cell);
	fmt_verdict(v, sizeof(v), cell);
	if (!cell->present)
		snprintf(buf, len, "%s %s", label, d);
	else
		snprintf(buf, len, "%s %s (%s%s%s)", label, d, v,
			 *p ? ", " : "", p);
}

/* "  B vs A: rate +4.4% (better, p=0.003), ..." for each candidate. */
static void delta_lines(struct text *t, const struct delta_item *items,
			size_t n)
{
	const struct comparison *c = t->c;
	char lead[1200], item[160];
	size_t k, i;

	for (k = 0; k < c->nk; k++) {
		struct wrap w;

		if (k == c->baseline)
			continue;
		snprintf(lead, sizeof(lead), "  %s vs %s: ", t->id[k],
			 t->id[c->baseline]);
		wrap_begin(&w, t->sb, lead);
		for (i = 0; i < n; i++) {
			const struct cmp_metric *m =
				compare_find(c, items[i].metric);
			const struct cmp_cell *cell;

			if (!m || m->dir == DIR_NONE)
				continue;
			cell = &m->cells[k];
			if (!items[i].main && cell->verdict != V_BETTER &&
			    cell->verdict != V_WORSE)
				continue;
			delta_text(item, sizeof(item), items[i].label, cell);
			wrap_item(&w, item);
		}
		if (!w.n)
			wrap_item(&w, "no data");
		wrap_end(&w);
	}
}

/* ---- tiobench ----------------------------------------------------- */

static const struct cmp_cell *tio_cell(const struct comparison *c,
				       int phase, int col, size_t k)
{
	const struct cmp_metric *m = fmt_tio_metric(c, phase, col);

	return m && m->cells[k].present ? &m->cells[k] : NULL;
}

/* Column widths of tiobench.pl's row format, '%' included in CPU. */
static const int tio_width[TC_NCOLS] = { -6, 4, 5, 8, 7, 10, 12, 10, 9, 6 };

static void tio_row(struct text *t, int phase, size_t k, int w, int sd)
{
	char v[64];
	int col;

	if (sd)
		snprintf(v, sizeof(v), "  +-sd (n=%zu)", fmt_reps(t->c, k));
	sb_addf(t->sb, "%-*s", w, sd ? v : t->id[k]);
	for (col = 0; col < TC_NCOLS; col++) {
		const struct cmp_cell *cell = tio_cell(t->c, phase, col, k);
		int cw = tio_width[col];

		if (col == TC_CPU)
			sb_addc(t->sb, ' ');
		if (sd && col <= TC_THREADS)
			snprintf(v, sizeof(v), "%s", "");
		else if (!cell || (sd && cell->s.n < 2))
			snprintf(v, sizeof(v), "%s", "-");
		else
			fmt_tio_value(v, sizeof(v), col,
				      sd ? cell->s.stddev : cell->s.mean);
		sb_addf(t->sb, "%*s", col == TC_CPU ? cw - 1 : cw, v);
	}
	while (t->sb->len && t->sb->buf[t->sb->len - 1] == ' ')
		t->sb->buf[--t->sb->len] = '\0';
	sb_addc(t->sb, '\n');
}

static int tio_kernel_present(struct text *t, int phase, size_t k,
			      size_t *maxn)
{
	int col, any = 0;

	*maxn = 0;
	for (col = 0; col < TC_NCOLS; col++) {
		const struct cmp_cell *cell = tio_cell(t->c, phase, col, k);

		if (cell) {
			any = 1;
			if (cell->s.n > *maxn)
				*maxn = cell->s.n;
		}
	}
	return any;
}

static void text_tiobench(struct text *t, int phase)
{
	static const int order[] = { TC_RATE, TC_AVG_LAT, TC_MAX_LAT, TC_CPU,
				     TC_LAT_2S, TC_LAT_10S, TC_CPU_EFF };
	struct delta_item items[7];
	char names[7][96];
	int w = t->idw + 1 > TIO_IDENT_WIDTH ? t->idw + 1 : TIO_IDENT_WIDTH;
	size_t k, i, maxn;

	sb_addf(t->sb, "\n%s\n", tiobench_phases[phase].title);
	sb_addf(t->sb, "%*s%s\n", w, "", tio_head1);
	sb_addf(t->sb, "%-*s%s\n", w, "Identifier", tio_head2);
	for (i = 0; i + 2 < (size_t)w; i++)
		sb_addc(t->sb, '-');
	sb_addf(t->sb, " %s\n", tio_rule);
	for (k = 0; k < t->c->nk; k++) {
		if (!tio_kernel_present(t, phase, k, &maxn))
			continue;
		tio_row(t, phase, k, w, 0);
		if (maxn >= 2)
			tio_row(t, phase, k, w, 1);
	}
	for (i = 0; i < sizeof(order) / sizeof(*order); i++) {
		tiobench_metric(names[i], sizeof(names[i]), phase, order[i]);
		items[i].metric = names[i];
		items[i].label = tio_cols[order[i]].delta_name;
		items[i].main = tio_cols[order[i]].main;
	}
	delta_lines(t, items, i);
}

/* ---- dbench and read latency -------------------------------------- */

/* Mean of metric for kernel k, or 0 with *ok cleared. */
static double mean_of(const struct comparison *c, const char *metric,
		      size_t k, int *ok)
{
	const struct cmp_metric *m = compare_find(c, metric);

	if (!m || !m->cells[k].present) {
		*ok = 0;
		return 0;
	}
	*ok = 1;
	return m->cells[k].s.mean;
}

static int family_present(const struct comparison *c, const char *prefix)
{
	size_t i, len = strlen(prefix);

	for (i = 0; i < c->nm; i++)
		if (!strncmp(c->m[i].name, prefix, len) &&
		    fmt_metric_has_section(c->m[i].name))
			return 1;
	return 0;
}

static void dbench_line(struct text *t, size_t k)
{
	const struct comparison *c = t->c;
	double v, nb;
	int ok, oknb;

	v = mean_of(c, "dbench.throughput", k, &ok);
	nb = mean_of(c, "dbench.nb_throughput", k, &oknb);
	if (!ok && !oknb)
		return;
	sb_addf(t->sb, "%-*s  Throughput ", t->idw, t->id[k]);
	if (ok)
		sb_addf(t->sb, "%.3f MB/sec", v);
	else
		sb_addf(t->sb, "%.1f MB/sec", nb);
	if (oknb)
		sb_addf(t->sb, " (NB=%.1f MB/sec  %.1f MBit/sec)", nb, nb * 8);
	v = mean_of(c, "dbench.clients", k, &ok);
	if (ok)
		sb_addf(t->sb, "  %.0f clients", v);
	v = mean_of(c, "dbench.procs", k, &ok);
	if (ok)
		sb_addf(t->sb, "  %.0f procs", v);
	v = mean_of(c, "dbench.max_latency", k, &ok);
	if (ok)
		sb_addf(t->sb, "  max_latency=%.3f ms", v);
	sb_addc(t->sb, '\n');
}

static void text_dbench(struct text *t)
{
	static const struct delta_item items[] = {
		{ "dbench.throughput", "throughput", 1 },
		{ "dbench.nb_throughput", "nb throughput", 1 },
		{ "dbench.max_latency", "max latency", 1 },
	};
	size_t k;

	sb_adds(t->sb, "\ndbench\n");
	for (k = 0; k < t->c->nk; k++)
		dbench_line(t, k);
	delta_lines(t, items, sizeof(items) / sizeof(*items));
}

static void readlat_lines(struct text *t, size_t k)
{
	static const struct {
		const char *metric, *label;
		int prec, pct;
	} f[] = {
		{ "readlat.lat_min", "min", 2, 0 },
		{ "readlat.lat_avg", "avg", 1, 0 },
		{ "readlat.lat_max", "max", 1, 0 },
		{ "readlat.lat_2s", "> 2s", 2, 1 },
		{ "readlat.lat_10s", "> 10s", 2, 1 },
	};
	const struct comparison *c = t->c;
	double mb, rate, v;
	int okmb, okrate, ok, any = 0;
	size_t i;

	mb = mean_of(c, "readlat.read_mb", k, &okmb);
	rate = mean_of(c, "readlat.rate", k, &okrate);
	if (okmb || okrate) {
		sb_addf(t->sb, "%-*s  reads:", t->idw, t->id[k]);
		if (okmb)
			sb_addf(t->sb, " %.1f MB%s", mb, okrate ? "," : "");
		if (okrate)
			sb_addf(t->sb, " %.2f MB/s", rate);
		sb_addc(t->sb, '\n');
	}
	for (i = 0; i < sizeof(f) / sizeof(*f); i++) {
		v = mean_of(c, f[i].metric, k, &ok);
		if (!ok)
			continue;
		if (!any++)
			sb_addf(t->sb, "%-*s  read latency", t->idw, t->id[k]);
		sb_addf(t->sb, " %s %.*f%s", f[i].label, f[i].prec, v,
			f[i].pct ? "%" : "");
	}
	if (any)
		sb_addc(t->sb, '\n');
}

static void text_readlat(struct text *t)
{
	static const struct delta_item items[] = {
		{ "readlat.rate", "rate", 1 },
		{ "readlat.lat_avg", "avg lat", 1 },
		{ "readlat.lat_max", "max lat", 1 },
		{ "readlat.lat_min", "min lat", 0 },
		{ "readlat.lat_2s", "lat>2s", 0 },
		{ "readlat.lat_10s", "lat>10s", 0 },
		{ "readlat.read_mb", "read MB", 0 },
	};
	size_t k;

	sb_adds(t->sb, "\nRead latency\n");
	for (k = 0; k < t->c->nk; k++)
		readlat_lines(t, k);
	delta_lines(t, items, sizeof(items) / sizeof(*items));
}

/* ---- every other metric ------------------------------------------ */

struct gen {
	size_t *rows;		/* metric indices without a section */
	size_t nrows;
	int mw, uw, *vw;	/* metric, unit and per-kernel widths */
};

static int gen_widths(struct text *t, struct gen *g)
{
	const struct comparison *c = t->c;
	char v[64];
	size_t i, k;

	g->rows = calloc(c->nm + 1, sizeof(*g->rows));
	g->vw = calloc(c->nk + 1, sizeof(*g->vw));
	if (!g->rows || !g->vw)
		abort();
	g->nrows = 0;
	g->mw = 6;
	g->uw = 4;
	for (k = 0; k < c->nk; k++)
		g->vw[k] = (int)strlen(t->id[k]) > 7 ?
			(int)strlen(t->id[k]) : 7;
	for (i = 0; i < c->nm; i++) {
		if (fmt_metric_has_section(c->m[i].name))
			continue;
		g->rows[g->nrows++] = i;
		if ((int)strlen(c->m[i].name) > g->mw)
			g->mw = (int)strlen(c->m[i].name);
		if ((int)strlen(c->m[i].unit) > g->uw)
			g->uw = (int)strlen(c->m[i].unit);
		for (k = 0; k < c->nk; k++) {
			fmt_num(v, sizeof(v), c->m[i].cells[k].s.mean);
			if ((int)strlen(v) > g->vw[k])
				g->vw[k] = (int)strlen(v);
		}
	}
	return g->nrows > 0;
}

static void gen_rule(struct strbuf *sb, int w)
{
	if (sb->len && sb->buf[sb->len - 1] != '\n')
		sb_addc(sb, ' ');
	while (w-- > 0)
		sb_addc(sb, '-');
}

static void gen_head(struct text *t, struct gen *g, size_t from, size_t to)
{
	size_t b = t->c->baseline, k;

	sb_addf(t->sb, "%-*s %-*s %*s", g->mw, "metric", g->uw, "unit",
		g->vw[b], t->id[b]);
	for (k = from; k < to; k++)
		if (k != b)
			sb_addf(t->sb, " %*s %7s %-9s", g->vw[k], t->id[k],
				"delta", "verdict");
	while (t->sb->buf[t->sb->len - 1] == ' ')
		t->sb->buf[--t->sb->len] = '\0';
	sb_addc(t->sb, '\n');
	gen_rule(t->sb, g->mw);
	gen_rule(t->sb, g->uw);
	gen_rule(t->sb, g->vw[b]);
	for (k = from; k < to; k++) {
		if (k == b)
			continue;
		gen_rule(t->sb, g->vw[k]);
		gen_rule(t->sb, 7);
		gen_rule(t->sb, 9);
	}
	sb_addc(t->sb, '\n');
}

static void gen_cell(struct text *t, const struct cmp_cell *cell, int w,
		     int judged)
{
	char v[64], d[32], vd[16];

	if (!cell->present) {
		sb_addf(t->sb, " %*s", w, "-");
		if (judged)
			sb_addf(t->sb, " %7s %-9s", "", "-");
		return;
	}
	fmt_num(v, sizeof(v), cell->s.mean);
	sb_addf(t->sb, " %*s", w, v);
	if (!judged)
		return;
	fmt_delta(d, sizeof(d), cell);
	if (cell->verdict != V_NONE)
		snprintf(vd, sizeof(vd), "%s", cmp_verdict_name(cell->verdict));
	else
		snprintf(vd, sizeof(vd), "%s", cell->vd.note && !strcmp(
			 cell->vd.note, "n=1, no verdict") ? "n=1" : "-");
	sb_addf(t->sb, " %7s %-9s", d, vd);
}

static void gen_rows(struct text *t, struct gen *g, size_t from, size_t to)
{
	const struct comparison *c = t->c;
	char name[256], unit[64];
	size_t i, k;

	for (i = 0; i < g->nrows; i++) {
		const struct cmp_metric *m = &c->m[g->rows[i]];

		fmt_ascii(name, sizeof(name), m->name);
		fmt_ascii(unit, sizeof(unit), m->unit);
		sb_addf(t->sb, "%-*s %-*s", g->mw, name, g->uw, unit);
		gen_cell(t, &m->cells[c->baseline], g->vw[c->baseline], 0);
		for (k = from; k < to; k++)
			if (k != c->baseline)
				gen_cell(t, &m->cells[k], g->vw[k], 1);
		while (t->sb->buf[t->sb->len - 1] == ' ')
			t->sb->buf[--t->sb->len] = '\0';
		sb_addc(t->sb, '\n');
	}
}

/*
 * metric, unit, the baseline's mean, then value, delta and verdict of
 * each candidate; candidates that do not fit in REPORT_WIDTH go into a
 * further block that repeats the first three columns.
 */
static void text_generic(struct text *t)
{
	const struct comparison *c = t->c;
	struct gen g;
	size_t from = 0, k;
	int base_w, w;

	if (!gen_widths(t, &g))
		goto out_free;
	sb_addf(t->sb, "\nOther metrics (means; delta and verdict against "
		"%s)\n", t->id[c->baseline]);
	base_w = g.mw + 1 + g.uw + 1 + g.vw[c->baseline];
	while (from < c->nk) {
		if (from && from == c->baseline) {
			from++;
			continue;
		}
		w = base_w;
		for (k = from; k < c->nk; k++) {
			int cw = k == c->baseline ? 0 : g.vw[k] + 19;

			if (w + cw > REPORT_WIDTH && w > base_w)
				break;
			w += cw;
		}
		if (from)
			sb_addc(t->sb, '\n');
		gen_head(t, &g, from, k);
		gen_rows(t, &g, from, k);
		from = k;
	}
out_free:
	free(g.rows);
	free(g.vw);
}

/* ---- decided changes, LKP style ---------------------------------- */

/* "   41.20 +-  2%" : a mean and the cells' sd in % of it. */
static void lkp_side(struct strbuf *sb, const struct cmp_cell *cell)
{
	char v[64];

	fmt_num(v, sizeof(v), cell->s.mean);
	if (cell->s.n >= 2 && cell->s.mean != 0)
		sb_addf(sb, "%12s +-%3.0f%%", v, 100 * cell->s.cv);
	else
		sb_addf(sb, "%12s      ", v);
}

/*
 * For each candidate, its worse and better metrics as LKP prints them:
 * base mean +- sd%, %change, candidate mean +- sd%, metric, verdict; then
 * how many were same, undecided and without verdict.
 */
static void text_lkp(struct text *t)
{
	const struct comparison *c = t->c;
	char name[256];
	size_t k, i, rows;

	for (k = 0; k < c->nk; k++) {
		if (k == c->baseline)
			continue;
		sb_addf(t->sb, "\n%s vs %s: decided changes (cells: mean +-"
			"stddev%%)\n%17s %9s %17s  %s\n", t->id[k],
			t->id[c->baseline], "base", "%change", "candidate",
			"metric");
		for (i = rows = 0; i < c->nm; i++) {
			const struct cmp_metric *m = &c->m[i];
			const struct cmp_cell *cell = &m->cells[k];

			if (cell->verdict != V_WORSE &&
			    cell->verdict != V_BETTER)
				continue;
			lkp_side(t->sb, &m->cells[c->baseline]);
			sb_addf(t->sb, "  %+7.1f%%  ", cell->delta_pct);
			lkp_side(t->sb, cell);
			fmt_ascii(name, sizeof(name), m->name);
			sb_addf(t->sb, "  %s (%s%s)\n", name,
				cmp_verdict_name(cell->verdict),
				m->kind.klass == VC_HEADLINE ?
				", headline" : "");
			rows++;
		}
		if (!rows)
			sb_adds(t->sb, "  no metric decided worse or better\n");
	}
}

/* ---- entry -------------------------------------------------------- */

void report_text(struct strbuf *sb, const struct comparison *c)
{
	struct text t = { sb, c, NULL, 0 };
	char buf[512];
	size_t k;
	int p;

	t.id = calloc(c->nk ? c->nk : 1, sizeof(*t.id));
	if (!t.id)
		abort();
	for (k = 0; k < c->nk; k++) {
		fmt_ascii(buf, sizeof(buf), c->kernels[k]);
		t.id[k] = strdup(buf);
		if (!t.id[k])
			abort();
		if ((int)strlen(buf) > t.idw)
			t.idw = (int)strlen(buf);
	}
	text_header(&t);
	for (p = 0; p < TIO_NPHASES; p++)
		if (fmt_tio_phase_present(c, p))
			text_tiobench(&t, p);
	if (family_present(c, "dbench."))
		text_dbench(&t);
	if (family_present(c, "readlat."))
		text_readlat(&t);
	text_generic(&t);
	text_lkp(&t);
	text_summary(&t);
	for (k = 0; k < c->nk; k++)
		free(t.id[k]);
	free(t.id);
}
