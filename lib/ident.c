// SPDX-License-Identifier: MIT
/*
 * ident: the identifier rule every path in uses (see ident.h).  Pure
 * functions, no allocation.
 */
#include "ident.h"

#include <stdio.h>
#include <string.h>

/* Besides letters and digits; raw output names are paths below the
 * agent's output directory ("raw/run-1.json"), so they may hold '/'. */
#define NAME_CHARS "._+-:@~"
#define RAW_CHARS "._+-:@~/"

static const char *const kind_names[] = {
	[IDENT_KERNEL] = "kernel",
	[IDENT_RIG] = "rig",
	[IDENT_SUITE] = "suite",
	[IDENT_METRIC] = "metric",
	[IDENT_RAW] = "raw output",
	[IDENT_TOKEN] = "token",
	[IDENT_SCHEDULER] = "scheduler",
};

const char *ident_kind_name(enum ident_kind kind)
{
	if ((size_t)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return "name";
	return kind_names[kind];
}

static int is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* A printable, bounded rendering of an untrusted name for messages. */
static void show(const char *s, size_t len, char *buf, size_t buflen)
{
	size_t i, o = 0;

	for (i = 0; i < len && o + 5 < buflen; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == 40) {
			o += (size_t)snprintf(buf + o, buflen - o, "...");
			break;
		}
		if (is_alnum(c) || (c > 0x20 && c < 0x7f && c != '\'' &&
				    c != '\\'))
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, buflen - o, "\\x%02x",
					      c);
	}
	buf[o < buflen ? o : buflen - 1] = '\0';
}

static int fail(enum ident_kind kind, const char *s, size_t len, char *err,
		size_t errlen, const char *why, size_t pos)
{
	char v[200];

	if (!err || !errlen)
		return -1;
	show(s, len, v, sizeof(v));
	if (pos == (size_t)-1)
		snprintf(err, errlen, "%s name '%s' %s", ident_kind_name(kind),
			 v, why);
	else
		snprintf(err, errlen, "%s name '%s' %s at byte %zu",
			 ident_kind_name(kind), v, why, pos + 1);
	return -1;
}

int ident_check(enum ident_kind kind, const char *s, size_t len, char *err,
		size_t errlen)
{
	size_t i;

	if (!s || len == 0) {
		if (err && errlen)
			snprintf(err, errlen, "%s name is empty",
				 ident_kind_name(kind));
		return -1;
	}
	if (len > IDENT_MAX) {
		if (err && errlen)
			snprintf(err, errlen, "%s name is %zu bytes long, "
				 "longer than %d", ident_kind_name(kind), len,
				 IDENT_MAX);
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\0')
			return fail(kind, s, len, err, errlen,
				    "has a NUL byte", i);
		if (!is_alnum(c) && ((i == 0 && (kind != IDENT_RAW ||
						  c == '/')) ||
				     !strchr(kind == IDENT_RAW ? RAW_CHARS :
					     NAME_CHARS, c)))
			return fail(kind, s, len, err, errlen, i == 0 ?
				    "must start with a letter or digit, not "
				    "this character" :
				    "has a character not allowed", i);
		if (c == '.' && i > 0 && s[i - 1] == '.')
			return fail(kind, s, len, err, errlen,
				    "has '..'", i - 1);
		if (c == '/' && i > 0 && s[i - 1] == '/')
			return fail(kind, s, len, err, errlen,
				    "has '//'", i - 1);
	}
	if (s[len - 1] == '.')
		return fail(kind, s, len, err, errlen, "ends with '.'",
			    len - 1);
	return 0;
}

void ident_sanitize(char *s)
{
	size_t i, n = strlen(s);

	if (n > IDENT_MAX) {
		n = IDENT_MAX;
		s[n] = '\0';
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!is_alnum(c) && (c == '\0' || !strchr(RAW_CHARS, c) ||
				     (i == 0 && c == '/')))
			s[i] = '_';
		else if ((c == '.' || c == '/') && i > 0 && s[i - 1] == c)
			s[i] = '_';
	}
	if (n && s[n - 1] == '.')
		s[n - 1] = '_';
}

int ident_checks(enum ident_kind kind, const char *s, char *err,
		 size_t errlen)
{
	return ident_check(kind, s, s ? strlen(s) : 0, err, errlen);
}

/* "PREFIX" then one or more digits then '-'. */
static int numbered(const char *s, const char *prefix)
{
	size_t k = strlen(prefix), i;

	if (strncmp(s, prefix, k))
		return 0;
	for (i = k; s[i] >= '0' && s[i] <= '9'; i++)
		;
	return i > k && s[i] == '-';
}

int ident_lab_owned(const char *s)
{
	size_t i;

	if (numbered(s, "sub") || numbered(s, "bis") || numbered(s, "trk"))
		return 1;
	if (strncmp(s, "build-", 6))
		return 0;
	for (i = 6; i < 18; i++)
		if (!s[i] || !strchr("0123456789abcdef", s[i]))
			return 0;
	return !s[18];
}

int ident_list_has(const char *list, const char *name)
{
	size_t n, len = strlen(name);

	for (; *list; list += n + (list[n] == ',')) {
		n = strcspn(list, ",");
		if (n == len && !strncmp(list, name, n))
			return 1;
	}
	return 0;
}
