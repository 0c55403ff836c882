// SPDX-License-Identifier: MIT
/*
 * klab_track: the CLI of the lab running by itself.  `klab track debian
 * newest-6.1 --rig R --suite S` watches a Debian kernel line, `klab track
 * git NAME BRANCH --rig R --suite S[,S2]` a branch of a git base, `klab
 * tracks` lists the tracked lines (a table, or --format json), `klab
 * untrack ID` stops one, and `klab changepoints` lists the change points
 * found on the history.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/klab.h"
#include "lib/config.h"

/* One column of a table: the JSON field, its heading, its width. */
struct col {
	const char *field, *head;
	int width;
};

static void cell_print(json_t *v, int width, int last)
{
	char buf[64];
	const char *s = buf;

	if (json_is_string(v))
		s = json_string_value(v);
	else if (json_is_integer(v))
		snprintf(buf, sizeof(buf), "%lld",
			 (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, sizeof(buf), "%.4g", json_real_value(v));
	else
		s = "-";
	if (last)
		printf("%s\n", *s ? s : "-");
	else
		printf("%-*s ", width, *s ? s : "-");
}

/* A header line, then one line per element of doc[key]. */
static void table_print(json_t *doc, const char *key, const struct col *c)
{
	json_t *e;
	size_t i;
	int j;

	for (j = 0; c[j].field; j++)
		if (c[j + 1].field)
			printf("%-*s ", c[j].width, c[j].head);
		else
			printf("%s\n", c[j].head);
	json_array_foreach(json_object_get(doc, key), i, e)
		for (j = 0; c[j].field; j++)
			cell_print(json_object_get(e, c[j].field), c[j].width,
				   !c[j + 1].field);
}

/* GET path?q: the JSON body printed, or the table of doc[key]. */
static int list_get(const char *path, const struct strbuf *q,
		    const char *format, const char *key, const struct col *c)
{
	struct http_result res;
	json_t *doc;
	int rc;

	if (format && strcmp(format, "json") && strcmp(format, "table")) {
		fprintf(stderr, "klab: unknown format '%s' (table or json)\n",
			format);
		return EX_USAGE;
	}
	rc = http_do(path, q, NULL, 0, NULL, &res);
	if (rc == EX_OK && res.status != 200)
		rc = server_error(&res);
	else if (rc == EX_OK && format && !strcmp(format, "json"))
		fwrite(res.body.buf, 1, res.body.len, stdout);
	else if (rc == EX_OK) {
		doc = json_loadb(res.body.buf, res.body.len, 0, NULL);
		table_print(doc, key, c);
		json_decref(doc);
	}
	sb_release(&res.body);
	return rc;
}

static int cmd_tracks(struct args *a)
{
	static const struct col c[] = {
		{ "id", "ID", 4 }, { "kind", "KIND", 6 },
		{ "line", "LINE", 16 }, { "rigs", "RIGS", 12 },
		{ "suite", "SUITE", 12 }, { "last_kernel", "LAST TESTED", 20 },
		{ "state", "STATE", 10 }, { "backlog", "BACKLOG", 7 },
		{ "checks", "CHECKS", 6 }, { "last_error", "ERROR", 0 },
		{ NULL, NULL, 0 },
	};

	return list_get("/api/tracks", NULL, a->format, "tracks", c);
}

static int cmd_changepoints(struct args *a)
{
	static const struct col c[] = {
		{ "rig", "RIG", 10 }, { "suite", "SUITE", 12 },
		{ "metric", "METRIC", 28 }, { "kernel_before", "BEFORE", 16 },
		{ "kernel_after", "AFTER", 16 }, { "size_pct", "SIZE%", 8 },
		{ "p_value", "P", 0 }, { NULL, NULL, 0 },
	};
	struct strbuf q = STRBUF_INIT;
	int rc;

	sb_init(&q);
	qadd(&q, "rig", a->rig);
	qadd(&q, "suite", a->suite);
	qadd(&q, "metric", a->npos ? a->pos[0] : NULL);
	rc = list_get("/api/changepoints", &q, a->format, "changepoints", c);
	sb_release(&q);
	return rc;
}

static int cmd_untrack(struct args *a)
{
	struct http_result res;
	struct strbuf path = STRBUF_INIT;
	int rc;

	if (a->npos != 1) {
		fputs("klab: usage: klab untrack ID\n", stderr);
		return EX_USAGE;
	}
	sb_init(&path);
	sb_adds(&path, "/api/tracks/");
	sb_add_urlenc(&path, a->pos[0]);
	rc = http_call("DELETE", path.buf, NULL, NULL, 0, NULL, &res);
	if (rc == EX_OK && res.status != 200)
		rc = server_error(&res);
	else if (rc == EX_OK)
		printf("track %s stopped\n", a->pos[0]);
	sb_release(&res.body);
	sb_release(&path);
	return rc;
}

/* --scale F into doc: 0, or -1 after a message (doc released). */
static int scale_add(json_t *doc, const struct args *a)
{
	double f;

	if (!a->scale)
		return 0;
	if (parse_double(a->scale, &f)) {
		fprintf(stderr, "klab: option '--scale' needs a number, not "
			"'%s'\n", a->scale);
		json_decref(doc);
		return -1;
	}
	json_object_set_new(doc, "scale", json_real(f));
	return 0;
}

/* klab track git NAME BRANCH: a branch of the git base NAME. */
static int track_git(struct args *a)
{
	json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:s}", "kind", "git",
				"base", a->pos[1], "branch", a->pos[2],
				"rigs", a->rig, "suite", a->suite);
	long n;

	if (scale_add(doc, a))
		return EX_USAGE;
	if (a->max_cells) {
		if (parse_long(a->max_cells, 3, 200, &n)) {
			fprintf(stderr, "klab: --max-cells: expected 3..200, "
				"got '%s'\n", a->max_cells);
			json_decref(doc);
			return EX_USAGE;
		}
		json_object_set_new(doc, "max_cells", json_integer(n));
	}
	return post_json("/api/tracks", doc, 201, "id");
}

int cmd_track(const char *cmd, struct args *a)
{
	json_t *doc;

	if (!strcmp(cmd, "tracks"))
		return cmd_tracks(a);
	if (!strcmp(cmd, "untrack"))
		return cmd_untrack(a);
	if (!strcmp(cmd, "changepoints"))
		return cmd_changepoints(a);
	if (a->npos == 3 && !strcmp(a->pos[0], "git") && a->rig && a->suite)
		return track_git(a);
	if (a->npos != 2 || !a->rig || !a->suite) {
		fputs("klab: usage: klab track debian newest-6.1|newest-6.12 "
		      "--rig R[,R2...] --suite S [--scale F]\n"
		      "       klab track git NAME BRANCH --rig R[,R2...] "
		      "--suite S[,S2...] [--max-cells N] [--scale F]\n",
		      stderr);
		return EX_USAGE;
	}
	doc = json_pack("{s:s, s:s, s:s, s:s}", "distro", a->pos[0], "line",
			a->pos[1], "rigs", a->rig, "suite", a->suite);
	if (scale_add(doc, a))
		return EX_USAGE;
	return post_json("/api/tracks", doc, 201, "id");
}
