// SPDX-License-Identifier: MIT
/*
 * Unit tests for the pages of web/, called as the HTTP layer calls them:
 * escaping of a hostile kernel identifier everywhere it shows, delta
 * colours by each metric's direction (lower latency is "better", lower
 * rate "worse"), error statuses and formats (404 naming the unknown
 * kernel, 400 for bad parameters), history in every format, raw outputs
 * escaped in <pre>, and the SVG chart well-formed with 0, 1 and many
 * points (checked by a small XML well-formedness parser).
 */
#include "web_testlib.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>

#include "db/changepoints.h"
#include "web/chart.h"
#include "web/chart_cdf.h"
#include "web/web.h"

#define HOSTILE "<script>alert(1)</script>"

static const struct tio_row base_row = { 512, 4096, 8, 40.0, 10.0, 1.0,
					 100.0, 0, 0, 400 };

/* Call a page with a query string; the response is left in r. */
static int call(struct wfix *f, int (*page)(struct db *, struct query *,
					    const char *,
					    struct web_response *),
		const char *qs, const char *arg, struct web_response *r)
{
	struct query q;
	int st;

	query_init(&q);
	query_parse(&q, qs, strlen(qs));
	web_response_init(r);
	st = page(f->db, &q, arg, r);
	query_release(&q);
	assert_int_equal(st, r->status);
	return st;
}

/* ---- a small XML well-formedness check ---------------------------- */

static const char *xml_name(const char *p, char *out, size_t len)
{
	size_t n = 0;

	while (isalnum((unsigned char)*p) || *p == '-' || *p == ':' ||
	       *p == '_') {
		if (n + 1 < len)
			out[n++] = *p;
		p++;
	}
	out[n] = '\0';
	return n ? p : NULL;
}

/* Text must not hold '<' and every '&' must start an entity. */
static const char *xml_text(const char *p, char end)
{
	for (; *p && *p != end; p++) {
		if (*p == '<' && end != '<')
			return NULL;
		if (*p == '&' && !strchr(p, ';'))
			return NULL;
	}
	return p;
}

static const char *xml_attrs(const char *p, int *selfclose)
{
	char name[64];

	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '>' || (p[0] == '/' && p[1] == '>'))
			break;
		p = xml_name(p, name, sizeof(name));
		if (!p || *p != '=' || p[1] != '"')
			return NULL;
		p = xml_text(p + 2, '"');
		if (!p || *p != '"')
			return NULL;
		p++;
	}
	*selfclose = *p == '/';
	return p + (*selfclose ? 2 : 1);
}

/* 1 when s is one well-formed element (text escaped, tags balanced). */
static int xml_ok(const char *s)
{
	char stack[64][32], name[32];
	int depth = 0, roots = 0, self;
	const char *p = s;

	while (*p) {
		if (*p != '<') {
			const char *t = p;

			p = xml_text(p, '<');
			if (!p)
				return 0;
			for (; !depth && t < p; t++)	/* outside: blanks */
				if (!isspace((unsigned char)*t))
					return 0;
			continue;
		}
		if (p[1] == '/') {
			p = xml_name(p + 2, name, sizeof(name));
			if (!p || *p != '>' || !depth ||
			    strcmp(stack[--depth], name))
				return 0;
			p++;
			continue;
		}
		p = xml_name(p + 1, name, sizeof(name));
		if (!p)
			return 0;
		p = xml_attrs(p, &self);
		if (!p)
			return 0;
		roots += depth == 0;
		if (!self) {
			if (depth == 64)
				return 0;
			snprintf(stack[depth++], sizeof(stack[0]), "%s", name);
		}
	}
	return depth == 0 && roots == 1;
}

static void test_xml_checker(void **state)
{
	assert_true(xml_ok("<svg a=\"1\"><g><title>x &amp; y</title></g>"
			   "<line x=\"2\"/></svg>\n"));
	assert_false(xml_ok("<svg><g></svg>"));
	assert_false(xml_ok("<svg><title>a < b</title></svg>"));
	assert_false(xml_ok("<svg a=1></svg>"));
	assert_false(xml_ok("<svg></svg><svg></svg>"));
}

/* ---- chart -------------------------------------------------------- */

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (s = strstr(s, needle); s; s = strstr(s, needle)) {
		n++;
		s += strlen(needle);
	}
	return n;
}

static char *svg_of(const struct chart *c)
{
	struct strbuf sb = STRBUF_INIT;

	sb_init(&sb);
	chart_svg(&sb, c);
	return sb_detach(&sb, NULL);
}

static void test_chart_ticks(void **state)
{
	struct chart_ticks t;

	assert_true(chart_nice(0.7, 1) == 1);
	assert_true(chart_nice(3.2, 0) == 5);
	assert_true(chart_nice(230, 1) == 200);
	chart_ticks(0, 97, 6, &t);
	assert_true(t.lo == 0 && t.hi == 100 && t.step == 20);
	assert_int_equal(t.n, 6);
	chart_ticks(0.013, 0.087, 5, &t);
	assert_true(fabs(t.step - 0.02) < 1e-12);
	assert_int_equal(t.decimals, 2);
	assert_true(t.lo <= 0.013 && t.hi >= 0.087);
	chart_ticks(5, 5, 6, &t);	/* one value: a range around it */
	assert_true(t.lo < 5 && t.hi > 5 && t.n >= 2);
	chart_ticks(-3, 41, 6, &t);
	assert_true(t.lo <= -3 && t.hi >= 41);
}

static void test_chart_points(void **state)
{
	struct chart_point one = { 1, 41.2, "<b>6.1.176</b> & run 1" };
	struct chart_point many[500];
	struct chart_series s[2] = { { "a&b", many, 250 },
				     { "<k>", many + 250, 250 } };
	struct chart_label xl[] = { { 1, "6.1.176" }, { 251, HOSTILE } };
	struct chart c = { 0 };
	char *svg;
	size_t i;

	c.title = "empty <chart>";
	svg = svg_of(&c);			/* 0 points */
	assert_true(xml_ok(svg));
	assert_non_null(strstr(svg, "no data"));
	assert_int_equal(count(svg, "<circle"), 0);
	free(svg);

	c.series = s;
	c.ns = 1;
	s[0].pts = &one;
	s[0].n = 1;
	c.lines = 1;
	svg = svg_of(&c);			/* 1 point */
	assert_true(xml_ok(svg));
	assert_int_equal(count(svg, "<circle"), 1);
	assert_non_null(strstr(svg, "&lt;b&gt;6.1.176&lt;/b&gt; &amp; run 1"));
	assert_null(strstr(svg, "no data"));
	free(svg);

	for (i = 0; i < 500; i++) {
		many[i].x = (double)i + 1;
		many[i].y = 100 + 50 * sin((double)i / 20);
		many[i].tip = NULL;
	}
	many[7].y = NAN;			/* skipped, not drawn */
	s[0].pts = many;
	s[0].n = 250;
	c.ns = 2;
	c.xlabels = xl;
	c.nxl = 2;
	c.ylabel = "MB/s";
	svg = svg_of(&c);			/* many points, two series */
	assert_true(xml_ok(svg));
	assert_int_equal(count(svg, "<circle"), 499);
	assert_int_equal(count(svg, "<polyline"), 2);
	assert_non_null(strstr(svg, "&lt;script&gt;"));
	assert_null(strstr(svg, "<script"));
	assert_null(strstr(svg, "nan"));
	free(svg);
}

/* ---- pages -------------------------------------------------------- */

static void import_pair(struct wfix *f, const char *a, const char *b,
			const struct tio_row *rb, double noise)
{
	struct result_set rs;
	struct tio_row ra = base_row, rb2 = *rb;

	ra.rate += noise;
	rb2.rate += noise;
	ra.avg_lat += noise / 100;
	rb2.avg_lat += noise / 100;
	ra.max_lat += noise;
	rb2.max_lat += noise;
	ra.cpu += noise / 10;
	rb2.cpu += noise / 10;
	result_set_init(&rs);
	wfix_tio(&rs, a, "seq_read", &ra);
	wfix_tio(&rs, b, "seq_read", &rb2);
	wfix_import(f, &rs, "<b>raw & output</b>\n");
}

/* The class attribute of the <td> whose text is text (up to the end of
 * the cell or the first <br> of a delta cell). */
static const char *td_class(const char *html, const char *text, char *buf,
			    size_t len)
{
	char needle[64];
	const char *p, *td, *q;

	snprintf(needle, sizeof(needle), ">%s<", text);
	p = strstr(html, needle);
	assert_non_null(p);
	assert_null(strstr(p + 1, needle));	/* unique */
	for (td = p; td > html && strncmp(td, "<td", 3); td--)
		;
	q = strstr(td, "class=\"");
	assert_true(q && q < p);
	q += 7;
	snprintf(buf, len, "%.*s", (int)(strchr(q, '"') - q), q);
	return buf;
}

static void test_hostile_escaped(void **state)
{
	struct wfix *f = *state;
	struct web_response r;
	struct tio_row b = base_row;
	const char *svg;

	import_pair(f, "6.1.176", HOSTILE, &b, 0);
	call(f, web_compare, "k=6.1.176&k=%3Cscript%3Ealert(1)%3C%2Fscript%3E",
	     "", &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.content_type, "text/html; charset=utf-8");
	assert_null(strstr(r.body.buf, "<script"));
	assert_non_null(strstr(r.body.buf,
			       "&lt;script&gt;alert(1)&lt;/script&gt;"));
	web_response_release(&r);
	call(f, web_kernels, "", HOSTILE, &r);
	assert_int_equal(r.status, 200);
	assert_null(strstr(r.body.buf, "<script"));
	web_response_release(&r);
	call(f, web_kernels, "", "<img src=x onerror=1>", &r);
	assert_int_equal(r.status, 404);
	assert_null(strstr(r.body.buf, "<img"));
	assert_non_null(strstr(r.body.buf, "unknown kernel &#39;&lt;img"));
	web_response_release(&r);
	call(f, web_home, "", "", &r);
	assert_null(strstr(r.body.buf, "<script"));
	web_response_release(&r);
	call(f, web_runs, "", "", &r);
	assert_null(strstr(r.body.buf, "<script"));
	web_response_release(&r);
	call(f, web_kernels, "", "", &r);
	assert_null(strstr(r.body.buf, "<script"));
	web_response_release(&r);
	call(f, web_history, "metric=tiobench.seq_read.rate", "", &r);
	assert_int_equal(r.status, 200);
	assert_null(strstr(r.body.buf, "<script"));
	svg = strstr(r.body.buf, "<svg");
	assert_non_null(svg);
	*strstr(svg, "</svg>\n") = '\0';
	{
		struct strbuf one = STRBUF_INIT;

		sb_init(&one);
		sb_adds(&one, svg);
		sb_adds(&one, "</svg>\n");
		assert_true(xml_ok(one.buf));
		sb_release(&one);
	}
	web_response_release(&r);
}

static void test_delta_colours(void **state)
{
	struct wfix *f = *state;
	struct web_response r;
	struct tio_row b = base_row;
	char cls[64];
	int rep;

	b.rate = 32;		/* higher is better: -20% is worse */
	b.avg_lat = 0.75;	/* lower is better: -25% is better */
	b.max_lat = 130;	/* +30%: worse */
	b.cpu = 10.1;		/* +1%: within noise */
	import_pair(f, "A", "B", &b, 0);
	call(f, web_compare, "k=A&k=B&rig=scsi&suite=tio", "", &r);
	assert_int_equal(r.status, 200);
	/* one cell a side: shown as data, no verdict */
	assert_string_equal(td_class(r.body.buf, "-20.0%", cls, sizeof(cls)),
			    "num delta noverdict");
	assert_string_equal(td_class(r.body.buf, "-25.0%", cls, sizeof(cls)),
			    "num delta noverdict");
	assert_string_equal(td_class(r.body.buf, "+1.0%", cls, sizeof(cls)),
			    "num delta noverdict");
	assert_string_equal(td_class(r.body.buf, "0.750", cls, sizeof(cls)),
			    "num noverdict");
	assert_non_null(strstr(r.body.buf, "<small class=\"vd\">n=1, no "
			       "verdict</small>"));
	assert_non_null(strstr(r.body.buf, "class=\"note rule\">A cell is "
			       "one run"));
	assert_int_equal(count(strstr(r.body.buf, "class=\"tiobench\""),
			       "<tr"), 3);	/* header + one per kernel */
	assert_non_null(strstr(r.body.buf, "<tr class=\"base\">"));
	assert_non_null(strstr(r.body.buf, "href=\"/compare?k=A&amp;k=B&amp;"
			       "base=A&amp;rig=scsi&amp;suite=tio\">"
			       "permalink"));
	assert_non_null(strstr(r.body.buf, "/history?metric=tiobench.seq_read"
			       ".avg_lat&amp;rig=scsi&amp;suite=tio"));
	web_response_release(&r);
	for (rep = 1; rep <= 3; rep++)	/* repetitions: a real t-test */
		import_pair(f, "A", "B", &b, rep * 0.01);
	call(f, web_compare, "k=A&k=B&base=A", "", &r);
	assert_string_equal(td_class(r.body.buf, "-25.0%", cls, sizeof(cls)),
			    "num delta better");
	assert_string_equal(td_class(r.body.buf, "-20.0%", cls, sizeof(cls)),
			    "num delta worse");
	assert_non_null(strstr(r.body.buf, "p&lt;0.001"));
	/* +1% cpu on four steady cells: below the 5% floor, CI inside */
	assert_string_equal(td_class(r.body.buf, "+1.0%", cls, sizeof(cls)),
			    "num delta same");
	assert_non_null(strstr(r.body.buf, "n=4/4 &plusmn;"));
	web_response_release(&r);
	call(f, web_compare, "k=A&k=B&base=B", "", &r);	/* reversed */
	assert_string_equal(td_class(r.body.buf, "+33.3%", cls, sizeof(cls)),
			    "num delta worse");
	web_response_release(&r);
}

static void expect(struct wfix *f, int (*page)(struct db *, struct query *,
					       const char *,
					       struct web_response *),
		   const char *qs, const char *arg, int status,
		   const char *ctype, const char *body_has)
{
	struct web_response r;

	call(f, page, qs, arg, &r);
	if (r.status != status || strcmp(r.content_type, ctype) ||
	    !strstr(r.body.buf, body_has))
		fail_msg("'%s' '%s': got %d %s, wanted %d %s with '%s':\n%s",
			 qs, arg, r.status, r.content_type, status, ctype,
			 body_has, r.body.buf);
	web_response_release(&r);
}

#define HTML "text/html; charset=utf-8"
#define TEXT "text/plain; charset=utf-8"
#define CSV "text/csv; charset=utf-8"
#define JSON "application/json"

static void test_errors(void **state)
{
	struct wfix *f = *state;
	struct tio_row b = base_row;

	import_pair(f, "A", "B", &b, 0);
	expect(f, web_compare, "k=A&k=nope", "", 404, HTML,
	       "unknown kernel &#39;nope&#39;");
	expect(f, web_compare, "k=A&k=nope&format=json", "", 404, JSON,
	       "\"error\": \"unknown kernel 'nope'\"");
	expect(f, web_compare, "k=A&k=nope&format=text", "", 404, TEXT,
	       "error: unknown kernel 'nope'\n");
	expect(f, web_compare, "k=A,B&rig=nope", "", 404, HTML,
	       "unknown rig &#39;nope&#39;");
	expect(f, web_compare, "k=A,B&suite=nope&format=json", "", 404, JSON,
	       "unknown suite 'nope'");
	expect(f, web_compare, "k=A&k=B&base=C", "", 400, HTML,
	       "baseline &#39;C&#39; is not among");
	expect(f, web_compare, "k=A&k=B&k=A", "", 400, HTML,
	       "kernel &#39;A&#39; named twice");
	expect(f, web_compare, "k=A&k=B&format=xml", "", 400, HTML,
	       "unknown format &#39;xml&#39;");
	expect(f, web_compare, "k=A&format=text", "", 400, TEXT,
	       "at least 2 kernels");
	expect(f, web_compare, "", "", 200, HTML, "<form class=\"picker\"");
	expect(f, web_history, "metric=nope", "", 404, HTML,
	       "unknown metric &#39;nope&#39;");
	expect(f, web_history, "metric=tiobench.seq_read.rate&limit=abc", "",
	       400, HTML, "parameter &#39;limit&#39;");
	expect(f, web_history, "metric=tiobench.seq_read.rate&order=x", "",
	       400, HTML, "unknown order");
	expect(f, web_history, "format=csv", "", 400, TEXT,
	       "parameter 'metric' is required");
	expect(f, web_history, "", "", 200, HTML, "<form class=\"picker\"");
	expect(f, web_runs, "", "abc", 400, HTML, "invalid run id");
	expect(f, web_runs, "format=json", "99999", 404, JSON,
	       "unknown run '99999'");
	expect(f, web_runs, "raw=nope", "1", 404, HTML,
	       "unknown raw output &#39;nope&#39; of run 1");
	expect(f, web_kernels, "", "nope", 404, HTML,
	       "unknown kernel &#39;nope&#39;");
	expect(f, web_kernels, "format=csv", "", 400, HTML,
	       "unknown format");
}

static void test_formats(void **state)
{
	struct wfix *f = *state;
	struct web_response r;
	struct tio_row b = base_row;
	json_t *j;
	int rep;

	for (rep = 0; rep < 3; rep++)
		import_pair(f, "A", "B", &b, rep * 0.01);
	expect(f, web_compare, "k=A&k=B&format=text", "", 200, TEXT,
	       "\nSequential Reads\n");
	expect(f, web_compare, "k=A&k=B&format=csv", "", 200, CSV,
	       "metric,unit,direction,class,kernel,");
	expect(f, web_compare, "k=A,B&format=json", "", 200, JSON,
	       "\"baseline\": \"A\"");
	call(f, web_history, "metric=tiobench.seq_read.rate&format=json", "",
	     &r);
	j = json_loads(r.body.buf, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "points")), 6);
	assert_string_equal(json_string_value(json_object_get(j, "unit")),
			    "MB/s");
	json_decref(j);
	web_response_release(&r);
	call(f, web_history, "metric=tiobench.seq_read.rate&format=csv", "",
	     &r);
	assert_int_equal(count(r.body.buf, "\n"), 7);
	/* grouped by kernel: A's three points come first */
	assert_non_null(strstr(r.body.buf, "\nA,"));
	assert_null(strstr(strstr(r.body.buf, "\nB,"), "\nA,"));
	web_response_release(&r);
	call(f, web_history, "metric=tiobench.seq_read.rate&order=time", "",
	     &r);
	assert_int_equal(count(r.body.buf, "<circle"), 6);
	assert_int_equal(count(strstr(r.body.buf, "<table class=\"history\""),
			       "<tr>"), 7);
	web_response_release(&r);
	call(f, web_history, "metric=tiobench.seq_read.rate&limit=2&format=csv",
	     "", &r);
	assert_int_equal(count(r.body.buf, "\n"), 3);
	web_response_release(&r);
}

static void test_runs_raw_rigs(void **state)
{
	struct wfix *f = *state;
	struct web_response r;
	struct tio_row b = base_row;
	json_t *j;

	import_pair(f, "A", "B", &b, 0);
	expect(f, web_runs, "raw=output.txt", "1", 200, HTML,
	       "<pre class=\"raw\">&lt;b&gt;raw &amp; output&lt;/b&gt;\n"
	       "</pre>");
	expect(f, web_runs, "format=text&raw=output.txt", "1", 200, TEXT,
	       "<b>raw & output</b>\n");
	expect(f, web_runs, "", "1", 200, HTML, "tiobench.seq_read.rate");
	call(f, web_runs, "format=json", "2", &r);
	j = json_loads(r.body.buf, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "kernel")),
			    "B");
	assert_int_equal(json_array_size(json_object_get(j, "results_list")),
			 10);
	json_decref(j);
	web_response_release(&r);
	expect(f, web_runs, "kernel=A", "", 200, HTML, "<a href=\"/runs/1\">");
	expect(f, web_rigs, "", "", 200, HTML, "<td>idle</td>");
	expect(f, web_rigs, "format=json", "", 200, JSON, "\"name\": \"scsi\"");
	expect(f, web_home, "", "", 200, HTML, "2 kernels");
	expect(f, web_kernels, "", "A", 200, HTML, "<h1>Kernel A</h1>");
	expect(f, web_style, "", "", 200, "text/css; charset=utf-8",
	       "table.tiobench");
}

/* The home page's change points: at most 10 rows, then "and N more"
 * linking /history (docs/API.md, Pages). */
static void test_home_changepoints_more(void **state)
{
	struct wfix *f = *state;
	struct db_changepoint v[12];
	char names[12][8];
	size_t i;

	import_pair(f, "A", "B", &base_row, 0);
	memset(v, 0, sizeof(v));
	for (i = 0; i < 12; i++) {
		snprintf(names[i], sizeof(names[i]), "K%zu", i);
		v[i].kernel_before = "A";
		v[i].kernel_after = names[i];
		v[i].position = (int64_t)i + 1;
		v[i].size_pct = -10;
	}
	if (db_changepoints_store(f->db, "scsi", "tio",
				  "tiobench.seq_read.rate", v, 12, f->err,
				  sizeof(f->err)))
		fail_msg("%s", f->err);
	expect(f, web_home, "", "", 200, HTML, "12 change points");
	expect(f, web_home, "", "", 200, HTML, "<a href=\"/history\">and 2 "
	       "more</a>");
}

/* The x of the last point of the path of series idx. */
static double last_x(const char *svg, const char *idx)
{
	char key[48];
	const char *p, *end, *l = NULL;

	snprintf(key, sizeof(key), "data-series=\"%s\"", idx);
	p = strstr(svg, key);
	assert_non_null(p);
	p = strstr(p, " d=\"");
	assert_non_null(p);
	end = strchr(p + 4, '"');
	for (; p && p < end; p = strchr(p + 1, 'L'))
		l = p;
	assert_non_null(l);
	return strtod(l + 1, NULL);
}

static void test_chart_cdf(void **state)
{
	static const uint64_t up1[] = { 1000, 2000, 100000 };
	static const uint64_t cnt1[] = { 50, 49, 1 };
	static const uint64_t up2[] = { 1000, 2000, 5000000000ull };
	static const uint64_t cnt2[] = { 500, 490, 10 };
	struct cdf_series s[3] = { { "<base> & 6.1", up1, cnt1, 3 },
				   { "6.12", up2, cnt2, 3 },
				   { "empty", NULL, NULL, 0 } };
	struct strbuf sb = STRBUF_INIT;

	sb_init(&sb);
	chart_cdf_svg(&sb, "tiobench.seq_read \"<x>\"", s, 3);
	assert_true(xml_ok(sb.buf));
	assert_int_equal(count(sb.buf, "<path class=\"cdf\""), 2);
	assert_non_null(strstr(sb.buf, "&lt;base&gt; &amp; 6.1 (100)"));
	assert_non_null(strstr(sb.buf, "6.12 (1000)"));
	assert_null(strstr(sb.buf, "<x>"));
	assert_null(strstr(sb.buf, "nan"));
	assert_null(strstr(sb.buf, "inf"));
	/* decades from 100 ns (below 1000 * 63/64) to 10 s; y to 0.1% */
	assert_non_null(strstr(sb.buf, ">100 ns<"));
	assert_non_null(strstr(sb.buf, ">10 s<"));
	assert_non_null(strstr(sb.buf, ">0.1%<"));
	assert_null(strstr(sb.buf, ">0.01%<"));
	/* the candidate's last point (5 s) lies right of the base's (100 us) */
	assert_true(last_x(sb.buf, "0") + 100 < last_x(sb.buf, "1"));
	sb_release(&sb);

	sb_init(&sb);
	chart_cdf_svg(&sb, NULL, s + 2, 1);	/* nothing to draw */
	assert_true(xml_ok(sb.buf));
	assert_int_equal(count(sb.buf, "<path"), 0);
	sb_release(&sb);
}

/* The one table of statuses: every outcome, and what is not one. */
static void test_status(void **state)
{
	(void)state;
	assert_int_equal(web_status(OUT_OK), 200);
	assert_int_equal(web_status(OUT_INVALID), 400);
	assert_int_equal(web_status(OUT_FORBIDDEN), 403);
	assert_int_equal(web_status(OUT_NOTFOUND), 404);
	assert_int_equal(web_status(OUT_CONFLICT), 409);
	assert_int_equal(web_status(OUT_TOOBIG), 413);
	assert_int_equal(web_status(OUT_REFUSED), 422);
	assert_int_equal(web_status(OUT_BUSY), 503);
	assert_int_equal(web_status(OUT_ERROR), 500);
	assert_int_equal(web_status((enum outcome)99), 500);
	assert_int_equal(web_status(outcome_of_db(DB_REPEATED)), 200);
	assert_int_equal(web_status(outcome_of_db(DB_TOOBIG)), 413);
	assert_int_equal(web_status(outcome_of_db(DB_ERR)), 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_xml_checker),
		cmocka_unit_test(test_chart_ticks),
		cmocka_unit_test(test_chart_points),
		cmocka_unit_test(test_chart_cdf),
		cmocka_unit_test_setup_teardown(test_hostile_escaped,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_delta_colours,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_errors,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_formats,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_runs_raw_rigs,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_home_changepoints_more,
						wfix_setup, wfix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
