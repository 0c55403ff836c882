// SPDX-License-Identifier: MIT
/*
 * /kernels and /kernels/ID: every kernel klab knows with its run count,
 * and one kernel with its fields (version, base, patch and config hashes,
 * where it came from) and its runs, plus a link comparing it with its
 * base kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "page.h"

static json_t *kernel_json(const struct db_kernel *k)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I}",
			 "ident", page_jstr(k->ident),
			 "version", page_jstr(k->version),
			 "base", page_jstr(k->base),
			 "patch_hash", page_jstr(k->patch_hash),
			 "config_hash", page_jstr(k->config_hash),
			 "source", page_jstr(k->source),
			 "provenance", page_jstr(k->provenance),
			 "created", (json_int_t)k->created,
			 "runs", (json_int_t)k->nruns);
}

static void kernels_table(struct strbuf *sb, const struct db_kernel *v,
			  size_t n)
{
	char t[32];
	size_t i;

	sb_adds(sb, "<table class=\"kernels\"><thead><tr><th>kernel</th>"
		"<th>version</th><th>base</th><th>source</th>"
		"<th class=\"num\">runs</th><th>added (UTC)</th></tr></thead>\n"
		"<tbody>\n");
	for (i = 0; i < n; i++) {
		page_time(t, sizeof(t), v[i].created);
		sb_adds(sb, "<tr><td>");
		page_link(sb, "/kernels/", v[i].ident, v[i].ident);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].version);
		sb_adds(sb, "</td><td>");
		if (v[i].base && *v[i].base)
			page_link(sb, "/kernels/", v[i].base, v[i].base);
		sb_adds(sb, "</td><td>");
		sb_add_html(sb, v[i].source);
		sb_addf(sb, "</td><td class=\"num\">%lld</td>"
			"<td>%s</td></tr>\n", (long long)v[i].nruns, t);
	}
	sb_adds(sb, "</tbody></table>\n");
}

static int kernels_list(struct db *db, struct query *q, enum page_format f,
			struct web_response *r)
{
	struct db_kernel *v = NULL;
	size_t n = 0, i;
	json_t *arr;
	int rc;

	rc = db_kernel_list(db, &v, &n);
	if (rc)
		return page_db_error(r, q, rc, "cannot list kernels");
	sb_reset(&r->body);
	if (f == PF_JSON) {
		arr = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(arr, kernel_json(&v[i]));
		db_kernels_free(v, n);
		return page_json(r, arr);
	}
	page_begin(&r->body, "Kernels", "kernels");
	sb_addf(&r->body, "<h1>Kernels</h1>\n<p>%zu kernel%s, newest first. "
		"<a href=\"/compare\">Compare some</a>.</p>\n", n,
		n == 1 ? "" : "s");
	kernels_table(&r->body, v, n);
	page_end(&r->body);
	db_kernels_free(v, n);
	return page_ok(r, CT_HTML);
}

static void field(struct strbuf *sb, const char *name, const char *value)
{
	sb_addf(sb, "<tr><th>%s</th><td>", name);
	sb_add_html(sb, value && *value ? value : "-");
	sb_adds(sb, "</td></tr>\n");
}

/* Built kernels: a link to the build log ("build N: ..." provenance). */
static void build_log_link(struct strbuf *sb, const struct db_kernel *k)
{
	long id;
	char *end;

	if (!k->source || strcmp(k->source, "build") || !k->provenance ||
	    strncmp(k->provenance, "build ", 6))
		return;
	id = strtol(k->provenance + 6, &end, 10);
	if (id <= 0 || *end != ':')
		return;
	sb_addf(sb, "<tr><th>build log</th><td><a href=\"/api/builds/%ld/log\">"
		"build %ld</a></td></tr>\n", id, id);
}

static void kernel_html(struct strbuf *sb, const struct db_kernel *k,
			const struct db_run *runs, size_t nr)
{
	char t[32];

	page_begin(sb, k->ident, "kernels");
	sb_adds(sb, "<h1>Kernel ");
	sb_add_html(sb, k->ident);
	sb_adds(sb, "</h1>\n<table class=\"fields\">\n");
	field(sb, "version", k->version);
	sb_adds(sb, "<tr><th>base</th><td>");
	if (k->base && *k->base) {
		page_link(sb, "/kernels/", k->base, k->base);
		sb_adds(sb, " (<a href=\"/compare?k=");
		sb_add_urlenc(sb, k->base);
		sb_adds(sb, "&amp;k=");
		sb_add_urlenc(sb, k->ident);
		sb_adds(sb, "&amp;base=");
		sb_add_urlenc(sb, k->base);
		sb_adds(sb, "\">compare with base</a>)");
	} else {
		sb_adds(sb, "-");
	}
	sb_adds(sb, "</td></tr>\n");
	field(sb, "patch hash", k->patch_hash);
	field(sb, "config hash", k->config_hash);
	field(sb, "source", k->source);
	field(sb, "provenance", k->provenance);
	build_log_link(sb, k);
	page_time(t, sizeof(t), k->created);
	field(sb, "added (UTC)", t);
	sb_addf(sb, "</table>\n<h2>Runs (%zu)</h2>\n", nr);
	page_runs_table(sb, runs, nr);
	page_end(sb);
}

static int kernel_page(struct db *db, struct query *q, enum page_format f,
		       const char *ident, struct web_response *r)
{
	struct db_kernel k;
	struct db_run *runs = NULL;
	size_t nr = 0, i;
	char v[200], msg[300];
	json_t *o, *arr;
	int rc;

	memset(&k, 0, sizeof(k));
	rc = db_kernel_get(db, ident, &k);
	if (rc) {
		fmt_ascii(v, sizeof(v), ident);
		snprintf(msg, sizeof(msg), "unknown kernel '%s'", v);
		return page_db_error(r, q, rc, rc == DB_NOTFOUND ? msg :
				     "cannot read kernel");
	}
	if (db_run_list(db, ident, NULL, NULL, 0, &runs, &nr))
		nr = 0;
	sb_reset(&r->body);
	if (f == PF_JSON) {
		o = kernel_json(&k);
		arr = json_array();
		for (i = 0; i < nr; i++)
			json_array_append_new(arr, page_run_json(&runs[i]));
		json_object_set_new(o, "run_list", arr);
		rc = page_json(r, o);
	} else {
		kernel_html(&r->body, &k, runs, nr);
		rc = page_ok(r, CT_HTML);
	}
	db_runs_free(runs, nr);
	db_kernel_release(&k);
	return rc;
}

int web_kernels(struct db *db, struct query *q, const char *arg,
		struct web_response *r)
{
	enum page_format f;

	if (page_format(q, PF_HTML | PF_JSON, &f, r))
		return r->status;
	if (arg && *arg)
		return kernel_page(db, q, f, arg, r);
	return kernels_list(db, q, f, r);
}
