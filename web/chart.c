// SPDX-License-Identifier: MIT
/*
 * SVG charts: nice tick numbers (Heckbert's "Nice numbers for graph
 * labels", Graphics Gems 1990), axes, grid, one polyline and a circle per
 * point with a <title> for hover text.  The output is a self-contained
 * <svg> element that any browser shows without script.
 */
#include "chart.h"

#include <math.h>
#include <stdio.h>

#define ML 72	/* margins: left, right, top, bottom */
#define MR 16
#define MT 28
#define MB 84

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define NPALETTE (sizeof(palette) / sizeof(*palette))

const char *chart_color(size_t i)
{
	return palette[i % NPALETTE];
}

double chart_nice(double x, int rounded)
{
	double e, f, nf;

	if (!(x > 0) || !isfinite(x))
		return 1;
	e = floor(log10(x));
	f = round(x / pow(10, e) * 1e9) / 1e9;	/* 0.7 / 0.1 is 6.99.. */
	if (rounded)
		nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
	else
		nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
	return nf * pow(10, e);
}

void chart_ticks(double min, double max, int target, struct chart_ticks *t)
{
	double range;

	if (!isfinite(min) || !isfinite(max)) {
		min = 0;
		max = 1;
	}
	if (max < min) {
		range = min;
		min = max;
		max = range;
	}
	if (max == min) {
		double pad = min == 0 ? 1 : fabs(min) * 0.1;

		min -= pad;
		max += pad;
	}
	if (target < 2)
		target = 2;
	range = chart_nice(max - min, 0);
	t->step = chart_nice(range / (target - 1), 1);
	t->lo = floor(min / t->step) * t->step;
	t->hi = ceil(max / t->step) * t->step;
	t->n = (int)floor((t->hi - t->lo) / t->step + 0.5) + 1;
	t->decimals = t->step >= 1 ? 0 : (int)-floor(log10(t->step));
	if (t->decimals > 12)
		t->decimals = 12;
}

/* Append v with one decimal, without printf (charts have many points). */
static void add_fixed1(struct strbuf *sb, double v)
{
	char buf[32], *p = buf + sizeof(buf);
	long long n = llround(v * 10);
	int neg = n < 0;

	if (!isfinite(v) || fabs(v) > 1e15) {
		sb_addf(sb, "%.1f", v);
		return;
	}
	if (neg)
		n = -n;
	*--p = (char)('0' + n % 10);
	*--p = '.';
	n /= 10;
	do {
		*--p = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	if (neg)
		*--p = '-';
	sb_add(sb, p, (size_t)(buf + sizeof(buf) - p));
}

struct frame {
	int w, h;
	struct chart_ticks xt, yt;
};

static double px(const struct frame *f, double x)
{
	return ML + (x - f->xt.lo) / (f->xt.hi - f->xt.lo) * (f->w - ML - MR);
}

static double py(const struct frame *f, double y)
{
	return f->h - MB - (y - f->yt.lo) / (f->yt.hi - f->yt.lo) *
		(f->h - MT - MB);
}

/* Data extent over finite points; 0 when there are none. */
static int extent(const struct chart *c, double *x0, double *x1,
		  double *y0, double *y1)
{
	size_t i, j;
	int any = 0;

	for (i = 0; i < c->ns; i++)
		for (j = 0; j < c->series[i].n; j++) {
			const struct chart_point *p = &c->series[i].pts[j];

			if (!isfinite(p->x) || !isfinite(p->y))
				continue;
			if (!any++) {
				*x0 = *x1 = p->x;
				*y0 = *y1 = p->y;
			}
			*x0 = fmin(*x0, p->x);
			*x1 = fmax(*x1, p->x);
			*y0 = fmin(*y0, p->y);
			*y1 = fmax(*y1, p->y);
		}
	return any;
}

static void axes(struct strbuf *sb, const struct frame *f,
		 const struct chart *c)
{
	int i;

	sb_addf(sb, "<g class=\"axis\" stroke=\"#888\" font-size=\"11\">"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
		ML, MT, ML, f->h - MB, ML, f->h - MB, f->w - MR, f->h - MB);
	for (i = 0; i < f->yt.n; i++) {
		double v = f->yt.lo + i * f->yt.step;
		double y = py(f, v);

		sb_addf(sb, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#eee\"/><text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\" stroke=\"none\" fill=\"#333\">"
			"%.*f</text>\n", ML, y, f->w - MR, y, ML - 6, y + 4,
			f->yt.decimals, v);
	}
	for (i = 0; !c->xlabels && i < f->xt.n; i++) {
		double v = f->xt.lo + i * f->xt.step;

		sb_addf(sb, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
			"stroke=\"none\" fill=\"#333\">%.*f</text>\n",
			px(f, v), f->h - MB + 16, f->xt.decimals, v);
	}
	sb_adds(sb, "</g>\n");
}

/* Kernel names under the x axis, thinned out when they would overlap. */
static void xlabels(struct strbuf *sb, const struct frame *f,
		    const struct chart *c)
{
	double last = -1e9;
	size_t i;

	for (i = 0; i < c->nxl; i++) {
		double x = px(f, c->xlabels[i].x);

		if (x - last < 14)
			continue;
		last = x;
		sb_addf(sb, "<g transform=\"translate(%.1f,%d) rotate(-40)\">"
			"<line x1=\"0\" y1=\"-6\" x2=\"0\" y2=\"-2\" "
			"stroke=\"#888\"/><text text-anchor=\"end\" "
			"font-size=\"11\" fill=\"#333\">", x, f->h - MB + 10);
		sb_add_html(sb, c->xlabels[i].text);
		sb_adds(sb, "</text></g>\n");
	}
}

static void polyline(struct strbuf *sb, const struct frame *f,
		     const struct chart_series *se, const char *col)
{
	size_t j;
	int first = 1;

	sb_addf(sb, "<polyline fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"1.5\" points=\"", col);
	for (j = 0; j < se->n; j++) {
		if (!isfinite(se->pts[j].x) || !isfinite(se->pts[j].y))
			continue;
		sb_adds(sb, first ? "" : " ");
		first = 0;
		add_fixed1(sb, px(f, se->pts[j].x));
		sb_addc(sb, ',');
		add_fixed1(sb, py(f, se->pts[j].y));
	}
	sb_adds(sb, "\"/>\n");
}

static void series(struct strbuf *sb, const struct frame *f,
		   const struct chart *c, size_t s, int markers)
{
	const struct chart_series *se = &c->series[s];
	const char *col = chart_color(s);
	size_t j;

	sb_adds(sb, "<g class=\"series\">");
	if ((c->lines || !markers) && se->n > 1)
		polyline(sb, f, se, col);
	for (j = 0; markers && j < se->n; j++) {
		const struct chart_point *p = &se->pts[j];

		if (!isfinite(p->x) || !isfinite(p->y))
			continue;
		sb_adds(sb, "<circle cx=\"");
		add_fixed1(sb, px(f, p->x));
		sb_adds(sb, "\" cy=\"");
		add_fixed1(sb, py(f, p->y));
		sb_adds(sb, "\" r=\"3\" fill=\"");
		sb_adds(sb, col);
		sb_adds(sb, "\"><title>");
		if (p->tip)
			sb_add_html(sb, p->tip);
		else
			sb_addf(sb, "%g, %g", p->x, p->y);
		sb_adds(sb, "</title></circle>\n");
	}
	sb_adds(sb, "</g>\n");
}

static void legend(struct strbuf *sb, const struct frame *f,
		   const struct chart *c)
{
	size_t s;

	if (c->ns < 2 || c->ns > 16)
		return;
	for (s = 0; s < c->ns; s++) {
		sb_addf(sb, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\" "
			"font-size=\"11\" fill=\"%s\">", f->w - MR - 4,
			MT + 12 + s * 13, chart_color(s));
		sb_add_html(sb, c->series[s].name ? c->series[s].name : "");
		sb_adds(sb, "</text>\n");
	}
}

/*
 * Dashed vertical lines at each mark, styled by its kind: red for a
 * change point, grey where the rig's configuration changed (its label
 * lower, so that both can share a gap).
 */
struct mark_style {
	const char *cls, *color, *dash;
	int label_dy;
};

static const struct mark_style mark_style[] = {
	[CHART_MARK_CHANGE] = { "changepoint", "#c00", "5,3", 10 },
	[CHART_MARK_CONFIG] = { "rigchange", "#777", "2,3", 24 },
};

static void marks(struct strbuf *sb, const struct frame *f,
		  const struct chart *c)
{
	size_t i;
	double x;

	for (i = 0; i < c->nmarks; i++) {
		const struct mark_style *st = &mark_style[c->marks[i].kind];

		x = px(f, c->marks[i].x);
		sb_addf(sb, "<g class=\"%s\"><line x1=\"%.1f\" "
			"y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
			"stroke-dasharray=\"%s\"/><text x=\"%.1f\" "
			"y=\"%d\" font-size=\"11\" fill=\"%s\">", st->cls,
			x, MT, x, f->h - MB, st->color, st->dash, x + 3,
			MT + st->label_dy, st->color);
		sb_add_html(sb, c->marks[i].label ? c->marks[i].label : "");
		sb_adds(sb, "</text><title>");
		sb_add_html(sb, c->marks[i].tip ? c->marks[i].tip : "");
		sb_adds(sb, "</title></g>\n");
	}
}

void chart_svg(struct strbuf *sb, const struct chart *c)
{
	struct frame f;
	double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
	size_t s, total;
	int any;

	f.w = c->width > ML + MR + 10 ? c->width : 800;
	f.h = c->height > MT + MB + 10 ? c->height : 360;
	sb_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" role=\"img\">\n", f.w, f.h, f.w,
		f.h);
	sb_adds(sb, "<title>");
	sb_add_html(sb, c->title ? c->title : "chart");
	sb_adds(sb, "</title>\n");
	any = extent(c, &x0, &x1, &y0, &y1);
	if (any && c->xlabels) {	/* keep points off the y axis */
		x0 -= 0.5;
		x1 += 0.5;
	}
	chart_ticks(x0, x1, 8, &f.xt);
	chart_ticks(y0, y1, 6, &f.yt);
	axes(sb, &f, c);
	if (c->ylabel) {
		sb_addf(sb, "<text x=\"14\" y=\"%d\" font-size=\"12\" "
			"transform=\"rotate(-90 14 %d)\" "
			"text-anchor=\"middle\">",
			(f.h - MB + MT) / 2, (f.h - MB + MT) / 2);
		sb_add_html(sb, c->ylabel);
		sb_adds(sb, "</text>\n");
	}
	if (!any) {
		sb_addf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
			"fill=\"#888\">no data</text>\n", (f.w + ML - MR) / 2,
			(f.h - MB + MT) / 2);
	} else {
		if (c->xlabels)
			xlabels(sb, &f, c);
		marks(sb, &f, c);
		/* thousands of hover markers cost more than they tell: past
		 * CHART_MAX_MARKERS points the series are lines only */
		for (s = 0, total = 0; s < c->ns; s++)
			total += c->series[s].n;
		for (s = 0; s < c->ns; s++)
			series(sb, &f, c, s, total <= CHART_MAX_MARKERS);
		legend(sb, &f, c);
	}
	sb_adds(sb, "</svg>\n");
}
