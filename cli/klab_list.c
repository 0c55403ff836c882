// SPDX-License-Identifier: MIT
/*
 * klab's list commands (kernels, rigs, suites, runs, metrics, jobs,
 * builds: a table, or --format json), kernel add / list (the catalog
 * and Debian's archive), audit (who did what) and health.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/strbuf.h"
#include "cli/klab.h"

/* klab kernels | rigs | suites | runs | metrics | jobs | builds: a table
 * (cli_table_print), or --format json. */
int cmd_list(const char *what, struct args *a)
{
	static const char *const kf[] = { "ident", "version", "source",
					  "runs", NULL };
	static const char *const rf[] = { "name", "kind", "profile", "state",
					  "disks", NULL };
	static const char *const sf[] = { "name", "description", NULL };
	static const char *const uf[] = { "id", "kernel", "rig", "suite",
					  "repetition", "status", NULL };
	static const char *const mf[] = { "name", "unit", "direction", NULL };
	static const char *const jf[] = { "id", "kernel", "rig", "suite",
					  "state", "failure", "error", NULL };
	static const char *const bf[] = { "id", "ident", "base", "state",
					  "error", NULL };
	struct strbuf q = STRBUF_INIT, path = STRBUF_INIT;
	const char *const *f = !strcmp(what, "kernels") ? kf :
		!strcmp(what, "rigs") ? rf : !strcmp(what, "suites") ? sf :
		!strcmp(what, "runs") ? uf : !strcmp(what, "jobs") ? jf :
		!strcmp(what, "builds") ? bf : mf;
	int rc;

	sb_init(&q);
	sb_init(&path);
	qadd(&q, "kernel", a->kernel);
	qadd(&q, "limit", a->limit);
	qadd(&q, "rig", a->rig);
	sb_addf(&path, "/api/%s%s%s", what, q.len ? "?" : "",
		q.len ? q.buf : "");
	rc = cli_list(path.buf, what, f, a->format);
	sb_release(&q);
	sb_release(&path);
	return rc;
}

int cmd_kernel(struct args *a)
{
	static const char *const av[] = { "package", "version", "upstream",
					  "package_version", NULL };

	if (a->npos >= 1 && !strcmp(a->pos[0], "list") && a->available)
		return cli_kv_list("/api/catalog/available", "available", av,
				   a->format);
	if (a->npos >= 1 && !strcmp(a->pos[0], "list"))
		return cmd_list("kernels", a);
	if (a->npos == 3 && !strcmp(a->pos[0], "add") &&
	    !strcmp(a->pos[1], "debian"))
		return post_json("/api/catalog/debian",
				 json_pack("{s:s}", "spec", a->pos[2]), 201,
				 "ident");
	fputs("klab: usage: klab kernel add debian SPEC | kernel list "
	      "[--available]\n", stderr);
	return EX_USAGE;
}

/*
 * GET path?q for a table: with --format json the answer is printed as it
 * is and *doc stays NULL; else *doc is the answer (json_decref it).  The
 * exit code either way (q is released).
 */
static int get_table(const char *path, struct strbuf *q, const char *format,
		     json_t **doc)
{
	struct http_result res;
	int rc;

	*doc = NULL;
	if (format && !strcmp(format, "json")) {
		rc = get_print(path, q);
		sb_release(q);
		return rc;
	}
	rc = http_do(path, q, NULL, 0, NULL, &res);
	sb_release(q);
	if (rc == EX_OK && res.status != 200)
		rc = server_error(&res);
	if (rc == EX_OK)
		*doc = json_loadb(res.body.buf, res.body.len, 0, NULL);
	sb_release(&res.body);
	return rc;
}

/* klab audit [--limit N] [--format json]: newest first, a table. */
int cmd_audit(struct args *a)
{
	static const char *const cols[] = { "when", "who", "role", "action",
					    "subject", "detail", NULL };
	struct strbuf q = STRBUF_INIT;
	json_t *doc, *row;
	char when[32];
	size_t i;
	int rc;

	sb_init(&q);
	qadd(&q, "limit", a->limit);
	rc = get_table("/api/audit", &q, a->format, &doc);
	json_array_foreach(json_object_get(doc, "audit"), i, row) {
		time_t t = (time_t)json_integer_value(json_object_get(row,
								      "at"));
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
			 gmtime_r(&t, &tm));
		json_object_set_new(row, "when", json_string(when));
	}
	if (doc)
		cli_table_print(json_object_get(doc, "audit"), cols);
	json_decref(doc);
	return rc;
}

/*
 * klab steps [--rig R] [--suite S] [--limit N] [--format json]: where a
 * cell's time goes, the mean of each step over the newest N done jobs,
 * one row a step, then the cell's mean.
 */
int cmd_steps(struct args *a)
{
	static const char *const cols[] = { "step", "mean_s", "share",
					    "jobs", NULL };
	struct strbuf q = STRBUF_INIT;
	json_t *doc, *row;
	char num[32];
	size_t i;
	int rc;

	sb_init(&q);
	qadd(&q, "rig", a->rig);
	qadd(&q, "suite", a->suite);
	qadd(&q, "limit", a->limit);
	rc = get_table("/api/steps", &q, a->format, &doc);
	if (!doc)
		return rc;
	json_array_foreach(json_object_get(doc, "steps"), i, row) {
		snprintf(num, sizeof(num), "%.1f", json_number_value(
			 json_object_get(row, "secs")));
		json_object_set_new(row, "mean_s", json_string(num));
		snprintf(num, sizeof(num), "%.1f%%", 100 * json_number_value(
			 json_object_get(row, "share")));
		json_object_set_new(row, "share", json_string(num));
	}
	cli_table_print(json_object_get(doc, "steps"), cols);
	printf("%lld jobs, %.1f s a cell\n", (long long)json_integer_value(
	       json_object_get(doc, "jobs")), json_number_value(
	       json_object_get(doc, "secs")));
	json_decref(doc);
	return rc;
}

int cmd_health(struct args *a)
{
	(void)a;
	return get_print("/api/health", NULL);
}
