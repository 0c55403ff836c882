// SPDX-License-Identifier: MIT
/*
 * rigconf: the canonical text of a rig's configuration, its short hash
 * and the keys in which configurations differ.  See rigconf.h.
 */
#include "lib/rigconf.h"

#include <stdlib.h>
#include <string.h>

#include "lib/sha256.h"

void rigconf_add(struct strbuf *lines, const char *key, const char *value)
{
	const char *p;

	sb_adds(lines, key);
	sb_addc(lines, '=');
	for (p = value ? value : ""; *p; p++)
		sb_addc(lines, *p == '\n' || *p == '\r' ? ' ' : *p);
	sb_addc(lines, '\n');
}

/* Length of the key of a line (up to '=' or its end). */
static size_t key_len(const char *line)
{
	return strcspn(line, "=\n");
}

static int line_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t nx = key_len(x), ny = key_len(y);
	int c = memcmp(x, y, nx < ny ? nx : ny);

	if (c)
		return c;
	if (nx != ny)
		return nx < ny ? -1 : 1;
	return x < y ? -1 : x > y;	/* stable: the first one first */
}

char *rigconf_canonical(const char *lines)
{
	struct strbuf out = STRBUF_INIT;
	const char **v = NULL, *p;
	size_t n = 0, i;

	sb_init(&out);
	for (p = lines ? lines : ""; *p; p += strcspn(p, "\n"), p += !!*p) {
		if (*p == '\n')
			continue;
		v = realloc(v, (n + 1) * sizeof(*v));
		if (!v)
			abort();
		v[n++] = p;
	}
	if (n)
		qsort(v, n, sizeof(*v), line_cmp);
	for (i = 0; i < n; i++) {
		size_t k = key_len(v[i]);

		if (i && key_len(v[i - 1]) == k && !memcmp(v[i - 1], v[i], k))
			continue;
		sb_add(&out, v[i], strcspn(v[i], "\n"));
		sb_addc(&out, '\n');
	}
	free(v);
	return sb_detach(&out, NULL);
}

void rigconf_hash(const char *canon, char out[RIGCONF_HASH_LEN + 1])
{
	char hex[SHA256_HEX_LEN + 1];

	out[0] = '\0';
	if (!canon || !*canon)
		return;
	sha256_hex(canon, strlen(canon), hex);
	memcpy(out, hex, RIGCONF_HASH_LEN);
	out[RIGCONF_HASH_LEN] = '\0';
}

char *rigconf_get(const char *canon, const char *key)
{
	size_t k = strlen(key);
	const char *p;
	char *v;

	for (p = canon ? canon : ""; *p; p += strcspn(p, "\n"), p += !!*p) {
		if (strncmp(p, key, k) || p[k] != '=')
			continue;
		p += k + 1;
		v = strndup(p, strcspn(p, "\n"));
		if (!v)
			abort();
		return v;
	}
	return NULL;
}

/* Does key have one value (or absence) in every text? */
static int key_same(const char *const *texts, size_t n, const char *key)
{
	char *first = rigconf_get(texts[0], key), *v;
	int same = 1;
	size_t i;

	for (i = 1; i < n && same; i++) {
		v = rigconf_get(texts[i], key);
		same = (!v && !first) || (v && first && !strcmp(v, first));
		free(v);
	}
	free(first);
	return same;
}

/* Has out already the pair of key (a key missing from several texts)? */
static int diff_has(const struct strbuf *out, const char *key)
{
	size_t k = strlen(key);
	const char *p = out->len ? out->buf : "";

	for (; *p; p += strcspn(p, " "), p += !!*p)
		if (!strncmp(p, key, k) && p[k] == '=')
			return 1;
	return 0;
}

/* Append the differing pairs of text t among the keys of text u. */
static void diff_keys(const char *const *texts, size_t n, const char *t,
		      const char *u, int skip_in_t, struct strbuf *out)
{
	const char *p;
	char key[256], *v;

	for (p = u ? u : ""; *p; p += strcspn(p, "\n"), p += !!*p) {
		size_t k = key_len(p);

		if (!k || k >= sizeof(key))
			continue;
		memcpy(key, p, k);
		key[k] = '\0';
		v = rigconf_get(t, key);
		if ((skip_in_t && (v || diff_has(out, key))) ||
		    key_same(texts, n, key)) {
			free(v);
			continue;
		}
		sb_addf(out, "%s%s=%s", out->len ? " " : "", key, v ? v : "");
		free(v);
	}
}

void rigconf_diff(const char *const *texts, size_t n, size_t i,
		  struct strbuf *out)
{
	size_t j;

	diff_keys(texts, n, texts[i], texts[i], 0, out);
	/* keys the other texts have and this one lacks */
	for (j = 0; j < n; j++)
		if (j != i)
			diff_keys(texts, n, texts[i], texts[j], 1, out);
}
