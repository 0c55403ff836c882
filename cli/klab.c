// SPDX-License-Identifier: MIT
/*
 * klab: the command-line client of klabd, over its HTTP API (libcurl).
 *
 * Exit codes scripts can rely on: 0 success, 1 the server refused the
 * request (its error is printed), 2 usage error, 3 klabd unreachable,
 * 4 a comparison found a regression (with --fail-on-worse, or a
 * comparison run waited for), 5 a comparison run ended undecided.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "judge/decision.h"
#include "lib/config.h"
#include "lib/http_client.h"
#include "lib/strbuf.h"
#include "cli/klab.h"


static const char *base_url = "http://127.0.0.1:8080";
static char *token;	/* Bearer token for every request, or NULL */

/* klab --help, and after a usage error on stderr. */
static const char usage_text[] =
	"usage: klab [--url URL] [--token TOKEN] COMMAND [ARGS]\n"
	"\n"
	"  import FILE [--kernel ID] [--rig R] [--suite S] [--format F]\n"
	"        import tiobench / dbench / read-latency text (a mail may\n"
	"        mix them), fio json or klab results json (FILE '-' reads\n"
	"        stdin); all or nothing\n"
	"  compare A B ... [--base A] [--rig R] [--suite S]\n"
	"        [--scale F] [--scheduler X] [--cmdline TEXT]\n"
	"        [--rigconf HASH|none]\n"
	"        [--floor [SUITE/]GLOB:PCT] [--format text|csv|json|html]\n"
	"        [--fail-on-worse | --fail-on-any-worse]\n"
	"        compare kernels; text is ready to paste into mail;\n"
	"        --fail-on-worse counts decided \"worse\" on headline\n"
	"        metrics only, --fail-on-any-worse on every metric\n"
	"  compare-run A B --rig R --suite S [--max-cells N]\n"
	"        [--scale F] [--scheduler X] [--cmdline TEXT]\n"
	"        [--floor [SUITE/]GLOB:PCT] [--stop-on-worse] [--wait]\n"
	"        judge B against A on its own interleaved A B cells,\n"
	"        added until every headline metric is decided or the\n"
	"        cap (cells a side) is reached; prints the id, and with\n"
	"        --wait the progress and the text report\n"
	"  history METRIC [--rig R] [--suite S] [--limit N]\n"
	"        [--format text|csv|json]   one metric across runs\n"
	"  kernels | rigs | suites | runs [--kernel ID] | metrics\n"
	"        list what klabd knows\n"
	"  kernel add debian PKG|newest-6.1|newest-6.12\n"
	"  kernel list [--available]        catalog / Debian's archive\n"
	"  job add K1 [K2...] --rig R --suite S [--scheduler X]\n"
	"        [--scale F] [--repeat N] [--cmdline TEXT]\n"
	"        queue cells; repetitions interleave the kernels\n"
	"  jobs [--rig R] | job show ID     the queue, failures, consoles\n"
	"  rig online NAME                  bring an offline rig back\n"
	"  build BASE [PATCH...] [--ident ID] [--wait]\n"
	"        build a kernel (BASE: debian-6.1, debian-6.12, or a\n"
	"        [base NAME] of klabd's config: NAME, or NAME@COMMIT\n"
	"        for a git base); it joins the catalog when built\n"
	"  builds | build show ID | build log ID\n"
	"  track debian newest-6.1|newest-6.12 --rig R[,R2] --suite S\n"
	"        watch a Debian kernel line: each new kernel is fetched\n"
	"        and queued with the previous one (operators)\n"
	"  tracks [--format json] | untrack ID   the tracked lines\n"
	"  changepoints [METRIC] [--rig R] [--suite S] [--format json]\n"
	"        change points found on the history\n"
	"  submit BASE PATCH... [--rig R,..] [--suite S,..] [--note T]\n"
	"        [--max-cells N] [--scale F] [--scheduler X]\n"
	"        [--cmdline TEXT] [--wait]\n"
	"        test a patch series (files, an mbox, '-' for stdin):\n"
	"        checked at once, built, run interleaved against BASE on\n"
	"        each rig and suite, every cell with --scale,\n"
	"        --scheduler, --cmdline; --wait follows it and prints the\n"
	"        report (exit 0 nothing worse, 4 worse, 5 undecided)\n"
	"  submissions | submission show|report|cancel ID\n"
	"  bisect --series FILE --base B | --debian GOOD BAD |\n"
	"        --git BASE GOOD BAD, --rig R --suite S --metric M\n"
	"        [--max-cells N] [--scale F] [--scheduler X]\n"
	"        [--cmdline TEXT] [--wait]\n"
	"        find the first bad patch, release or commit; every\n"
	"        step's cells run with --scale, --scheduler, --cmdline\n"
	"  bisections [--format json]\n"
	"  queue                            what each rig runs and waits for\n"
	"\n"
	"List commands print a table; --format json gives the data.\n"
	"  audit [--limit N]                who did what (operators)\n"
	"  subscribe --email ADDR|--webhook URL|--feed [--secret S]\n"
	"        [--rig R] [--suite S] [--metric GLOB] [--submitter U]\n"
	"        [--event K,...]   be told of events (klab help alerts)\n"
	"  subscriptions [--format json] | unsubscribe ID\n"
	"  alert test ID | alerts [--format json]  test, see the outbox\n"
	"  health                           is klabd up\n"
	"\n"
	"The URL defaults to $KLAB_URL, else http://127.0.0.1:8080.\n"
	"The token (klabd token add) comes from --token, $KLAB_TOKEN\n"
	"or ~/.config/klab/token.\n"
	"Exit: 0 ok, 1 refused by klabd, 2 usage, 3 unreachable,\n"
	"4 regression found (compare --fail-on-worse, compare-run --wait,\n"
	"submit --wait), 5 compare-run / submit --wait ended undecided.\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}


/* GET (body NULL) or POST; returns EX_OK, EX_CONNECT. */
int http_do(const char *path, const struct strbuf *query,
		   const char *body, size_t len, const char *ctype,
		   struct http_result *res)
{
	return http_call(body ? "POST" : "GET", path, query, body, len, ctype,
			 res);
}

int http_call(const char *method, const char *path,
	      const struct strbuf *query, const char *body, size_t len,
	      const char *ctype, struct http_result *res)
{
	struct strbuf url = STRBUF_INIT;
	struct http_request rq;
	char err[256];
	int rc;

	sb_init(&url);
	sb_addf(&url, "%s%s%s%s", base_url, path, query && query->len ? "?" :
		"", query && query->len ? query->buf : "");
	sb_init(&res->body);
	memset(&rq, 0, sizeof(rq));
	rq.url = url.buf;
	rq.method = method;
	rq.token = token;
	rq.body = body;
	rq.body_len = len;
	rq.content_type = ctype;
	rq.no_proxy = 1;
	rc = http_request_perform(&rq, &res->body, &res->status, err,
				  sizeof(err));
	if (rc)
		fprintf(stderr, "klab: cannot reach klabd at %s: %s\n",
			base_url, err);
	sb_release(&url);
	return rc ? EX_CONNECT : EX_OK;
}

/* The token: --token, else $KLAB_TOKEN, else the first line of
 * $XDG_CONFIG_HOME/klab/token (~/.config/klab/token).  NULL if none. */
static char *token_load(const char *opt)
{
	const char *env = getenv("KLAB_TOKEN"), *dir = getenv(
		"XDG_CONFIG_HOME"), *home = getenv("HOME");
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	char *tok = NULL;

	if (opt)
		return strdup(opt);
	if (env && *env)
		return strdup(env);
	sb_init(&path);
	sb_init(&text);
	if (dir && *dir)
		sb_addf(&path, "%s/klab/token", dir);
	else if (home && *home)
		sb_addf(&path, "%s/.config/klab/token", home);
	if (path.len && !sb_read_file(&text, path.buf)) {
		text.buf[strcspn(text.buf, "\r\n")] = '\0';
		if (*text.buf)
			tok = strdup(text.buf);
	}
	sb_release(&path);
	sb_release(&text);
	return tok;
}

/* Print the server's error message; returns EX_SERVER. */
int server_error(const struct http_result *res)
{
	json_t *doc = json_loadb(res->body.buf, res->body.len, 0, NULL);
	const char *msg = json_string_value(json_object_get(doc, "error"));

	fprintf(stderr, "klab: %s (HTTP %ld)\n", msg ? msg : res->body.buf,
		res->status);
	json_decref(doc);
	return EX_SERVER;
}

void qadd(struct strbuf *q, const char *key, const char *value)
{
	if (!value)
		return;
	if (q->len)
		sb_addc(q, '&');
	sb_add_urlenc(q, key);
	sb_addc(q, '=');
	sb_add_urlenc(q, value);
}


/* Where the value of option o goes, or NULL when o takes none. */
static const char **value_opt(struct args *a, const char *o)
{
	const struct {
		const char *name;
		const char **dst;
	} opts[] = {
		{ "--kernel", &a->kernel },
		{ "--rig", &a->rig },
		{ "--suite", &a->suite },
		{ "--format", &a->format },
		{ "--base", &a->base },
		{ "--limit", &a->limit },
		{ "--repeat", &a->repeat },
		{ "--rigconf", &a->rigconf },
		{ "--ident", &a->ident },
		{ "--floor", &a->floor },
		{ "--max-cells", &a->max_cells },
		{ "--note", &a->note },
	};
	size_t i;

	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		if (!strcmp(o, opts[i].name))
			return opts[i].dst;
	}
	return job_config_opt(a, o);
}

static int parse_cmd_args(int argc, char **argv, struct args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < argc; i++) {
		const char *o = argv[i];
		const char **dst = NULL;

		if (!strcmp(o, "--fail-on-worse") ||
		    !strcmp(o, "--fail-on-any-worse")) {
			a->fail_on_worse = strcmp(o, "--fail-on-worse") ? 2 : 1;
			continue;
		}
		if (!strcmp(o, "--available")) {
			a->available = 1;
			continue;
		}
		if (!strcmp(o, "--wait")) {
			a->wait = 1;
			continue;
		}
		if (!strcmp(o, "--stop-on-worse")) {
			a->stop_on_worse = 1;
			continue;
		}
		dst = value_opt(a, o);
		if (dst) {
			if (i + 1 >= argc) {
				fprintf(stderr, "klab: option '%s' needs a "
					"value\n", o);
				return -1;
			}
			*dst = argv[++i];
		} else if (o[0] == '-' && o[1] == '-') {
			fprintf(stderr, "klab: unknown option '%s'\n", o);
			return -1;
		} else if (a->npos < 64) {
			a->pos[a->npos++] = o;
		}
	}
	return 0;
}

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

static int cmd_import(struct args *a)
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

static int cmd_compare(struct args *a)
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

static int cmd_history(struct args *a)
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

/* klab kernels | rigs | suites | runs | metrics | jobs | builds: a table
 * (cli_table_print), or --format json. */
static int cmd_list(const char *what, struct args *a)
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

/* POST a JSON document (taking it); the exit code of the exchange. */
static int post_doc(const char *path, json_t *doc, struct http_result *res)
{
	char *body = json_dumps(doc, JSON_COMPACT);
	int rc;

	json_decref(doc);
	rc = http_do(path, NULL, body, strlen(body), "application/json", res);
	free(body);
	return rc;
}

/* POST a JSON document; print the reply (or a field of it). */
int post_json(const char *path, json_t *doc, int ok_status,
		     const char *field)
{
	struct http_result res;
	json_t *reply;
	char *body;
	int rc;

	rc = post_doc(path, doc, &res);
	if (rc == EX_OK && res.status != ok_status)
		rc = server_error(&res);
	else if (rc == EX_OK && field) {
		reply = json_loadb(res.body.buf, res.body.len, 0, NULL);
		body = json_dumps(json_object_get(reply, field),
				  JSON_ENCODE_ANY | JSON_COMPACT);
		printf("%s\n", body ? body : "");
		free(body);
		json_decref(reply);
	} else if (rc == EX_OK) {
		fwrite(res.body.buf, 1, res.body.len, stdout);
	}
	sb_release(&res.body);
	return rc;
}

int post_created(const char *path, json_t *doc, const char *what,
		 long *id)
{
	struct http_result res;
	json_t *reply;
	int rc;

	rc = post_doc(path, doc, &res);
	if (rc == EX_OK && res.status != 201)
		rc = server_error(&res);
	if (rc == EX_OK) {
		reply = json_loadb(res.body.buf, res.body.len, 0, NULL);
		*id = (long)json_integer_value(json_object_get(reply, "id"));
		json_decref(reply);
		printf("%s %ld\n", what, *id);
		fflush(stdout);
	}
	sb_release(&res.body);
	return rc;
}

int get_json(const char *path, json_t **doc)
{
	struct http_result res;
	int rc = http_do(path, NULL, NULL, 0, NULL, &res);

	*doc = NULL;
	if (rc == EX_OK && res.status != 200)
		rc = server_error(&res);
	if (rc == EX_OK) {
		*doc = json_loadb(res.body.buf, res.body.len, 0, NULL);
		if (!*doc) {
			fprintf(stderr, "klab: klabd sent no JSON for %s\n",
				path);
			rc = EX_SERVER;
		}
	}
	sb_release(&res.body);
	return rc;
}

int cli_follow(const char *path, int (*progress)(json_t *doc, char *line,
						 size_t len), json_t **doc)
{
	char line[600], last[600] = "";
	int tty = isatty(2), done = 0, rc;

	*doc = NULL;
	while (!done) {
		json_decref(*doc);
		rc = get_json(path, doc);
		if (rc)
			return rc;
		done = progress(*doc, line, sizeof(line));
		if (strcmp(line, last))
			fprintf(stderr, tty ? "\r%s\033[K" : "%s\n", line);
		snprintf(last, sizeof(last), "%s", line);
		if (!done)
			sleep(1);
	}
	if (tty)
		fputc('\n', stderr);
	return EX_OK;
}

int get_print_text(const char *path)
{
	struct strbuf q = STRBUF_INIT;
	int rc;

	sb_init(&q);
	qadd(&q, "format", "text");
	rc = get_print(path, &q);
	sb_release(&q);
	return rc;
}

int get_print(const char *path, const struct strbuf *q)
{
	struct http_result res;
	int rc = http_do(path, q, NULL, 0, NULL, &res);

	if (rc == EX_OK && res.status != 200)
		rc = server_error(&res);
	else if (rc == EX_OK)
		fwrite(res.body.buf, 1, res.body.len, stdout);
	sb_release(&res.body);
	return rc;
}

static int cmd_kernel(struct args *a)
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

/* klab audit [--limit N] [--format json]: newest first, a table. */
static int cmd_audit(struct args *a)
{
	static const char *const cols[] = { "when", "who", "role", "action",
					    "subject", "detail", NULL };
	struct strbuf q = STRBUF_INIT;
	struct http_result res;
	json_t *doc, *row;
	char when[32];
	size_t i;
	int rc;

	sb_init(&q);
	qadd(&q, "limit", a->limit);
	if (a->format && !strcmp(a->format, "json")) {
		rc = get_print("/api/audit", &q);
		sb_release(&q);
		return rc;
	}
	rc = http_do("/api/audit", &q, NULL, 0, NULL, &res);
	sb_release(&q);
	if (rc == EX_OK && res.status != 200)
		rc = server_error(&res);
	if (rc != EX_OK)
		goto out;
	doc = json_loadb(res.body.buf, res.body.len, 0, NULL);
	json_array_foreach(json_object_get(doc, "audit"), i, row) {
		time_t t = (time_t)json_integer_value(json_object_get(row,
								      "at"));
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
			 gmtime_r(&t, &tm));
		json_object_set_new(row, "when", json_string(when));
	}
	cli_table_print(json_object_get(doc, "audit"), cols);
	json_decref(doc);
out:
	sb_release(&res.body);
	return rc;
}

static int cmd_health(struct args *a)
{
	(void)a;
	return get_print("/api/health", NULL);
}

/* --url URL and --token TOKEN before the command; the index after them. */
static int global_options(int argc, char **argv, const char **opt_token)
{
	int i = 1;

	if (getenv("KLAB_URL") && *getenv("KLAB_URL"))
		base_url = getenv("KLAB_URL");
	while (i + 1 < argc && (!strcmp(argv[i], "--url") ||
				!strcmp(argv[i], "--token"))) {
		if (!strcmp(argv[i], "--url"))
			base_url = argv[i + 1];
		else
			*opt_token = argv[i + 1];
		i += 2;
	}
	return i;
}

/* The commands that take the common options (struct args); alerts and
 * bisections parse their own. */
static const struct command {
	const char *name;
	int (*run)(struct args *a);
	int (*run_named)(const char *cmd, struct args *a);	/* or */
} commands[] = {
	{ "import", cmd_import, NULL },
	{ "compare", cmd_compare, NULL },
	{ "compare-run", cmd_compare_run, NULL },
	{ "history", cmd_history, NULL },
	{ "kernel", cmd_kernel, NULL },
	{ "job", cmd_job, NULL },
	{ "rig", cmd_rig, NULL },
	{ "build", cmd_build, NULL },
	{ "submit", cmd_submit, NULL },
	{ "submissions", cmd_submissions, NULL },
	{ "submission", cmd_submission, NULL },
	{ "queue", cmd_queue, NULL },
	{ "audit", cmd_audit, NULL },
	{ "health", cmd_health, NULL },
	{ "kernels", NULL, cmd_list },
	{ "rigs", NULL, cmd_list },
	{ "suites", NULL, cmd_list },
	{ "runs", NULL, cmd_list },
	{ "metrics", NULL, cmd_list },
	{ "jobs", NULL, cmd_list },
	{ "builds", NULL, cmd_list },
	{ "track", NULL, cmd_track },
	{ "tracks", NULL, cmd_track },
	{ "untrack", NULL, cmd_track },
	{ "changepoints", NULL, cmd_track },
};

static const struct command *command_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const char *cmd, *opt_token = NULL;
	const struct command *c;
	struct args a;
	int i, rc;

	i = global_options(argc, argv, &opt_token);
	if (i >= argc) {
		usage(stderr);
		return EX_USAGE;
	}
	cmd = argv[i++];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "help")) {
		usage(stdout);
		return EX_OK;
	}
	if (!klab_alerts_cmd(cmd) && !klab_bisect_cmd(cmd) &&
	    parse_cmd_args(argc - i, argv + i, &a))
		return EX_USAGE;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	token = token_load(opt_token);
	c = command_find(cmd);
	if (c)
		rc = c->run ? c->run(&a) : c->run_named(cmd, &a);
	else if (klab_alerts_cmd(cmd))
		rc = cmd_alerts(cmd, argc - i, argv + i);
	else if (klab_bisect_cmd(cmd))
		rc = cmd_bisections(cmd, argc - i, argv + i);
	else {
		fprintf(stderr, "klab: unknown command '%s'\n", cmd);
		usage(stderr);
		rc = EX_USAGE;
	}
	curl_global_cleanup();
	free(token);
	return rc;
}
