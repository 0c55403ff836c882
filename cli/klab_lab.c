// SPDX-License-Identifier: MIT
/*
 * klab's commands that queue and follow the lab's work: jobs, rigs,
 * kernel builds (with --wait) and comparison runs (compare-run, with a
 * progress line and the text report at the end).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/klab.h"
#include "judge/decision.h"
#include "lib/config.h"

const char **job_config_opt(struct args *a, const char *opt)
{
	if (!strcmp(opt, "--scale"))
		return &a->scale;
	if (!strcmp(opt, "--scheduler"))
		return &a->scheduler;
	if (!strcmp(opt, "--cmdline"))
		return &a->cmdline;
	return NULL;
}

int job_config_add(json_t *doc, const struct args *a)
{
	double scale;

	if (a->scale && parse_double(a->scale, &scale)) {
		fprintf(stderr, "klab: option '--scale' needs a number, not "
			"'%s'\n", a->scale);
		return -1;
	}
	if (a->scheduler)
		json_object_set_new(doc, "scheduler",
				    json_string(a->scheduler));
	if (a->cmdline)
		json_object_set_new(doc, "cmdline", json_string(a->cmdline));
	if (a->scale)
		json_object_set_new(doc, "scale", json_real(scale));
	return 0;
}

int cmd_job(struct args *a)
{
	json_t *doc, *ks;
	char path[64];
	long n;
	int i;

	if (a->npos == 2 && !strcmp(a->pos[0], "show")) {
		if (parse_long(a->pos[1], 1, 0x7fffffffL, &n)) {
			fputs("klab: job show takes a job id\n", stderr);
			return EX_USAGE;
		}
		snprintf(path, sizeof(path), "/api/jobs/%ld", n);
		return get_print(path, NULL);
	}
	if (a->npos < 2 || strcmp(a->pos[0], "add") || !a->rig || !a->suite) {
		fputs("klab: usage: klab job add KERNEL... --rig R --suite S\n",
		      stderr);
		return EX_USAGE;
	}
	ks = json_array();
	for (i = 1; i < a->npos; i++)
		json_array_append_new(ks, json_string(a->pos[i]));
	doc = json_pack("{s:o, s:s, s:s}", "kernels", ks, "rig", a->rig,
			"suite", a->suite);
	if (job_config_add(doc, a)) {
		json_decref(doc);
		return EX_USAGE;
	}
	if (a->repeat && !parse_long(a->repeat, 1, 1000, &n))
		json_object_set_new(doc, "repeat", json_integer(n));
	return post_json("/api/jobs", doc, 201, "jobs");
}

int cmd_rig(struct args *a)
{
	char path[300];

	if (a->npos != 2 || strcmp(a->pos[0], "online")) {
		fputs("klab: usage: klab rig online NAME\n", stderr);
		return EX_USAGE;
	}
	snprintf(path, sizeof(path), "/api/rigs/%s/online", a->pos[1]);
	return post_json(path, json_object(), 200, NULL);
}

/* Poll a build until it is done or failed; print its outcome. */
static int build_wait(long id)
{
	struct http_result res;
	char path[64];
	json_t *doc;
	const char *st;
	int rc;

	snprintf(path, sizeof(path), "/api/builds/%ld", id);
	for (;;) {
		rc = http_do(path, NULL, NULL, 0, NULL, &res);
		if (rc || res.status != 200) {
			rc = rc ? rc : server_error(&res);
			sb_release(&res.body);
			return rc;
		}
		doc = json_loadb(res.body.buf, res.body.len, 0, NULL);
		sb_release(&res.body);
		st = json_string_value(json_object_get(doc, "state"));
		if (st && (!strcmp(st, "done") || !strcmp(st, "failed"))) {
			if (!strcmp(st, "done"))
				printf("build %ld: %s\n", id, json_string_value(
				       json_object_get(doc, "ident")));
			else
				fprintf(stderr, "klab: build %ld failed: %s\n",
					id, json_string_value(json_object_get(
					doc, "error")));
			rc = strcmp(st, "done") ? EX_SERVER : EX_OK;
			json_decref(doc);
			return rc;
		}
		json_decref(doc);
		sleep(5);
	}
}

int cmd_build(struct args *a)
{
	struct strbuf text = STRBUF_INIT, q = STRBUF_INIT;
	struct http_result res;
	json_t *doc, *ps, *reply;
	char path[64], *body;
	long id = 0;
	int i, rc;

	if (a->npos == 2 && (!strcmp(a->pos[0], "show") ||
			     !strcmp(a->pos[0], "log"))) {
		if (parse_long(a->pos[1], 1, 0x7fffffffL, &id))
			return EX_USAGE;
		snprintf(path, sizeof(path), "/api/builds/%ld%s", id,
			 strcmp(a->pos[0], "log") ? "" : "/log");
		return get_print(path, NULL);
	}
	if (a->npos < 1) {
		fputs("klab: usage: klab build BASE [PATCH...]\n", stderr);
		return EX_USAGE;
	}
	ps = json_array();
	for (i = 1; i < a->npos; i++) {
		const char *n = strrchr(a->pos[i], '/');

		sb_init(&text);
		if (sb_read_file(&text, a->pos[i])) {
			fprintf(stderr, "klab: cannot read '%s'\n", a->pos[i]);
			json_decref(ps);
			sb_release(&text);
			return EX_USAGE;
		}
		json_array_append_new(ps, json_pack("{s:s, s:s%}", "name",
				      n ? n + 1 : a->pos[i], "text", text.buf,
				      text.len));
		sb_release(&text);
	}
	doc = json_pack("{s:s, s:o}", "base", a->pos[0], "patches", ps);
	if (a->ident)
		json_object_set_new(doc, "ident", json_string(a->ident));
	body = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	sb_init(&q);
	rc = http_do("/api/builds", &q, body, strlen(body), "application/json",
		     &res);
	free(body);
	sb_release(&q);
	if (rc == EX_OK && res.status != 202)
		rc = server_error(&res);
	else if (rc == EX_OK) {
		reply = json_loadb(res.body.buf, res.body.len, 0, NULL);
		id = (long)json_integer_value(json_object_get(reply, "build"));
		json_decref(reply);
		printf("build %ld queued\n", id);
	}
	sb_release(&res.body);
	if (rc == EX_OK && a->wait)
		rc = build_wait(id);
	return rc;
}

/* klab audit [--limit N]: one line per row, newest first. */
/* One line of a comparison run's progress; 1 once it has ended. */
static int run_progress(json_t *doc, char *line, size_t len)
{
	const char *st = json_string_value(json_object_get(doc, "state"));
	json_t *cells = json_object_get(doc, "cells"),
	       *h = json_object_get(doc, "headline");

	snprintf(line, len, "%s: cells %lld + %lld of %lld a side, headline "
		 "metrics decided %lld of %lld", st ? st : "?",
		 json_integer_value(json_object_get(cells, "base")),
		 json_integer_value(json_object_get(cells, "candidate")),
		 json_integer_value(json_object_get(doc, "planned")),
		 json_integer_value(json_object_get(h, "decided")),
		 json_integer_value(json_object_get(h, "total")));
	return st && strcmp(st, "queued") && strcmp(st, "running");
}

/* Follow comparison run id to its end (progress on stderr), print its
 * text report; the exit code of its outcome. */
static int compare_run_wait(long id)
{
	char path[64];
	const char *st, *vd;
	json_t *doc;
	int rc;

	snprintf(path, sizeof(path), "/api/comparisons/%ld", id);
	rc = cli_follow(path, run_progress, &doc);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "/comparisons/%ld", id);
	rc = get_print_text(path);
	st = json_string_value(json_object_get(doc, "state"));
	vd = json_string_value(json_object_get(doc, "verdict"));
	if (!rc)
		rc = !st || !strcmp(st, "failed") ? EX_SERVER :
		     cmp_verdict_of(vd) == V_WORSE ? EX_WORSE :
		     !strcmp(st, "undecided") ? EX_UNDECIDED : EX_OK;
	json_decref(doc);
	return rc;
}

/* klab compare-run A B --rig R --suite S [...] [--wait] */
int cmd_compare_run(struct args *a)
{
	json_t *doc;
	long id = 0, n;
	int rc;

	if (a->npos != 2 || !a->rig || !a->suite || (a->max_cells &&
	    parse_long(a->max_cells, 1, 1000, &n))) {
		fputs("klab: usage: klab compare-run A B --rig R --suite S "
		      "[--max-cells N] [--wait]\n", stderr);
		return EX_USAGE;
	}
	doc = json_pack("{s:s, s:s, s:s, s:s}", "base", a->pos[0],
			"candidate", a->pos[1], "rig", a->rig, "suite",
			a->suite);
	if (a->max_cells)
		json_object_set_new(doc, "max_cells", json_integer(n));
	if (a->stop_on_worse)
		json_object_set_new(doc, "stop_on_worse", json_true());
	if (job_config_add(doc, a)) {
		json_decref(doc);
		return EX_USAGE;
	}
	if (a->floor)
		json_object_set_new(doc, "floor", json_pack("[s]", a->floor));
	rc = post_created("/api/comparisons", doc, "comparison", &id);
	if (rc == EX_OK && a->wait)
		rc = compare_run_wait(id);
	return rc;
}
