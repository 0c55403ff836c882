// SPDX-License-Identifier: MIT
/*
 * klab's commands over the results klabd holds: import (tiobench,
 * dbench, read-latency text, fio or klab results JSON), compare (the
 * report as text, CSV, JSON or HTML, with --fail-on-worse the exit code
 * saying whether a decided worse was found) and history (one metric
 * across runs).
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "judge/decision.h"
#include "lib/strbuf.h"
#include "cli/klab.h"

/* A mail of several kinds: what each kind contributed, a line each. */
static void print_import_kinds(json_t *kinds)
{
	json_t *kind, *k;
	size_t i, j;

	if (json_array_size(kinds) < 2)
		return;
	json_array_foreach(kinds, i, kind) {
		printf("  %s: %lld results into suite %s:",
		       json_string_value(json_object_get(kind, "format")),
		       (long long)json_integer_value(json_object_get(kind,
							     "results")),
		       json_string_value(json_object_get(kind, "suite")));
		json_array_foreach(json_object_get(kind, "kernels"), j, k)
			printf("%s %s %lld", j ? "," : "",
			       json_string_value(json_object_get(k, "kernel")),
			       (long long)json_integer_value(
				       json_object_get(k, "results")));
		putchar('\n');
	}
}

int cmd_import(struct args *a)
{
	struct strbuf data = STRBUF_INIT, q = STRBUF_INIT;
	struct http_result res;
	const char *path, *name, *ctype = "text/plain";
	json_t *doc;
	size_t i;
	int rc;

	if (a->npos != 1) {
		fputs("klab: import takes one FILE\n", stderr);
		return EX_USAGE;
	}
	path = a->pos[0];
	sb_init(&data);
	sb_init(&q);
	if (sb_read_file(&data, strcmp(path, "-") ? path : "/dev/stdin")) {
		fprintf(stderr, "klab: cannot read '%s'\n", path);
		sb_release(&data);
		return EX_USAGE;
	}
	for (i = 0; i < data.len && strchr(" \t\r\n", data.buf[i]); i++)
		;
	if (i < data.len && data.buf[i] == '{')
		ctype = "application/json";
	name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	qadd(&q, "name", name);
	qadd(&q, "kernel", a->kernel);
	qadd(&q, "rig", a->rig);
	qadd(&q, "suite", a->suite);
	qadd(&q, "format", a->format);
	rc = http_do("/api/import", &q, data.buf, data.len, ctype, &res);
	/* 200: the same upload was imported before (idempotent) */
	if (rc == EX_OK && res.status != 201 && res.status != 200)
		rc = server_error(&res);
	else if (rc == EX_OK) {
		doc = json_loadb(res.body.buf, res.body.len, 0, NULL);
		printf("%s %lld results (format %s, rig %s, suite %s) "
		       "into %zu runs\n",
		       res.status == 200 ? "already imported" : "imported",
		       (long long)json_integer_value(json_object_get(doc,
						     "results")),
		       json_string_value(json_object_get(doc, "format")),
		       json_string_value(json_object_get(doc, "rig")),
		       json_string_value(json_object_get(doc, "suite")),
		       json_array_size(json_object_get(doc, "runs")));
		print_import_kinds(json_object_get(doc, "kinds"));
		json_decref(doc);
	}
	sb_release(&res.body);
	sb_release(&data);
	sb_release(&q);
	return rc;
}

/* Cells decided worse in /api/compare's answer: those of headline
 * metrics, or of every metric when all is set. */
static size_t count_worse(json_t *doc, int all)
{
	json_t *m, *cell;
	size_t n = 0, i, j;

	json_array_foreach(json_object_get(doc, "metrics"), i, m) {
		const char *cls = json_string_value(json_object_get(m,
								    "class"));

		if (!all && (!cls || strcmp(cls, "headline")))
			continue;
		json_array_foreach(json_object_get(m, "cells"), j, cell) {
			const char *v = json_string_value(
				json_object_get(cell, "verdict"));

			n += cmp_verdict_of(v) == V_WORSE;
		}
	}
	return n;
}

int cmd_compare(struct args *a)
{
	struct strbuf q = STRBUF_INIT;
	struct http_result res;
	json_t *doc;
	int i, rc;

	if (a->npos < 1) {
		fputs("klab: compare needs at least one kernel\n", stderr);
		return EX_USAGE;
	}
	sb_init(&q);
	for (i = 0; i < a->npos; i++)
		qadd(&q, "k", a->pos[i]);
	qadd(&q, "base", a->base);
	qadd(&q, "rig", a->rig);
	qadd(&q, "suite", a->suite);
	qadd(&q, "scale", a->scale);
	qadd(&q, "scheduler", a->scheduler);
	qadd(&q, "cmdline", a->cmdline);
	qadd(&q, "rigconf", a->rigconf);
	qadd(&q, "floor", a->floor);
	if (a->fail_on_worse) {
		rc = http_do("/api/compare", &q, NULL, 0, NULL, &res);
		if (rc == EX_OK && res.status != 200) {
			rc = server_error(&res);
			sb_release(&res.body);
			sb_release(&q);
			return rc;
		}
		doc = json_loadb(res.body.buf, res.body.len, 0, NULL);
		a->fail_on_worse = rc == EX_OK &&
			count_worse(doc, a->fail_on_worse == 2) > 0;
		json_decref(doc);
		sb_release(&res.body);
		if (rc) {
			sb_release(&q);
			return rc;
		}
	}
	qadd(&q, "format", a->format ? a->format : "text");
	rc = http_do("/compare", &q, NULL, 0, NULL, &res);
	if (rc == EX_OK && res.status != 200)
		rc = server_error(&res);
	else if (rc == EX_OK)
		fwrite(res.body.buf, 1, res.body.len, stdout);
	if (rc == EX_OK && a->fail_on_worse)
		rc = EX_WORSE;
	sb_release(&res.body);
	sb_release(&q);
	return rc;
}

static int print_history(const struct http_result *res)
{
	json_t *doc = json_loadb(res->body.buf, res->body.len, 0, NULL), *p;
	const char *unit = json_string_value(json_object_get(doc, "unit"));
	size_t i;

	printf("%s (%s, %s is better)\n",
	       json_string_value(json_object_get(doc, "metric")),
	       unit && *unit ? unit : "no unit",
	       json_string_value(json_object_get(doc, "direction")));
	printf("%-28s %8s %4s %14s\n", "kernel", "run", "rep", "value");
	json_array_foreach(json_object_get(doc, "points"), i, p)
		printf("%-28s %8lld %4lld %14.4f\n",
		       json_string_value(json_object_get(p, "kernel")),
		       (long long)json_integer_value(json_object_get(p, "run")),
		       (long long)json_integer_value(json_object_get(p,
						     "repetition")),
		       json_real_value(json_object_get(p, "value")));
	json_decref(doc);
	return EX_OK;
}

int cmd_history(struct args *a)
{
	struct strbuf q = STRBUF_INIT;
	struct http_result res;
	int text = !a->format || !strcmp(a->format, "text"), rc;

	if (a->npos != 1) {
		fputs("klab: history takes one METRIC\n", stderr);
		return EX_USAGE;
	}
	sb_init(&q);
	qadd(&q, "metric", a->pos[0]);
	qadd(&q, "rig", a->rig);
	qadd(&q, "suite", a->suite);
	qadd(&q, "limit", a->limit);
	if (!text)
		qadd(&q, "format", a->format);
	rc = http_do(text ? "/api/history" : "/history", &q, NULL, 0, NULL,
		     &res);
	if (rc == EX_OK && res.status != 200)
		rc = server_error(&res);
	else if (rc == EX_OK && text)
		rc = print_history(&res);
	else if (rc == EX_OK)
		fwrite(res.body.buf, 1, res.body.len, stdout);
	sb_release(&res.body);
	sb_release(&q);
	return rc;
}
