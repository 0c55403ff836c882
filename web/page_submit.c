// SPDX-License-Identifier: MIT
/*
 * /submit: the form of a patch submission.  A signed-in submitter names
 * the base, uploads patch files (git format-patch files or an mbox) or
 * pastes a series, and may name rigs, suites, the job configuration of
 * every cell (scale, I/O scheduler, kernel parameters) and a note; the
 * form posts as application/x-www-form-urlencoded with the session's
 * CSRF token.
 * The chosen files are read by the browser (FileReader) into
 * file_name / file_text fields at submit time, so one encoding carries
 * both ways in.  A refused post shows the form again with the reason
 * (the patch, file and hunk of a series that does not apply) and what
 * was typed.
 */
#include <stdio.h>
#include <string.h>

#include "page.h"
#include "page_submit.h"

/* Reads the chosen files into hidden fields, then posts. */
static const char submit_js[] =
	"<script>\n"
	"document.getElementById('submit-form').addEventListener('submit',"
	" function (e) {\n"
	"  var f = this, inp = document.getElementById('files');\n"
	"  if (f.dataset.ready || !inp.files.length) return;\n"
	"  e.preventDefault();\n"
	"  Promise.all(Array.from(inp.files).map(function (x) {\n"
	"    return x.text().then(function (t) { return [x.name, t]; });\n"
	"  })).then(function (all) {\n"
	"    all.forEach(function (p) {\n"
	"      ['file_name', 'file_text'].forEach(function (k, i) {\n"
	"        var h = document.createElement('input');\n"
	"        h.type = 'hidden'; h.name = k; h.value = p[i];\n"
	"        f.appendChild(h);\n"
	"      });\n"
	"    });\n"
	"    f.dataset.ready = '1';\n"
	"    f.submit();\n"
	"  });\n"
	"});\n"
	"</script>\n";

/* value="..." of field key: the last post's, else dflt. */
static void field_value(struct strbuf *sb, const struct web_submit_form *f,
			const char *key, const char *dflt)
{
	const char *v = f->q ? query_get(f->q, key) : NULL;

	sb_adds(sb, " value=\"");
	sb_add_html(sb, v ? v : dflt ? dflt : "");
	sb_adds(sb, "\"");
}

/* The job configuration every cell runs with, each optional: a small
 * scale makes a quick first look on a slow rig. */
static void config_fields(struct strbuf *sb, const struct web_submit_form *f)
{
	sb_adds(sb, "<p><label>scale <input name=\"scale\" id=\"scale\" "
		"size=\"8\" placeholder=\"1\"");
	field_value(sb, f, "scale", NULL);
	sb_adds(sb, "></label> <label>I/O scheduler <input name=\"scheduler\" "
		"id=\"scheduler\" size=\"12\" placeholder=\"mq-deadline\"");
	field_value(sb, f, "scheduler", NULL);
	sb_adds(sb, "></label> <label>kernel parameters <input "
		"name=\"cmdline\" id=\"cmdline\" size=\"30\" "
		"placeholder=\"elevator=none\"");
	field_value(sb, f, "cmdline", NULL);
	sb_adds(sb, "></label> <span class=\"note\">optional, for every "
		"cell; empty: the suite's scale, the rig's scheduler</span>"
		"</p>\n");
}

static void form_fields(struct strbuf *sb, const struct web_submit_form *f)
{
	const char *text = f->q ? query_get(f->q, "text") : NULL;

	sb_adds(sb, "<p><label>base <input name=\"base\" id=\"base\" "
		"required size=\"30\"");
	field_value(sb, f, "base", NULL);
	sb_adds(sb, "></label> <span class=\"note\">one of: ");
	sb_add_html(sb, f->bases);
	sb_adds(sb, "</span></p>\n<p><label>patch files <input type=\"file\" "
		"id=\"files\" multiple accept=\".patch,.diff,.mbox,.eml,"
		"text/plain\"></label> <span class=\"note\">git format-patch "
		"files or an mbox, in order</span></p>\n"
		"<p><label>or paste the series<br><textarea name=\"text\" "
		"id=\"text\" rows=\"12\" cols=\"90\">");
	sb_add_html(sb, text ? text : "");
	sb_adds(sb, "</textarea></label></p>\n<p><label>rigs <input "
		"name=\"rig\" id=\"rig\"");
	field_value(sb, f, "rig", NULL);
	sb_adds(sb, " placeholder=\"");
	sb_add_html(sb, f->rigs ? f->rigs : "");
	sb_adds(sb, "\"></label> <label>suites <input name=\"suite\" "
		"id=\"suite\"");
	field_value(sb, f, "suite", NULL);
	sb_adds(sb, " placeholder=\"");
	sb_add_html(sb, f->suites ? f->suites : "");
	sb_adds(sb, "\"></label> <span class=\"note\">comma-separated; empty:"
		" the lab's defaults shown</span></p>\n");
	config_fields(sb, f);
	sb_adds(sb, "<p><label>note <input name=\"note\" id=\"note\" "
		"size=\"60\"");
	field_value(sb, f, "note", NULL);
	sb_adds(sb, "></label></p>\n");
}

int web_submit_form(const struct web_submit_form *f, int status,
		    struct web_response *r)
{
	struct strbuf *sb = &r->body;

	sb_reset(sb);
	page_begin(sb, "Submit a patch", "submit");
	sb_adds(sb, "<h1>Submit a patch</h1>\n<p>Signed in as <b>");
	sb_add_html(sb, f->who);
	sb_adds(sb, "</b>.  The series is checked against the base at once; "
		"then both kernels are built (cached), run interleaved on each"
		" rig and suite until the verdict is decided or the cap is "
		"reached, and the report is mailed to the subscribers.</p>\n");
	if (f->error) {
		sb_adds(sb, "<p class=\"error\" id=\"error\">");
		sb_add_html(sb, f->error);
		sb_adds(sb, "</p>\n");
	}
	sb_adds(sb, "<form method=\"post\" action=\"/submit\" "
		"id=\"submit-form\">\n<input type=\"hidden\" name=\"csrf\" "
		"value=\"");
	sb_add_html(sb, f->csrf);
	sb_adds(sb, "\">\n");
	form_fields(sb, f);
	sb_adds(sb, "<p><button type=\"submit\" id=\"go\">submit</button></p>"
		"\n</form>\n");
	sb_adds(sb, submit_js);
	page_end(sb);
	page_ok(r, CT_HTML);
	r->status = status;
	return status;
}
