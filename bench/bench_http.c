// SPDX-License-Identifier: MIT
/*
 * bench_http: a tiny libcurl client for bench/run.sh, loopback only.
 *
 *   bench_http time N URL...
 *       per URL: 5 warm-up GETs, then N GETs over one reused connection;
 *       prints the median, p90 and minimum of the server-side time (first
 *       response byte minus request sent: libcurl's starttransfer minus
 *       pretransfer; klabd renders a page whole before sending, so this is
 *       the time to build it) and of the total time (our own clock around
 *       curl_easy_perform), in ms, and the size.
 *       With KLAB_BENCH_PID set to the server's pid, also its CPU time
 *       (user + system, all threads, from /proc/PID/stat) per request:
 *       what a busy neighbour on a shared machine disturbs least.
 *   bench_http load CLIENTS SECONDS URL...
 *       CLIENTS concurrent connections (one curl multi handle), each
 *       fetching the URLs in turn until SECONDS have passed; prints the
 *       requests done, their rate and the median/p90 total time.
 *   bench_http post URL FILE...
 *       POSTs each file as text/plain over one connection; sums the
 *       "results" count of each 201 answer and prints rows/s.
 *
 * Any answer but the expected status (200, or 201 for post) fails the run:
 * a benchmark of error pages would be worthless.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/strbuf.h"

#define WARMUP 5
#define MAXCLIENTS 256

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "bench_http: %s: %s\n", what, msg);
	exit(1);
}

static long num(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v <= 0 || v > max)
		die("invalid number", s);
	return v;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t sink(char *p, size_t size, size_t n, void *arg)
{
	*(size_t *)arg += size * n;
	return size * n;
}

static size_t keep(char *p, size_t size, size_t n, void *arg)
{
	sb_add(arg, p, size * n);
	return size * n;
}

/* CPU seconds (user + system) of process pid so far; -1 if unknown. */
static double proc_cpu_s(long pid)
{
	unsigned long long ut, st;
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the command may hold spaces: fields 14, 15 follow the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
			 "%*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static long server_pid(void)
{
	const char *s = getenv("KLAB_BENCH_PID");

	return s ? strtol(s, NULL, 10) : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v; the q-quantile (nearest rank). */
static double quantile(double *v, size_t n, double q)
{
	size_t i;

	qsort(v, n, sizeof(*v), cmp_double);
	i = (size_t)(q * (double)n + 0.5);
	return v[i >= n ? n - 1 : i > 0 ? i - 1 : 0];
}

static void check_status(CURL *h, const char *url, long want)
{
	char msg[600];
	long code = 0;

	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (code != want) {
		snprintf(msg, sizeof(msg), "HTTP %ld (expected %ld)", code,
			 want);
		die(url, msg);
	}
}

static CURL *easy(const char *url, size_t *bytes)
{
	CURL *h = curl_easy_init();

	if (!h)
		die("curl", "cannot create a handle");
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, bytes);
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 60L);
	return h;
}

/* One URL, n timed GETs on one connection. */
static void time_url(CURL *h, const char *url, long n)
{
	double *srv = calloc((size_t)n, sizeof(*srv));
	double *tot = calloc((size_t)n, sizeof(*tot));
	curl_off_t pre, start;
	double cpu0 = -1, cpu1, t;
	size_t bytes = 0;
	long i, pid = server_pid();
	CURLcode rc;

	if (!srv || !tot)
		die("memory", "out of memory");
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &bytes);
	for (i = -WARMUP; i < n; i++) {
		bytes = 0;
		t = now_s();
		rc = curl_easy_perform(h);
		t = now_s() - t;
		if (rc != CURLE_OK)
			die(url, curl_easy_strerror(rc));
		check_status(h, url, 200);
		if (i == -1)
			cpu0 = proc_cpu_s(pid);
		if (i < 0)
			continue;
		curl_easy_getinfo(h, CURLINFO_PRETRANSFER_TIME_T, &pre);
		curl_easy_getinfo(h, CURLINFO_STARTTRANSFER_TIME_T, &start);
		srv[i] = (double)(start - pre) / 1000.0;
		tot[i] = t * 1000.0;
	}
	cpu1 = proc_cpu_s(pid);
	printf("%s\tserver_median_ms=%.3f\tserver_p90_ms=%.3f\t"
	       "server_min_ms=%.3f\ttotal_median_ms=%.3f\tbytes=%zu\tn=%ld",
	       url, quantile(srv, (size_t)n, 0.5),
	       quantile(srv, (size_t)n, 0.9),
	       quantile(srv, (size_t)n, 0.0), quantile(tot, (size_t)n, 0.5),
	       bytes, n);
	if (cpu0 >= 0 && cpu1 >= 0)
		printf("\tserver_cpu_ms=%.2f",
		       (cpu1 - cpu0) * 1000 / (double)n);
	putchar('\n');
	free(srv);
	free(tot);
}

static int cmd_time(int argc, char **argv)
{
	long n = num(argv[0], 1000000);
	size_t bytes = 0;
	CURL *h = easy(argv[1], &bytes);
	int i;

	for (i = 1; i < argc; i++)
		time_url(h, argv[i], n);
	curl_easy_cleanup(h);
	return 0;
}

struct client {
	CURL *h;
	size_t bytes;
	int next;	/* index of the URL it fetches next */
};

/* Start client c's next request on the multi handle. */
static void client_go(CURLM *m, struct client *c, char **urls, int nurl)
{
	curl_easy_setopt(c->h, CURLOPT_URL, urls[c->next]);
	c->next = (c->next + 1) % nurl;
	c->bytes = 0;
	curl_multi_add_handle(m, c->h);
}

/* Collect finished transfers; restart them until the deadline. */
static long load_reap(CURLM *m, struct client *cl, char **urls, int nurl,
		      double deadline, double *tot, long *ntot, long maxtot)
{
	struct client *c;
	curl_off_t total;
	CURLMsg *msg;
	long done = 0;
	char *url;
	int left;

	for (msg = curl_multi_info_read(m, &left); msg;
	     msg = curl_multi_info_read(m, &left)) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &c);
		curl_easy_getinfo(c->h, CURLINFO_EFFECTIVE_URL, &url);
		if (msg->data.result != CURLE_OK)
			die(url, curl_easy_strerror(msg->data.result));
		check_status(c->h, url, 200);
		curl_easy_getinfo(c->h, CURLINFO_TOTAL_TIME_T, &total);
		if (*ntot < maxtot)
			tot[(*ntot)++] = (double)total / 1000.0;
		curl_multi_remove_handle(m, c->h);
		done++;
		if (now_s() < deadline)
			client_go(m, c, urls, nurl);
	}
	return done;
}

static int cmd_load(int argc, char **argv)
{
	long nc = num(argv[0], MAXCLIENTS), secs = num(argv[1], 3600);
	long done = 0, ntot = 0, maxtot = 10000000;
	double t0 = now_s(), *tot = calloc((size_t)maxtot, sizeof(*tot));
	struct client cl[MAXCLIENTS];
	CURLM *m = curl_multi_init();
	int i, running = 1;

	if (!m || !tot)
		die("curl", "cannot create a multi handle");
	for (i = 0; i < nc; i++) {
		cl[i].h = easy(argv[2], &cl[i].bytes);
		cl[i].next = i % (argc - 2);
		curl_easy_setopt(cl[i].h, CURLOPT_PRIVATE, &cl[i]);
		client_go(m, &cl[i], argv + 2, argc - 2);
	}
	while (running) {
		curl_multi_perform(m, &running);
		done += load_reap(m, cl, argv + 2, argc - 2,
				  t0 + (double)secs, tot, &ntot, maxtot);
		curl_multi_perform(m, &running);
		if (running)
			curl_multi_poll(m, NULL, 0, 100, NULL);
	}
	t0 = now_s() - t0;
	printf("load: clients=%ld\tseconds=%.2f\trequests=%ld\treq_per_s=%.1f"
	       "\ttotal_median_ms=%.2f\ttotal_p90_ms=%.2f\n", nc, t0, done,
	       (double)done / t0, ntot ? quantile(tot, (size_t)ntot, 0.5) : 0,
	       ntot ? quantile(tot, (size_t)ntot, 0.9) : 0);
	for (i = 0; i < nc; i++)
		curl_easy_cleanup(cl[i].h);
	curl_multi_cleanup(m);
	free(tot);
	return 0;
}

/* The "results":N of an import answer, 0 when absent. */
static long answer_results(const char *body)
{
	const char *p = body ? strstr(body, "\"results\":") : NULL;

	return p ? strtol(p + 10, NULL, 10) : 0;
}

static int cmd_post(int argc, char **argv)
{
	struct strbuf file = STRBUF_INIT, body = STRBUF_INIT;
	struct curl_slist *hdr = curl_slist_append(NULL,
						   "Content-Type: text/plain");
	CURL *h = curl_easy_init();
	const char *tok = getenv("KLAB_TOKEN");
	double t, wall = 0;
	long rows = 0;
	int i;
	CURLcode rc;

	if (tok && *tok) {	/* posting needs a submitter token */
		sb_addf(&file, "Authorization: Bearer %s", tok);
		hdr = curl_slist_append(hdr, file.buf);
		sb_reset(&file);
	}
	if (!h || !hdr)
		die("curl", "cannot create a handle");
	curl_easy_setopt(h, CURLOPT_URL, argv[0]);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	for (i = 1; i < argc; i++) {
		sb_reset(&file);
		sb_reset(&body);
		if (sb_read_file(&file, argv[i]))
			die("cannot read", argv[i]);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, file.buf);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)file.len);
		t = now_s();
		rc = curl_easy_perform(h);
		wall += now_s() - t;
		if (rc != CURLE_OK)
			die(argv[i], curl_easy_strerror(rc));
		check_status(h, argv[i], 201);
		rows += answer_results(body.buf);
	}
	printf("post: files=%d\tresults=%ld\tseconds=%.3f\trows_per_s=%.0f\n",
	       argc - 1, rows, wall, (double)rows / wall);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(h);
	sb_release(&file);
	sb_release(&body);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (argc >= 4 && !strcmp(argv[1], "time"))
		rc = cmd_time(argc - 2, argv + 2);
	else if (argc >= 5 && !strcmp(argv[1], "load"))
		rc = cmd_load(argc - 2, argv + 2);
	else if (argc >= 4 && !strcmp(argv[1], "post"))
		rc = cmd_post(argc - 2, argv + 2);
	else
		fputs("usage: bench_http time N URL...\n"
		      "       bench_http load CLIENTS SECONDS URL...\n"
		      "       bench_http post URL FILE...\n", stderr);
	curl_global_cleanup();
	return rc;
}
