// SPDX-License-Identifier: MIT
/*
 * klab's triage of alerts (docs/API.md "Triage"): klab alert
 * ack|invalid|fixed|dup|reopen ID [--commit C] [--kernel K] [--of ID]
 * [--comment TEXT] [--group], klab alert assign ID WHO, klab alert
 * comment ID TEXT, klab alert show ID and klab alert list [--state S]
 * [--line L] [--metric GLOB] [--rig R] (the open ones, new or
 * acknowledged, unless --state says; "any": every state).  They take
 * their own options.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/klab.h"
#include "lib/config.h"

struct triage_opts {
	const char *commit, *kernel, *of, *comment;
	const char *state, *line, *metric, *rig, *format;
	int group;
	const char *pos[4];
	int npos;
};

/* The verbs and the state each sets (NULL: not a change of state). */
static const struct {
	const char *verb, *state;
} verbs[] = {
	{ "ack", "acknowledged" }, { "invalid", "invalid" },
	{ "fixed", "fixed" }, { "dup", "duplicate" }, { "reopen", "new" },
	{ "assign", NULL }, { "comment", NULL }, { "show", NULL },
	{ "list", NULL },
};

int klab_alert_triage_cmd(const char *verb)
{
	size_t i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verb, verbs[i].verb))
			return 1;
	return 0;
}

static int parse_opts(int argc, char **argv, struct triage_opts *o)
{
	const struct cli_opt opts[] = {
		{ "--commit", &o->commit, NULL },
		{ "--kernel", &o->kernel, NULL }, { "--of", &o->of, NULL },
		{ "--comment", &o->comment, NULL },
		{ "--state", &o->state, NULL }, { "--line", &o->line, NULL },
		{ "--metric", &o->metric, NULL }, { "--rig", &o->rig, NULL },
		{ "--format", &o->format, NULL },
		{ "--group", NULL, &o->group },
	};

	memset(o, 0, sizeof(*o));
	return cli_opts_parse(argc, argv, opts, sizeof(opts) / sizeof(opts[0]),
			      o->pos, 4, &o->npos);
}

/* POST doc to /api/alerts/ID/what and say what the alert is now. */
static int post_alert(const char *id, const char *what, json_t *doc)
{
	struct http_result res;
	char path[96], *body = json_dumps(doc, JSON_COMPACT);
	json_t *reply, *a;
	int rc;

	json_decref(doc);
	snprintf(path, sizeof(path), "/api/alerts/%s/%s", id, what);
	rc = http_do(path, NULL, body, strlen(body), "application/json",
		     &res);
	free(body);
	if (rc == EX_OK && res.status != 200)
		rc = server_error(&res);
	if (rc == EX_OK) {
		reply = json_loadb(res.body.buf, res.body.len, 0, NULL);
		a = json_object_get(reply, "alert");
		printf("alert %s: %s%s%s\n", id,
		       json_string_value(json_object_get(a, "state")),
		       *json_string_value(json_object_get(a, "assignee")) ?
		       ", assigned to " : "",
		       json_string_value(json_object_get(a, "assignee")));
		json_decref(reply);
	}
	sb_release(&res.body);
	return rc;
}

static void set_opt(json_t *doc, const char *key, const char *v)
{
	if (v)
		json_object_set_new(doc, key, json_string(v));
}

/* klab alert VERB ID [...]: a change of state to state. */
static int cmd_alert_state(const char *state, const struct triage_opts *o)
{
	json_t *doc = json_pack("{s:s}", "state", state);
	long of;

	set_opt(doc, "commit", o->commit);
	set_opt(doc, "kernel", o->kernel);
	set_opt(doc, "comment", o->comment);
	if (o->of && parse_long(o->of, 1, 0x7fffffffL, &of)) {
		fprintf(stderr, "klab: --of: expected an alert id, got '%s'\n",
			o->of);
		json_decref(doc);
		return EX_USAGE;
	}
	if (o->of)
		json_object_set_new(doc, "of", json_integer(of));
	if (o->group)
		json_object_set_new(doc, "group", json_true());
	return post_alert(o->pos[0], "state", doc);
}

/* klab alert show ID: the alert, its group and its log. */
static int cmd_alert_show(const struct triage_opts *o)
{
	static const char *const keys[] = { "kind", "state", "assignee",
		"rig", "suite", "metric", "line", "kernel_before",
		"kernel_after", "fixed_commit", "fixed_kernel", "title" };
	char path[64];
	json_t *doc, *a, *e;
	const char *v;
	size_t i;
	int rc;

	snprintf(path, sizeof(path), "/api/alerts/%s", o->pos[0]);
	if (o->format && !strcmp(o->format, "json"))
		return get_print(path, NULL);
	if (o->format) {
		fprintf(stderr, "klab: unknown format '%s': json\n",
			o->format);
		return EX_USAGE;
	}
	rc = get_json(path, &doc);
	if (rc)
		return rc;
	a = json_object_get(doc, "alert");
	printf("alert %s (group %lld)\n", o->pos[0], (long long)
	       json_integer_value(json_object_get(a, "group")));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = json_string_value(json_object_get(a, keys[i]));
		if (v && *v)
			printf("%-14s %s\n", keys[i], v);
	}
	printf("log:\n");
	json_array_foreach(json_object_get(doc, "log"), i, e)
		printf("  %s %s: %s%s%s\n",
		       json_string_value(json_object_get(e, "who")),
		       json_string_value(json_object_get(e, "action")),
		       json_string_value(json_object_get(e, "state")),
		       *json_string_value(json_object_get(e, "state")) ?
		       " " : "", json_string_value(json_object_get(e, "text")));
	json_decref(doc);
	return EX_OK;
}

/* klab alert list: the alerts with their state, newest first. */
static int cmd_alert_list(const struct triage_opts *o)
{
	static const char *const cols[] = { "id", "state", "group", "kind",
		"rig", "line", "metric", "assignee", "title", NULL };
	struct strbuf path = STRBUF_INIT, q = STRBUF_INIT;
	int rc;

	sb_init(&path);
	sb_init(&q);
	qadd(&q, "alerts", "1");
	qadd(&q, "state", o->state ? o->state : "open");
	qadd(&q, "line", o->line);
	qadd(&q, "metric", o->metric);
	qadd(&q, "rig", o->rig);
	sb_addf(&path, "/api/alerts?%s", q.buf);
	rc = cli_list(path.buf, "events", cols, o->format);
	sb_release(&path);
	sb_release(&q);
	return rc;
}

int cmd_alert_triage(const char *verb, int argc, char **argv)
{
	struct triage_opts o;
	size_t i;
	int need = !strcmp(verb, "list") ? 0 : !strcmp(verb, "assign") ||
		   !strcmp(verb, "comment") ? 2 : 1;
	long id;

	if (parse_opts(argc, argv, &o) || o.npos != need)
		goto usage;
	if (need && parse_long(o.pos[0], 1, 0x7fffffffL, &id)) {
		fprintf(stderr, "klab: invalid alert id '%s'\n", o.pos[0]);
		return EX_USAGE;
	}
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verb, verbs[i].verb) && verbs[i].state)
			return cmd_alert_state(verbs[i].state, &o);
	if (!strcmp(verb, "assign"))
		return post_alert(o.pos[0], "assign", json_pack("{s:s}",
				  "assignee", o.pos[1]));
	if (!strcmp(verb, "comment"))
		return post_alert(o.pos[0], "comments", json_pack("{s:s}",
				  "text", o.pos[1]));
	if (!strcmp(verb, "show"))
		return cmd_alert_show(&o);
	return cmd_alert_list(&o);
usage:
	fprintf(stderr, "klab: usage: klab alert ack|invalid|fixed|dup|"
		"reopen ID [--commit C] [--kernel K] [--of ID] [--comment "
		"TEXT] [--group] | alert assign ID WHO | alert comment ID "
		"TEXT | alert show ID [--format json] | alert list [--state S]"
		" [--line L] [--metric GLOB] [--rig R] [--format json]\n");
	return EX_USAGE;
}
