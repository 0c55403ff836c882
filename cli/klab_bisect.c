// SPDX-License-Identifier: MIT
/*
 * klab bisect and klab bisections: start a bisection and follow it.
 *
 *   klab bisect --series FILE [--series FILE..] --base B --rig R
 *               --suite S --metric M [--metric M..] [--max-cells N]
 *               [--scale F] [--scheduler X] [--cmdline TEXT] [--wait]
 *   klab bisect --debian GOOD BAD --rig R --suite S --metric M [--wait]
 *   klab bisect --git BASE GOOD BAD --rig R --suite S --metric M [--wait]
 *               (BASE: a git base of klabd's configuration, by name)
 *   klab bisections [--format table|json]
 *
 * --scale, --scheduler and --cmdline (every kind) are the job
 * configuration of every step's cells, as klab compare-run's
 * (job_config_add).  --wait follows the bisection to its end, a line a
 * step on stderr, and prints the report; the exit code is 4 when it
 * named a culprit, 0 when the range does not regress, 5 when it cannot
 * tell.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/klab.h"
#include "lib/strbuf.h"

int klab_bisect_cmd(const char *cmd)
{
	return !strcmp(cmd, "bisect") || !strcmp(cmd, "bisections");
}

static int bis_usage(void)
{
	fputs("klab: usage: klab bisect --series FILE --base B | --debian "
	      "GOOD BAD | --git BASE GOOD BAD, --rig R --suite S --metric M "
	      "[--max-cells N] [--scale F] [--scheduler X] [--cmdline TEXT] "
	      "[--wait]\n", stderr);
	return EX_USAGE;
}

static json_t *bis_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *base = strrchr(path, '/');
	json_t *o = NULL;

	sb_init(&sb);
	if (sb_read_file(&sb, path))
		fprintf(stderr, "klab: cannot read '%s'\n", path);
	else
		o = json_pack("{s:s, s:s%}", "name", base ? base + 1 : path,
			      "text", sb.buf, sb.len);
	sb_release(&sb);
	return o;
}

/* The request from argv; NULL after a usage message.  *wait set. */
static json_t *bis_request(int argc, char **argv, int *wait)
{
	json_t *doc = json_object(), *ps = json_array(), *ms = json_array(), *f;
	struct args cfg;
	const char **dst;
	int i, bad = 0;

	memset(&cfg, 0, sizeof(cfg));
	for (i = 0; i < argc && !bad; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		dst = job_config_opt(&cfg, o);
		if (dst && v) {
			*dst = argv[++i];
		} else if (!strcmp(o, "--wait")) {
			*wait = 1;
		} else if (!strcmp(o, "--debian") && v && i + 2 < argc) {
			json_object_set_new(doc, "kind", json_string("debian"));
			json_object_set_new(doc, "good", json_string(v));
			json_object_set_new(doc, "bad",
					    json_string(argv[i + 2]));
			i += 2;
		} else if (!strcmp(o, "--git") && v && i + 3 < argc) {
			json_object_set_new(doc, "kind", json_string("git"));
			json_object_set_new(doc, "base", json_string(v));
			json_object_set_new(doc, "good",
					    json_string(argv[i + 2]));
			json_object_set_new(doc, "bad",
					    json_string(argv[i + 3]));
			i += 3;
		} else if (!strcmp(o, "--series") && v) {
			json_object_set_new(doc, "kind", json_string("series"));
			f = bis_file(v);
			bad = !f;
			json_array_append_new(ps, f);
			i++;
		} else if (!strcmp(o, "--metric") && v) {
			json_array_append_new(ms, json_string(v));
			i++;
		} else if (!strcmp(o, "--max-cells") && v) {
			json_object_set_new(doc, "max_cells",
					    json_integer(strtol(v, NULL, 10)));
			i++;
		} else if ((!strcmp(o, "--base") || !strcmp(o, "--rig") ||
			    !strcmp(o, "--suite")) && v) {
			json_object_set_new(doc, o + 2, json_string(v));
			i++;
		} else {
			fprintf(stderr, "klab: bisect: unknown option '%s'\n",
				o);
			bad = 1;
		}
	}
	json_object_set_new(doc, "patches", ps);
	json_object_set_new(doc, "metrics", ms);
	if (bad || job_config_add(doc, &cfg)) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* A bisection's progress line; non-zero once it ended. */
static int bis_progress(json_t *doc, char *line, size_t len)
{
	const char *st = json_string_value(json_object_get(doc, "state"));

	snprintf(line, len, "bisection %lld: %s, %zu steps, about %lld left",
		 (long long)json_integer_value(json_object_get(doc, "id")),
		 json_string_value(json_object_get(doc, "phase")),
		 json_array_size(json_object_get(doc, "steps")), (long long)
		 json_integer_value(json_object_get(doc, "steps_left")));
	return !st || strcmp(st, "running");
}

/* Follow bisection id to its end; the report printed; exit code. */
static int bis_wait(long id)
{
	char path[64];
	const char *state, *out;
	json_t *doc;
	int rc, answer;

	snprintf(path, sizeof(path), "/api/bisections/%ld", id);
	rc = cli_follow(path, bis_progress, &doc);
	if (rc)
		return rc;
	state = json_string_value(json_object_get(doc, "state"));
	answer = (int)json_integer_value(json_object_get(doc, "answer"));
	out = json_string_value(json_object_get(doc, "outcome"));
	printf("%s", json_string_value(json_object_get(doc, "report")));
	rc = answer >= 0 ? EX_WORSE : out && !strncmp(out, "cannot tell", 11) ?
	     EX_UNDECIDED : !state || !strcmp(state, "failed") ? EX_SERVER :
	     EX_OK;
	json_decref(doc);
	return rc;
}

static int cmd_bisect(int argc, char **argv)
{
	struct http_result res;
	json_t *doc, *reply;
	int wait = 0, rc;
	char *body;
	long id = 0;

	doc = bis_request(argc, argv, &wait);
	if (!doc)
		return bis_usage();
	if (!json_object_get(doc, "kind")) {
		json_decref(doc);
		return bis_usage();
	}
	body = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	rc = http_do("/api/bisections", NULL, body, strlen(body),
		     "application/json", &res);
	free(body);
	if (rc == EX_OK && res.status != 201)
		rc = server_error(&res);
	if (rc == EX_OK) {
		reply = json_loadb(res.body.buf, res.body.len, 0, NULL);
		id = (long)json_integer_value(json_object_get(reply, "id"));
		json_decref(reply);
		printf("bisection %ld\n", id);
		fflush(stdout);
	}
	sb_release(&res.body);
	if (rc == EX_OK && wait)
		rc = bis_wait(id);
	return rc;
}

int cmd_bisections(const char *cmd, int argc, char **argv)
{
	static const char *const cols[] = { "id", "who", "kind", "good",
					    "bad", "metrics", "state",
					    "phase", "outcome", NULL };
	const char *format = NULL;

	if (!strcmp(cmd, "bisect"))
		return cmd_bisect(argc, argv);
	if (argc == 2 && !strcmp(argv[0], "--format"))
		format = argv[1];
	else if (argc)
		return bis_usage();
	return cli_list("/api/bisections", "bisections", cols, format);
}
