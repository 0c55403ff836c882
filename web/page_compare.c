// SPDX-License-Identifier: MIT
/*
 * /compare: 2..N kernels side by side on one rig and suite.  As HTML: a
 * picker form (GET, so every comparison URL is a permalink), the tiobench
 * tables in tiobench.pl's layout with one row per kernel, dbench and
 * read-latency tables, a table of every other metric; values and deltas
 * against the baseline are coloured by verdict (judge/verdict.h: "worse",
 * "better", "same", "undecided", or "noverdict" with the reason), each
 * delta cell showing its 90% CI, verdict, n and threshold, p-values in
 * the hover title, and the rule stated in the header.  As text, CSV and
 * JSON it is the report of report.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_hist.h"
#include "format.h"
#include "page.h"
#include "report.h"

#define CMP_MAX_KERNELS 32

struct cmp_req {
	const char **v;		/* from query_all, owned */
	const char *k[CMP_MAX_KERNELS];
	size_t nk, base;
	const char *rig, *suite;	/* NULL: any */
	enum page_format f;
};

/* A 400 naming s: "<pre>'s'<post>". */
static int bad(struct web_response *r, struct query *q, const char *pre,
	       const char *s, const char *post)
{
	char v[200], msg[400];

	fmt_ascii(v, sizeof(v), s);
	snprintf(msg, sizeof(msg), "%s'%s'%s", pre, v, post);
	return web_error_page(r, q, 400, msg);
}

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/* 0, or the status of the error already in r. */
static int parse_req(struct query *q, struct cmp_req *cr,
		     struct web_response *r)
{
	const char *base;
	size_t n, i, j;

	memset(cr, 0, sizeof(*cr));
	if (page_format(q, PF_HTML | PF_TEXT | PF_CSV | PF_JSON, &cr->f, r))
		return r->status;
	n = query_all(q, "k", 1, &cr->v);
	for (i = 0; i < n; i++) {
		if (!*cr->v[i])
			continue;
		if (cr->nk == CMP_MAX_KERNELS)
			return web_error_page(r, q, 400, "too many kernels "
					      "to compare (at most 32)");
		for (j = 0; j < cr->nk; j++)
			if (!strcmp(cr->k[j], cr->v[i]))
				return bad(r, q, "kernel ", cr->v[i],
					   " named twice");
		cr->k[cr->nk++] = cr->v[i];
	}
	base = nonempty(query_get(q, "base"));
	for (i = 0; base && i < cr->nk; i++)
		if (!strcmp(cr->k[i], base))
			break;
	if (base && i == cr->nk && cr->nk)
		return bad(r, q, "baseline ", base,
			   " is not among the compared kernels");
	cr->base = base && cr->nk ? i : 0;
	cr->rig = nonempty(query_get(q, "rig"));
	cr->suite = nonempty(query_get(q, "suite"));
	return 0;
}

/* "k=A&k=B&base=A&rig=R&suite=S", URL-encoded. */
static void canonical(struct strbuf *sb, const struct cmp_req *cr)
{
	size_t i;

	for (i = 0; i < cr->nk; i++) {
		sb_adds(sb, i ? "&amp;k=" : "k=");
		sb_add_urlenc(sb, cr->k[i]);
	}
	if (cr->nk) {
		sb_adds(sb, "&amp;base=");
		sb_add_urlenc(sb, cr->k[cr->base]);
	}
	if (cr->rig) {
		sb_adds(sb, "&amp;rig=");
		sb_add_urlenc(sb, cr->rig);
	}
	if (cr->suite) {
		sb_adds(sb, "&amp;suite=");
		sb_add_urlenc(sb, cr->suite);
	}
}

/* ---- the picker form ---------------------------------------------- */

static int chosen(const struct cmp_req *cr, const char *k)
{
	size_t i;

	for (i = 0; i < cr->nk; i++)
		if (!strcmp(cr->k[i], k))
			return 1;
	return 0;
}

static void picker_kernels(struct strbuf *sb, struct db *db,
			   const struct cmp_req *cr)
{
	struct db_kernel *ks = NULL;
	size_t n = 0, i;

	if (db_kernel_list(db, &ks, &n))
		n = 0;
	sb_adds(sb, "<label>kernels<br><select name=\"k\" multiple "
		"size=\"8\">");
	for (i = 0; i < n; i++)
		page_option(sb, ks[i].ident, ks[i].ident,
			    chosen(cr, ks[i].ident));
	sb_adds(sb, "</select></label>\n<label>baseline<br>"
		"<select name=\"base\">");
	page_option(sb, "", "(first chosen)", 0);
	for (i = 0; i < n; i++)
		page_option(sb, ks[i].ident, ks[i].ident, cr->nk &&
		       !strcmp(cr->k[cr->base], ks[i].ident));
	sb_adds(sb, "</select></label>\n");
	db_kernels_free(ks, n);
}

/* Rig i is the first of a class named apart from its rigs (a pool). */
static int class_first(const struct db_rig *g, size_t i)
{
	size_t j;

	if (!g[i].klass || !*g[i].klass || !strcmp(g[i].klass, g[i].name))
		return 0;
	for (j = 0; j < i; j++)
		if (g[j].klass && !strcmp(g[j].klass, g[i].klass))
			return 0;
	return 1;
}

static void picker(struct strbuf *sb, struct db *db, const struct cmp_req *cr)
{
	struct db_rig *rigs = NULL;
	struct db_suite *suites = NULL;
	size_t nr = 0, ns = 0, i;

	sb_adds(sb, "<form class=\"picker\" method=\"get\" "
		"action=\"/compare\">\n");
	picker_kernels(sb, db, cr);
	if (db_rig_list(db, &rigs, &nr))
		nr = 0;
	if (db_suite_list(db, &suites, &ns))
		ns = 0;
	sb_adds(sb, "<label>rig<br><select name=\"rig\">");
	page_option(sb, "", "any", !cr->rig);
	for (i = 0; i < nr; i++)
		page_option(sb, rigs[i].name, rigs[i].name,
		       cr->rig && !strcmp(cr->rig, rigs[i].name));
	for (i = 0; i < nr; i++)	/* the classes: all their rigs */
		if (class_first(rigs, i))
			page_option(sb, rigs[i].klass, rigs[i].klass,
				    cr->rig && !strcmp(cr->rig, rigs[i].klass));
	sb_adds(sb, "</select></label>\n"
		"<label>suite<br><select name=\"suite\">");
	page_option(sb, "", "any", !cr->suite);
	for (i = 0; i < ns; i++)
		page_option(sb, suites[i].name, suites[i].name,
		       cr->suite && !strcmp(cr->suite, suites[i].name));
	sb_adds(sb, "</select></label>\n<button type=\"submit\">compare"
		"</button>\n</form>\n");
	db_rigs_free(rigs, nr);
	db_suites_free(suites, ns);
}

/* ---- cells -------------------------------------------------------- */

static void hist_href(struct strbuf *sb, const struct comparison *c,
		      const char *metric)
{
	sb_adds(sb, "/history?metric=");
	sb_add_urlenc(sb, metric);
	if (c->rig) {
		sb_adds(sb, "&amp;rig=");
		sb_add_urlenc(sb, c->rig);
	}
	if (c->suite) {
		sb_adds(sb, "&amp;suite=");
		sb_add_urlenc(sb, c->suite);
	}
}

/* Hover text: n, sd, delta with CI, p, corrected p, threshold, verdict. */
static void cell_title(struct strbuf *sb, const struct comparison *c,
		       const struct cmp_cell *cell, size_t k)
{
	char sd[32], wsd[32], d[32], p[32], ci[64], v[64];

	fmt_num(sd, sizeof(sd), cell->s.stddev);
	sb_addf(sb, " title=\"n=%zu cells (%zu values), sd %s", cell->s.n,
		cell->nvalues, sd);
	if (cell->within_df) {
		fmt_num(wsd, sizeof(wsd), cell->within_sd);
		sb_addf(sb, " between cells, %s within a boot (df %zu)", wsd,
			cell->within_df);
	}
	if (k != c->baseline) {
		fmt_delta(d, sizeof(d), cell);
		fmt_p(p, sizeof(p), cell);
		fmt_ci(ci, sizeof(ci), cell);
		fmt_verdict(v, sizeof(v), cell);
		sb_addf(sb, "; %s %s vs ", d, ci);
		sb_add_html(sb, c->kernels[c->baseline]);
		if (*p) {
			sb_adds(sb, ", ");
			sb_add_html(sb, p);
			sb_addf(sb, ", corrected p=%.3g, threshold +-%.1f%%, "
				"test %s", cell->vd.p_adj,
				cell->vd.threshold_pct, cell->vd.analysis);
		}
		sb_adds(sb, "; ");
		sb_add_html(sb, v);
	}
	sb_adds(sb, "\"");
}

static const char *cell_class(const struct comparison *c,
			      const struct cmp_metric *m, size_t k)
{
	const struct cmp_cell *cell = &m->cells[k];

	if (k == c->baseline || m->dir == DIR_NONE)
		return "";
	switch (cell->verdict) {
	case V_BETTER: return " better";
	case V_WORSE: return " worse";
	case V_SAME: return " same";
	case V_UNDECIDED: return " undecided";
	default: return cell->present ? " noverdict" : "";
	}
}

/* A value cell; col >= 0 formats as that tiobench column. */
static void td_value(struct strbuf *sb, const struct comparison *c,
		     const struct cmp_metric *m, size_t k, int col)
{
	char v[64];

	if (!m || !m->cells[k].present) {
		sb_adds(sb, "<td class=\"num\">-</td>");
		return;
	}
	if (col >= 0)
		fmt_tio_value(v, sizeof(v), col, m->cells[k].s.mean);
	else
		fmt_num(v, sizeof(v), m->cells[k].s.mean);
	sb_addf(sb, "<td class=\"num%s\"", cell_class(c, m, k));
	cell_title(sb, c, &m->cells[k], k);
	sb_addf(sb, ">%s</td>", v);
}

/*
 * The delta-% cell of kernel k against the baseline: the change, its 90%
 * CI, the verdict, n (candidate/baseline cells) and the threshold.
 */
static void td_delta(struct strbuf *sb, const struct comparison *c,
		     const struct cmp_metric *m, size_t k)
{
	const struct cmp_cell *cell;
	char d[32], ci[64], v[64];

	if (k == c->baseline) {
		sb_adds(sb, "<td class=\"num\">base</td>");
		return;
	}
	if (!m || !m->cells[k].present || !m->cells[c->baseline].present) {
		sb_adds(sb, "<td class=\"num\">-</td>");
		return;
	}
	cell = &m->cells[k];
	fmt_delta(d, sizeof(d), cell);
	fmt_ci(ci, sizeof(ci), cell);
	fmt_verdict(v, sizeof(v), cell);
	sb_addf(sb, "<td class=\"num delta%s\"", cell_class(c, m, k));
	cell_title(sb, c, cell, k);
	sb_addf(sb, ">%s", d);
	if (*ci)
		sb_addf(sb, "<br><small class=\"ci\">%s</small>", ci);
	sb_adds(sb, "<br><small class=\"vd\">");
	sb_add_html(sb, v);
	sb_addf(sb, "</small><br><small class=\"n\">n=%zu/%zu",
		cell->s.n, m->cells[c->baseline].s.n);
	if (cell->vd.tested)
		sb_addf(sb, " &plusmn;%.1f%%", cell->vd.threshold_pct);
	/* the analysis, when not the plain Welch test */
	if (cell->vd.tested && strcmp(cell->vd.analysis, "welch"))
		sb_addf(sb, " <span class=\"an\">%s</span>",
			!strcmp(cell->vd.analysis, "paired") ? "paired" :
			!strncmp(cell->vd.analysis, "stratified", 10) ?
			"by rig" : "ranks");
	sb_adds(sb, "</small></td>");
}

static void td_kernel(struct strbuf *sb, const struct comparison *c,
		      size_t k)
{
	sb_adds(sb, "<td class=\"id\">");
	page_link(sb, "/kernels/", c->kernels[k], c->kernels[k]);
	sb_adds(sb, "</td>");
}

/* ---- section tables: tiobench, dbench, read latency --------------- */

struct col {
	char metric[96];
	const char *head;	/* HTML-safe constant */
	int tio;		/* tiobench column, -1: fmt_num */
};

struct section {
	const char *cls, *caption;
	struct col cols[TC_NCOLS];
	size_t ncols;
	struct col deltas[4];
	size_t nd;
};

static int row_present(const struct comparison *c, const struct section *s,
		       size_t k)
{
	size_t i;

	for (i = 0; i < s->ncols; i++) {
		const struct cmp_metric *m = compare_find(c, s->cols[i].metric);

		if (m && m->cells[k].present)
			return 1;
	}
	return 0;
}

static void section_head(struct strbuf *sb, const struct comparison *c,
			 const struct section *s)
{
	size_t i;

	sb_addf(sb, "<table class=\"%s\"><caption>%s</caption>\n<thead><tr>"
		"<th>Identifier</th>", s->cls, s->caption);
	for (i = 0; i < s->ncols; i++) {
		sb_adds(sb, "<th class=\"num\"><a href=\"");
		hist_href(sb, c, s->cols[i].metric);
		sb_addf(sb, "\" title=\"history\">%s</a></th>",
			s->cols[i].head);
	}
	for (i = 0; i < s->nd; i++)
		sb_addf(sb, "<th class=\"num\">%s<br>&Delta;%%</th>",
			s->deltas[i].head);
	sb_adds(sb, "</tr></thead>\n<tbody>\n");
}

static void section_table(struct strbuf *sb, const struct comparison *c,
			  const struct section *s)
{
	size_t k, i;

	section_head(sb, c, s);
	for (k = 0; k < c->nk; k++) {
		if (!row_present(c, s, k))
			continue;
		sb_addf(sb, "<tr%s>",
			k == c->baseline ? " class=\"base\"" : "");
		td_kernel(sb, c, k);
		for (i = 0; i < s->ncols; i++)
			td_value(sb, c, compare_find(c, s->cols[i].metric), k,
				 s->cols[i].tio);
		for (i = 0; i < s->nd; i++)
			td_delta(sb, c, compare_find(c, s->deltas[i].metric),
				 k);
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</tbody></table>\n");
}

static void add_col(struct col *v, size_t *n, const char *metric,
		    const char *head, int tio)
{
	snprintf(v[*n].metric, sizeof(v[*n].metric), "%s", metric);
	v[*n].head = head;
	v[*n].tio = tio;
	(*n)++;
}

static void html_tiobench(struct strbuf *sb, const struct comparison *c,
			  int phase)
{
	static const char *const heads[TC_NCOLS] = {
		"File<br>Size", "Blk<br>Size", "Num<br>Thr", "Rate",
		"(CPU%)", "Avg<br>Latency", "Maximum<br>Latency",
		"Lat%<br>&gt;2s", "Lat%<br>&gt;10s", "CPU<br>Eff",
	};
	static const int dcols[] = { TC_RATE, TC_AVG_LAT, TC_MAX_LAT, TC_CPU };
	static const char *const dheads[] = { "Rate", "Avg Lat", "Max Lat",
					      "CPU" };
	struct section s = { .cls = "tiobench",
			     .caption = tiobench_phases[phase].title };
	char name[96];
	int col;
	size_t i;

	for (col = 0; col < TC_NCOLS; col++) {
		tiobench_metric(name, sizeof(name), phase, col);
		add_col(s.cols, &s.ncols, name, heads[col], col);
	}
	for (i = 0; i < 4; i++) {
		tiobench_metric(name, sizeof(name), phase, dcols[i]);
		add_col(s.deltas, &s.nd, name, dheads[i], -1);
	}
	section_table(sb, c, &s);
}

/* Keep only the columns some kernel has a value for. */
static void prune(const struct comparison *c, struct col *v, size_t *n)
{
	size_t i, j = 0;

	for (i = 0; i < *n; i++)
		if (compare_find(c, v[i].metric))
			v[j++] = v[i];
	*n = j;
}

static void html_dbench(struct strbuf *sb, const struct comparison *c)
{
	struct section s = { .cls = "dbench", .caption = "dbench" };

	add_col(s.cols, &s.ncols, "dbench.throughput", "Throughput<br>MB/sec",
		-1);
	add_col(s.cols, &s.ncols, "dbench.nb_throughput", "NB<br>MB/sec", -1);
	add_col(s.cols, &s.ncols, "dbench.clients", "clients", -1);
	add_col(s.cols, &s.ncols, "dbench.procs", "procs", -1);
	add_col(s.cols, &s.ncols, "dbench.max_latency", "max_latency<br>ms",
		-1);
	add_col(s.deltas, &s.nd, "dbench.throughput", "Throughput", -1);
	add_col(s.deltas, &s.nd, "dbench.nb_throughput", "NB", -1);
	add_col(s.deltas, &s.nd, "dbench.max_latency", "Max Lat", -1);
	prune(c, s.cols, &s.ncols);
	prune(c, s.deltas, &s.nd);
	section_table(sb, c, &s);
}

static void html_readlat(struct strbuf *sb, const struct comparison *c)
{
	struct section s = { .cls = "readlat",
			     .caption = "Read latency" };

	add_col(s.cols, &s.ncols, "readlat.read_mb", "reads<br>MB", -1);
	add_col(s.cols, &s.ncols, "readlat.rate", "rate<br>MB/s", -1);
	add_col(s.cols, &s.ncols, "readlat.lat_min", "latency<br>min", -1);
	add_col(s.cols, &s.ncols, "readlat.lat_avg", "latency<br>avg", -1);
	add_col(s.cols, &s.ncols, "readlat.lat_max", "latency<br>max", -1);
	add_col(s.cols, &s.ncols, "readlat.lat_2s", "&gt; 2s<br>%", -1);
	add_col(s.cols, &s.ncols, "readlat.lat_10s", "&gt; 10s<br>%", -1);
	add_col(s.deltas, &s.nd, "readlat.rate", "Rate", -1);
	add_col(s.deltas, &s.nd, "readlat.lat_avg", "Avg Lat", -1);
	add_col(s.deltas, &s.nd, "readlat.lat_max", "Max Lat", -1);
	prune(c, s.cols, &s.ncols);
	prune(c, s.deltas, &s.nd);
	section_table(sb, c, &s);
}

/* ---- every other metric ------------------------------------------- */

static void html_generic(struct strbuf *sb, const struct comparison *c)
{
	size_t i, k, shown = 0;

	for (i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];

		if (fmt_metric_has_section(m->name))
			continue;
		if (!shown++) {
			sb_adds(sb, "<table class=\"metrics\"><caption>Other "
				"metrics</caption>\n<thead><tr><th>metric</th>"
				"<th>unit</th>");
			for (k = 0; k < c->nk; k++) {
				sb_adds(sb, "<th class=\"num\">");
				sb_add_html(sb, c->kernels[k]);
				sb_adds(sb, "</th>");
			}
			for (k = 0; k < c->nk; k++) {
				if (k == c->baseline)
					continue;
				sb_adds(sb, "<th class=\"num\">&Delta;% ");
				sb_add_html(sb, c->kernels[k]);
				sb_adds(sb, "</th>");
			}
			sb_adds(sb, "</tr></thead>\n<tbody>\n");
		}
		sb_adds(sb, "<tr><td><a href=\"");
		hist_href(sb, c, m->name);
		sb_adds(sb, "\">");
		sb_add_html(sb, m->name);
		sb_adds(sb, "</a></td><td>");
		sb_add_html(sb, m->unit);
		sb_adds(sb, "</td>");
		for (k = 0; k < c->nk; k++)
			td_value(sb, c, m, k, -1);
		for (k = 0; k < c->nk; k++)
			if (k != c->baseline)
				td_delta(sb, c, m, k);
		sb_adds(sb, "</tr>\n");
	}
	if (shown)
		sb_adds(sb, "</tbody></table>\n");
}

/* ---- the page ----------------------------------------------------- */

static void html_meta(struct strbuf *sb, const struct comparison *c,
		      const struct cmp_req *cr)
{
	static const char *const fmts[] = { "text", "csv", "json" };
	char rule[900];
	size_t k, i;

	sb_adds(sb, "<p>");
	for (k = 0; k < c->nk; k++) {
		sb_adds(sb, k ? ", " : "");
		page_link(sb, "/kernels/", c->kernels[k], c->kernels[k]);
		sb_addf(sb, " (%zu cell%s%s)", fmt_reps(c, k),
			fmt_reps(c, k) == 1 ? "" : "s",
			k == c->baseline ? ", baseline" : "");
	}
	sb_adds(sb, "<br>rig: ");
	sb_add_html(sb, c->rig ? c->rig : "any");
	sb_adds(sb, ", suite: ");
	sb_add_html(sb, c->suite ? c->suite : "any");
	if (c->config) {
		sb_adds(sb, ", configuration: ");
		sb_add_html(sb, c->config);
	}
	if (c->rigconf_hash) {	/* the one rig configuration entered */
		sb_adds(sb, "<br>rig configuration: ");
		sb_add_html(sb, *c->rigconf_hash ? c->rigconf_hash :
			    "not recorded");
		sb_adds(sb, " <small>");
		sb_add_html(sb, c->rigconf);
		sb_adds(sb, "</small>");
		if (c->rigconf_left_out)
			sb_addf(sb, " (%zu runs stored before rig "
				"configurations were recorded are left out: "
				"rigconf=none shows them)",
				c->rigconf_left_out);
	}
	sb_adds(sb, "</p>\n<p><a class=\"permalink\" href=\"/compare?");
	canonical(sb, cr);
	sb_adds(sb, "\">permalink</a>");
	for (i = 0; i < 3; i++) {
		sb_adds(sb, " &middot; <a href=\"/compare?");
		canonical(sb, cr);
		sb_addf(sb, "&amp;format=%s\">%s</a>", fmts[i], fmts[i]);
	}
	vd_rule_sentence(&c->pol, rule, sizeof(rule));
	sb_adds(sb, "</p>\n<p class=\"note rule\">");
	sb_add_html(sb, rule);
	sb_adds(sb, " Each &Delta; cell shows the change, its 90% confidence "
		"interval, the verdict, n (candidate/baseline cells) and "
		"&plusmn;threshold; hover for p-values.</p>\n");
}

void page_compare_tables(struct strbuf *sb, const struct comparison *c)
{
	struct fmt_counts n;
	int p;

	for (p = 0; p < TIO_NPHASES; p++)
		if (fmt_tio_phase_present(c, p))
			html_tiobench(sb, c, p);
	if (compare_find(c, "dbench.throughput") ||
	    compare_find(c, "dbench.nb_throughput"))
		html_dbench(sb, c);
	if (compare_find(c, "readlat.rate") ||
	    compare_find(c, "readlat.lat_avg"))
		html_readlat(sb, c);
	html_generic(sb, c);
	fmt_count(c, &n);
	if (!c->nm)
		sb_adds(sb, "<p>No results for these kernels on this rig and "
			"suite.</p>\n");
	sb_addf(sb, "<p class=\"summary\"><span class=\"worse\">%zu metric%s "
		"worse</span> (%zu headline), <span class=\"better\">%zu "
		"better</span>, %zu same, %zu undecided, %zu without "
		"verdict.</p>\n", n.worse, n.worse == 1 ? "" : "s",
		n.headline_worse, n.better, n.same, n.undecided, n.none);
}

static void html_compare(struct strbuf *sb, const struct comparison *c,
			 const struct cmp_req *cr)
{
	html_meta(sb, c, cr);
	page_compare_tables(sb, c);
}

static int compare_out(struct db *db, struct query *q, struct cmp_req *cr,
		       struct web_response *r)
{
	struct comparison c;
	struct cmp_opts o;
	char err[700] = "";
	json_t *doc;
	int rc;

	rc = cmp_opts_from_query(&o, q, err, sizeof(err));
	if (!rc)
		rc = compare_build(db, cr->k, cr->nk, cr->base, cr->rig,
				   cr->suite, &o, &c, err, sizeof(err));
	if (rc)
		return page_db_error(r, q, rc, err);
	sb_reset(&r->body);
	switch (cr->f) {
	case PF_TEXT:
		report_text(&r->body, &c);
		rc = page_ok(r, CT_TEXT);
		break;
	case PF_CSV:
		report_csv(&r->body, &c);
		rc = page_ok(r, CT_CSV);
		break;
	case PF_JSON:
		doc = report_json(&c);
		if (query_get(q, "hist") && !strcmp(query_get(q, "hist"), "1"))
			json_object_set_new(doc, "hist",
					    compare_hist_json(db, &c));
		rc = page_json(r, doc);
		break;
	default:
		page_begin(&r->body, "Compare", "compare");
		sb_adds(&r->body, "<h1>Compare</h1>\n");
		picker(&r->body, db, cr);
		html_compare(&r->body, &c, cr);
		compare_hist_html(&r->body, db, &c);
		page_end(&r->body);
		rc = page_ok(r, CT_HTML);
	}
	compare_release(&c);
	return rc;
}

int web_compare(struct db *db, struct query *q, const char *arg,
		struct web_response *r)
{
	struct cmp_req cr;
	int rc;

	if (parse_req(q, &cr, r)) {
		rc = r->status;
		goto out_free;
	}
	if (cr.nk >= 2) {
		rc = compare_out(db, q, &cr, r);
		goto out_free;
	}
	if (cr.f != PF_HTML) {
		rc = web_error_page(r, q, 400, "compare needs at least 2 "
				    "kernels (k=A&k=B)");
		goto out_free;
	}
	sb_reset(&r->body);
	page_begin(&r->body, "Compare", "compare");
	sb_adds(&r->body, "<h1>Compare</h1>\n<p>Pick two or more kernels, "
		"a baseline, a rig and a suite.</p>\n");
	picker(&r->body, db, &cr);
	page_end(&r->body);
	rc = page_ok(r, CT_HTML);
out_free:
	free(cr.v);
	return rc;
}
