// SPDX-License-Identifier: MIT
/*
 * The channels of alerts: one attempt to deliver one event to one
 * subscription.  Email goes over SMTP through libcurl (smtp:// with
 * optional STARTTLS, or smtps://, optional AUTH), a plain-text mail with
 * the event's report; a webhook is a JSON POST through lib/http_client.c
 * signed with HMAC-SHA256 of "TIMESTAMP.BODY" (X-Klab-Signature:
 * sha256=HEX, X-Klab-Timestamp: the unix seconds of the attempt), so a
 * receiver can refuse a replayed delivery by its age (docs/API.md).
 * Every attempt has a bounded time and aborts when klabd stops.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flow/alerts_int.h"
#include "lib/http_client.h"
#include "lib/utf8.h"

#define MAX_REPLY (64 * 1024)

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* Text for a header: CR, LF and other controls become spaces. */
static void add_header_text(struct strbuf *sb, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++)
		sb_addc(sb, (unsigned char)s[i] < 32 ? ' ' : s[i]);
}

/* Body text with every line ended by CRLF, as SMTP wants. */
static void add_crlf(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '\r')
			continue;
		if (*s == '\n')
			sb_addc(sb, '\r');
		sb_addc(sb, *s);
	}
}

static void add_link(struct strbuf *sb, const struct alerts_conf *c,
		     const char *link)
{
	if (*link == '/' && c->public_url)
		sb_addf(sb, "%s%s", c->public_url, link);
	else
		sb_adds(sb, link);
}

/* The headers of a mail about e, its subject the rest of the line. */
static void mail_head(struct strbuf *sb, const struct alerts_conf *c,
		      const struct db_alert_sub *s,
		      const struct db_alert_event *e, int64_t delivery,
		      const char *subject)
{
	time_t now = time(NULL);
	char date[64];
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	sb_addf(sb, "Date: %s\r\nFrom: klab <%s>\r\nTo: <%s>\r\nSubject: "
		"[klab] %s", date, c->smtp_from, s->target, subject);
	add_header_text(sb, e->title, 200);
	sb_addf(sb, "\r\nMessage-ID: <klab-alert-%lld-%lld@klab>\r\n"
		"X-Klab-Event: %s\r\nMIME-Version: 1.0\r\nContent-Type: "
		"text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit"
		"\r\n\r\n", (long long)e->id, (long long)delivery, e->kind);
}

/* The title, text and link of e, as a mail's body part. */
static void mail_event(struct strbuf *sb, const struct alerts_conf *c,
		       const struct db_alert_event *e)
{
	add_crlf(sb, e->title);
	sb_adds(sb, "\r\n\r\n");
	add_crlf(sb, e->text);
	if (e->text[0] && e->text[strlen(e->text) - 1] != '\n')
		sb_adds(sb, "\r\n");
	if (*e->link) {
		sb_adds(sb, "\r\n");
		add_link(sb, c, e->link);
		sb_adds(sb, "\r\n");
	}
}

void alerts_mail_compose(struct strbuf *sb, const struct alerts_conf *c,
			 const struct db_alert_sub *s,
			 const struct db_alert_event *e, int64_t delivery)
{
	mail_head(sb, c, s, e, delivery, "");
	mail_event(sb, c, e);
	sb_addf(sb, "\r\n-- \r\nklab alert %lld (%s), subscription %lld; "
		"stop it with: klab unsubscribe %lld\r\n", (long long)e->id,
		e->kind, (long long)s->id, (long long)s->id);
}

void alerts_mail_compose_group(struct strbuf *sb, const struct alerts_conf *c,
			       const struct db_alert_sub *s,
			       const struct db_alert_event *ev, size_t n,
			       int64_t delivery)
{
	char subject[96];
	size_t i;

	snprintf(subject, sizeof(subject), "%zu alerts of one change "
		 "(group %lld): ", n, (long long)ev[0].group_id);
	mail_head(sb, c, s, &ev[0], delivery, subject);
	sb_addf(sb, "%zu alerts were raised by one change (group %lld):\r\n",
		n, (long long)ev[0].group_id);
	for (i = 0; i < n; i++) {
		sb_addf(sb, "  alert %lld: ", (long long)ev[i].id);
		add_header_text(sb, ev[i].title, 300);
		sb_adds(sb, "\r\n");
	}
	sb_adds(sb, "Triage them at ");
	add_link(sb, c, "/alerts?group=");
	sb_addf(sb, "%lld\r\n", (long long)ev[0].group_id);
	for (i = 0; i < n; i++) {
		sb_adds(sb, "\r\n-------------------------------------------"
			"---------------------------\r\n");
		mail_event(sb, c, &ev[i]);
	}
	sb_addf(sb, "\r\n-- \r\nklab alerts of group %lld, subscription "
		"%lld; stop it with: klab unsubscribe %lld\r\n",
		(long long)ev[0].group_id, (long long)s->id, (long long)s->id);
}

char *alerts_webhook_body(const struct alerts_conf *c,
			  const struct db_alert_sub *s,
			  const struct db_alert_event *e, int64_t delivery)
{
	struct strbuf link = STRBUF_INIT;
	json_t *doc, *tri;
	char *out;

	sb_init(&link);
	add_link(&link, c, e->link);
	/* text that is not UTF-8 is repaired by the one rule (lib/utf8.h),
	 * so every field is sent */
	doc = json_pack("{s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
			"s:o, s:I}", "event", (json_int_t)e->id, "delivery",
			(json_int_t)delivery, "subscription", (json_int_t)s->id,
			"kind", utf8_json_string(e->kind),
			"rig", utf8_json_string(e->rig),
			"suite", utf8_json_string(e->suite),
			"metric", utf8_json_string(e->metric),
			"submitter", utf8_json_string(e->submitter),
			"title", utf8_json_string(e->title),
			"text", utf8_json_string(e->text),
			"link", utf8_json_string(link.buf),
			"created", (json_int_t)e->created);
	/* the triage: an alert's state and group, a notice's alert */
	tri = json_pack("{s:o, s:o, s:I, s:I}", "line",
			utf8_json_string(nz(e->line)), "state",
			utf8_json_string(nz(e->state)), "group",
			(json_int_t)e->group_id, "alert",
			(json_int_t)(e->about ? e->about : e->id));
	if (!doc || !tri || json_object_update_missing(doc, tri))
		abort();	/* out of memory */
	json_decref(tri);
	out = json_dumps(doc, JSON_COMPACT);
	if (!out)
		abort();	/* out of memory */
	json_decref(doc);
	sb_release(&link);
	return out;
}

static int send_webhook(const struct alerts_conf *c,
			const struct db_alert_sub *s,
			const struct db_alert_event *e, int64_t delivery,
			char *err, size_t errlen)
{
	char *body = alerts_webhook_body(c, s, e, delivery);
	char sig[ALERT_SIG_LEN + 1], h_sig[128], h_event[96], h_id[64],
	     h_ts[64];
	const char *headers[] = { h_ts, h_sig, h_event, h_id, NULL };
	long long now = (long long)time(NULL);
	struct strbuf reply = STRBUF_INIT;
	struct http_request rq;
	long status = 0;
	int rc;

	sb_init(&reply);
	/* the time is signed with the body: a receiver refuses old ones */
	alerts_sign_webhook(s->secret, now, body, strlen(body), sig);
	snprintf(h_ts, sizeof(h_ts), "X-Klab-Timestamp: %lld", now);
	snprintf(h_sig, sizeof(h_sig), "X-Klab-Signature: %s", sig);
	snprintf(h_event, sizeof(h_event), "X-Klab-Event: %.60s", e->kind);
	snprintf(h_id, sizeof(h_id), "X-Klab-Delivery: %lld",
		 (long long)delivery);
	memset(&rq, 0, sizeof(rq));
	rq.url = s->target;
	rq.method = "POST";
	rq.body = body;
	rq.body_len = strlen(body);
	rq.content_type = "application/json";
	rq.timeout = c->timeout;
	rq.connect_timeout = c->timeout < 10 ? c->timeout : 10;
	rq.user_agent = "klabd-alerts";
	rq.max_reply = MAX_REPLY;
	rq.headers = headers;
	rq.cancel = c->cancel;
	rc = http_request_perform(&rq, &reply, &status, err, errlen);
	if (rc == 0 && (status < 200 || status > 299)) {
		snprintf(err, errlen, "webhook answered HTTP %ld", status);
		rc = -1;
	}
	sb_release(&reply);
	free(body);
	return rc;
}

struct mail_src {
	const char *p;
	size_t left;
};

static size_t mail_read(char *buf, size_t size, size_t n, void *arg)
{
	struct mail_src *m = arg;
	size_t len = size * n < m->left ? size * n : m->left;

	memcpy(buf, m->p, len);
	m->p += len;
	m->left -= len;
	return len;
}

static int on_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t x,
		       curl_off_t y)
{
	(void)a;
	(void)b;
	(void)x;
	(void)y;
	return arg && __atomic_load_n((const int *)arg, __ATOMIC_RELAXED);
}

/* The envelope and the connection's options of one mail. */
static void smtp_setup(CURL *h, const struct alerts_conf *c, char *from,
		       size_t fromlen, struct curl_slist *rcpt)
{
	snprintf(from, fromlen, "<%s>", c->smtp_from);
	curl_easy_setopt(h, CURLOPT_URL, c->smtp_url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(h, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, c->timeout);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, c->timeout < 10 ?
			 c->timeout : 10L);
	if (c->smtp_starttls)
		curl_easy_setopt(h, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	if (c->smtp_user)
		curl_easy_setopt(h, CURLOPT_USERNAME, c->smtp_user);
	if (c->smtp_password)
		curl_easy_setopt(h, CURLOPT_PASSWORD, c->smtp_password);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, (void *)c->cancel);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
}

/* Send the mail msg (headers and body) to s's address. */
static int send_email(const struct alerts_conf *c,
		      const struct db_alert_sub *s, const struct strbuf *msg,
		      char *err, size_t errlen)
{
	struct strbuf to = STRBUF_INIT;
	struct curl_slist *rcpt;
	struct mail_src src;
	char from[300];
	long code = 0;
	CURLcode cc;
	CURL *h;

	if (!c->smtp_url || !c->smtp_from) {
		snprintf(err, errlen, "no SMTP server: set alert_smtp_url and "
			 "alert_smtp_from in klabd's configuration");
		return -1;
	}
	h = curl_easy_init();
	if (!h)
		abort();
	sb_init(&to);
	sb_addf(&to, "<%s>", s->target);
	rcpt = curl_slist_append(NULL, to.buf);
	src.p = msg->buf;
	src.left = msg->len;
	smtp_setup(h, c, from, sizeof(from), rcpt);
	curl_easy_setopt(h, CURLOPT_READFUNCTION, mail_read);
	curl_easy_setopt(h, CURLOPT_READDATA, &src);
	curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)msg->len);
	cc = curl_easy_perform(h);
	if (cc != CURLE_OK) {
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		snprintf(err, errlen, "smtp: %s (last reply %ld)",
			 curl_easy_strerror(cc), code);
	}
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(h);
	sb_release(&to);
	return cc == CURLE_OK ? 0 : -1;
}

int alerts_send_group(const struct alerts_conf *c,
		      const struct db_alert_sub *s,
		      const struct db_alert_event *ev, size_t n,
		      int64_t delivery, char *err, size_t errlen)
{
	struct strbuf msg = STRBUF_INIT;
	int rc;

	if (strcmp(s->channel, "email") || n < 2)
		return alerts_send(c, s, &ev[0], delivery, err, errlen);
	sb_init(&msg);
	alerts_mail_compose_group(&msg, c, s, ev, n, delivery);
	rc = send_email(c, s, &msg, err, errlen);
	sb_release(&msg);
	return rc;
}

int alerts_send(const struct alerts_conf *c, const struct db_alert_sub *s,
		const struct db_alert_event *e, int64_t delivery, char *err,
		size_t errlen)
{
	struct strbuf msg = STRBUF_INIT;
	int rc = 0;	/* a feed is read, not sent */

	if (!strcmp(s->channel, "email")) {
		sb_init(&msg);
		alerts_mail_compose(&msg, c, s, e, delivery);
		rc = send_email(c, s, &msg, err, errlen);
		sb_release(&msg);
	} else if (!strcmp(s->channel, "webhook")) {
		rc = send_webhook(c, s, e, delivery, err, errlen);
	}
	return rc;
}
