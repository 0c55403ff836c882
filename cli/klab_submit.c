// SPDX-License-Identifier: MIT
/*
 * klab's commands for patch submissions and the lab's queue: submit (and
 * follow it with --wait: a live progress line on a terminal, then the
 * text report, the exit code saying what was found), submissions,
 * submission show / report / cancel, and queue.  Also the one table
 * printer every list command uses (a header, columns as wide as their
 * widest value; --format json prints the server's document instead).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/klab.h"
#include "judge/decision.h"
#include "lib/config.h"

#define TABLE_MAX_COLS 16
#define CELL_MAX 60	/* wider values are cut with "..." */

/* A value of a row as text into buf. */
static void cell_text(json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	else
		snprintf(buf, len, "-");
	if (!*buf)
		snprintf(buf, len, "-");
	buf[strcspn(buf, "\n")] = '\0';
	if (strlen(buf) > CELL_MAX)
		memcpy(buf + CELL_MAX - 3, "...", 4);
}

void cli_table_print(json_t *rows, const char *const *cols)
{
	int w[TABLE_MAX_COLS] = { 0 }, j, n;
	char buf[CELL_MAX + 8];
	json_t *e;
	size_t i;

	for (n = 0; cols[n] && n < TABLE_MAX_COLS; n++)
		w[n] = (int)strlen(cols[n]);
	json_array_foreach(rows, i, e)
		for (j = 0; j < n; j++) {
			cell_text(json_object_get(e, cols[j]), buf,
				  sizeof(buf));
			if ((int)strlen(buf) > w[j])
				w[j] = (int)strlen(buf);
		}
	for (j = 0; j < n; j++)
		printf("%-*s%s", j + 1 < n ? w[j] : 0, cols[j],
		       j + 1 < n ? "  " : "\n");
	json_array_foreach(rows, i, e)
		for (j = 0; j < n; j++) {
			cell_text(json_object_get(e, cols[j]), buf,
				  sizeof(buf));
			printf("%-*s%s", j + 1 < n ? w[j] : 0, buf,
			       j + 1 < n ? "  " : "\n");
		}
}

/* A ',' list of names as a JSON list. */
static json_t *names_json(const char *s)
{
	json_t *a = json_array();
	size_t n;

	while (s && *s) {
		n = strcspn(s, ",");
		if (n)
			json_array_append_new(a, json_stringn(s, n));
		s += n + (s[n] == ',');
	}
	return a;
}

/* The patch files of a submit: {"name", "text"} each ('-': stdin). */
static json_t *patch_files(struct args *a)
{
	struct strbuf text = STRBUF_INIT;
	json_t *ps = json_array();
	const char *n;
	int i, bad;

	for (i = 1; i < a->npos; i++) {
		sb_init(&text);
		if (!strcmp(a->pos[i], "-"))
			bad = sb_read_file(&text, "/dev/stdin");
		else
			bad = sb_read_file(&text, a->pos[i]);
		if (bad) {
			fprintf(stderr, "klab: cannot read '%s'\n", a->pos[i]);
			json_decref(ps);
			sb_release(&text);
			return NULL;
		}
		n = strrchr(a->pos[i], '/');
		json_array_append_new(ps, json_pack("{s:s, s:s%}", "name",
				      !strcmp(a->pos[i], "-") ? "stdin.patch" :
				      n ? n + 1 : a->pos[i], "text", text.buf,
				      text.len));
		sb_release(&text);
	}
	return ps;
}

/* One line of a submission's progress; 1 once it has ended. */
static int sub_progress(json_t *doc, char *line, size_t len)
{
	const char *st = json_string_value(json_object_get(doc, "state")),
		   *stage = json_string_value(json_object_get(doc, "stage"));
	json_t *p = json_object_get(doc, "progress");
	int n = 0;

	n = snprintf(line, len, "submission %lld: %s, stage %s",
		     json_integer_value(json_object_get(doc, "id")),
		     st ? st : "?", stage ? stage : "?");
	if (stage && !strcmp(stage, "build") && n > 0 && (size_t)n < len)
		n += snprintf(line + n, len - (size_t)n,
			      ": base %s, patched %s",
			      json_string_value(json_object_get(p,
			      "build_base")), json_string_value(
			      json_object_get(p, "build_patched")));
	if (n > 0 && (size_t)n < len)
		snprintf(line + n, len - (size_t)n, "; cells %lld of %lld, "
			 "headline metrics decided %lld of %lld; %lld ahead",
			 json_integer_value(json_object_get(p, "cells_done")),
			 json_integer_value(json_object_get(p,
			 "cells_planned")), json_integer_value(
			 json_object_get(p, "headline_decided")),
			 json_integer_value(json_object_get(p,
			 "headline_total")), json_integer_value(
			 json_object_get(p, "ahead")));
	return st && strcmp(st, "running");
}

/* The exit code of an ended submission. */
static int sub_exit(json_t *doc)
{
	const char *st = json_string_value(json_object_get(doc, "state")),
		   *vd = json_string_value(json_object_get(doc, "verdict"));

	if (!st || strcmp(st, "finished"))
		return EX_SERVER;
	switch (cmp_verdict_of(vd)) {
	case V_WORSE: return EX_WORSE;
	case V_UNDECIDED: return EX_UNDECIDED;
	default: return EX_OK;
	}
}

/* Follow submission id to its end, then print its report. */
static int submit_wait(long id)
{
	char path[64];
	json_t *doc;
	int rc;

	snprintf(path, sizeof(path), "/api/submissions/%ld", id);
	rc = cli_follow(path, sub_progress, &doc);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "/submissions/%ld", id);
	rc = get_print_text(path);
	if (!rc)
		rc = sub_exit(doc);
	json_decref(doc);
	return rc;
}

/* klab submit BASE PATCH... [--rig R,..] [--suite S,..] [--note T]
 * [--max-cells N] [--scale F] [--scheduler X] [--cmdline TEXT] [--wait]:
 * --scale, --scheduler and --cmdline are the job configuration of every
 * cell, as klab compare-run's (job_config_add). */
int cmd_submit(struct args *a)
{
	json_t *doc, *ps;
	long id = 0, n = 0;
	int rc;

	if (a->npos < 2 || (a->max_cells && parse_long(a->max_cells, 1, 1000,
						       &n))) {
		fputs("klab: usage: klab submit BASE PATCH... [--rig R] "
		      "[--suite S] [--note TEXT] [--max-cells N] [--scale F] "
		      "[--scheduler X] [--cmdline TEXT] [--wait]\n", stderr);
		return EX_USAGE;
	}
	ps = patch_files(a);
	if (!ps)
		return EX_USAGE;
	doc = json_pack("{s:s, s:o}", "base", a->pos[0], "patches", ps);
	if (job_config_add(doc, a)) {
		json_decref(doc);
		return EX_USAGE;
	}
	if (a->rig)
		json_object_set_new(doc, "rigs", names_json(a->rig));
	if (a->suite)
		json_object_set_new(doc, "suites", names_json(a->suite));
	if (a->note)
		json_object_set_new(doc, "note", json_string(a->note));
	if (n)
		json_object_set_new(doc, "max_cells", json_integer(n));
	rc = post_created("/api/submissions", doc, "submission", &id);
	if (rc == EX_OK && a->wait)
		rc = submit_wait(id);
	return rc;
}

/* GET path and print doc[key] as a table of cols, or the document. */
int cli_list(const char *path, const char *key, const char *const *cols,
	     const char *format)
{
	json_t *doc;
	char *s;
	int rc = get_json(path, &doc);

	if (rc)
		return rc;
	if (format && !strcmp(format, "json")) {
		s = json_dumps(doc, JSON_INDENT(1));
		printf("%s\n", s ? s : "");
		free(s);
	} else if (format && strcmp(format, "table")) {
		fprintf(stderr, "klab: unknown format '%s': table or json\n",
			format);
		rc = EX_USAGE;
	} else {
		cli_table_print(json_object_get(doc, key), cols);
	}
	json_decref(doc);
	return rc;
}

int cmd_submissions(struct args *a)
{
	static const char *const cols[] = { "id", "who", "base", "state",
					    "stage", "verdict", "rigs",
					    "suites", NULL };

	return cli_list("/api/submissions", "submissions", cols, a->format);
}

/* klab submission show|report|cancel N */
int cmd_submission(struct args *a)
{
	struct http_result res;
	char path[80];
	json_t *doc;
	long id;
	int rc;

	if (a->npos != 2 || parse_long(a->pos[1], 1, 0x7fffffffL, &id) ||
	    (strcmp(a->pos[0], "show") && strcmp(a->pos[0], "report") &&
	     strcmp(a->pos[0], "cancel"))) {
		fputs("klab: usage: klab submission show|report|cancel ID\n",
		      stderr);
		return EX_USAGE;
	}
	if (!strcmp(a->pos[0], "cancel")) {
		snprintf(path, sizeof(path), "/api/submissions/%ld/cancel", id);
		rc = http_do(path, NULL, "{}", 2, "application/json", &res);
		if (rc == EX_OK && res.status != 200)
			rc = server_error(&res);
		else if (rc == EX_OK)
			printf("submission %ld cancelled\n", id);
		sb_release(&res.body);
		return rc;
	}
	if (!strcmp(a->pos[0], "report")) {
		snprintf(path, sizeof(path), "/submissions/%ld?format=text",
			 id);
		return get_print(path, NULL);
	}
	snprintf(path, sizeof(path), "/api/submissions/%ld", id);
	if (a->format && !strcmp(a->format, "json"))
		return get_print(path, NULL);
	rc = get_json(path, &doc);
	if (!rc) {
		char line[400];

		sub_progress(doc, line, sizeof(line));
		printf("%s\n", line);
		cli_table_print(json_object_get(doc, "stages"), (const char
				*const[]){ "stage", "state", "started",
				"finished", NULL });
	}
	json_decref(doc);
	return rc;
}

/* klab queue: per rig the job it runs and those waiting, then builds,
 * then the jobs that failed last. */
int cmd_queue(struct args *a)
{
	static const char *const jc[] = { "rig", "id", "kernel", "suite",
					  "state", "who", "submission",
					  "elapsed", NULL };
	static const char *const bc[] = { "id", "ident", "base", "state",
					  "elapsed", NULL };
	static const char *const fc[] = { "id", "kernel", "rig", "suite",
					  "failure", "error", NULL };
	json_t *doc, *now = json_array(), *wait = json_array(), *g;
	size_t i;
	int rc;

	if (a->format && !strcmp(a->format, "json")) {
		json_decref(now);
		json_decref(wait);
		return get_print("/api/queue", NULL);
	}
	rc = get_json("/api/queue", &doc);
	/* a pool's jobs first (its rig: the class), then each rig's */
	json_array_foreach(json_object_get(doc, "classes"), i, g)
		json_array_extend(wait, json_object_get(g, "waiting"));
	json_array_foreach(json_object_get(doc, "rigs"), i, g) {
		json_array_extend(now, json_object_get(g, "now"));
		json_array_extend(wait, json_object_get(g, "waiting"));
	}
	if (!rc) {
		puts("running:");
		cli_table_print(now, jc);
		puts("\nwaiting (in the order each rig or pool takes "
		     "them):");
		cli_table_print(wait, jc);
		puts("\nbuilds:");
		cli_table_print(json_object_get(doc, "builds"), bc);
		puts("\nfailed last:");
		cli_table_print(json_object_get(doc, "failed"), fc);
	}
	json_decref(now);
	json_decref(wait);
	json_decref(doc);
	return rc;
}

/* One "key=value key=value" line as a JSON object. */
static json_t *kv_line(const char *l, size_t len)
{
	json_t *o = json_object();
	const char *end = l + len, *sp, *eq;
	char key[64];

	while (l < end) {
		sp = memchr(l, ' ', (size_t)(end - l));
		if (!sp)
			sp = end;
		eq = memchr(l, '=', (size_t)(sp - l));
		if (eq && eq > l && (size_t)(eq - l) < sizeof(key)) {
			snprintf(key, sizeof(key), "%.*s", (int)(eq - l), l);
			json_object_set_new(o, key, json_stringn(eq + 1,
					    (size_t)(sp - eq - 1)));
		}
		l = sp + 1;
	}
	return o;
}

int cli_kv_list(const char *path, const char *key, const char *const *cols,
		const char *format)
{
	struct http_result res;
	json_t *rows = json_array(), *doc;
	const char *p, *nl;
	char *s;
	int rc = http_do(path, NULL, NULL, 0, NULL, &res);

	if (rc == EX_OK && res.status != 200)
		rc = server_error(&res);
	for (p = res.body.buf; rc == EX_OK && p && *p; p = nl + (*nl == '\n')) {
		nl = p + strcspn(p, "\n");
		if (nl > p)
			json_array_append_new(rows,
					      kv_line(p, (size_t)(nl - p)));
	}
	if (rc == EX_OK && format && !strcmp(format, "json")) {
		doc = json_pack("{s:O}", key, rows);
		s = json_dumps(doc, JSON_INDENT(1));
		printf("%s\n", s ? s : "");
		free(s);
		json_decref(doc);
	} else if (rc == EX_OK) {
		cli_table_print(rows, cols);
	}
	json_decref(rows);
	sb_release(&res.body);
	return rc;
}
