// SPDX-License-Identifier: MIT
/*
 * bench_alerts: a burst of N events through the alert outbox, the code
 * klabd runs (alerts_emit_to, alerts_deliver_due), in one process on a
 * fresh database, to a local sink (bench/bench_alerts.sh starts it).
 *
 *   bench_alerts DB WEBHOOK_URL N [SMTP_URL]
 *
 * Reports, for the webhook channel (and email when SMTP_URL is given):
 * the time to emit N events (matching and storing event + delivery), the
 * time to drain the outbox (one signed POST per delivery, recorded), and
 * as the reference the same N signed POSTs sent bare through
 * lib/http_client.c, so that the outbox's own cost is the difference.
 * Timings are reported, never asserted.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flow/alerts.h"
#include "flow/alerts_int.h"
#include "db/alerts.h"
#include "lib/http_client.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t sub_add(struct db *db, const char *channel,
		       const char *target, const char *events)
{
	struct db_alert_sub s = { 0, (char *)channel, (char *)target,
				  "bench-secret", "", "", "", "",
				  (char *)events, "bench", 0 };
	int64_t id = 0;

	if (db_alert_sub_add(db, &s, &id))
		exit(1);
	return id;
}

/* Emit n events of kind; seconds taken. */
static double emit_burst(struct db *db, const char *kind, int n)
{
	char dedup[64], title[64], err[256];
	struct alert_event ev = { .kind = kind, .rig = "r1",
				  .suite = "tiobench", .metric = "m",
				  .text = "tiobench.rand_read.lat_max +31.2% "
					  "+- 4.0% worse\n" };
	double t0 = now_s();
	int i;

	for (i = 0; i < n; i++) {
		snprintf(dedup, sizeof(dedup), "%s-%d", kind, i);
		snprintf(title, sizeof(title), "event %d", i);
		ev.dedup = dedup;
		ev.title = title;
		if (alerts_emit_to(db, &ev, 0, NULL, NULL, err, sizeof(err)) !=
		    DB_OK) {
			fprintf(stderr, "bench_alerts: %s\n", err);
			exit(1);
		}
	}
	return now_s() - t0;
}

/* Drain the outbox; seconds taken. */
static double drain(struct db *db, const struct alerts_conf *c)
{
	double t0 = now_s();

	while (db_alert_pending(db) > 0)
		if (alerts_deliver_due(db, c, 50) < 0)
			exit(1);
	return now_s() - t0;
}

/* The reference: n signed POSTs of a like body, sent bare. */
static double bare_posts(const char *url, int n)
{
	const char *body = "{\"event\":1,\"kind\":\"worse_found\",\"text\":"
		"\"tiobench.rand_read.lat_max +31.2% +- 4.0% worse\\n\"}";
	char sig[ALERT_SIG_LEN + 1], hdr[128], err[256];
	const char *headers[] = { hdr, NULL };
	struct strbuf reply = STRBUF_INIT;
	struct http_request rq;
	double t0 = now_s();
	long status;
	int i;

	sb_init(&reply);
	for (i = 0; i < n; i++) {
		alerts_sign("bench-secret", body, strlen(body), sig);
		snprintf(hdr, sizeof(hdr), "X-Klab-Signature: %s", sig);
		memset(&rq, 0, sizeof(rq));
		rq.url = url;
		rq.method = "POST";
		rq.body = body;
		rq.body_len = strlen(body);
		rq.content_type = "application/json";
		rq.timeout = 20;
		rq.headers = headers;
		sb_reset(&reply);
		if (http_request_perform(&rq, &reply, &status, err,
					 sizeof(err)))
			exit(1);
	}
	sb_release(&reply);
	return now_s() - t0;
}

static void report(const char *what, int n, double emit, double deliver)
{
	printf("%-8s %5d events: emit %7.1f ms (%6.1f us/event), outbox "
	       "drained in %6.2f s (%5.2f ms/delivery, %6.0f/s)\n", what, n,
	       emit * 1e3, emit * 1e6 / n, deliver, deliver * 1e3 / n,
	       n / deliver);
}

int main(int argc, char **argv)
{
	struct alerts_conf c = { .timeout = 20, .retry_base = 1,
				 .retry_max = 1, .max_attempts = 3,
				 .public_url = "http://127.0.0.1:8080",
				 .smtp_from = "klab@lab.example" };
	double emit, deliver, bare;
	struct db *db;
	char err[256];
	int n;

	n = argc < 4 ? 0 : (int)strtol(argv[3], NULL, 10);
	if (n <= 0) {
		fputs("usage: bench_alerts DB WEBHOOK_URL N [SMTP_URL]\n",
		      stderr);
		return 2;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	db = db_open(argv[1], err, sizeof(err));
	if (!db) {
		fprintf(stderr, "bench_alerts: %s\n", err);
		return 1;
	}
	sub_add(db, "webhook", argv[2], ALERT_WORSE_FOUND);
	emit = emit_burst(db, ALERT_WORSE_FOUND, n);
	deliver = drain(db, &c);
	report("webhook", n, emit, deliver);
	bare = bare_posts(argv[2], n);
	printf("reference: %d bare signed POSTs in %.2f s (%.2f ms each); "
	       "outbox / bare = %.2f\n", n, bare, bare * 1e3 / n,
	       deliver / bare);
	if (argc > 4) {
		c.smtp_url = argv[4];
		sub_add(db, "email", "bench@example.org", ALERT_CHANGE_POINT);
		emit = emit_burst(db, ALERT_CHANGE_POINT, n);
		deliver = drain(db, &c);
		report("email", n, emit, deliver);
	}
	db_close(db);
	curl_global_cleanup();
	return 0;
}
