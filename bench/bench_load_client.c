// SPDX-License-Identifier: MIT
/*
 * bench_load's clients (bench_load.c has the whole story): the request
 * each kind makes next (an agent's register, long poll, boot files,
 * check-in and upload; a browser's pages; a submitter's submission; an
 * operator's jobs) and what it does with the answer.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
#include "bench/bench_load.h"

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

void client_go(CURLM *m, struct client *c)
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
void client_done(struct client *c, CURLcode rc)
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
