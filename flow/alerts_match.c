// SPDX-License-Identifier: MIT
/*
 * The rules of alert subscriptions, pure and unit-tested: whether an event
 * passes a filter, which event kinds exist, what an acceptable email
 * address and webhook URL look like (hostile input stops here: no CR or
 * LF can reach a mail header, no scheme but http and https a request),
 * the retry schedule and the webhook signature.
 */
#include <fnmatch.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>

#include "flow/alerts.h"
#include "lib/ident.h"
#include "lib/strbuf.h"

static const char *const kinds[] = {
	ALERT_SUBMISSION_FINISHED, ALERT_WORSE_FOUND, ALERT_CHANGE_POINT,
	ALERT_RIG_OFFLINE, ALERT_BUILD_FAILED, ALERT_BISECTION_DONE,
	ALERT_REGRESSION, ALERT_STATE_CHANGED,
};

int alerts_kind_known(const char *kind)
{
	size_t i;

	for (i = 0; kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i]))
			return 1;
	return 0;
}

int alerts_kinds_check(const char *list, char *err, size_t errlen)
{
	char kind[64];
	size_t n;

	while (list && *list) {
		n = strcspn(list, ",");
		snprintf(kind, sizeof(kind), "%.*s", (int)(n < 63 ? n : 63),
			 list);
		if (n >= sizeof(kind) || !alerts_kind_known(kind)) {
			snprintf(err, errlen, "unknown event kind '%s': "
				 "expected submission_finished, worse_found, "
				 "change_point, rig_offline, build_failed, "
				 "bisection_done or alert_state", kind);
			return -1;
		}
		list += n;
		if (*list == ',')
			list++;
	}
	return 0;
}

static int field_match(const char *want, const char *have)
{
	if (!want || !*want)
		return 1;
	return have && !strcmp(want, have);
}

int alerts_match(const struct alert_filter *f, const struct alert_event *ev)
{
	if (f->events && *f->events && !ident_list_has(f->events, ev->kind))
		return 0;
	if (!field_match(f->rig, ev->rig) ||
	    !field_match(f->suite, ev->suite) ||
	    !field_match(f->submitter, ev->submitter))
		return 0;
	if (f->metric && *f->metric &&
	    (!ev->metric || fnmatch(f->metric, ev->metric, 0)))
		return 0;
	return 1;
}

/* Bytes allowed in an address: printable ASCII but for the specials that
 * would let it break out of a header or an SMTP command. */
static int email_char_ok(unsigned char c)
{
	return c > 32 && c < 127 && !strchr("<>()[]\\,;:\"", c);
}

int alerts_email_check(const char *addr, char *err, size_t errlen)
{
	const char *at = strchr(addr, '@'), *p;
	size_t len = strlen(addr);

	for (p = addr; *p; p++) {
		if (!email_char_ok((unsigned char)*p)) {
			snprintf(err, errlen, "invalid email address: "
				 "character 0x%02x is not allowed",
				 (unsigned char)*p);
			return -1;
		}
	}
	if (len > 254 || !at || at == addr || strchr(at + 1, '@') ||
	    !at[1] || !strchr(at + 1, '.') || at[1] == '.' ||
	    addr[len - 1] == '.') {
		snprintf(err, errlen, "invalid email address '%.*s': expected "
			 "user@domain (at most 254 bytes)", (int)(len < 80 ?
			 len : 80), addr);
		return -1;
	}
	return 0;
}

int alerts_url_check(const char *url, char *err, size_t errlen)
{
	const char *host, *p;
	size_t hlen;

	if (!strncmp(url, "https://", 8))
		host = url + 8;
	else if (!strncmp(url, "http://", 7))
		host = url + 7;
	else {
		snprintf(err, errlen, "invalid webhook URL: only http:// and "
			 "https:// are allowed");
		return -1;
	}
	for (p = url; *p; p++) {
		if ((unsigned char)*p <= 32 || (unsigned char)*p >= 127) {
			snprintf(err, errlen, "invalid webhook URL: character "
				 "0x%02x is not allowed", (unsigned char)*p);
			return -1;
		}
	}
	hlen = strcspn(host, "/?#");
	if (!hlen || host[0] == ':' || host[0] == '@' ||
	    strlen(url) > ALERT_MAX_TARGET) {
		snprintf(err, errlen, "invalid webhook URL: expected "
			 "http(s)://HOST[:PORT]/PATH of at most %d bytes",
			 ALERT_MAX_TARGET);
		return -1;
	}
	return 0;
}

long alerts_backoff(int attempts, long base, long max)
{
	long d = base > 0 ? base : 1;
	int i;

	for (i = 1; i < attempts && d < max; i++)
		d *= 2;
	return d < max ? d : max;
}

void alerts_sign(const char *key, const char *body, size_t len, char *out)
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int maclen = 0, i;

	HMAC(EVP_sha256(), key, (int)strlen(key), (const unsigned char *)body,
	     len, mac, &maclen);
	memcpy(out, "sha256=", 7);
	for (i = 0; i < maclen && i < 32; i++)
		snprintf(out + 7 + 2 * i, 3, "%02x", mac[i]);
	out[7 + 2 * i] = '\0';
}

void alerts_sign_webhook(const char *key, long long ts, const char *body,
			 size_t len, char *out)
{
	struct strbuf msg = STRBUF_INIT;

	sb_init(&msg);
	sb_addf(&msg, "%lld.", ts);
	sb_add(&msg, body, len);
	alerts_sign(key, msg.buf, msg.len, out);
	sb_release(&msg);
}
