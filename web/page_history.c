// SPDX-License-Identifier: MIT
/*
 * /history: one metric across kernels and time.  An SVG chart drawn by
 * chart.c (x = run order, grouped by kernel by default with the kernel
 * names under the axis, or plain time order with ?order=time; one colour
 * per kernel, hover titles), the values in a table under it, and the same
 * points as CSV or JSON.  With a rig and a suite chosen, the change
 * points found on that history (db/changepoints.h) are marked on the
 * chart and listed in a table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "db/changepoints.h"
#include "format.h"
#include "page.h"

struct hist {
	const char *metric, *rig, *suite;
	long limit;
	int by_kernel;
	enum page_format f;
	struct db_sample *s;
	size_t n;
	size_t *order;		/* display order of s */
	size_t *group;		/* kernel group of each s */
	const char **kernels;	/* group names, first appearance */
	size_t ng;
	struct db_changepoint *cp;	/* change points, rig and suite set */
	size_t ncp;
};

/* A point's value and time, formatted once for the chart and the table. */
struct hfmt {
	char v[24], t[24];
};

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/* FNV-1a of a kernel name, to group points by kernel. */
static size_t name_hash(const char *s)
{
	size_t x = 2166136261u;

	while (*s)
		x = (x ^ (unsigned char)*s++) * 16777619u;
	return x;
}

/*
 * The group of kernel k, a new one at its first appearance.  slot is an
 * open-addressing table (mask + 1 slots, a power of two above twice the
 * points) holding group + 1, 0 when empty: a linear search over the
 * groups costs points x kernels string compares (10k points of 100
 * kernels: half a million).
 */
static size_t group_of(struct hist *h, size_t *slot, size_t mask,
		       const char *k)
{
	size_t i = name_hash(k) & mask;

	while (slot[i] && strcmp(h->kernels[slot[i] - 1], k))
		i = (i + 1) & mask;
	if (!slot[i]) {
		h->kernels[h->ng] = k;
		slot[i] = ++h->ng;
	}
	return slot[i] - 1;
}

/* Group samples by kernel (first appearance), then order them. */
static void hist_order(struct hist *h)
{
	size_t i, g, pos = 0, *count, *slot, mask = 15;

	while (mask < 2 * h->n)
		mask = mask * 2 + 1;
	h->order = calloc(h->n + 1, sizeof(*h->order));
	h->group = calloc(h->n + 1, sizeof(*h->group));
	h->kernels = calloc(h->n + 1, sizeof(*h->kernels));
	count = calloc(h->n + 1, sizeof(*count));
	slot = calloc(mask + 1, sizeof(*slot));
	if (!h->order || !h->group || !h->kernels || !count || !slot)
		abort();
	for (i = 0; i < h->n; i++) {
		if (i && !strcmp(h->s[i].kernel, h->kernels[h->group[i - 1]]))
			g = h->group[i - 1];
		else
			g = group_of(h, slot, mask, h->s[i].kernel);
		h->group[i] = g;
		count[g]++;
	}
	free(slot);
	if (!h->by_kernel) {
		for (i = 0; i < h->n; i++)
			h->order[i] = i;
		free(count);
		return;
	}
	for (g = 0; g < h->ng; g++) {	/* counts -> start offsets */
		size_t c = count[g];

		count[g] = pos;
		pos += c;
	}
	for (i = 0; i < h->n; i++)
		h->order[count[h->group[i]]++] = i;
	free(count);
}

static void hist_release(struct hist *h)
{
	db_changepoints_free(h->cp, h->ncp);
	db_samples_free(h->s, h->n);
	free(h->order);
	free(h->group);
	free(h->kernels);
}

/* ---- data formats ------------------------------------------------- */

static void hist_csv(struct strbuf *sb, const struct hist *h)
{
	size_t i;

	sb_adds(sb, "kernel,run,repetition,time,value,unit\n");
	for (i = 0; i < h->n; i++) {
		const struct db_sample *s = &h->s[h->order[i]];

		sb_add_csv(sb, s->kernel);
		sb_addf(sb, ",%lld,%d,%lld,%.10g,", (long long)s->run_id,
			s->repetition, (long long)s->time, s->value);
		sb_add_csv(sb, s->unit);
		sb_addc(sb, '\n');
	}
}

static json_t *hist_json(const struct hist *h)
{
	json_t *o = json_object(), *pts = json_array();
	size_t i;

	json_object_set_new(o, "metric", page_jstr(h->metric));
	json_object_set_new(o, "unit", page_jstr(h->n ? h->s[0].unit : ""));
	json_object_set_new(o, "direction", json_string(metric_dir_name(
				    h->n ? h->s[0].dir : DIR_NONE)));
	json_object_set_new(o, "rig", page_jstr(h->rig));
	json_object_set_new(o, "suite", page_jstr(h->suite));
	for (i = 0; i < h->n; i++) {
		const struct db_sample *s = &h->s[h->order[i]];

		json_array_append_new(pts, json_pack(
			"{s:o, s:I, s:i, s:I, s:f}",
			"kernel", page_jstr(s->kernel),
			"run", (json_int_t)s->run_id,
			"repetition", s->repetition,
			"time", (json_int_t)s->time,
			"value", s->value));
	}
	json_object_set_new(o, "points", pts);
	return o;
}

/* ---- HTML --------------------------------------------------------- */

/* Append n in decimal without printf: two of these per point. */
static void add_i64(struct strbuf *sb, long long n)
{
	char buf[24], *p = buf + sizeof(buf);
	unsigned long long u = n < 0 ? 0ULL - (unsigned long long)n
				     : (unsigned long long)n;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (n < 0)
		*--p = '-';
	sb_add(sb, p, (size_t)(buf + sizeof(buf) - p));
}

/* Hover titles of every point in one buffer: off[i] is tip i. */
static void tips_build(struct strbuf *sb, size_t *off, const struct hist *h,
		       const struct hfmt *hf)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		const struct db_sample *s = &h->s[h->order[i]];

		/* "K: V U (run R, repetition N, T)", without printf */
		off[i] = sb->len;
		sb_adds(sb, s->kernel);
		sb_adds(sb, ": ");
		sb_adds(sb, hf[i].v);
		sb_addc(sb, ' ');
		sb_adds(sb, s->unit);
		sb_adds(sb, " (run ");
		add_i64(sb, s->run_id);
		sb_adds(sb, ", repetition ");
		add_i64(sb, s->repetition);
		sb_adds(sb, ", ");
		sb_adds(sb, hf[i].t);
		sb_adds(sb, ")");
		sb_addc(sb, '\0');
	}
}

/* Display position of the first point of run, or -1 when not shown. */
static long run_pos(const struct hist *h, int64_t run)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (h->s[h->order[i]].run_id == run)
			return (long)i;
	return -1;
}

static const char *conf_of(const struct hist *h, size_t i)
{
	const char *c = h->s[h->order[i]].rigconf;

	return c && *c ? c : "none recorded";
}

/* Display positions i (> 0) whose rig configuration is not i - 1's. */
static int conf_change(const struct hist *h, size_t i)
{
	return i > 0 && strcmp(conf_of(h, i - 1), conf_of(h, i));
}

/*
 * A chart mark between the last point before each change point and the
 * first after it, and one between two points whose rig configurations
 * differ (change points are searched per configuration, so a step there
 * is the rig's, never a kernel's); labels and tips go into tips (the
 * marks point into it: keep it until they are drawn).  NULL when none.
 */
static struct chart_mark *hist_marks(const struct hist *h, size_t *n,
				     struct strbuf *tips)
{
	struct chart_mark *m = NULL;
	size_t i, *off, nconf = 0;
	long pos;

	*n = 0;
	for (i = 1; i < h->n; i++)
		nconf += (size_t)conf_change(h, i);
	if (!h->ncp && !nconf)
		return NULL;
	m = calloc(h->ncp + nconf, sizeof(*m));
	off = calloc(2 * (h->ncp + nconf), sizeof(*off));
	if (!m || !off)
		abort();
	for (i = 1; i < h->n; i++) {
		if (!conf_change(h, i))
			continue;
		m[*n].x = (double)i + 0.5;
		m[*n].kind = CHART_MARK_CONFIG;
		off[2 * *n] = tips->len;
		sb_addf(tips, "rig%c", '\0');
		off[2 * *n + 1] = tips->len;
		sb_addf(tips, "rig configuration changed: %s -> %s%c",
			conf_of(h, i - 1), conf_of(h, i), '\0');
		(*n)++;
	}
	for (i = 0; i < h->ncp; i++) {
		const struct db_changepoint *c = &h->cp[i];

		pos = run_pos(h, c->run_after);
		if (pos < 0)
			continue;
		m[*n].x = (double)pos + 0.5;
		off[2 * *n] = tips->len;
		sb_addf(tips, "%+.1f%%%c", c->size_pct, '\0');
		off[2 * *n + 1] = tips->len;
		sb_addf(tips, "change point: %s -> %s, %+.1f%%, p %.3g%c",
			c->kernel_before, c->kernel_after, c->size_pct,
			c->p_value, '\0');
		(*n)++;
	}
	for (i = 0; i < *n; i++) {	/* tips is final now: point into it */
		m[i].label = tips->buf + off[2 * i];
		m[i].tip = tips->buf + off[2 * i + 1];
	}
	free(off);
	return m;
}

static void hist_chart(struct strbuf *sb, const struct hist *h,
		       const struct hfmt *hf)
{
	struct chart_series *se = calloc(h->ng + 1, sizeof(*se));
	struct chart_point *pts = calloc(h->n + 1, sizeof(*pts));
	struct chart_label *xl = calloc(h->n + 1, sizeof(*xl));
	size_t *off = calloc(h->n + 1, sizeof(*off));
	size_t *start = calloc(h->ng + 1, sizeof(*start));
	struct strbuf tips = STRBUF_INIT, mtips = STRBUF_INIT;
	struct chart c = { 0 };
	size_t i, g, nxl = 0;

	if (!se || !pts || !xl || !off || !start)
		abort();
	sb_init(&tips);
	tips_build(&tips, off, h, hf);
	for (i = 0; i < h->n; i++)	/* slice of each kernel in pts */
		start[h->group[i] + 1]++;
	for (g = 0; g < h->ng; g++) {
		start[g + 1] += start[g];
		se[g].name = h->kernels[g];
		se[g].pts = pts + start[g];
	}
	for (i = 0; i < h->n; i++) {
		size_t j = h->order[i];
		struct chart_point *p;

		g = h->group[j];
		p = &pts[start[g] + se[g].n++];
		p->x = (double)(i + 1);
		p->y = h->s[j].value;
		p->tip = tips.buf + off[i];
		if (!i || h->group[h->order[i - 1]] != g) {
			xl[nxl].x = p->x;
			xl[nxl++].text = h->kernels[g];
		}
	}
	c.title = h->metric;
	c.ylabel = h->n ? h->s[0].unit : NULL;
	c.series = se;
	c.ns = h->ng;
	c.xlabels = xl;
	c.nxl = nxl;
	c.lines = 1;
	sb_init(&mtips);
	c.marks = hist_marks(h, &c.nmarks, &mtips);
	chart_svg(sb, &c);
	free((void *)c.marks);
	sb_release(&mtips);
	sb_release(&tips);
	free(start);
	free(off);
	free(xl);
	free(pts);
	free(se);
}

/* The change points of the history: kernels either side, size, p. */
static void hist_cp_table(struct strbuf *sb, const struct hist *h)
{
	char t[24];
	size_t i;

	if (!h->rig || !h->suite)
		return;
	sb_addf(sb, "<h3>Change points</h3>\n<p class=\"note\">%zu found "
		"(e-divisive means, permutation test; see VERDICTS.md).</p>\n",
		h->ncp);
	if (!h->ncp)
		return;
	sb_adds(sb, "<table class=\"changepoints\"><thead><tr><th>before</th>"
		"<th>after</th><th class=\"num\">mean before</th>"
		"<th class=\"num\">mean after</th><th class=\"num\">size</th>"
		"<th class=\"num\">p</th><th class=\"num\">confidence</th>"
		"<th>first seen (UTC)</th><th></th></tr></thead>\n<tbody>\n");
	for (i = 0; i < h->ncp; i++) {
		const struct db_changepoint *c = &h->cp[i];

		sb_adds(sb, "<tr><td>");
		page_link(sb, "/kernels/", c->kernel_before, c->kernel_before);
		sb_adds(sb, "</td><td>");
		page_link(sb, "/kernels/", c->kernel_after, c->kernel_after);
		page_time(t, sizeof(t), c->first_seen);
		sb_addf(sb, "</td><td class=\"num\">%.6g</td><td class=\"num\">"
			"%.6g</td><td class=\"num\">%+.1f%%</td><td "
			"class=\"num\">%.3g</td><td class=\"num\">%.1f%%</td>"
			"<td>%s</td><td>", c->mean_before, c->mean_after,
			c->size_pct, c->p_value, 100 * (1 - c->p_value), t);
		/* which release? (a Debian line; the form checks the rest) */
		sb_adds(sb, "<a href=\"/bisections/new?kind=debian&amp;rig=");
		sb_add_urlenc(sb, c->rig);
		sb_adds(sb, "&amp;suite=");
		sb_add_urlenc(sb, c->suite);
		sb_adds(sb, "&amp;metric=");
		sb_add_urlenc(sb, c->metric);
		sb_adds(sb, "&amp;good=");
		sb_add_urlenc(sb, c->kernel_before);
		sb_adds(sb, "&amp;bad=");
		sb_add_urlenc(sb, c->kernel_after);
		sb_adds(sb, "\">bisect</a>");
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</tbody></table>\n");
}

/* A 10k-row table is read by nobody and costs most of the page. */
#define HIST_TABLE_ROWS 1000

static void hist_table(struct strbuf *sb, const struct hist *h,
		       const struct hfmt *hf)
{
	size_t i = h->n > HIST_TABLE_ROWS ? h->n - HIST_TABLE_ROWS : 0;

	if (i)
		sb_addf(sb, "<p class=\"note\">The table shows the last %d of "
			"%zu values; the CSV and JSON forms have all of them."
			"</p>\n", HIST_TABLE_ROWS, h->n);
	sb_adds(sb, "<table class=\"history\"><thead><tr><th>kernel</th>"
		"<th>run</th><th>repetition</th><th>time (UTC)</th>"
		"<th class=\"num\">value</th></tr></thead>\n<tbody>\n");
	for (; i < h->n; i++) {
		const struct db_sample *s = &h->s[h->order[i]];

		sb_adds(sb, "<tr><td>");
		page_link(sb, "/kernels/", s->kernel, s->kernel);
		sb_adds(sb, "</td><td><a href=\"/runs/");
		add_i64(sb, s->run_id);
		sb_adds(sb, "\">");
		add_i64(sb, s->run_id);
		sb_adds(sb, "</a></td><td class=\"num\">");
		add_i64(sb, s->repetition);
		sb_adds(sb, "</td><td>");
		sb_adds(sb, hf[i].t);
		sb_adds(sb, "</td><td class=\"num\">");
		sb_adds(sb, hf[i].v);
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</tbody></table>\n");
}

/* Value and time strings in display order; runs share their time. */
static struct hfmt *hist_fmt(const struct hist *h)
{
	struct hfmt *hf = calloc(h->n + 1, sizeof(*hf));
	int64_t last = -1;
	size_t i;

	if (!hf)
		abort();
	for (i = 0; i < h->n; i++) {
		const struct db_sample *s = &h->s[h->order[i]];

		fmt_num(hf[i].v, sizeof(hf[i].v), s->value);
		if (i && s->time == last)
			memcpy(hf[i].t, hf[i - 1].t, sizeof(hf[i].t));
		else
			page_time(hf[i].t, sizeof(hf[i].t), s->time);
		last = s->time;
	}
	return hf;
}

static void select_open(struct strbuf *sb, const char *label,
			const char *name)
{
	sb_addf(sb, "<label>%s<br><select name=\"%s\">", label, name);
}

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static void hist_picker(struct strbuf *sb, struct db *db,
			const struct hist *h)
{
	struct db_metric *m = NULL;
	struct db_rig *rg = NULL;
	struct db_suite *su = NULL;
	size_t nm = 0, nr = 0, ns = 0, i;

	if (db_metric_list(db, &m, &nm))
		nm = 0;
	if (db_rig_list(db, &rg, &nr))
		nr = 0;
	if (db_suite_list(db, &su, &ns))
		ns = 0;
	sb_adds(sb, "<form class=\"picker\" method=\"get\" "
		"action=\"/history\">");
	select_open(sb, "metric", "metric");
	for (i = 0; i < nm; i++)
		page_option(sb, m[i].name, m[i].name,
			    same(h->metric, m[i].name));
	sb_adds(sb, "</select></label>");
	select_open(sb, "rig", "rig");
	page_option(sb, "", "any", !h->rig);
	for (i = 0; i < nr; i++)
		page_option(sb, rg[i].name, rg[i].name,
			    same(h->rig, rg[i].name));
	sb_adds(sb, "</select></label>");
	select_open(sb, "suite", "suite");
	page_option(sb, "", "any", !h->suite);
	for (i = 0; i < ns; i++)
		page_option(sb, su[i].name, su[i].name,
			    same(h->suite, su[i].name));
	sb_adds(sb, "</select></label>");
	select_open(sb, "order", "order");
	page_option(sb, "kernel", "grouped by kernel", h->by_kernel);
	page_option(sb, "time", "by time", !h->by_kernel);
	sb_addf(sb, "</select></label><label>points<br><input name=\"limit\" "
		"size=\"6\" value=\"%ld\"></label>"
		"<button type=\"submit\">show</button></form>\n", h->limit);
	db_metrics_free(m, nm);
	db_rigs_free(rg, nr);
	db_suites_free(su, ns);
}

/* "metric=M&rig=R&suite=S&limit=N&order=O", HTML-escaped. */
static void hist_query(struct strbuf *sb, const struct hist *h)
{
	sb_adds(sb, "metric=");
	sb_add_urlenc(sb, h->metric);
	if (h->rig) {
		sb_adds(sb, "&amp;rig=");
		sb_add_urlenc(sb, h->rig);
	}
	if (h->suite) {
		sb_adds(sb, "&amp;suite=");
		sb_add_urlenc(sb, h->suite);
	}
	sb_addf(sb, "&amp;limit=%ld&amp;order=%s", h->limit,
		h->by_kernel ? "kernel" : "time");
}

static void hist_html(struct strbuf *sb, struct db *db, const struct hist *h)
{
	struct hfmt *hf;

	page_begin(sb, h->metric ? h->metric : "History", "history");
	sb_adds(sb, "<h1>History</h1>\n");
	hist_picker(sb, db, h);
	if (!h->metric) {
		page_end(sb);
		return;
	}
	sb_adds(sb, "<h2>");
	sb_add_html(sb, h->metric);
	sb_addf(sb, "</h2>\n<p>%zu value%s from %zu kernel%s. "
		"<a class=\"permalink\" href=\"/history?", h->n,
		h->n == 1 ? "" : "s", h->ng, h->ng == 1 ? "" : "s");
	hist_query(sb, h);
	sb_adds(sb, "\">permalink</a> &middot; <a href=\"/history?");
	hist_query(sb, h);
	sb_adds(sb, "&amp;format=csv\">csv</a> &middot; <a href=\"/history?");
	hist_query(sb, h);
	sb_adds(sb, "&amp;format=json\">json</a></p>\n");
	hf = hist_fmt(h);
	sb_grow(sb, h->n * 420);
	hist_chart(sb, h, hf);
	hist_cp_table(sb, h);
	hist_table(sb, h, hf);
	free(hf);
	page_end(sb);
}

/* ---- entry -------------------------------------------------------- */

static int hist_params(struct query *q, struct hist *h,
		       struct web_response *r)
{
	const char *order = nonempty(query_get(q, "order"));
	char v[64], msg[128];

	memset(h, 0, sizeof(*h));
	if (page_format(q, PF_HTML | PF_CSV | PF_JSON, &h->f, r))
		return -1;
	if (page_int_param(q, "limit", 1000, 1, 1000000, &h->limit, r))
		return -1;
	h->metric = nonempty(query_get(q, "metric"));
	h->rig = nonempty(query_get(q, "rig"));
	h->suite = nonempty(query_get(q, "suite"));
	h->by_kernel = !order || !strcmp(order, "kernel");
	if (order && !h->by_kernel && strcmp(order, "time")) {
		fmt_ascii(v, sizeof(v), order);
		snprintf(msg, sizeof(msg), "unknown order '%s' (kernel or "
			 "time)", v);
		web_error_page(r, q, 400, msg);
		return -1;
	}
	if (!h->metric && h->f != PF_HTML) {
		web_error_page(r, q, 400, "parameter 'metric' is required");
		return -1;
	}
	return 0;
}

int web_history(struct db *db, struct query *q, const char *arg,
		struct web_response *r)
{
	struct hist h;
	char err[256] = "";
	int rc;

	if (hist_params(q, &h, r))
		return r->status;
	if (h.metric) {
		rc = db_history(db, h.metric, h.rig, h.suite, (int)h.limit,
				&h.s, &h.n, err, sizeof(err));
		if (rc)
			return page_db_error(r, q, rc, err);
		if (h.rig && h.suite &&
		    db_changepoint_list(db, h.rig, h.suite, h.metric, &h.cp,
					&h.ncp, err, sizeof(err)))
			h.ncp = 0;	/* the history still shows */
	}
	hist_order(&h);
	sb_reset(&r->body);
	if (h.f == PF_CSV) {
		hist_csv(&r->body, &h);
		rc = page_ok(r, CT_CSV);
	} else if (h.f == PF_JSON) {
		rc = page_json(r, hist_json(&h));
	} else {
		hist_html(&r->body, db, &h);
		rc = page_ok(r, CT_HTML);
	}
	hist_release(&h);
	return rc;
}
