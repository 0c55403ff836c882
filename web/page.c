// SPDX-License-Identifier: MIT
/*
 * The frame of every page (inline stylesheet, navigation Home / Kernels /
 * Compare / History / Runs / Rigs, footer), responses in each format and
 * error pages.  Errors come back in the format the request asked for: an
 * HTML page, "error: msg" text, or {"error": msg}.
 */
#include "page.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "lib/utf8.h"

/* Where page_begin leaves room for who is signed in (web_page_session);
 * the page's own text comes after it, HTML-escaped, so it cannot hold
 * the mark. */
#define SESSION_MARK "<!--klab:session-->"
#define SESSION_MARK_WITHIN 8192	/* bytes from the page's start */

static const char css[] =
	"body{font:14px/1.4 sans-serif;margin:0;color:#222;background:#fff}\n"
	"header{background:#23395d;padding:.5em 1em}\n"
	"header a{color:#dde;margin-right:1.2em;text-decoration:none}\n"
	"header a.on{color:#fff;font-weight:bold}\n"
	"header .brand{color:#fff;font-weight:bold;margin-right:2em}\n"
	"header .session{float:right;color:#dde;margin:0}\n"
	"header .session a{margin:0 0 0 .5em}\n"
	"header .session button{margin-left:.5em}\n"
	"main{padding:1em 1.5em}\n"
	"footer{color:#888;font-size:12px;padding:1em 1.5em;"
	"border-top:1px solid #ddd}\n"
	"table{border-collapse:collapse;margin:.5em 0 1em}\n"
	"th,td{border:1px solid #ccc;padding:2px 6px}\n"
	"th{background:#f0f0f4;font-weight:normal}\n"
	"td.num,th.num{text-align:right;font-family:monospace}\n"
	"table.tiobench td{font-family:monospace;text-align:right}\n"
	"table.tiobench td.id{text-align:left}\n"
	"td.better,span.better{background:#d6f5d6;color:#135e13}\n"
	"td.worse,span.worse{background:#f9d4d4;color:#8a1010}\n"
	"td.same{color:#555}\n"
	"td.undecided,span.undecided{background:#fdf3d0;color:#6b5200}\n"
	"td.noverdict{color:#888;font-style:italic}\n"
	"tr.base td{font-weight:bold}\n"
	"pre{background:#f7f7f7;border:1px solid #ddd;padding:.5em;"
	"overflow:auto}\n"
	"form.picker{background:#f4f4f8;padding:.5em 1em;"
	"border:1px solid #ddd;display:inline-block}\n"
	"form.picker label{display:inline-block;margin-right:1em;"
	"vertical-align:top}\n"
	".note{color:#666;font-size:12px}\n"
	".err{color:#8a1010}\n"
	"p.status{font-size:18px;padding:.4em .8em;border:1px solid #ccc;"
	"display:inline-block}\n"
	"p.status.need{background:#f9d4d4;color:#8a1010}\n"
	"p.status.calm{background:#d6f5d6;color:#135e13}\n"
	"p.status a{color:inherit}\n"
	"section h2 a{color:inherit;text-decoration:none}\n"
	"section h2 a:hover{text-decoration:underline}\n"
	"svg.chart{border:1px solid #ddd;background:#fff}\n";

static const struct {
	const char *key, *href, *label;
} nav[] = {
	{ "home", "/", "Home" },
	{ "kernels", "/kernels", "Kernels" },
	{ "compare", "/compare", "Compare" },
	{ "history", "/history", "History" },
	{ "runs", "/runs", "Runs" },
	{ "rigs", "/rigs", "Rigs" },
	{ "alerts", "/alerts", "Alerts" },
	{ "submit", "/submit", "Submit" },
	{ "submissions", "/submissions", "Submissions" },
	{ "queue", "/queue", "Queue" },
	{ "bisections", "/bisections", "Bisections" },
};

void web_response_init(struct web_response *r)
{
	r->status = 200;
	r->content_type = CT_HTML;
	sb_init(&r->body);
	r->location[0] = '\0';
	r->cookie[0] = '\0';
	r->fd = -1;
	r->fd_size = 0;
}

void web_response_release(struct web_response *r)
{
	if (!r)
		return;
	sb_release(&r->body);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

void page_begin(struct strbuf *sb, const char *title, const char *active)
{
	page_begin_refresh(sb, title, active, 0);
}

void page_begin_refresh(struct strbuf *sb, const char *title,
			const char *active, int refresh)
{
	size_t i;

	sb_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
		"<meta charset=\"utf-8\"><title>");
	sb_add_html(sb, title);
	sb_adds(sb, " - klab</title>\n");
	if (refresh > 0)
		sb_addf(sb, "<meta http-equiv=\"refresh\" content=\"%d\">\n",
			refresh);
	sb_adds(sb, "<style>\n");
	sb_adds(sb, css);
	sb_adds(sb, "</style></head>\n<body>\n<header>"
		"<a class=\"brand\" href=\"/\">klab</a>");
	for (i = 0; i < sizeof(nav) / sizeof(*nav); i++)
		sb_addf(sb, "<a href=\"%s\"%s>%s</a>", nav[i].href,
			active && !strcmp(active, nav[i].key) ?
			" class=\"on\"" : "", nav[i].label);
	sb_adds(sb, SESSION_MARK "</header>\n<main>\n");
}

/* The header's end for who: a sign-out form, or a sign-in link. */
static void session_html(struct strbuf *sb, const char *who,
			 const char *csrf)
{
	if (!csrf) {
		sb_adds(sb, "<span class=\"session\"><a href=\"/login\">"
			"sign in</a></span>");
		return;
	}
	sb_adds(sb, "<form class=\"session\" method=\"post\" "
		"action=\"/logout\">");
	sb_add_html(sb, who);
	sb_adds(sb, "<input type=\"hidden\" name=\"csrf\" value=\"");
	sb_add_html(sb, csrf);
	sb_adds(sb, "\"><button type=\"submit\" id=\"signout\">sign out"
		"</button></form>");
}

void web_page_session(struct web_response *r, const char *who,
		      const char *csrf)
{
	struct strbuf *sb = &r->body, out = STRBUF_INIT;
	size_t mlen = strlen(SESSION_MARK), off;
	const char *p;

	if (r->fd >= 0 || !r->content_type ||
	    strncmp(r->content_type, "text/html", 9) || !sb->len)
		return;
	p = memmem(sb->buf, sb->len < SESSION_MARK_WITHIN ? sb->len :
		   SESSION_MARK_WITHIN, SESSION_MARK, mlen);
	if (!p)
		return;
	off = (size_t)(p - sb->buf);
	sb_init(&out);
	sb_grow(&out, sb->len + 512);
	sb_add(&out, sb->buf, off);
	session_html(&out, who ? who : "", csrf);
	sb_add(&out, p + mlen, sb->len - off - mlen);
	sb_release(sb);
	*sb = out;
}

const char *page_verdict_class(const char *verdict)
{
	return !strcmp(verdict, "worse") ? "worse" :
	       !strcmp(verdict, "better") ? "better" : "same";
}

void page_summary_state(struct strbuf *sb, const char *verb, int64_t when,
			const char *state)
{
	char t[40];

	page_time(t, sizeof(t), when);
	sb_addf(sb, ", %s %s UTC.</p>\n<p class=\"summary\">State: "
		"<b id=\"state\">", verb, t);
	sb_add_html(sb, state);
	sb_adds(sb, "</b>");
}

void page_summary_verdict(struct strbuf *sb, const char *label,
			  const char *verdict, const char *text)
{
	sb_addf(sb, " &middot; %s: <span id=\"verdict\" class=\"%s\">",
		label, page_verdict_class(verdict));
	sb_add_html(sb, text);
	sb_adds(sb, "</span>");
}

void page_option(struct strbuf *sb, const char *value, const char *text,
		 int selected)
{
	sb_adds(sb, "<option value=\"");
	sb_add_html(sb, value);
	sb_addf(sb, "\"%s>", selected ? " selected" : "");
	sb_add_html(sb, text);
	sb_adds(sb, "</option>");
}

void page_end(struct strbuf *sb)
{
	sb_adds(sb, "</main>\n<footer>klab, the kernel I/O regression lab. "
		"Every page here is a permalink; comparisons also come as "
		"text, CSV and JSON.</footer>\n</body></html>\n");
}

int page_ok(struct web_response *r, const char *content_type)
{
	r->status = 200;
	r->content_type = content_type;
	return r->status;
}

int page_json(struct web_response *r, json_t *doc)
{
	char *s = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);

	json_decref(doc);
	if (!s)
		return web_error_json(r, 500, "cannot encode json");
	sb_reset(&r->body);
	sb_adds(&r->body, s);
	sb_addc(&r->body, '\n');
	free(s);
	return page_ok(r, CT_JSON);
}

json_t *page_jstr(const char *s)
{
	return utf8_json_string(s);
}

int web_status(enum outcome o)
{
	static const int status[] = {
		[OUT_OK] = 200,
		[OUT_INVALID] = 400,
		[OUT_FORBIDDEN] = 403,
		[OUT_NOTFOUND] = 404,
		[OUT_CONFLICT] = 409,
		[OUT_TOOBIG] = 413,
		[OUT_REFUSED] = 422,
		[OUT_BUSY] = 503,
		[OUT_ERROR] = 500,
	};

	if ((unsigned)o >= sizeof(status) / sizeof(status[0]) || !status[o])
		return 500;
	return status[o];
}

int web_error_json(struct web_response *r, int status, const char *msg)
{
	json_t *o = json_object();

	json_object_set_new(o, "error", page_jstr(msg));
	page_json(r, o);
	r->status = status;
	return status;
}

int web_error_page(struct web_response *r, const struct query *q,
		   int status, const char *msg)
{
	const char *f = q ? query_get(q, "format") : NULL;
	char title[64];

	if (f && !strcmp(f, "json"))
		return web_error_json(r, status, msg);
	sb_reset(&r->body);
	r->status = status;
	if (f && (!strcmp(f, "text") || !strcmp(f, "csv"))) {
		sb_addf(&r->body, "error: %s\n", msg);
		r->content_type = CT_TEXT;
		return status;
	}
	snprintf(title, sizeof(title), "%d %s", status,
		 status == 404 ? "not found" : status == 400 ?
		 "bad request" : status >= 500 ? "server error" : "error");
	page_begin(&r->body, title, NULL);
	sb_adds(&r->body, "<h1>");
	sb_add_html(&r->body, title);
	sb_adds(&r->body, "</h1>\n<p class=\"err\">");
	sb_add_html(&r->body, msg);
	sb_adds(&r->body, "</p>\n<p><a href=\"/\">klab home</a></p>\n");
	page_end(&r->body);
	r->content_type = CT_HTML;
	return status;
}

int page_db_error(struct web_response *r, const struct query *q, int rc,
		  const char *err)
{
	return web_error_page(r, q, web_status(outcome_of_db(rc)),
			      err && *err ? err : "database error");
}

int page_format(const struct query *q, unsigned allowed,
		enum page_format *out, struct web_response *r)
{
	static const struct {
		const char *name;
		enum page_format f;
	} fmts[] = {
		{ "html", PF_HTML }, { "text", PF_TEXT }, { "txt", PF_TEXT },
		{ "csv", PF_CSV }, { "json", PF_JSON },
	};
	const char *f = query_get(q, "format");
	char msg[160], v[64];
	size_t i;

	*out = PF_HTML;
	sb_reset(&r->body);
	if (!f || !*f)
		return 0;
	for (i = 0; i < sizeof(fmts) / sizeof(*fmts); i++)
		if (!strcmp(f, fmts[i].name) && (allowed & fmts[i].f)) {
			*out = fmts[i].f;
			return 0;
		}
	fmt_ascii(v, sizeof(v), f);
	snprintf(msg, sizeof(msg), "unknown format '%s'", v);
	web_error_page(r, NULL, 400, msg);
	return -1;
}

void page_time(char *buf, size_t len, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0 || !gmtime_r(&tt, &tm)) {
		snprintf(buf, len, "-");
		return;
	}
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

const char *page_rig_pool(const struct db_rig *g)
{
	return *g->klass && strcmp(g->klass, g->name) ? g->klass : NULL;
}

void page_link(struct strbuf *sb, const char *prefix, const char *value,
	       const char *text)
{
	sb_adds(sb, "<a href=\"");
	sb_adds(sb, prefix);
	sb_add_urlenc(sb, value);
	sb_adds(sb, "\">");
	sb_add_html(sb, text);
	sb_adds(sb, "</a>");
}

int page_int_param(const struct query *q, const char *key, long dflt,
		   long min, long max, long *out, struct web_response *r)
{
	const char *s = query_get(q, key);
	char *end, msg[200], v[64];
	long n;

	*out = dflt;
	if (!s || !*s)
		return 0;
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || end == s || n < min || n > max) {
		fmt_ascii(v, sizeof(v), s);
		snprintf(msg, sizeof(msg), "parameter '%s': '%s' is not a "
			 "number from %ld to %ld", key, v, min, max);
		web_error_page(r, q, 400, msg);
		return -1;
	}
	*out = n;
	return 0;
}

int web_style(struct db *db, struct query *q, const char *arg,
	      struct web_response *r)
{
	sb_reset(&r->body);
	sb_adds(&r->body, css);
	return page_ok(r, "text/css; charset=utf-8");
}
