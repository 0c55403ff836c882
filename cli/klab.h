/* SPDX-License-Identifier: MIT */
/*
 * klab: what the command-line client's files share: exit codes, the
 * parsed arguments of a command (klab.c: usage, options, the command
 * table, main), the HTTP calls to klabd (klab_http.c), and the commands,
 * one file per resource: results (klab_results.c), lists, the catalog,
 * audit and health (klab_list.c), the lab's work (klab_lab.c),
 * submissions and the queue (klab_submit.c), tracks (klab_track.c),
 * alerts (klab_alerts.c) and their triage (klab_alert_triage.c) and
 * bisections (klab_bisect.c).
 */
#ifndef KLAB_CLI_H
#define KLAB_CLI_H

#include <jansson.h>
#include <stddef.h>

#include "lib/strbuf.h"

enum { EX_OK = 0, EX_SERVER = 1, EX_USAGE = 2, EX_CONNECT = 3,
       EX_WORSE = 4, EX_UNDECIDED = 5 };

struct http_result {
	long status;
	struct strbuf body;
};

/* Options "--name VALUE" after the command; positional args collected. */
struct args {
	const char *pos[64];
	int npos;
	const char *kernel, *rig, *suite, *format, *base, *limit;
	const char *scheduler, *scale, *repeat, *cmdline, *ident, *floor;
	const char *rigconf;	/* compare: one rig configuration */
	const char *max_cells;
	const char *note;	/* submit */
	int fail_on_worse, available, wait;	/* fail_on_worse 2: any */
	int stop_on_worse;
};

/* klab_http.c.  Where klabd is (url, NULL for http://127.0.0.1:8080) and
 * the token of every request: opt_token, else $KLAB_TOKEN, else
 * ~/.config/klab/token (none: no token); libcurl set up.  Undone by
 * cli_http_release. */
void cli_http_init(const char *url, const char *opt_token);
void cli_http_release(void);
/* method path?query to klabd, with body (or NULL); EX_OK or EX_CONNECT. */
int http_call(const char *method, const char *path,
	      const struct strbuf *query, const char *body, size_t len,
	      const char *ctype, struct http_result *res);
/* GET (body NULL) or POST path?query to klabd; EX_OK or EX_CONNECT. */
int http_do(const char *path, const struct strbuf *query, const char *body,
	    size_t len, const char *ctype, struct http_result *res);
/* Print the server's error message; returns EX_SERVER. */
int server_error(const struct http_result *res);
/* Append key=value (URL-encoded) to a query; nothing when value is NULL. */
void qadd(struct strbuf *q, const char *key, const char *value);
/* POST doc (its reference is taken); print the reply or its field. */
int post_json(const char *path, json_t *doc, int ok_status,
	      const char *field);
/* POST doc (its reference is taken), expect 201 with the new row's
 * "id": print "WHAT ID" and set *id.  EX_OK or an EX_* code. */
int post_created(const char *path, json_t *doc, const char *what,
		 long *id);
/* GET path?q and print the body. */
int get_print(const char *path, const struct strbuf *q);
/* GET path?format=text and print it. */
int get_print_text(const char *path);
/* GET path; the parsed body of a 200 into *doc (NULL otherwise): EX_OK,
 * or the exit code with the error printed. */
int get_json(const char *path, json_t **doc);
/* Follow the JSON at path to its end: fetch it once a second, and print
 * progress()'s line on stderr when it changes, until progress() says the
 * thing ended (non-zero).  *doc holds the last fetch (the caller frees
 * it); EX_OK or the exit code of a failed fetch. */
int cli_follow(const char *path, int (*progress)(json_t *doc, char *line,
						 size_t len), json_t **doc);

/* klab_results.c: import, compare, history */
int cmd_import(struct args *a);
int cmd_compare(struct args *a);
int cmd_history(struct args *a);
/* klab_list.c: klab kernels | rigs | suites | runs | metrics | jobs |
 * builds (what names the list: a table, or --format json), kernel,
 * audit, health */
int cmd_list(const char *what, struct args *a);
int cmd_kernel(struct args *a);
int cmd_audit(struct args *a);
int cmd_steps(struct args *a);
int cmd_health(struct args *a);

/* klab_lab.c.  The job configuration options (--scale, --scheduler,
 * --cmdline) of every command that queues cells (job add, compare-run,
 * submit, bisect): the field of a that opt fills, NULL for another
 * option; and those given into a request's document (one configuration,
 * one column): 0, or -1 after a message for a scale that is not a
 * number. */
const char **job_config_opt(struct args *a, const char *opt);
int job_config_add(json_t *doc, const struct args *a);
int cmd_job(struct args *a);
int cmd_rig(struct args *a);
int cmd_build(struct args *a);
int cmd_compare_run(struct args *a);
/* klab_track.c: track, tracks, untrack, changepoints */
int cmd_track(const char *cmd, struct args *a);

/* One option of a command that parses its own: "--name VALUE" into
 * *value, or, value NULL, a flag "--name" that sets *flag to 1. */
struct cli_opt {
	const char *name;
	const char **value;
	int *flag;
};
/* argv's options of opts[0..n), the rest positional into pos (at most
 * maxpos, *npos of them): 0, or -1 after a message (an unknown option,
 * a value missing, too many arguments). */
int cli_opts_parse(int argc, char **argv, const struct cli_opt *opts,
		   size_t n, const char **pos, int maxpos, int *npos);

/* klab_alerts.c: subscribe, subscriptions, unsubscribe, alert, alerts
 * (their own options, argv after the command) */
int klab_alerts_cmd(const char *cmd);
int cmd_alerts(const char *cmd, int argc, char **argv);
/* klab_alert_triage.c: klab alert ack|invalid|fixed|dup|reopen|assign|
 * comment|show|list (argv after the verb) */
int klab_alert_triage_cmd(const char *verb);
int cmd_alert_triage(const char *verb, int argc, char **argv);

/* klab_submit.c: submissions, the queue, and the one table printer of
 * every list command (a header line, aligned columns). */
int cmd_submit(struct args *a);
int cmd_submissions(struct args *a);
int cmd_submission(struct args *a);
int cmd_queue(struct args *a);
/* klab_bisect.c: klab bisect, klab bisections (their own options) */
int klab_bisect_cmd(const char *cmd);
int cmd_bisections(const char *cmd, int argc, char **argv);
void cli_table_print(json_t *rows, const char *const *cols);
/* GET path, print doc[key] as a table of cols (format NULL or "table"),
 * or the whole document (format "json"). */
int cli_list(const char *path, const char *key, const char *const *cols,
	     const char *format);
/* The same for a text answer of "key=value ..." lines (json: {key: [..]}). */
int cli_kv_list(const char *path, const char *key, const char *const *cols,
		const char *format);

#endif
