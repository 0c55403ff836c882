// SPDX-License-Identifier: MIT
/*
 * klab's alert commands: subscribe (a channel and a filter), the
 * subscriptions as a table or JSON, unsubscribe, a test alert to one
 * subscription, and the outbox (alerts).  They take their own options,
 * so they parse argv themselves.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/klab.h"
#include "lib/config.h"

struct sub_opts {
	const char *email, *webhook, *secret, *rig, *suite, *metric;
	const char *submitter, *event, *format;
	int feed;
};

int klab_alerts_cmd(const char *cmd)
{
	return !strcmp(cmd, "subscribe") || !strcmp(cmd, "subscriptions") ||
		!strcmp(cmd, "unsubscribe") || !strcmp(cmd, "alert") ||
		!strcmp(cmd, "alerts");
}

int cli_opts_parse(int argc, char **argv, const struct cli_opt *opts,
		   size_t n, const char **pos, int maxpos, int *npos)
{
	size_t k;
	int i;

	*npos = 0;
	for (i = 0; i < argc; i++) {
		for (k = 0; k < n && strcmp(argv[i], opts[k].name); k++)
			;
		if (k < n && opts[k].flag) {
			*opts[k].flag = 1;
		} else if (k < n) {
			if (i + 1 >= argc) {
				fprintf(stderr, "klab: option '%s' needs a "
					"value\n", argv[i]);
				return -1;
			}
			*opts[k].value = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			fprintf(stderr, "klab: unknown option '%s'\n", argv[i]);
			return -1;
		} else if (*npos < maxpos) {
			pos[(*npos)++] = argv[i];
		} else {
			fprintf(stderr, "klab: too many arguments\n");
			return -1;
		}
	}
	return 0;
}

/* The options of argv into o, positional arguments into pos. */
static int parse_opts(int argc, char **argv, struct sub_opts *o,
		      const char **pos, int *npos)
{
	const struct cli_opt opts[] = {
		{ "--email", &o->email, NULL },
		{ "--webhook", &o->webhook, NULL },
		{ "--secret", &o->secret, NULL }, { "--rig", &o->rig, NULL },
		{ "--suite", &o->suite, NULL },
		{ "--metric", &o->metric, NULL },
		{ "--submitter", &o->submitter, NULL },
		{ "--event", &o->event, NULL },
		{ "--format", &o->format, NULL }, { "--feed", NULL, &o->feed },
	};

	memset(o, 0, sizeof(*o));
	return cli_opts_parse(argc, argv, opts, sizeof(opts) / sizeof(opts[0]),
			      pos, 8, npos);
}

static void set_opt(json_t *doc, const char *key, const char *v)
{
	if (v)
		json_object_set_new(doc, key, json_string(v));
}

static int cmd_subscribe(const struct sub_opts *o)
{
	json_t *doc;

	if (!!o->email + !!o->webhook + o->feed != 1) {
		fputs("klab: usage: klab subscribe --email ADDR | --webhook "
		      "URL | --feed [--secret S] [--rig R] [--suite S] "
		      "[--metric GLOB] [--submitter U] [--event K,...]\n",
		      stderr);
		return EX_USAGE;
	}
	doc = json_pack("{s:s}", "channel", o->email ? "email" : o->webhook ?
			"webhook" : "feed");
	set_opt(doc, "target", o->email ? o->email : o->webhook);
	set_opt(doc, "secret", o->secret);
	set_opt(doc, "rig", o->rig);
	set_opt(doc, "suite", o->suite);
	set_opt(doc, "metric", o->metric);
	set_opt(doc, "submitter", o->submitter);
	set_opt(doc, "events", o->event);
	return post_json("/api/subscriptions", doc, 201, NULL);
}

/* "rig=R suite=S ..." of a subscription's filter, "any" when empty. */
static void filter_text(json_t *s, char *out, size_t len)
{
	static const char *const keys[] = { "rig", "suite", "metric",
					    "submitter" };
	size_t i, used = 0;
	const char *v;

	out[0] = '\0';
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && used < len; i++) {
		v = json_string_value(json_object_get(s, keys[i]));
		if (v && *v)
			used += (size_t)snprintf(out + used, len - used,
						 "%s%s=%s", used ? " " : "",
						 keys[i], v);
	}
	if (!out[0])
		snprintf(out, len, "any");
}

static int cmd_subscriptions(const struct sub_opts *o)
{
	const char *ev;
	char filter[600];
	json_t *doc, *s;
	size_t i;
	int rc;

	if (o->format && !strcmp(o->format, "json"))
		return get_print("/api/subscriptions", NULL);
	rc = get_json("/api/subscriptions", &doc);
	if (rc)
		return rc;
	printf("%-5s %-8s %-40s %-12s %-30s %s\n", "ID", "CHANNEL", "TARGET",
	       "OWNER", "EVENTS", "FILTER");
	json_array_foreach(json_object_get(doc, "subscriptions"), i, s) {
		filter_text(s, filter, sizeof(filter));
		ev = json_string_value(json_object_get(s, "events"));
		printf("%-5lld %-8s %-40s %-12s %-30s %s\n", (long long)
		       json_integer_value(json_object_get(s, "id")),
		       json_string_value(json_object_get(s, "channel")),
		       json_string_value(json_object_get(s, "target")),
		       json_string_value(json_object_get(s, "owner")),
		       ev && *ev ? ev : "all", filter);
	}
	json_decref(doc);
	return EX_OK;
}

static int cmd_alerts_list(const struct sub_opts *o)
{
	const char *err;
	json_t *doc, *d;
	size_t i;
	int rc;

	if (o->format && !strcmp(o->format, "json"))
		return get_print("/api/alerts", NULL);
	rc = get_json("/api/alerts", &doc);
	if (rc)
		return rc;
	printf("%-6s %-6s %-5s %-8s %-20s %-10s %-8s %s\n", "ID", "EVENT",
	       "SUB", "CHANNEL", "KIND", "STATE", "ATTEMPTS", "LAST ERROR");
	json_array_foreach(json_object_get(doc, "deliveries"), i, d) {
		err = json_string_value(json_object_get(d, "last_error"));
		printf("%-6lld %-6lld %-5lld %-8s %-20s %-10s %-8lld %s\n",
		       (long long)json_integer_value(json_object_get(d, "id")),
		       (long long)json_integer_value(json_object_get(d,
								     "event")),
		       (long long)json_integer_value(json_object_get(d,
							"subscription")),
		       json_string_value(json_object_get(d, "channel")),
		       json_string_value(json_object_get(d, "kind")),
		       json_string_value(json_object_get(d, "state")),
		       (long long)json_integer_value(json_object_get(d,
							"attempts")),
		       err && *err ? err : "-");
	}
	json_decref(doc);
	return EX_OK;
}

/* DELETE /api/subscriptions/ID or POST .../ID/test. */
static int sub_action(const char *id_s, int test)
{
	struct http_result res;
	char path[96];
	long id;
	int rc;

	if (parse_long(id_s, 1, 0x7fffffffL, &id)) {
		fprintf(stderr, "klab: invalid subscription id '%s'\n", id_s);
		return EX_USAGE;
	}
	snprintf(path, sizeof(path), "/api/subscriptions/%ld%s", id,
		 test ? "/test" : "");
	rc = http_call(test ? "POST" : "DELETE", path, NULL, test ? "{}" :
		       NULL, test ? 2 : 0, "application/json", &res);
	if (rc == EX_OK && res.status != (test ? 202 : 200))
		rc = server_error(&res);
	else if (rc == EX_OK)
		printf(test ? "test alert queued for subscription %ld\n" :
		       "subscription %ld deleted\n", id);
	sb_release(&res.body);
	return rc;
}

int cmd_alerts(const char *cmd, int argc, char **argv)
{
	const char *pos[8];
	struct sub_opts o;
	int npos;

	if (!strcmp(cmd, "alert") && argc && klab_alert_triage_cmd(argv[0]))
		return cmd_alert_triage(argv[0], argc - 1, argv + 1);
	if (parse_opts(argc, argv, &o, pos, &npos))
		return EX_USAGE;
	if (!strcmp(cmd, "subscribe") && !npos)
		return cmd_subscribe(&o);
	if (!strcmp(cmd, "subscriptions") && !npos)
		return cmd_subscriptions(&o);
	if (!strcmp(cmd, "alerts") && !npos)
		return cmd_alerts_list(&o);
	if (!strcmp(cmd, "unsubscribe") && npos == 1)
		return sub_action(pos[0], 0);
	if (!strcmp(cmd, "alert") && npos == 2 && !strcmp(pos[0], "test"))
		return sub_action(pos[1], 1);
	fprintf(stderr, "klab: usage: klab subscribe ... | subscriptions "
		"[--format json] | unsubscribe ID | alert test ID | alerts "
		"[--format json] | alert ack|invalid|fixed|dup|reopen|assign|"
		"comment|show|list ...\n");
	return EX_USAGE;
}
