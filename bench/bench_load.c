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
 */
#include <curl/curl.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/rand.h"
#include "lib/strbuf.h"

enum kind { AGENT, BROWSER, SUBMITTER, OPERATOR };
enum { AGENT_FILES = 8 };	/* boot files an agent holds */
enum ep {
	EP_REGISTER, EP_POLL_JOB, EP_POLL_LATE, EP_POLL_EMPTY, EP_FILE,
	EP_CHECKIN,
	EP_RESULTS, EP_COMPARE, EP_HISTORY, EP_SUBPAGE, EP_SUBMIT, EP_JOBS,
	EP_N
};
static const char *const ep_name[EP_N] = {
	"POST /api/agent/register", "GET /api/agent/next (a job waiting)",
	"GET /api/agent/next (a job queued during the wait)",
	"GET /api/agent/next (204 after the wait)", "GET /api/agent/files/*",
	"POST /api/agent/register (job check-in)",
	"POST /api/agent/jobs/*/results", "GET /compare", "GET /history",
	"GET /submissions/N", "POST /api/submissions", "POST /api/jobs",
};

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

static struct {
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
} L = {
	.agents = 1000, .browsers = 20, .submitters = 5, .seconds = 600,
	.ramp = 60, .poll = 30, .jobs = 8, .busy = 2, .cell = 180,
	.think = 2, .submit_every = 60, .max_sub = 1, .secret = "load",
};

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "bench_load: %s: %s\n", what, msg);
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Uniform in [0, 1) from lib/rand.h's seeded stream (seed 1). */
static double urand(void)
{
	static uint64_t state = 1;

	return (double)(rand_xorshift64(&state) >> 11) / 9007199254740992.0;
}

static void stat_add(enum ep ep, double ms)
{
	struct stat_ep *s = &L.st[ep];

	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 1024;
		s->ms = realloc(s->ms, s->alloc * sizeof(*s->ms));
		if (!s->ms)
			abort();
	}
	s->ms[s->n++] = ms;
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

/* ---- requests --------------------------------------------------------- */

static void req_start(CURLM *m, struct client *c, enum ep ep,
		      const char *path, const char *body)
{
	char url[1024];

	snprintf(url, sizeof(url), "%s%s", L.url, path);
	sb_reset(&c->resp);
	curl_easy_setopt(c->h, CURLOPT_URL, url);
	if (body) {
		sb_reset(&c->req);
		sb_adds(&c->req, body);
		curl_easy_setopt(c->h, CURLOPT_POSTFIELDS, c->req.buf);
		curl_easy_setopt(c->h, CURLOPT_POSTFIELDSIZE, (long)c->req.len);
	} else {
		curl_easy_setopt(c->h, CURLOPT_HTTPGET, 1L);
	}
	c->ep = ep;
	c->busy = 1;
	c->t0 = now_s();
	if (curl_multi_add_handle(m, c->h) != CURLM_OK)
		die(url, "cannot add the request");
}

/* The upload: 40 metrics, 3 repetitions of them, a raw log. */
static void agent_results_doc(struct strbuf *sb)
{
	static const char *const phase[] = { "seq_read", "seq_write",
		"rand_read", "rand_write" };
	static const char *const what[] = { "rate", "avg_lat", "lat_p50",
		"lat_p90", "lat_p99", "lat_p99_9", "cpu", "cpu_eff", "lat_2s",
		"lat_10s" };
	int rep, p, w;

	sb_adds(sb, "{\"schema\":\"klab-results/1\",\"suite\":\"tiobench\","
		"\"format\":\"tiobench\",\"results\":[");
	for (rep = 0; rep <= 3; rep++) {
		if (rep == 1)
			sb_adds(sb, "],\"repetitions\":[");
		if (rep)
			sb_addf(sb, "%s{\"schema\":\"klab-results/1\","
				"\"results\":[", rep > 1 ? "," : "");
		for (p = 0; p < 4; p++)
			for (w = 0; w < 10; w++)
				sb_addf(sb, "%s{\"metric\":\"tiobench.%s.%s\","
					"\"unit\":\"%s\",\"value\":%.3f,"
					"\"direction\":\"%s\"}",
					p || w ? "," : "", phase[p], what[w],
					w == 0 ? "MB/s" : w == 6 ? "%" :
					w == 7 ? "" : "ms",
					100 + 10 * urand(),
					w ? "lower" : "higher");
		if (rep)
			sb_adds(sb, "]}");
	}
	sb_adds(sb, "],\"machine\":{\"cpus\":8,\"disks\":[{\"name\":\"sda\","
		"\"model\":\"LOAD HDD\",\"size_bytes\":4000787030016}]},"
		"\"raw\":{\"klab-run.log\":\"");
	for (p = 0; p < 64; p++)
		sb_addf(sb, "repetition %d: tiotest -t 8 -f 1024 ... done\\n",
			p);
	sb_adds(sb, "\"}}");
}

static void agent_go(CURLM *m, struct client *c)
{
	struct strbuf sb = STRBUF_INIT;
	char path[256];

	sb_init(&sb);
	switch (c->step) {
	case S_REGISTER:
	case S_CHECKIN:
		sb_addf(&sb, "{\"kernel_release\":\"6.1.0-load\",\"job\":%lld}",
			c->step == S_CHECKIN ? c->job : 0);
		req_start(m, c, c->step == S_CHECKIN ? EP_CHECKIN : EP_REGISTER,
			  "/api/agent/register", sb.buf);
		break;
	case S_POLL:
		snprintf(path, sizeof(path), "/api/agent/next?wait=%ld",
			 L.poll);
		req_start(m, c, EP_POLL_JOB, path, NULL);
		break;
	case S_KERNEL:
	case S_INITRD:
		req_start(m, c, EP_FILE, c->step == S_KERNEL ? c->kurl :
			  c->iurl, NULL);
		break;
	case S_UPLOAD:
		agent_results_doc(&sb);
		snprintf(path, sizeof(path), "/api/agent/jobs/%lld/results",
			 c->job);
		req_start(m, c, EP_RESULTS, path, sb.buf);
		break;
	}
	sb_release(&sb);
}

/* Whether the agent holds the boot file of sha256 sha. */
static int agent_holds(const struct client *c, const char *sha)
{
	int i;

	for (i = 0; *sha && i < c->ncache && i < AGENT_FILES; i++)
		if (!strcmp(c->cache[i], sha))
			return 1;
	return 0;
}

static void agent_keep(struct client *c, const char *sha)
{
	if (*sha && !agent_holds(c, sha))
		snprintf(c->cache[c->ncache++ % AGENT_FILES], 65, "%s", sha);
}

/* The step after a job was taken or a file downloaded: the next file the
 * agent does not hold (a hit is counted once, when the job is taken),
 * else the check-in. */
static enum step agent_next_file(struct client *c, enum step from)
{
	if (from < S_KERNEL) {
		if (agent_holds(c, c->ksha))
			L.cache_hits++;
		else
			return S_KERNEL;
	}
	if (from < S_INITRD && c->iurl[0]) {
		if (agent_holds(c, c->isha))
			L.cache_hits++;
		else
			return S_INITRD;
	}
	return S_CHECKIN;
}

/* The job of a 200 poll answer; 0 when it has none. */
static int agent_take_job(struct client *c)
{
	json_t *doc = json_loadb(c->resp.buf, c->resp.len, 0, NULL);
	json_t *j = json_object_get(doc, "job");
	const char *k = json_string_value(json_object_get(j, "kernel_url"));
	const char *i = json_string_value(json_object_get(j, "initrd_url"));
	const char *ks = json_string_value(json_object_get(j, "kernel_sha256"));
	const char *is = json_string_value(json_object_get(j, "initrd_sha256"));

	c->job = json_integer_value(json_object_get(j, "id"));
	snprintf(c->kurl, sizeof(c->kurl), "%s", k ? k : "");
	snprintf(c->iurl, sizeof(c->iurl), "%s", i ? i : "");
	snprintf(c->ksha, sizeof(c->ksha), "%s", ks ? ks : "");
	snprintf(c->isha, sizeof(c->isha), "%s", is ? is : "");
	json_decref(doc);
	return c->job > 0 && c->kurl[0];
}

/* After an answer: the agent's next step and when; 0, or -1 (error). */
static int agent_done(struct client *c, long code, double t)
{
	double len;

	switch (c->step) {
	case S_REGISTER:
		c->step = S_POLL;
		return code == 200 ? 0 : -1;
	case S_POLL:
		if (code == 204) {
			c->ep = EP_POLL_EMPTY;
			return 0;
		}
		if (code != 200 || !agent_take_job(c))
			return -1;
		/* a busy rig's first JOBS jobs were queued before it polled
		 * (its latency is klabd's); any other job came while the
		 * poll waited, and its latency includes that wait */
		if (c->idx % L.busy || ++c->taken > L.jobs)
			c->ep = EP_POLL_LATE;
		c->step = agent_next_file(c, S_POLL);
		return 0;
	case S_KERNEL:
	case S_INITRD:
		if (code != 200) {
			c->step = S_CHECKIN;
			return -1;
		}
		L.downloads++;
		agent_keep(c, c->step == S_KERNEL ? c->ksha : c->isha);
		c->step = agent_next_file(c, c->step);
		return 0;
	case S_CHECKIN:
		len = L.cell * (0.5 + urand());
		if (c->first_cell)
			len *= urand();
		c->first_cell = 0;
		c->next_at = t + len;
		c->step = S_UPLOAD;
		return code == 200 ? 0 : -1;
	case S_UPLOAD:
		if (code != 201) {
			c->next_at = t + 1;	/* the agent retries */
			return -1;
		}
		fprintf(L.acked_f, "%lld\n", c->job);
		L.acked_n++;
		c->step = S_POLL;
		return 0;
	}
	return -1;
}

static void browser_go(CURLM *m, struct client *c)
{
	char path[128];

	switch (c->page++ % 3) {
	case 0:
		req_start(m, c, EP_COMPARE, L.compare, NULL);
		break;
	case 1:
		req_start(m, c, EP_HISTORY, L.history, NULL);
		break;
	default:
		snprintf(path, sizeof(path), "/submissions/%ld",
			 1 + (long)(urand() * (double)L.max_sub));
		req_start(m, c, EP_SUBPAGE, path, NULL);
	}
}

static void submitter_go(CURLM *m, struct client *c)
{
	json_t *doc;
	char name[64], rig[32], *body;

	snprintf(name, sizeof(name), "load-%d-%d.patch", c->idx, c->page++);
	snprintf(rig, sizeof(rig), "a%ld", (long)(urand() * (double)L.agents));
	doc = json_pack("{s:s, s:[{s:s, s:s}], s:[s], s:[s], s:s}", "base",
			"fake", "patches", "name", name, "text", L.patch,
			"rigs", rig, "suites", "tiobench", "note",
			"bench_load");
	body = json_dumps(doc, JSON_COMPACT);
	req_start(m, c, EP_SUBMIT, "/api/submissions", body);
	free(body);
	json_decref(doc);
}

/* The operators' share of the setup: jobs on every BUSY-th rig. */
static void operator_go(CURLM *m, struct client *c)
{
	char body[256];
	long rig = L.queued_rigs;

	L.queued_rigs += L.busy;
	snprintf(body, sizeof(body), "{\"kernels\":[\"%s\",\"%s\"],\"rig\":"
		 "\"a%ld\",\"suite\":\"tiobench\",\"repeat\":%ld}", L.k1, L.k2,
		 rig, (L.jobs + 1) / 2);
	req_start(m, c, EP_JOBS, "/api/jobs", body);
}

static void client_go(CURLM *m, struct client *c)
{
	switch (c->kind) {
	case AGENT:
		agent_go(m, c);
		break;
	case BROWSER:
		browser_go(m, c);
		break;
	case SUBMITTER:
		submitter_go(m, c);
		break;
	case OPERATOR:
		operator_go(m, c);
		break;
	}
}

static void report_error(struct client *c, long code, CURLcode rc)
{
	static int shown;
	const char *body = c->resp.buf ? c->resp.buf : "", *p;

	if (shown++ >= 20)
		return;
	/* a page's message stands after its header */
	p = strstr(body, "</header>");
	fprintf(stderr, "bench_load: %s (client %d): %s %ld: %.300s\n",
		ep_name[c->ep], c->idx, rc ? curl_easy_strerror(rc) : "HTTP",
		code, p ? p + 9 : body);
	fflush(stderr);
}

/* A request ended: statistics, then the client's next step. */
static void client_done(struct client *c, CURLcode rc)
{
	double t = now_s(), ms = (t - c->t0) * 1000;
	long code = 0;
	int bad = 0;
	json_t *doc;

	curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &code);
	c->busy = 0;
	c->next_at = t;
	if (rc != CURLE_OK) {
		bad = 1;
		c->next_at = t + 1;
	} else if (c->kind == AGENT) {
		bad = agent_done(c, code, t);
	} else if (c->kind == BROWSER) {
		bad = code != 200;
		c->next_at = t + L.think * (0.5 + urand());
	} else if (c->kind == SUBMITTER) {
		bad = code != 201;
		doc = json_loadb(c->resp.buf, c->resp.len, 0, NULL);
		if (!bad && json_integer_value(json_object_get(doc, "id")) >
		    L.max_sub)
			L.max_sub = json_integer_value(json_object_get(doc,
								      "id"));
		json_decref(doc);
		c->next_at = t + L.submit_every * (0.5 + urand());
	} else {
		bad = code != 201;
	}
	if (c->ep == EP_POLL_EMPTY)
		ms -= (double)L.poll * 1000;
	if (bad) {
		L.st[c->ep].errors++;
		report_error(c, code, rc);
	} else {
		stat_add(c->ep, ms);
	}
}

/* ---- klabd from /proc ----------------------------------------------- */

static long proc_status(const char *field)
{
	char path[64], line[256];
	size_t n = strlen(field);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", L.pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

static long proc_fds(void)
{
	char path[64];
	struct dirent *e;
	long n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%ld/fd", L.pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	for (e = readdir(dir); e; e = readdir(dir))
		n += e->d_name[0] != '.';
	closedir(dir);
	return n;
}

static void sample(double t)
{
	if (!L.samples_f)
		return;
	fprintf(L.samples_f, "%.0f,%ld,%ld,%ld,%lu,%lu\n", t - L.start,
		proc_status("VmRSS"), proc_status("Threads"), proc_fds(),
		(unsigned long)L.st[EP_RESULTS].n, L.acked_n);
	fflush(L.samples_f);
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(const double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n + 0.5);

	return n ? v[i >= n ? n - 1 : i > 0 ? i - 1 : 0] : NAN;
}

/* "\tX" with PREC decimals, or "\t-" for a figure that has none. */
static void put_fig(double x, int prec)
{
	if (isnan(x))
		fputs("\t-", stdout);
	else
		printf("\t%.*f", prec, x);
}

static unsigned long report(double secs)
{
	unsigned long errors = 0;
	int e;

	printf("endpoint\tn\tper_s\tp50_ms\tp99_ms\tmax_ms\terrors\n");
	for (e = 0; e < EP_N; e++) {
		struct stat_ep *s = &L.st[e];

		qsort(s->ms, s->n, sizeof(*s->ms), cmp_double);
		errors += s->errors;
		printf("%s\t%zu", ep_name[e], s->n);
		/* the operators queue their jobs once, at the start: no rate */
		put_fig(e == EP_JOBS ? NAN : (double)s->n / secs, 2);
		put_fig(quantile(s->ms, s->n, 0.5), 1);
		put_fig(quantile(s->ms, s->n, 0.99), 1);
		put_fig(s->n ? s->ms[s->n - 1] : NAN, 1);
		printf("\t%lu\n", s->errors);
	}
	printf("acked uploads\t%lu\n", L.acked_n);
	printf("downloaded\t%.1f MB/s\n", (double)L.file_bytes / secs / 1e6);
	printf("boot files\t%lu downloaded, %lu held (agent cache)\n",
	       L.downloads, L.cache_hits);
	return errors;
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
