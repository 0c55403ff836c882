// SPDX-License-Identifier: MIT
/*
 * chart_cdf: tail-latency curves (1 - CDF) on log-log axes, as one
 * self-contained <svg> element (see chart_cdf.h).  Each series is drawn
 * as a polyline through (bucket upper bound, share of requests above
 * it), starting at 100% at the lower edge of its first bucket; the point
 * where the share reaches 0 is drawn at the bottom of the axis.
 */
#include "chart_cdf.h"
#include "chart.h"

#include <math.h>
#include <stdio.h>

#define W 800
#define H 380
#define ML 72	/* margins: left, right, top, bottom */
#define MR 170
#define MT 28
#define MB 48
#define YDEC_MAX 6

struct frame {
	double x0, x1;		/* log10 ns at the axis ends */
	int ydec;		/* y from 10^0 down to 10^-ydec */
};

static uint64_t series_total(const struct cdf_series *s)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		t += s->cnt[i];
	return t;
}

static double first_low(const struct cdf_series *s)
{
	double lo = (double)s->up[0] * 63.0 / 64.0;

	return lo < 1 ? 1 : lo;
}

static void frame_fit(struct frame *f, const struct cdf_series *s, size_t ns)
{
	double lo = INFINITY, hi = 0, tmax = 1;
	size_t i;

	for (i = 0; i < ns; i++) {
		if (!s[i].n)
			continue;
		lo = fmin(lo, first_low(&s[i]));
		hi = fmax(hi, (double)s[i].up[s[i].n - 1]);
		tmax = fmax(tmax, (double)series_total(&s[i]));
	}
	if (!(hi > 0)) {
		lo = 1e3;
		hi = 1e6;
	}
	f->x0 = floor(log10(lo));
	f->x1 = ceil(log10(hi));
	if (f->x1 <= f->x0)
		f->x1 = f->x0 + 1;
	f->ydec = (int)ceil(log10(tmax));
	if (f->ydec < 1)
		f->ydec = 1;
	if (f->ydec > YDEC_MAX)
		f->ydec = YDEC_MAX;
}

static double px(const struct frame *f, double ns)
{
	return ML + (log10(ns) - f->x0) / (f->x1 - f->x0) * (W - ML - MR);
}

static double py(const struct frame *f, double share)
{
	double l = share > 0 ? log10(share) : -f->ydec;

	if (l < -f->ydec)
		l = -f->ydec;
	return MT + -l / f->ydec * (H - MT - MB);
}

static void decade_label(char *buf, size_t len, int e)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	static const char *const mult[] = { "1", "10", "100" };
	int u = e / 3;

	if (e < 0) {
		snprintf(buf, len, "1e%d ns", e);
		return;
	}
	if (u > 3)
		u = 3;
	if (e - u * 3 > 2)
		snprintf(buf, len, "1e%d s", e - 9);
	else
		snprintf(buf, len, "%s %s", mult[e - u * 3], unit[u]);
}

static void axes(struct strbuf *sb, const struct frame *f)
{
	char lab[32];
	int e;

	sb_addf(sb, "<g class=\"axis\" stroke=\"#888\" font-size=\"11\">"
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"none\"/>\n", ML, MT, W - ML - MR, H - MT - MB);
	for (e = (int)f->x0; e <= (int)f->x1; e++) {
		double x = px(f, pow(10, e));

		decade_label(lab, sizeof(lab), e);
		sb_addf(sb, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%d\" "
			"text-anchor=\"middle\" stroke=\"none\" fill=\"#333\">",
			x, MT, x, H - MB, x, H - MB + 16);
		sb_add_html(sb, lab);
		sb_adds(sb, "</text>\n");
	}
	for (e = 0; e <= f->ydec; e++) {
		double y = py(f, pow(10, -e));

		snprintf(lab, sizeof(lab), "%.*f%%", e > 2 ? e - 2 : 0,
			 100.0 * pow(10, -e));
		sb_addf(sb, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\" stroke=\"none\" fill=\"#333\">%s"
			"</text>\n", ML, y, W - MR, y, ML - 6, y + 4, lab);
	}
	sb_addf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		"stroke=\"none\" fill=\"#333\">latency (log)</text>\n",
		(W - MR + ML) / 2, H - 10);
	sb_addf(sb, "<text x=\"14\" y=\"%d\" stroke=\"none\" fill=\"#333\" "
		"transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">"
		"requests slower (1 - CDF)</text></g>\n", (H - MB + MT) / 2,
		(H - MB + MT) / 2);
}

static void curve(struct strbuf *sb, const struct frame *f,
		  const struct cdf_series *s, size_t idx)
{
	uint64_t total = series_total(s), run = 0;
	size_t i;

	sb_addf(sb, "<path class=\"cdf\" data-series=\"%zu\" fill=\"none\" "
		"stroke=\"%s\" stroke-width=\"%s\"%s d=\"M%.1f %.1f", idx,
		chart_color(idx), idx ? "1.5" : "2",
		idx ? "" : " stroke-dasharray=\"6 3\"",
		px(f, first_low(s)), py(f, 1));
	for (i = 0; i < s->n; i++) {
		run += s->cnt[i];
		sb_addf(sb, " L%.1f %.1f", px(f, (double)s->up[i]),
			py(f, (double)(total - run) / (double)total));
		if (run >= total)
			break;
	}
	sb_adds(sb, "\"><title>");
	sb_add_html(sb, s->name ? s->name : "");
	sb_adds(sb, "</title></path>\n");
}

static void legend(struct strbuf *sb, const struct cdf_series *s,
		   size_t idx, int row)
{
	int y = MT + 8 + row * 18;

	sb_addf(sb, "<g class=\"legend\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
		"y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/><text x=\"%d\" "
		"y=\"%d\" font-size=\"11\" fill=\"#333\">", W - MR + 10, y,
		W - MR + 30, y, chart_color(idx),
		idx ? "" : " stroke-dasharray=\"6 3\"", W - MR + 34, y + 4);
	sb_add_html(sb, s->name ? s->name : "");
	sb_addf(sb, " (%llu)</text></g>\n",
		(unsigned long long)series_total(s));
}

void chart_cdf_svg(struct strbuf *sb, const char *title,
		   const struct cdf_series *s, size_t ns)
{
	struct frame f;
	size_t i;
	int row = 0;

	frame_fit(&f, s, ns);
	sb_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"class=\"chart cdf\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
		"role=\"img\"><title>", W, H, W, H);
	sb_add_html(sb, title ? title : "latency");
	sb_adds(sb, "</title>\n");
	axes(sb, &f);
	for (i = 0; i < ns; i++) {
		if (!s[i].n || !series_total(&s[i]))
			continue;
		curve(sb, &f, &s[i], i);
		legend(sb, &s[i], i, row++);
	}
	sb_adds(sb, "</svg>\n");
}
