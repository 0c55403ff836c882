// SPDX-License-Identifier: MIT
/*
 * Request parameters: parsing and lookup.  See query.h.
 */
#include "query.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "strbuf.h"

void query_init(struct query *q)
{
	memset(q, 0, sizeof(*q));
}

void query_release(struct query *q)
{
	size_t i;

	for (i = 0; i < q->n; i++) {
		char **const f[] = { &q->v[i].key, &q->v[i].value };

		alloc_strs_free(f, ALLOC_ARRAY_SIZE(f));
	}
	free(q->v);
	query_init(q);
}

void query_add(struct query *q, const char *key, const char *value)
{
	ALLOC_GROW(q->v, q->n, q->alloc);
	q->v[q->n].key = xstrdup(key);
	q->v[q->n].value = xstrdup(value ? value : "");
	q->n++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s with its %XX escapes decoded, and '+' as a space when plus is set (a
 * form value, not a path); the caller frees. */
static char *decode(const char *s, size_t len, int plus)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	sb_init(&sb);
	for (i = 0; i < len; i++) {
		int hi, lo;

		if (plus && s[i] == '+') {
			sb_addc(&sb, ' ');
			continue;
		}
		if (s[i] == '%' && i + 2 < len) {
			hi = hexval(s[i + 1]);
			lo = hexval(s[i + 2]);
			if (hi >= 0 && lo >= 0) {
				char c = (char)(hi * 16 + lo);

				/* a NUL would cut the value: keep it out */
				sb_addc(&sb, c ? c : '?');
				i += 2;
				continue;
			}
		}
		sb_addc(&sb, s[i]);
	}
	return sb_detach(&sb, NULL);
}

void query_parse(struct query *q, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t j = i, eq = (size_t)-1;
		char *k, *v;

		while (j < len && s[j] != '&' && s[j] != ';') {
			if (s[j] == '=' && eq == (size_t)-1)
				eq = j;
			j++;
		}
		if (j > i) {
			if (eq == (size_t)-1) {
				k = decode(s + i, j - i, 1);
				v = strdup("");
			} else {
				k = decode(s + i, eq - i, 1);
				v = decode(s + eq + 1, j - eq - 1, 1);
			}
			if (!v)
				abort();
			if (*k)
				query_add(q, k, v);
			free(k);
			free(v);
		}
		i = j + 1;
	}
}

const char *query_get(const struct query *q, const char *key)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		if (!strcmp(q->v[i].key, key))
			return q->v[i].value;
	return NULL;
}

size_t query_all(struct query *q, const char *key, int split,
		 const char ***out)
{
	const char **r = NULL;
	size_t i, n = 0, end = q->n;

	*out = NULL;
	if (split) {
		/* split "a,b" values into extra pairs named "\1key" */
		for (i = 0; i < end; i++) {
			const char *v = q->v[i].value, *c;

			if (strcmp(q->v[i].key, key))
				continue;
			for (c = strchr(v, ','); c; c = strchr(v, ',')) {
				char *part = strndup(v, (size_t)(c - v));

				if (!part)
					abort();
				if (*part)
					query_add(q, "\001split", part);
				free(part);
				v = c + 1;
			}
			if (*v)
				query_add(q, "\001split", v);
		}
		key = "\001split";
	}
	/* split: only the pairs added just now, never a request's own
	 * "%01split" parameter */
	for (i = split ? end : 0; i < q->n; i++) {
		if (strcmp(q->v[i].key, key) || !*q->v[i].value)
			continue;
		r = realloc(r, (n + 1) * sizeof(*r));
		if (!r)
			abort();
		r[n++] = q->v[i].value;
	}
	if (split) {
		/* the split pairs stay in q until query_release */
		for (i = end; i < q->n; i++)
			q->v[i].key[0] = '\002';
	}
	*out = r;
	return n;
}

void query_format(const struct query *q, struct strbuf *sb)
{
	size_t i;
	int first = 1;

	for (i = 0; i < q->n; i++) {
		if ((unsigned char)q->v[i].key[0] < 3)
			continue;
		if (!first)
			sb_addc(sb, '&');
		first = 0;
		sb_add_urlenc(sb, q->v[i].key);
		sb_addc(sb, '=');
		sb_add_urlenc(sb, q->v[i].value);
	}
}

/* Each byte printable ASCII (no control byte, space or DEL: browsers
 * drop tabs and newlines from a URL), and the start a single '/': "/"
 * alone, or '/' and a byte other than '/' and a backslash, which a
 * browser would read as the start of another host ("//evil", "/\evil"). */
static int path_shape_ok(const char *v)
{
	const unsigned char *p;

	if (v[0] != '/' || v[1] == '/' || v[1] == '\\')
		return 0;
	for (p = (const unsigned char *)v; *p; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return 0;
	return 1;
}

int query_local_path(const char *v)
{
	char *again;
	int ok;

	if (!v || !path_shape_ok(v))
		return 0;
	/* and the same once more decoded: "/%2F/evil", "/%09/evil" */
	again = decode(v, strlen(v), 0);
	ok = path_shape_ok(again);
	free(again);
	return ok;
}
