// SPDX-License-Identifier: MIT
/*
 * Configuration file parsing.  See config.h.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

void config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
}

void config_release(struct config *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].section);
		free(c->v[i].key);
		free(c->v[i].value);
	}
	free(c->v);
	free(c->path);
	config_init(c);
}

static char *trimdup(const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return strndup(s, len);
}

static void add(struct config *c, const char *section, char *key,
		char *value, int line)
{
	if (c->n == c->alloc) {
		size_t na = c->alloc ? c->alloc * 2 : 16;
		struct config_entry *p = realloc(c->v, na * sizeof(*p));

		if (!p)
			abort();
		c->v = p;
		c->alloc = na;
	}
	c->v[c->n].section = strdup(section);
	c->v[c->n].key = key;
	c->v[c->n].value = value;
	c->v[c->n].line = line;
	c->n++;
}

static int parse_line(struct config *c, char **section, const char *p,
		      size_t len, int line, char *err, size_t errlen)
{
	const char *eq, *hash = memchr(p, '#', len);
	char *t;

	if (hash)
		len = (size_t)(hash - p);
	t = trimdup(p, len);
	if (!t)
		abort();
	if (!*t) {
		free(t);
		return 0;
	}
	if (t[0] == '[') {
		size_t tl = strlen(t);

		if (t[tl - 1] != ']') {
			snprintf(err, errlen, "%s:%d: unterminated section '%s'",
				 c->path, line, t);
			free(t);
			return -1;
		}
		free(*section);
		*section = trimdup(t + 1, tl - 2);
		free(t);
		return 0;
	}
	eq = strchr(t, '=');
	if (!eq || eq == t) {
		snprintf(err, errlen, "%s:%d: expected 'key = value'", c->path,
			 line);
		free(t);
		return -1;
	}
	add(c, *section, trimdup(t, (size_t)(eq - t)),
	    trimdup(eq + 1, strlen(eq + 1)), line);
	free(t);
	return 0;
}

int config_parse(struct config *c, const char *path, const char *text,
		 size_t len, char *err, size_t errlen)
{
	char *section = strdup("");
	size_t i = 0;
	int line = 0, rc = 0;

	free(c->path);
	c->path = strdup(path ? path : "<config>");
	while (i < len && !rc) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (text + i)) : len - i;

		line++;
		if (memchr(text + i, '\0', l)) {
			snprintf(err, errlen, "%s:%d: NUL byte in line",
				 c->path, line);
			rc = -1;
			break;
		}
		rc = parse_line(c, &section, text + i, l, line, err, errlen);
		i += l + 1;
	}
	free(section);
	return rc;
}

int config_load(struct config *c, const char *path, char *err,
		size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	sb_init(&sb);
	if (sb_read_file(&sb, path) < 0) {
		snprintf(err, errlen, "cannot read config '%s': %s", path,
			 strerror(errno));
		sb_release(&sb);
		return -1;
	}
	rc = config_parse(c, path, sb.buf, sb.len, err, errlen);
	sb_release(&sb);
	return rc;
}

const char *config_get(const struct config *c, const char *section,
		       const char *key)
{
	const char *v = NULL;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].section, section) &&
		    !strcmp(c->v[i].key, key))
			v = c->v[i].value;
	return v;
}

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int config_parse_size(const char *s, long long *out)
{
	char *end;
	long long v, mul = 1;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || v < 0 || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': mul = 1LL << 10; end++; break;
	case 'm': case 'M': mul = 1LL << 20; end++; break;
	case 'g': case 'G': mul = 1LL << 30; end++; break;
	}
	if (*end == 'i' || *end == 'B')
		end += *end == 'i' ? (end[1] == 'B' ? 2 : 1) : 1;
	if (*end || v > LLONG_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}
