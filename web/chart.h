/* SPDX-License-Identifier: MIT */
/*
 * chart: SVG line and point charts drawn by klab itself, so pages need no
 * script and no external asset.  Axes with ticks at "nice" numbers (1, 2,
 * 5 times a power of ten), one colour per series, a hover title on every
 * point, optional text labels on the x axis (kernel names under the runs
 * of each kernel).
 */
#ifndef KLAB_WEB_CHART_H
#define KLAB_WEB_CHART_H

#include <stddef.h>

#include "lib/strbuf.h"

struct chart_point {
	double x, y;
	const char *tip;	/* hover title, NULL: "x, y" */
};

struct chart_series {
	const char *name;
	const struct chart_point *pts;
	size_t n;
};

struct chart_label {
	double x;
	const char *text;
};

enum chart_mark_kind {
	CHART_MARK_CHANGE,	/* a change point: red, class "changepoint" */
	CHART_MARK_CONFIG,	/* the rig's configuration changed: grey,
				 * class "rigchange" */
};

/* A vertical mark across the plot at x (a change point, or a change of
 * the rig), with a label drawn at its top and a hover title. */
struct chart_mark {
	double x;
	const char *label;	/* short, e.g. "+12%" */
	const char *tip;	/* hover title, may be NULL */
	enum chart_mark_kind kind;
};

struct chart {
	const char *title;	/* may be NULL */
	const char *ylabel;	/* may be NULL */
	int width, height;	/* 0: 800 x 360 */
	const struct chart_series *series;
	size_t ns;
	const struct chart_label *xlabels;	/* NULL: numeric x ticks */
	size_t nxl;
	int lines;		/* join the points of each series */
	const struct chart_mark *marks;	/* NULL: none */
	size_t nmarks;
};

struct chart_ticks {
	double lo, hi, step;
	int n;			/* ticks from lo to hi inclusive */
	int decimals;		/* for labels */
};

/* Append the chart as one <svg> element (all text escaped). */
/* Above this many points in all, series are drawn as lines without a
 * hover marker per point. */
#define CHART_MAX_MARKERS 1000

void chart_svg(struct strbuf *sb, const struct chart *c);
/* A nice number near x: rounded (rounded != 0) or the next one up. */
double chart_nice(double x, int rounded);
/* The colour of series i, the same in every chart (the palette repeats). */
const char *chart_color(size_t i);
/* About target ticks covering [min, max] at nice numbers. */
void chart_ticks(double min, double max, int target, struct chart_ticks *t);

#endif
