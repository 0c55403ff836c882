// SPDX-License-Identifier: MIT
/*
 * bench_load: a lab's worth of clients against one klabd on loopback, in
 * one process on libcurl's multi interface (bench/bench_load.sh sets up
 * klabd, its rigs and tokens, and reads the figures).
 *
 *   bench_load URL [option=value...]
 *
 * agents=N (rigs a0..aN-1, token tok-aI-SECRET): each registers, then
 * long-polls GET /api/agent/next?wait=POLL; a job's kernel and initramfs
 * are downloaded unless the agent holds them (as klab-agent's boot-file
 * cache does: by the job's sha256, the last AGENT_FILES files), checked
 * in (the register call a kexec'd kernel makes,
 * with the job's id), run for a cell's length (uniform in 0.5-1.5 x CELL
 * seconds; the first one cut at random, since a lab's rigs are never in
 * step) and uploaded (a 40-metric klab-results/1 document with 3
 * repetitions and a raw log); an upload that fails is retried after 1 s.
 * Before the agents start, operators queue JOBS jobs (kernels K1 and K2
 * in turn) on every BUSY-th rig through POST /api/jobs; the other rigs
 * sit parked in their long poll until a submission lands on them.
 * browsers=N fetch COMPARE, HISTORY and /submissions/N in turn with THINK
 * seconds between pages; submitters=N POST /api/submissions (PATCH on base
 * "fake", one random rig, suite tiobench) every SUBMIT_EVERY s with their
 * own token (line I of TOKENS).  The run lasts SECONDS, the agents start
 * over RAMP seconds.  Every answer but the expected status is an error.
 *
 * Prints one line per endpoint (n, rate, p50, p99, max in ms, errors),
 * writes the jobs whose upload got a 201 to ACKED (one id a line) and,
 * with PID set, klabd's VmRSS, threads and open descriptors every 5 s to
 * SAMPLES (CSV).  Exit 0 when there was no error.
 *
 * This file: the options, the clients and the run; what each client asks
 * is in bench_load_client.c, the figures in bench_load_report.c.
 */
#include <curl/curl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/rand.h"
#include "lib/strbuf.h"
#include "bench/bench_load.h"

const char *const ep_name[EP_N] = {
	"POST /api/agent/register", "GET /api/agent/next (a job waiting)",
	"GET /api/agent/next (a job queued during the wait)",
	"GET /api/agent/next (204 after the wait)", "GET /api/agent/files/*",
	"POST /api/agent/register (job check-in)",
	"POST /api/agent/jobs/*/results", "GET /compare", "GET /history",
	"GET /submissions/N", "POST /api/submissions", "POST /api/jobs",
};

struct load L = {
	.agents = 1000, .browsers = 20, .submitters = 5, .seconds = 600,
	.ramp = 60, .poll = 30, .jobs = 8, .busy = 2, .cell = 180,
	.think = 2, .submit_every = 60, .max_sub = 1, .secret = "load",
};

void die(const char *what, const char *msg)
{
	fprintf(stderr, "bench_load: %s: %s\n", what, msg);
	exit(1);
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Uniform in [0, 1) from lib/rand.h's seeded stream (seed 1). */
double urand(void)
{
	static uint64_t state = 1;

	return (double)(rand_xorshift64(&state) >> 11) / 9007199254740992.0;
}

/* Answers are kept, but the downloads: counted only. */
static size_t keep(char *p, size_t size, size_t n, void *arg)
{
	struct client *c = arg;

	if (c->ep == EP_FILE)
		L.file_bytes += size * n;
	else
		sb_add(&c->resp, p, size * n);
	return size * n;
}

/* ---- the run ------------------------------------------------------- */

static struct client *clients_make(size_t *n)
{
	size_t total = (size_t)(L.agents + L.browsers + L.submitters + 4), i;
	struct client *v = calloc(total, sizeof(*v));
	char hdr[256], iface[64];

	if (!v)
		abort();
	for (i = 0; i < total; i++) {
		struct client *c = &v[i];
		long k = (long)i;

		c->kind = k < L.agents ? AGENT : (k -= L.agents) < L.browsers ?
			BROWSER : (k -= L.browsers) < L.submitters ? SUBMITTER :
			OPERATOR;
		c->idx = (int)(c->kind == OPERATOR ? k - L.submitters : k);
		c->h = curl_easy_init();
		if (!c->h)
			abort();
		sb_init(&c->resp);
		sb_init(&c->req);
		c->first_cell = 1;
		/* each agent from its own address, as in a lab */
		snprintf(iface, sizeof(iface), "host!127.%d.%d.%d",
			 1 + (int)c->kind, c->idx / 250, c->idx % 250 + 1);
		curl_easy_setopt(c->h, CURLOPT_INTERFACE, iface);
		curl_easy_setopt(c->h, CURLOPT_WRITEFUNCTION, keep);
		curl_easy_setopt(c->h, CURLOPT_WRITEDATA, c);
		curl_easy_setopt(c->h, CURLOPT_PRIVATE, c);
		curl_easy_setopt(c->h, CURLOPT_NOPROXY, "*");
		curl_easy_setopt(c->h, CURLOPT_TIMEOUT, L.poll + 120L);
		if (c->kind == AGENT)
			snprintf(hdr, sizeof(hdr), "Authorization: Bearer "
				 "tok-a%d-%s", c->idx, L.secret);
		else if (c->kind == BROWSER)
			snprintf(hdr, sizeof(hdr), "Accept: text/html");
		else
			snprintf(hdr, sizeof(hdr), "Authorization: Bearer %s",
				 L.subtok[c->kind == SUBMITTER ? c->idx + 1 :
					  0]);
		c->hdrs = curl_slist_append(NULL, hdr);
		c->hdrs = curl_slist_append(c->hdrs, "Content-Type: "
					    "application/json");
		curl_easy_setopt(c->h, CURLOPT_HTTPHEADER, c->hdrs);
	}
	*n = total;
	return v;
}

/* Start what is due; the time until the next thing is due (s). */
static double clients_kick(CURLM *m, struct client *v, size_t n, double t)
{
	double next = t + 0.2;
	size_t i;

	for (i = 0; i < n; i++) {
		struct client *c = &v[i];

		if (c->busy || L.stopping)
			continue;
		if (L.setup != (c->kind == OPERATOR))
			continue;
		if (c->kind == OPERATOR && L.queued_rigs >= L.agents)
			continue;
		if (c->next_at <= t)
			client_go(m, c);
		else if (c->next_at < next)
			next = c->next_at;
	}
	return next - t;
}

static void clients_reap(CURLM *m)
{
	struct client *c;
	CURLMsg *msg;
	int left;

	for (msg = curl_multi_info_read(m, &left); msg;
	     msg = curl_multi_info_read(m, &left)) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &c);
		curl_multi_remove_handle(m, msg->easy_handle);
		client_done(c, msg->data.result);
	}
}

static int any_busy(struct client *v, size_t n, int but_polls)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].busy && (!but_polls || v[i].kind == OPERATOR ||
				  v[i].ep != EP_POLL_JOB))
			return 1;
	return 0;
}

/* The phases: the operators queue, then everyone else for SECONDS; at
 * the end no new request starts and the ones in flight (but the parked
 * polls) finish. */
static void run(CURLM *m, struct client *v, size_t n)
{
	double t, wait, next_sample, end = 0;
	size_t i;
	int running;

	L.setup = 1;
	next_sample = now_s();
	L.start = next_sample;
	for (;;) {
		t = now_s();
		if (L.setup && L.queued_rigs >= L.agents &&
		    !any_busy(v, n, 0)) {
			L.setup = 0;
			L.start = t;
			end = t + (double)L.seconds;
			for (i = 0; i < n; i++)
				v[i].next_at = t + (v[i].kind == AGENT ?
					urand() * (double)L.ramp :
					v[i].kind == SUBMITTER ?
					urand() * L.submit_every : 0);
			fprintf(stderr,
				"bench_load: jobs queued, clients start\n");
		}
		if (!L.setup && t >= end && !L.stopping)
			L.stopping = 1;
		if (L.stopping && !any_busy(v, n, 1))
			break;
		if (t >= next_sample) {
			sample(t);
			next_sample = t + 5;
		}
		wait = clients_kick(m, v, n, t);
		curl_multi_perform(m, &running);
		clients_reap(m);
		curl_multi_poll(m, NULL, 0, (int)(wait * 1000) + 1, NULL);
		curl_multi_perform(m, &running);
		clients_reap(m);
	}
	sample(now_s());
}

static char *file_text(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	sb_init(&sb);
	if (sb_read_file(&sb, path))
		die(path, "cannot read");
	return sb_detach(&sb, NULL);
}

/* TOKENS: the operator's token, then one a submitter. */
static void tokens_read(void)
{
	char *text = file_text(L.tokens), *p = text, *nl;
	long i;

	L.subtok = calloc((size_t)L.submitters + 1, sizeof(*L.subtok));
	if (!L.subtok)
		abort();
	for (i = 0; i <= L.submitters; i++) {
		nl = strchr(p, '\n');
		if (!nl)
			die(L.tokens, "fewer tokens than submitters + 1");
		*nl = '\0';
		L.subtok[i] = p;
		p = nl + 1;
	}
}

static void opt_num(const char *arg, const char *v, double *d, long *l)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v || *end || !isfinite(x) || x < 0 || x > 1e6)
		die("invalid option", arg);
	if (d)
		*d = x;
	else
		*l = (long)x;
}

/* Whether the n bytes of arg before its '=' are name. */
static int opt_is(const char *arg, size_t n, const char *name)
{
	return strlen(name) == n && !strncmp(arg, name, n);
}

static void opts_parse(int argc, char **argv)
{
	static const char *const names[] = { "agents", "browsers",
		"submitters", "seconds", "ramp", "poll", "jobs", "busy",
		"pid" };
	long *nums[] = { &L.agents, &L.browsers, &L.submitters, &L.seconds,
		&L.ramp, &L.poll, &L.jobs, &L.busy, &L.pid };
	static const char *const snames[] = { "k1", "k2", "compare",
		"history", "patch", "tokens", "acked", "samples", "secret" };
	const char **strs[] = { &L.k1, &L.k2, &L.compare, &L.history,
		&L.patch_file, &L.tokens, &L.acked, &L.samples, &L.secret };
	int i;
	size_t k, n;

	L.url = argv[1];
	for (i = 2; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');

		if (!eq)
			die("invalid option", argv[i]);
		n = (size_t)(eq - argv[i]);
		for (k = 0; k < 9; k++) {
			if (opt_is(argv[i], n, names[k]))
				opt_num(argv[i], eq + 1, NULL, nums[k]);
			if (opt_is(argv[i], n, snames[k]))
				*strs[k] = eq + 1;
		}
		if (!strncmp(argv[i], "cell=", 5))
			opt_num(argv[i], eq + 1, &L.cell, NULL);
		if (!strncmp(argv[i], "think=", 6))
			opt_num(argv[i], eq + 1, &L.think, NULL);
		if (!strncmp(argv[i], "submit_every=", 13))
			opt_num(argv[i], eq + 1, &L.submit_every, NULL);
	}
	if (!L.k1 || !L.k2 || !L.compare || !L.history || !L.patch_file ||
	    !L.tokens || !L.acked || L.busy < 1 || !L.agents)
		die("usage", "bench_load URL k1= k2= compare= history= patch= "
		    "tokens= acked= [agents= browsers= submitters= seconds= "
		    "ramp= poll= jobs= busy= cell= think= submit_every= pid= "
		    "samples= secret=]");
}

int main(int argc, char **argv)
{
	struct client *v;
	CURLM *m;
	size_t n, i;
	unsigned long errors;

	if (argc < 2)
		die("usage", "bench_load URL option=value...");
	opts_parse(argc, argv);
	L.patch = file_text(L.patch_file);
	tokens_read();
	L.acked_f = fopen(L.acked, "w");
	if (!L.acked_f)
		die(L.acked, "cannot write");
	if (L.samples && L.pid) {
		L.samples_f = fopen(L.samples, "w");
		if (!L.samples_f)
			die(L.samples, "cannot write");
		fprintf(L.samples_f, "t_s,rss_kb,threads,fds,uploads,acked\n");
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	m = curl_multi_init();
	v = clients_make(&n);
	curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, (long)n);
	run(m, v, n);
	errors = report((double)L.seconds);
	for (i = 0; i < n; i++) {
		if (v[i].busy)
			curl_multi_remove_handle(m, v[i].h);
		curl_easy_cleanup(v[i].h);
		curl_slist_free_all(v[i].hdrs);
		sb_release(&v[i].resp);
		sb_release(&v[i].req);
	}
	free(v);
	curl_multi_cleanup(m);
	curl_global_cleanup();
	fclose(L.acked_f);
	if (L.samples_f)
		fclose(L.samples_f);
	return errors ? 1 : 0;
}
