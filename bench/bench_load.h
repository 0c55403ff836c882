/* SPDX-License-Identifier: MIT */
/*
 * bench_load: what its three files share (bench_load.c: the options,
 * the clients and the run; bench_load_client.c: what each kind of client
 * asks and does with the answer; bench_load_report.c: the figures, the
 * samples of klabd and the table printed at the end).
 */
#ifndef KLAB_BENCH_LOAD_H
#define KLAB_BENCH_LOAD_H

#include <curl/curl.h>
#include <stdio.h>

#include "lib/strbuf.h"

enum kind { AGENT, BROWSER, SUBMITTER, OPERATOR };
enum { AGENT_FILES = 8 };	/* boot files an agent holds */
enum ep {
	EP_REGISTER, EP_POLL_JOB, EP_POLL_LATE, EP_POLL_EMPTY, EP_FILE,
	EP_CHECKIN,
	EP_RESULTS, EP_COMPARE, EP_HISTORY, EP_SUBPAGE, EP_SUBMIT, EP_JOBS,
	EP_N
};
/* Each endpoint's name in the report and the error lines. */
extern const char *const ep_name[EP_N];

struct stat_ep {
	double *ms;
	size_t n, alloc;
	unsigned long errors;
};

/* what an agent does next */
enum step { S_REGISTER, S_POLL, S_KERNEL, S_INITRD, S_CHECKIN, S_UPLOAD };

struct client {
	enum kind kind;
	int idx;
	CURL *h;
	struct curl_slist *hdrs;
	int busy;		/* a request in flight */
	double next_at;		/* when idle: start the next request */
	double t0;		/* when the request in flight was started */
	enum ep ep;
	enum step step;
	long long job;
	long taken;		/* jobs handed to this agent */
	char kurl[128], iurl[128];
	char ksha[65], isha[65];
	char cache[AGENT_FILES][65];	/* boot files held, by sha256: a ring */
	int ncache;
	int page, first_cell;
	struct strbuf resp, req;
};

/* The run's settings (the options) and figures: one per process. */
struct load {
	const char *url, *k1, *k2, *compare, *history, *patch_file;
	const char *tokens, *acked, *samples, *secret;
	long agents, browsers, submitters, seconds, ramp, poll, jobs, busy;
	long pid;
	double cell, think, submit_every;
	char *patch;
	char **subtok;
	long max_sub;
	int stopping, setup;
	long queued_rigs;
	struct stat_ep st[EP_N];
	FILE *acked_f, *samples_f;
	double start;
	unsigned long acked_n;
	unsigned long long file_bytes;
	unsigned long cache_hits, downloads;
};
extern struct load L;

/* bench_load.c */
/* "bench_load: WHAT: MSG" on stderr, exit 1. */
void die(const char *what, const char *msg) __attribute__((noreturn));
/* Seconds on the monotonic clock. */
double now_s(void);
/* Uniform in [0, 1) from lib/rand.h's seeded stream (seed 1). */
double urand(void);

/* bench_load_client.c */
/* Start the client's next request on m. */
void client_go(CURLM *m, struct client *c);
/* A request ended: statistics, then the client's next step. */
void client_done(struct client *c, CURLcode rc);

/* bench_load_report.c */
/* One latency (ms) of an endpoint's answer. */
void stat_add(enum ep ep, double ms);
/* A line of SAMPLES: klabd's VmRSS, threads and fds at t (with PID). */
void sample(double t);
/* The table of the endpoints over secs; the errors counted. */
unsigned long report(double secs);

#endif
