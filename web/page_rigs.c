// SPDX-License-Identifier: MIT
/*
 * /rigs: the machines results come from, with kind, profile, disks, CPUs,
 * memory and their current state.  A signed-in operator also gets a
 * "bring online" button for each offline rig: a form that posts to
 * /rigs/NAME/online with the session's CSRF token (checked by klabd
 * before the post is acted on).  And /login, where a browser signs in.
 */
#include <string.h>

#include "page.h"

static json_t *rig_json(const struct db_rig *g)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:i, s:i, s:i, s:o, s:I}",
			 "name", page_jstr(g->name),
			 "class", page_jstr(g->klass),
			 "kind", page_jstr(g->kind),
			 "profile", page_jstr(g->profile),
			 "disks", g->disks, "cpus", g->cpus,
			 "memory_mb", g->memory_mb,
			 "state", page_jstr(g->state),
			 "created", (json_int_t)g->created);
}

static void rig_online_form(struct strbuf *sb, const struct db_rig *g,
			    const char *csrf)
{
	sb_adds(sb, " <form class=\"inline\" method=\"post\" action=\"/rigs/");
	sb_add_urlenc(sb, g->name);
	sb_adds(sb, "/online\"><input type=\"hidden\" name=\"csrf\" value=\"");
	sb_add_html(sb, csrf);
	sb_adds(sb, "\"><button type=\"submit\" name=\"online\" value=\"");
	sb_add_html(sb, g->name);
	sb_adds(sb, "\">bring online</button></form>");
}

static void rig_row(struct strbuf *sb, const struct db_rig *g,
		    const char *csrf)
{
	sb_adds(sb, "<tr><td>");
	sb_add_html(sb, g->name);
	sb_adds(sb, "</td><td>");
	sb_add_html(sb, g->klass);
	sb_adds(sb, "</td><td>");
	sb_add_html(sb, g->kind);
	sb_adds(sb, "</td><td>");
	sb_add_html(sb, g->profile);
	sb_addf(sb, "</td><td class=\"num\">%d</td><td class=\"num\">%d</td>"
		"<td class=\"num\">%d</td><td>", g->disks, g->cpus,
		g->memory_mb);
	sb_add_html(sb, g->state);
	if (csrf && !strcmp(g->state, "offline"))
		rig_online_form(sb, g, csrf);
	sb_adds(sb, "</td><td><a href=\"/runs?rig=");
	sb_add_urlenc(sb, g->name);
	sb_adds(sb, "\">runs</a></td></tr>\n");
}

int web_rigs(struct db *db, struct query *q, const char *arg,
	     struct web_response *r)
{
	return web_rigs_forms(db, q, NULL, r);
}

int web_rigs_forms(struct db *db, struct query *q, const char *csrf,
		   struct web_response *r)
{
	enum page_format f;
	struct db_rig *v = NULL;
	size_t n = 0, i;
	json_t *arr;
	int rc;

	if (page_format(q, PF_HTML | PF_JSON, &f, r))
		return r->status;
	rc = db_rig_list(db, &v, &n);
	if (rc)
		return page_db_error(r, q, rc, "cannot list rigs");
	sb_reset(&r->body);
	if (f == PF_JSON) {
		arr = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(arr, rig_json(&v[i]));
		db_rigs_free(v, n);
		return page_json(r, arr);
	}
	page_begin(&r->body, "Rigs", "rigs");
	sb_addf(&r->body, "<h1>Rigs</h1>\n<table class=\"rigs\"><thead><tr>"
		"<th>rig</th><th>class</th><th>kind</th><th>profile</th>"
		"<th>disks</th><th>CPUs</th><th>memory MB</th><th>state</th>"
		"<th></th></tr>"
		"</thead>\n<tbody>\n");
	for (i = 0; i < n; i++)
		rig_row(&r->body, &v[i], csrf);
	sb_adds(&r->body, "</tbody></table>\n");
	if (!n)
		sb_adds(&r->body, "<p>No rigs registered.</p>\n");
	page_end(&r->body);
	db_rigs_free(v, n);
	return page_ok(r, CT_HTML);
}

int web_login(const char *msg, const char *next, struct web_response *r)
{
	struct strbuf *sb = &r->body;

	sb_reset(sb);
	page_begin(sb, "Sign in", NULL);
	sb_adds(sb, "<h1>Sign in</h1>\n");
	if (msg) {
		sb_adds(sb, "<p class=\"error\">");
		sb_add_html(sb, msg);
		sb_adds(sb, "</p>\n");
	}
	sb_adds(sb, "<form method=\"post\" action=\"/login\">"
		"<label>token <input type=\"password\" name=\"token\" "
		"autocomplete=\"off\" required></label>");
	if (next) {
		sb_adds(sb, "<input type=\"hidden\" name=\"next\" value=\"");
		sb_add_html(sb, next);
		sb_adds(sb, "\">");
	}
	sb_adds(sb, " <button type=\"submit\">sign in</button></form>\n"
		"<p>Paste a token made by <code>klabd token add NAME --role "
		"ROLE</code>.  The session lasts 12 hours, until you sign "
		"out, the token is revoked or klabd restarts.</p>\n");
	page_end(sb);
	return page_ok(r, CT_HTML);
}
