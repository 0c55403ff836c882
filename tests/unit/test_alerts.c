// SPDX-License-Identifier: MIT
/*
 * Unit tests for the alerts module: the webhook signature (RFC 4231
 * HMAC-SHA256 vectors; a webhook's over its timestamp and body), filter
 * matching, the retry schedule, the checks of addresses and URLs, the
 * mail's headers under hostile titles, and,
 * on a temporary database, dedup (the same kind and key stored once) and
 * one pass of the outbox against a closed port (attempt, error, next
 * attempt on the schedule, then given up), and an event stored while
 * another connection is writing (it waits, it is not lost).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "flow/alerts.h"
#include "flow/alerts_int.h"
#include "db/alerts.h"
#include "db_testlib.h"

static void test_sign(void **state)
{
	char sig[ALERT_SIG_LEN + 1];
	const char *data = "what do ya want for nothing?";

	alerts_sign("Jefe", data, strlen(data), sig);
	assert_string_equal(sig, "sha256=5bdcc146bf60754e6a042426089575c7"
			    "5a003f089d2739839dec58b964ec3843");
	alerts_sign("", "", 0, sig);
	assert_string_equal(sig, "sha256=b613679a0814d9ec772f95d778c35fc5"
			    "ff1697c493715653c6c712144292c5ad");
	alerts_sign("Jefe", data, strlen(data) - 1, sig);
	assert_string_not_equal(sig, "sha256=5bdcc146bf60754e6a042426089575c7"
				"5a003f089d2739839dec58b964ec3843");
}

/* A webhook's signature covers "TIMESTAMP.BODY": another time, another
 * signature (a receiver that checks the time refuses a replay). */
static void test_sign_webhook(void **state)
{
	char sig[ALERT_SIG_LEN + 1];
	const char *data = "what do ya want for nothing?";

	alerts_sign_webhook("Jefe", 1700000000, data, strlen(data), sig);
	assert_string_equal(sig, "sha256=1cdd0650c8be1cb0974b1788d458b1e7"
			    "81206cfef59b85faafc582d2e182c57e");
	alerts_sign_webhook("Jefe", 1700000001, data, strlen(data), sig);
	assert_string_equal(sig, "sha256=9b1bf98549c40daa2f6f77815f85ac92"
			    "e4e54965dcad85a7255aadec8faed4da");
}

static void test_match(void **state)
{
	struct alert_event ev = { .kind = ALERT_WORSE_FOUND, .rig = "r1",
				  .suite = "tiobench",
				  .metric = "tiobench.rand_read.lat_max",
				  .submitter = "alice" };
	struct alert_event bare = { .kind = ALERT_RIG_OFFLINE, .rig = "r1" };
	struct alert_filter any = { 0 }, f;

	assert_true(alerts_match(&any, &ev));
	assert_true(alerts_match(&any, &bare));
	f = (struct alert_filter){ .events = "change_point,worse_found" };
	assert_true(alerts_match(&f, &ev));
	f.events = "worse_found_not";
	assert_false(alerts_match(&f, &ev));
	f.events = "worse";
	assert_false(alerts_match(&f, &ev));
	f = (struct alert_filter){ .rig = "r1", .suite = "tiobench",
				   .submitter = "alice" };
	assert_true(alerts_match(&f, &ev));
	f.rig = "r2";
	assert_false(alerts_match(&f, &ev));
	f = (struct alert_filter){ .metric = "tiobench.*.lat_*" };
	assert_true(alerts_match(&f, &ev));
	f.metric = "dbench.*";
	assert_false(alerts_match(&f, &ev));
	/* an event without the field does not pass a filter on it */
	assert_false(alerts_match(&f, &bare));
	f = (struct alert_filter){ .suite = "tiobench" };
	assert_false(alerts_match(&f, &bare));
	f = (struct alert_filter){ .rig = "r1", .events = "rig_offline" };
	assert_true(alerts_match(&f, &bare));
	assert_false(alerts_match(&f, &ev));
}

static void test_backoff(void **state)
{
	static const long want[] = { 30, 60, 120, 240, 480, 960, 1920, 3600,
				     3600 };
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(alerts_backoff((int)i + 1, 30, 3600), want[i]);
	assert_int_equal(alerts_backoff(1, 1, 2), 1);
	assert_int_equal(alerts_backoff(2, 1, 2), 2);
	assert_int_equal(alerts_backoff(3, 1, 2), 2);
	assert_int_equal(alerts_backoff(1000, 30, 3600), 3600);
	assert_int_equal(alerts_backoff(0, 30, 3600), 30);
}

static void test_checks(void **state)
{
	char err[300];

	assert_int_equal(alerts_email_check("alice@example.org", err,
					    sizeof(err)), 0);
	assert_int_equal(alerts_email_check("a.b+c@mail.example.org", err,
					    sizeof(err)), 0);
	assert_int_equal(alerts_email_check("a@b.org\r\nBcc: x@y.org", err,
					    sizeof(err)), -1);
	assert_non_null(strstr(err, "0x0d"));
	assert_int_equal(alerts_email_check("<a@b.org>", err, sizeof(err)),
			 -1);
	assert_int_equal(alerts_email_check("a@b@c.org", err, sizeof(err)),
			 -1);
	assert_int_equal(alerts_email_check("@b.org", err, sizeof(err)), -1);
	assert_int_equal(alerts_email_check("a@org", err, sizeof(err)), -1);
	assert_int_equal(alerts_email_check("a b@c.org", err, sizeof(err)),
			 -1);
	assert_int_equal(alerts_url_check("https://hooks.example.org/x?y=1",
					  err, sizeof(err)), 0);
	assert_int_equal(alerts_url_check("http://127.0.0.1:8080/", err,
					  sizeof(err)), 0);
	assert_int_equal(alerts_url_check("file:///etc/passwd", err,
					  sizeof(err)), -1);
	assert_int_equal(alerts_url_check("HTTP://x/", err, sizeof(err)), -1);
	assert_int_equal(alerts_url_check("http:///x", err, sizeof(err)), -1);
	assert_int_equal(alerts_url_check("http://a/\r\nX: y", err,
					  sizeof(err)), -1);
	assert_int_equal(alerts_kinds_check("", err, sizeof(err)), 0);
	assert_int_equal(alerts_kinds_check("rig_offline,build_failed", err,
					    sizeof(err)), 0);
	assert_int_equal(alerts_kinds_check("rig_offline,,x", err,
					    sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown event kind ''"));
	assert_int_equal(alerts_kinds_check(ALERT_TEST, err, sizeof(err)),
			 -1);
}

static void test_mail_headers(void **state)
{
	struct alerts_conf c = { .smtp_from = "klab@lab.example",
				 .public_url = "http://lab:8080" };
	struct db_alert_sub s = { .id = 3, .channel = "email",
				  .target = "alice@example.org" };
	struct db_alert_event e = { .id = 9, .kind = "worse_found",
				    .title = "x\r\nBcc: evil@example.org",
				    .text = "line 1\n.\nline 3",
				    .link = "/c/1" };
	struct strbuf sb = STRBUF_INIT;
	char *end, *p;

	sb_init(&sb);
	alerts_mail_compose(&sb, &c, &s, &e, 4);
	end = strstr(sb.buf, "\r\n\r\n");
	assert_non_null(end);
	*end = '\0';		/* the headers alone: no injected one */
	assert_null(strstr(sb.buf, "\r\nBcc:"));
	for (p = sb.buf; *p; p++)	/* no bare CR or LF in a header */
		if (*p == '\r' || *p == '\n')
			assert_true(p[0] == '\r' ? p[1] == '\n' :
				    p > sb.buf && p[-1] == '\r');
	*end = '\r';
	assert_non_null(strstr(sb.buf, "Subject: [klab] x  Bcc: evil"));
	assert_non_null(strstr(sb.buf, "\r\n\r\nx\r\nBcc: evil@example.org"
			       "\r\n\r\nline 1\r\n.\r\nline 3\r\n"));
	assert_non_null(strstr(sb.buf, "http://lab:8080/c/1\r\n"));
	assert_null(strstr(sb.buf, "\n\n"));	/* CRLF everywhere */
	sb_release(&sb);
}

static int64_t add_sub(struct db *db, const char *channel,
		       const char *target, const char *events)
{
	struct db_alert_sub s = { 0, (char *)channel, (char *)target, "key",
				  "", "", "", "", (char *)events, "op", 0 };
	int64_t id = 0;

	assert_int_equal(db_alert_sub_add(db, &s, &id), DB_OK);
	return id;
}

static void test_dedup(void **state)
{
	struct fx *f = *state;
	struct alert_event ev = { .kind = ALERT_WORSE_FOUND, .rig = "r1",
				  .title = "t", .dedup = "cmp-7" };
	struct db_alert_event *v;
	int64_t e1, e2, feed;
	size_t n, nd;
	char err[256];

	add_sub(f->db, "webhook", "http://127.0.0.1:1/", "worse_found");
	feed = add_sub(f->db, "feed", "", "");
	add_sub(f->db, "email", "a@b.org", "rig_offline");
	assert_int_equal(alerts_emit_to(f->db, &ev, 0, &e1, &nd, err,
					sizeof(err)), DB_OK);
	assert_int_equal(nd, 2);
	assert_int_equal(alerts_emit_to(f->db, &ev, 0, &e2, &nd, err,
					sizeof(err)), DB_REPEATED);
	assert_int_equal(e1, e2);
	assert_int_equal(nd, 0);
	assert_int_equal(alerts_emit(f->db, &ev, err, sizeof(err)), 0);
	/* another kind under the same key, and events without a key */
	ev.kind = ALERT_CHANGE_POINT;
	assert_int_equal(alerts_emit_to(f->db, &ev, 0, &e2, NULL, err,
					sizeof(err)), DB_OK);
	assert_true(e2 != e1);
	ev.dedup = NULL;
	assert_int_equal(alerts_emit(f->db, &ev, err, sizeof(err)), 0);
	assert_int_equal(alerts_emit(f->db, &ev, err, sizeof(err)), 0);
	assert_int_equal(db_alert_event_list(f->db, NULL, 0, &v, &n), DB_OK);
	assert_int_equal(n, 4);
	db_alert_events_free(v, n);
	/* the feed got every event, delivered at once */
	assert_int_equal(db_alert_event_list(f->db, &(struct db_alert_filter){
		.subscription = feed }, 0, &v, &n), DB_OK);
	assert_int_equal(n, 4);
	db_alert_events_free(v, n);
	assert_int_equal(db_alert_pending(f->db), 1);
}

static void test_outbox_retry(void **state)
{
	struct fx *f = *state;
	struct alerts_conf c = { .timeout = 5, .retry_base = 30,
				 .retry_max = 3600, .max_attempts = 2 };
	struct alert_event ev = { .kind = ALERT_BUILD_FAILED, .title = "b" };
	struct db_alert_delivery *d;
	int64_t now = (int64_t)time(NULL);
	size_t n;
	char err[256];

	add_sub(f->db, "webhook", "http://127.0.0.1:1/hook", "");
	assert_int_equal(alerts_emit(f->db, &ev, err, sizeof(err)), 0);
	assert_int_equal(alerts_deliver_due(f->db, &c, 10), 1);
	assert_int_equal(db_alert_delivery_list(f->db, 0, &d, &n), DB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(d[0].state, "pending");
	assert_int_equal(d[0].attempts, 1);
	assert_true(d[0].last_error[0] != '\0');
	assert_in_range(d[0].next_at, now + 30, now + 32);
	db_alert_deliveries_free(d, n);
	/* not due again before its time */
	assert_int_equal(alerts_deliver_due(f->db, &c, 10), 0);
	/* the schedule comes round: the second failure gives up */
	assert_int_equal(db_alert_delivery_fail(f->db, 1, "x", now, 0), DB_OK);
	assert_int_equal(alerts_deliver_due(f->db, &c, 10), 1);
	assert_int_equal(db_alert_delivery_list(f->db, 0, &d, &n), DB_OK);
	assert_string_equal(d[0].state, "failed");
	assert_int_equal(d[0].attempts, 3);
	db_alert_deliveries_free(d, n);
	assert_int_equal(db_alert_pending(f->db), 0);
	/* a deleted subscription cancels what it still had pending */
	assert_int_equal(db_alert_sub_delete(f->db, 1), DB_OK);
	assert_int_equal(db_alert_sub_delete(f->db, 1), DB_NOTFOUND);
}

static void *commit_later(void *arg)
{
	usleep(300 * 1000);
	assert_int_equal(db_commit(arg), DB_OK);
	return NULL;
}

/*
 * An event stored while another connection holds the write lock waits
 * for it (the busy handler) and is stored: its dedup read must not open
 * a deferred transaction that cannot become a writer afterwards (that
 * was SQLITE_BUSY_SNAPSHOT: "cannot store alert ... database error", a
 * submitter's notice lost, when a comparison wrote beside it).
 */
static void test_emit_beside_writer(void **state)
{
	struct fx *f = *state;
	struct alert_event ev = { .kind = ALERT_WORSE_FOUND, .rig = "r1",
				  .title = "t", .dedup = "cmp-9" };
	struct db *other;
	pthread_t t;
	int64_t e;
	size_t nd;
	char err[256];

	add_sub(f->db, "feed", "", "");
	other = db_open(f->path, err, sizeof(err));
	assert_non_null(other);
	assert_int_equal(db_begin(other), DB_OK);
	add_sub(other, "webhook", "http://127.0.0.1:1/", "");
	assert_int_equal(pthread_create(&t, NULL, commit_later, other), 0);
	assert_int_equal(alerts_emit_to(f->db, &ev, 0, &e, &nd, err,
					sizeof(err)), DB_OK);
	pthread_join(t, NULL);
	/* the feed: picked before the other committed */
	assert_int_equal(nd, 1);
	db_close(other);
	assert_int_equal(alerts_emit_to(f->db, &ev, 0, &e, &nd, err,
					sizeof(err)), DB_REPEATED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sign),
		cmocka_unit_test(test_sign_webhook),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_mail_headers),
		cmocka_unit_test_setup_teardown(test_dedup, dbfix_setup,
						dbfix_teardown),
		cmocka_unit_test_setup_teardown(test_outbox_retry, dbfix_setup,
						dbfix_teardown),
		cmocka_unit_test_setup_teardown(test_emit_beside_writer,
						dbfix_setup, dbfix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
