/* SPDX-License-Identifier: MIT */
/*
 * page: what every page of web/ shares and the HTTP layer does not see.
 * The HTML frame (head with the inline stylesheet, navigation, footer),
 * the ?format= choice, responses in each format, the mapping of data
 * layer errors to HTTP statuses, and small escaping helpers.
 */
#ifndef KLAB_WEB_PAGE_H
#define KLAB_WEB_PAGE_H

#include <jansson.h>
#include <stdint.h>

#include "web.h"

enum page_format {
	PF_HTML = 1,
	PF_TEXT = 2,
	PF_CSV = 4,
	PF_JSON = 8,
};

#define CT_HTML "text/html; charset=utf-8"
#define CT_TEXT "text/plain; charset=utf-8"
#define CT_CSV "text/csv; charset=utf-8"
#define CT_JSON "application/json"

/*
 * The ?format= of q (html when absent).  0 when it is one of allowed,
 * with r's body emptied for the page; otherwise -1 with a 400 error
 * already in r.
 */
int page_format(const struct query *q, unsigned allowed,
		enum page_format *out, struct web_response *r);
/* Start an HTML page: doctype, head, inline CSS, navigation (nav is the
 * active item: "home", "kernels", ...).  title is escaped. */
void page_begin(struct strbuf *sb, const char *title, const char *nav);
/* page_begin with a reload every refresh seconds (0: none), for the
 * pages that follow work going on (submissions, comparisons, bisections,
 * the queue). */
void page_begin_refresh(struct strbuf *sb, const char *title,
			const char *nav, int refresh);
/* The CSS class of a verdict or outcome: worse, better, else same. */
const char *page_verdict_class(const char *verdict);
/* The end of a page's first paragraph, ", VERB WHEN UTC.", then the
 * opening of its summary paragraph, "State: <b id=state>STATE</b>". */
void page_summary_state(struct strbuf *sb, const char *verb, int64_t when,
			const char *state);
/* " &middot; LABEL: " and text in a span id=verdict, classed by verdict. */
void page_summary_verdict(struct strbuf *sb, const char *label,
			  const char *verdict, const char *text);
/* One <option> of a form's <select>, value and text escaped. */
void page_option(struct strbuf *sb, const char *value, const char *text,
		 int selected);
/* Close the page begun by page_begin. */
void page_end(struct strbuf *sb);
/* Finish r as a 200 with the body already in r->body. */
int page_ok(struct web_response *r, const char *content_type);
/* Finish r as a 200 JSON response; takes the reference to doc. */
int page_json(struct web_response *r, json_t *doc);
/* Send err in q's format with the status of a DB_* code (web_status). */
int page_db_error(struct web_response *r, const struct query *q, int rc,
		  const char *err);
/* A JSON string of s, repaired by the one UTF-8 rule (lib/utf8.h).
 * NULL: null. */
json_t *page_jstr(const char *s);
/* "2024-05-01 12:00:03" (UTC), "-" for 0. */
void page_time(char *buf, size_t len, int64_t t);
/* The pool rig g belongs to (its class, when that is no rig's own name:
 * several rigs, lab/rig_class.c), else NULL. */
const char *page_rig_pool(const struct db_rig *g);
/* <a href="prefix + urlenc(value)">html(text)</a> */
void page_link(struct strbuf *sb, const char *prefix, const char *value,
	       const char *text);
/* A query value that must be a decimal integer in [min, max]: 0, or -1
 * with a 400 in r naming the parameter.  Absent: *out = dflt. */
int page_int_param(const struct query *q, const char *key, long dflt,
		   long min, long max, long *out, struct web_response *r);

/* The verdict tables of a comparison and its summary line
 * (page_compare.c), shared by /compare and /comparisons/ID. */
struct comparison;
void page_compare_tables(struct strbuf *sb, const struct comparison *c);

/* A table of runs (page_runs.c), shared by home, kernel and run pages. */
void page_runs_table(struct strbuf *sb, const struct db_run *v, size_t n);
/* A job's steps (page_steps.c), each summed over the repetitions, for
 * its run's page; nothing when it has none. */
void page_job_steps_html(struct strbuf *sb, struct db *db, int64_t job);
/* A run as a JSON object (new reference). */
json_t *page_run_json(const struct db_run *run);

#endif
