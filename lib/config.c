// SPDX-License-Identifier: MIT
/*
 * Configuration file parsing.  See config.h.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "strbuf.h"

void config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
}

void config_release(struct config *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		char **const f[] = { &c->v[i].section, &c->v[i].key,
				     &c->v[i].value };

		alloc_strs_free(f, ALLOC_ARRAY_SIZE(f));
	}
	for (i = 0; i < c->nsec; i++)
		free(c->sec[i].section);
	free(c->v);
	free(c->sec);
	free(c->path);
	config_init(c);
}

static char *trimdup(const char *s, size_t len)
{
	char *t;

	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	t = strndup(s, len);
	if (!t)
		abort();
	return t;
}

enum config_line_kind config_line(const char *p, size_t len, char **key,
				  char **value)
{
	const char *eq;
	size_t i = 0;

	*key = *value = NULL;
	if (memchr(p, '\0', len))
		return CONFIG_NUL;
	while (i < len && isspace((unsigned char)p[i]))
		i++;
	if (i == len || p[i] == '#')
		return CONFIG_BLANK;
	while (len > i && isspace((unsigned char)p[len - 1]))
		len--;
	if (p[i] == '[') {
		if (p[len - 1] != ']' || len - i < 2)
			return CONFIG_BAD;
		*key = trimdup(p + i + 1, len - i - 2);
		return CONFIG_SECTION;
	}
	eq = memchr(p + i, '=', len - i);
	if (!eq || eq == p + i)
		return CONFIG_BAD;
	*key = trimdup(p + i, (size_t)(eq - (p + i)));
	*value = trimdup(eq + 1, (size_t)(p + len - (eq + 1)));
	return CONFIG_PAIR;
}

void config_reader_init(struct config_reader *r, const char *text,
			size_t len)
{
	memset(r, 0, sizeof(*r));
	r->text = text;
	r->len = len;
}

int config_reader_next(struct config_reader *r,
		       enum config_line_kind *kind, char **key, char **value)
{
	const char *nl;

	*key = *value = NULL;
	if (r->off >= r->len)
		return 0;
	r->p = r->text + r->off;
	nl = memchr(r->p, '\n', r->len - r->off);
	r->n = nl ? (size_t)(nl - r->p) : r->len - r->off;
	r->off += r->n + 1;
	r->line++;
	*kind = config_line(r->p, r->n, key, value);
	return 1;
}

static void add(struct config_entry **v, size_t *n, size_t *alloc,
		const char *section, char *key, char *value, int line)
{
	ALLOC_GROW(*v, *n, *alloc);
	(*v)[*n].section = xstrdup(section);
	(*v)[*n].key = key;
	(*v)[*n].value = value;
	(*v)[*n].line = line;
	(*n)++;
}

/* Take the line r just read into c (it owns key and value from here). */
static int parse_line(struct config *c, char **section,
		      const struct config_reader *r,
		      enum config_line_kind kind, char *key, char *value,
		      char *err, size_t errlen)
{
	switch (kind) {
	case CONFIG_BLANK:
		return 0;
	case CONFIG_SECTION:
		free(*section);
		*section = key;
		add(&c->sec, &c->nsec, &c->sec_alloc, key, NULL, NULL,
		    r->line);
		return 0;
	case CONFIG_PAIR:
		add(&c->v, &c->n, &c->alloc, *section, key, value, r->line);
		return 0;
	case CONFIG_NUL:
		snprintf(err, errlen, "%s:%d: NUL byte in line", c->path,
			 r->line);
		return -1;
	case CONFIG_BAD:
		break;
	}
	if (r->n && *r->p == '[')
		snprintf(err, errlen, "%s:%d: unterminated section '%.*s'",
			 c->path, r->line, (int)(r->n > 80 ? 80 : r->n), r->p);
	else
		snprintf(err, errlen, "%s:%d: expected 'key = value'", c->path,
			 r->line);
	return -1;
}

int config_parse(struct config *c, const char *path, const char *text,
		 size_t len, char *err, size_t errlen)
{
	struct config_reader r;
	enum config_line_kind kind;
	char *section = xstrdup(""), *key, *value;
	int rc = 0;

	free(c->path);
	c->path = xstrdup(path ? path : "<config>");
	config_reader_init(&r, text, len);
	while (!rc && config_reader_next(&r, &kind, &key, &value))
		rc = parse_line(c, &section, &r, kind, key, value, err,
				errlen);
	free(section);
	return rc;
}

/* The schema row that admits key in section, or NULL.  key NULL: any
 * row of the section (the section itself is known). */
static const struct config_key *schema_find(const struct config_key *s,
					    const char *section,
					    const char *key)
{
	size_t l;

	for (; s->section; s++) {
		l = strlen(s->section);
		if (l >= 2 && !strcmp(s->section + l - 2, " *")) {
			/* [kind NAME]: a non-empty name after "kind " */
			if (strncmp(section, s->section, l - 1) ||
			    !section[l - 1])
				continue;
		} else if (strcmp(section, s->section)) {
			continue;
		}
		if (!key || !strcmp(key, s->key))
			return s;
	}
	return NULL;
}

int config_check(const struct config *c, const struct config_key *schema,
		 char *err, size_t errlen)
{
	const struct config_entry *e;
	size_t i;

	for (i = 0; i < c->nsec; i++) {
		e = &c->sec[i];
		if (!*e->section || !schema_find(schema, e->section, NULL)) {
			snprintf(err, errlen, "%s:%d: unknown section '[%s]'",
				 c->path, e->line, e->section);
			return -1;
		}
	}
	for (i = 0; i < c->n; i++) {
		e = &c->v[i];
		if (schema_find(schema, e->section, e->key))
			continue;
		if (*e->section)
			snprintf(err, errlen, "%s:%d: unknown key '%s' in "
				 "section '[%s]'", c->path, e->line, e->key,
				 e->section);
		else
			snprintf(err, errlen, "%s:%d: unknown key '%s'",
				 c->path, e->line, e->key);
		return -1;
	}
	return 0;
}

char *config_record_get(const char *rec, const char *key)
{
	struct config_reader r;
	enum config_line_kind kind;
	char *k, *v, *found = NULL;

	config_reader_init(&r, rec, rec ? strlen(rec) : 0);
	while (config_reader_next(&r, &kind, &k, &v)) {
		if (kind == CONFIG_PAIR && !strcmp(k, key)) {
			free(found);
			found = v;
			v = NULL;
		}
		free(k);
		free(v);
	}
	return found ? found : xstrdup("");
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

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* The multiplier of a size's unit letter (k, m, g), 1 for none. */
static long long size_unit(char c)
{
	switch (c) {
	case 'k':
	case 'K':
		return 1LL << 10;
	case 'm':
	case 'M':
		return 1LL << 20;
	case 'g':
	case 'G':
		return 1LL << 30;
	default:
		return 1;
	}
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
	mul = size_unit(*end);
	if (mul > 1)
		end++;
	if (*end == 'i' || *end == 'B')
		end += *end == 'i' ? (end[1] == 'B' ? 2 : 1) : 1;
	if (*end || v > LLONG_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}
