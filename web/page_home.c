// SPDX-License-Identifier: MIT
/*
 * /: what the lab holds (counts), the newest kernels and runs, and a
 * ready-made comparison of the two newest kernels.
 */
#include <stdio.h>

#include "page.h"

#define HOME_KERNELS 10
#define HOME_RUNS 15

static void counts(struct strbuf *sb, struct db *db)
{
	static const struct {
		const char *what, *label, *href;
	} c[] = {
		{ "kernels", "kernels", "/kernels" },
		{ "rigs", "rigs", "/rigs" },
		{ "suites", "suites", NULL },
		{ "runs", "runs", "/runs" },
		{ "metrics", "metrics", "/history" },
		{ "results", "results", NULL },
	};
	size_t i;

	sb_adds(sb, "<p class=\"counts\">");
	for (i = 0; i < sizeof(c) / sizeof(*c); i++) {
		long long n = (long long)db_count(db, c[i].what);

		sb_adds(sb, i ? " &middot; " : "");
		if (n < 0) {
			sb_addf(sb, "? %s", c[i].label);
			continue;
		}
		if (c[i].href)
			sb_addf(sb, "<a href=\"%s\">%lld %s</a>", c[i].href, n,
				c[i].label);
		else
			sb_addf(sb, "%lld %s", n, c[i].label);
	}
	sb_adds(sb, "</p>\n");
}

static void recent_kernels(struct strbuf *sb, struct db *db)
{
	struct db_kernel *v = NULL;
	size_t n = 0, i;

	if (db_kernel_list(db, &v, &n))
		n = 0;
	sb_adds(sb, "<h2>Recent kernels</h2>\n");
	if (n >= 2) {
		sb_adds(sb, "<p><a href=\"/compare?k=");
		sb_add_urlenc(sb, v[1].ident);
		sb_adds(sb, "&amp;k=");
		sb_add_urlenc(sb, v[0].ident);
		sb_adds(sb, "&amp;base=");
		sb_add_urlenc(sb, v[1].ident);
		sb_adds(sb, "\">Compare ");
		sb_add_html(sb, v[0].ident);
		sb_adds(sb, " with ");
		sb_add_html(sb, v[1].ident);
		sb_adds(sb, "</a></p>\n");
	}
	if (!n)
		sb_adds(sb, "<p>No kernels yet: import results with "
			"<code>klab import FILE</code>.</p>\n");
	else
		sb_adds(sb, "<ul class=\"kernels\">");
	for (i = 0; i < n && i < HOME_KERNELS; i++) {
		sb_adds(sb, "<li>");
		page_link(sb, "/kernels/", v[i].ident, v[i].ident);
		sb_addf(sb, " (%lld run%s)</li>", (long long)v[i].nruns,
			v[i].nruns == 1 ? "" : "s");
	}
	if (n)
		sb_addf(sb, "</ul>\n%s", n > HOME_KERNELS ?
			"<p><a href=\"/kernels\">all kernels</a></p>\n" : "");
	db_kernels_free(v, n);
}

int web_home(struct db *db, struct query *q, const char *arg,
	     struct web_response *r)
{
	struct db_run *runs = NULL;
	size_t nr = 0;

	sb_reset(&r->body);
	page_begin(&r->body, "Home", "home");
	sb_adds(&r->body, "<h1>klab: kernel I/O regression lab</h1>\n");
	counts(&r->body, db);
	recent_kernels(&r->body, db);
	if (db_run_list(db, NULL, NULL, NULL, HOME_RUNS, &runs, &nr))
		nr = 0;
	sb_adds(&r->body, "<h2>Recent runs</h2>\n");
	page_runs_table(&r->body, runs, nr);
	sb_adds(&r->body, "<p><a href=\"/runs\">all runs</a> &middot; "
		"<a href=\"/compare\">compare kernels</a> &middot; "
		"<a href=\"/history\">history of a metric</a></p>\n");
	page_end(&r->body);
	db_runs_free(runs, nr);
	return page_ok(r, CT_HTML);
}
