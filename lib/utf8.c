// SPDX-License-Identifier: MIT
/*
 * utf8: well-formed UTF-8 and the one repair of text that is not (see
 * utf8.h for the rule and why).
 */
#include "utf8.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* Length of the well-formed sequence at s (1..4), or 0 (RFC 3629). */
static size_t utf8_seq(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	size_t n, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > avail)
		return 0;
	if (c == 0xe0)
		lo = 0xa0;		/* overlong */
	else if (c == 0xed)
		hi = 0x9f;		/* surrogates */
	else if (c == 0xf0)
		lo = 0x90;		/* overlong */
	else if (c == 0xf4)
		hi = 0x8f;		/* past U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

size_t utf8_check(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		n = utf8_seq(p + i, len - i);
		if (!n)
			return i;
		i += n;
	}
	return len;
}

int utf8_valid(const char *s, size_t len)
{
	return utf8_check(s, len) == len;
}

/* Whether the len bytes at s need no repair: well-formed, no NUL. */
static int utf8_clean(const char *s, size_t len)
{
	return !memchr(s, '\0', len) && utf8_valid(s, len);
}

void utf8_repair_add(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	sb_grow(sb, len);
	while (i < len) {
		n = p[i] ? utf8_seq(p + i, len - i) : 0;
		if (n) {
			sb_add(sb, p + i, n);
			i += n;
			continue;
		}
		sb_add(sb, UTF8_REPLACEMENT, 3);
		i++;
	}
}

char *utf8_repair(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	sb_init(&sb);
	utf8_repair_add(&sb, s, len);
	return sb_detach(&sb, NULL);
}

json_t *utf8_json_stringn(const char *s, size_t len)
{
	json_t *j;
	char *fixed;

	if (utf8_clean(s, len))
		return json_stringn_nocheck(s, len);
	fixed = utf8_repair(s, len);
	j = json_string_nocheck(fixed);
	free(fixed);
	return j;
}

json_t *utf8_json_string(const char *s)
{
	if (!s)
		return json_null();
	return utf8_json_stringn(s, strlen(s));
}
