// SPDX-License-Identifier: MIT
/*
 * klab: the command-line client of klabd, over its HTTP API (libcurl).
 * This file holds the usage text, the options, the command table and
 * main; the calls to klabd are in klab_http.c, the commands in klab_*.c
 * by resource (klab_results.c, klab_list.c, klab_lab.c, klab_submit.c,
 * klab_track.c, klab_alerts.c, klab_bisect.c).
 *
 * Exit codes scripts can rely on: 0 success, 1 the server refused the
 * request (its error is printed), 2 usage error, 3 klabd unreachable,
 * 4 a comparison found a regression (with --fail-on-worse, or a
 * comparison run waited for), 5 a comparison run ended undecided.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/klab.h"

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
	"        [--scale F]   watch a Debian kernel line: each new kernel\n"
	"        is fetched and queued with the previous one (operators)\n"
	"  track git NAME BRANCH --rig R[,R2] --suite S[,S2] [--max-cells N]\n"
	"        [--scale F]\n"
	"        watch a branch of the git base NAME: each new head is\n"
	"        built and compared with the last tested one; a worse\n"
	"        one is bisected to its commit, which is alerted\n"
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
	"  steps [--rig R] [--suite S] [--limit N]\n"
	"        where a cell's time goes: each step's mean over the\n"
	"        newest N (20) done jobs (boot, warm-up, phases, upload)\n"
	"\n"
	"List commands print a table; --format json gives the data.\n"
	"A rig R of compare, compare-run, submit, bisect and jobs may be a\n"
	"class of identical rigs ([rig NAME] class = C): cells go to\n"
	"whichever of its rigs is free.\n"
	"  audit [--limit N]                who did what (operators)\n"
	"  subscribe --email ADDR|--webhook URL|--feed [--secret S]\n"
	"        [--rig R] [--suite S] [--metric GLOB] [--submitter U]\n"
	"        [--event K,...]   be told of events (klab help alerts)\n"
	"  subscriptions [--format json] | unsubscribe ID\n"
	"  alert test ID | alerts [--format json]  test, see the outbox\n"
	"  alert list [--state S|open|any] [--line L] [--metric GLOB]\n"
	"        [--rig R] [--format json]   alerts and their state\n"
	"  alert ack|invalid|reopen ID [--comment TEXT] [--group]\n"
	"  alert fixed ID --commit C|--kernel K [--comment TEXT] [--group]\n"
	"  alert dup ID --of ID [--comment TEXT] [--group]   triage\n"
	"  alert assign ID WHO | alert comment ID TEXT | alert show ID\n"
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

/* --url URL (else $KLAB_URL, else NULL for the default) and --token
 * TOKEN before the command; the index after them. */
static int global_options(int argc, char **argv, const char **url,
			  const char **opt_token)
{
	int i = 1;

	if (getenv("KLAB_URL") && *getenv("KLAB_URL"))
		*url = getenv("KLAB_URL");
	while (i + 1 < argc && (!strcmp(argv[i], "--url") ||
				!strcmp(argv[i], "--token"))) {
		if (!strcmp(argv[i], "--url"))
			*url = argv[i + 1];
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
	{ "steps", cmd_steps, NULL },
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
	const char *cmd, *url = NULL, *opt_token = NULL;
	const struct command *c;
	struct args a;
	int i, rc;

	i = global_options(argc, argv, &url, &opt_token);
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
	cli_http_init(url, opt_token);
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
	cli_http_release();
	return rc;
}
