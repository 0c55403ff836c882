// SPDX-License-Identifier: MIT
/*
 * import_util: the tokenizer, number parsing, identifier rules and result
 * accumulator shared by the importers (see import_priv.h).  Everything here
 * reads only inside [buf, buf + len) and never assumes a NUL terminator,
 * valid UTF-8 or a sane line length.
 */
#include "import_priv.h"
#include "alloc.h"
#include "ident.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ilex_init(struct ilex *lx, const char *buf, size_t len, int first_line)
{
	lx->buf = buf;
	lx->len = len;
	lx->pos = 0;
	lx->line = first_line;
	lx->at_bol = 1;
	lx->drop_gt = 0;
}

/* Length of the blank at p (0 when none): ASCII blanks, NUL, U+00A0. */
static size_t blank_len(const char *p, size_t avail)
{
	unsigned char c = (unsigned char)p[0];

	if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' ||
	    c == '\0' || c == '\n')
		return 1;
	if (c == 0xc2 && avail >= 2 && (unsigned char)p[1] == 0xa0)
		return 2;
	return 0;
}

static void ilex_newline(struct ilex *lx)
{
	if (lx->line < INT_MAX)
		lx->line++;
	lx->at_bol = 1;
}

/* Skip blanks, newlines and (at the start of a line) quote marks. */
static void ilex_skip(struct ilex *lx)
{
	size_t b;

	while (lx->pos < lx->len) {
		const char *p = lx->buf + lx->pos;

		if (*p == '\n') {
			lx->pos++;
			ilex_newline(lx);
			continue;
		}
		b = blank_len(p, lx->len - lx->pos);
		if (!b && lx->at_bol && *p == '>')
			b = 1;
		if (!b)
			return;
		lx->pos += b;
	}
}

static int only_gt(const struct itok *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->p[i] != '>')
			return 0;
	return 1;
}

int ilex_next(struct ilex *lx, struct itok *t)
{
	for (;;) {
		size_t start;

		ilex_skip(lx);
		if (lx->pos >= lx->len)
			return 0;
		start = lx->pos;
		while (lx->pos < lx->len &&
		       !blank_len(lx->buf + lx->pos, lx->len - lx->pos))
			lx->pos++;
		t->p = lx->buf + start;
		t->n = lx->pos - start;
		t->line = lx->line;
		t->bol = lx->at_bol;
		lx->at_bol = 0;
		if (!lx->drop_gt || !only_gt(t))
			return 1;
	}
}

int iline_next(const char *buf, size_t len, size_t *pos, int *lineno,
	       struct iline *l)
{
	const char *nl;

	if (*pos >= len)
		return 0;
	l->p = buf + *pos;
	nl = memchr(l->p, '\n', len - *pos);
	l->n = nl ? (size_t)(nl - l->p) : len - *pos;
	*pos += l->n + (nl ? 1 : 0);
	if (*lineno < INT_MAX)
		(*lineno)++;
	l->line = *lineno;
	return 1;
}

size_t iline_tokens(const struct iline *l, struct itok *t, size_t max)
{
	struct ilex lx;
	struct itok tmp;
	size_t n = 0;

	ilex_init(&lx, l->p, l->n, l->line);
	while (ilex_next(&lx, n < max ? &t[n] : &tmp))
		n++;
	return n;
}

int itok_kernel(const struct itok *t, char *buf, size_t len)
{
	struct itok k = *t;

	if (k.n > 1 && k.p[k.n - 1] == ':')
		k.n--;
	if (!kernel_id_valid(k.p, k.n))
		return -1;
	return itok_copy(&k, buf, len);
}

int itok_eq(const struct itok *t, const char *s)
{
	size_t n = strlen(s);

	return t->n == n && !memcmp(t->p, s, n);
}

int itok_caseeq(const struct itok *t, const char *s)
{
	size_t n = strlen(s);

	return t->n == n && !strncasecmp(t->p, s, n);
}

int itok_all(const struct itok *t, char c)
{
	size_t i;

	if (t->n < 2)
		return 0;
	for (i = 0; i < t->n; i++)
		if (t->p[i] != c)
			return 0;
	return 1;
}

int num_parse(const char *p, size_t n, double *out)
{
	char buf[64];
	char *end;
	size_t i;
	int digits = 0;
	double v;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	for (i = 0; i < n; i++) {
		char c = p[i];

		if (c >= '0' && c <= '9')
			digits++;
		else if (c != '.' && c != '-' && c != '+' && c != 'e' &&
			 c != 'E')
			return -1;
	}
	if (!digits)
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	v = strtod(buf, &end);
	if (end != buf + n || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int itok_num(const struct itok *t, double *out)
{
	return num_parse(t->p, t->n, out);
}

void bytes_show(const char *p, size_t n, char *buf, size_t len)
{
	size_t i, o = 0, max;

	if (len < 5) {
		if (len)
			buf[0] = '\0';
		return;
	}
	max = len - 4;
	for (i = 0; i < n && i < max && o + 1 < len; i++) {
		unsigned char c = (unsigned char)p[i];

		buf[o++] = (c >= 0x20 && c < 0x7f && c != '\'') ? (char)c
								: '?';
	}
	if (n > max) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
}

void itok_show(const struct itok *t, char *buf, size_t len)
{
	bytes_show(t->p, t->n, buf, len);
}

int kernel_id_valid(const char *p, size_t n)
{
	return ident_check(IDENT_KERNEL, p, n, NULL, 0) == 0;
}

int itok_copy(const struct itok *t, char *buf, size_t len)
{
	if (t->n >= len)
		return -1;
	memcpy(buf, t->p, t->n);
	buf[t->n] = '\0';
	return 0;
}

void iacc_init(struct iacc *a)
{
	result_set_init(&a->rs);
	a->line = NULL;
	a->nline = 0;
}

void iacc_release(struct iacc *a)
{
	result_set_release(&a->rs);
	free(a->line);
	a->line = NULL;
	a->nline = 0;
}

void iacc_add(struct iacc *a, const char *kernel, const char *metric,
	      const char *unit, double value, enum metric_dir dir, int line)
{
	if (!result_set_add(&a->rs, kernel, metric, unit, value, dir))
		return;
	if (a->nline < a->rs.alloc) {
		a->line = realloc(a->line, a->rs.alloc * sizeof(*a->line));
		if (!a->line)
			abort();
		a->nline = a->rs.alloc;
	}
	a->line[a->rs.n - 1] = line;
}

/* One result's sort key: metric, then kernel, then place (no globals:
 * importers run on many request threads at once). */
struct dup_key {
	const char *metric, *kernel;
	size_t i;
};

static int dup_cmp(const void *x, const void *y)
{
	const struct dup_key *a = x, *b = y;
	int c = strcmp(a->metric, b->metric);

	if (!c)
		c = strcmp(a->kernel, b->kernel);
	if (!c)
		c = (a->i > b->i) - (a->i < b->i);
	return c;
}

int iacc_find_dup(const struct iacc *a, size_t *first, size_t *second)
{
	struct dup_key *k;
	size_t i;
	int found = 0;

	if (a->rs.n < 2)
		return 0;
	k = malloc(a->rs.n * sizeof(*k));
	if (!k)
		abort();
	for (i = 0; i < a->rs.n; i++) {
		k[i].metric = a->rs.v[i].metric;
		k[i].kernel = a->rs.v[i].kernel ? a->rs.v[i].kernel : "";
		k[i].i = i;
	}
	qsort(k, a->rs.n, sizeof(*k), dup_cmp);
	for (i = 1; i < a->rs.n; i++) {
		size_t p = k[i - 1].i, q = k[i].i;

		if (strcmp(k[i - 1].metric, k[i].metric) ||
		    strcmp(k[i - 1].kernel, k[i].kernel))
			continue;
		if (!found || q < *second) {
			*first = p;
			*second = q;
			found = 1;
		}
	}
	free(k);
	return found;
}

int iacc_commit(struct iacc *a, struct result_set *out)
{
	size_t i, n = a->rs.n;

	if (out->n + n > out->alloc) {
		size_t want = out->n + n;

		out->v = realloc(out->v, want * sizeof(*out->v));
		if (!out->v)
			abort();
		out->alloc = want;
	}
	for (i = 0; i < n; i++)
		out->v[out->n++] = a->rs.v[i];
	a->rs.n = 0;
	iacc_release(a);
	return (int)n;
}

int iacc_check_dups(const struct iacc *a, struct import_error *err)
{
	const struct result *r;
	size_t i, j;

	if (!iacc_find_dup(a, &i, &j))
		return 0;
	r = &a->rs.v[j];
	return import_fail(err, a->line[j], "kernel", "kernel '%s' has a "
			   "second '%s' result (first on line %d)",
			   r->kernel ? r->kernel : "", r->metric, a->line[i]);
}

int iacc_finish(struct iacc *a, struct result_set *out,
		struct import_error *err, const char *format)
{
	if (iacc_check_dups(a, err)) {
		iacc_release(a);
		return -1;
	}
	if (a->rs.n == 0) {
		iacc_release(a);
		return import_fail(err, 0, "", "no %s results found", format);
	}
	return iacc_commit(a, out);
}

void import_spans_add(struct import_spans *sp, size_t start, size_t end)
{
	ALLOC_GROW(sp->v, sp->n, sp->alloc);
	sp->v[sp->n].start = start;
	sp->v[sp->n].end = end;
	sp->n++;
}

const char *import_default_kernel(const char *kernel,
				  const struct result_set *out)
{
	return kernel ? kernel : out->kernel;
}

/* Where the JSON starts: the first '{' that opens a line, else the first. */
static size_t json_start(const char *buf, size_t len)
{
	const char *first = memchr(buf, '{', len);
	size_t i = 0;

	while (i < len) {
		const char *nl;

		while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
			i++;
		if (i < len && buf[i] == '{')
			return i;
		nl = memchr(buf + i, '\n', len - i);
		if (!nl)
			break;
		i = (size_t)(nl - buf) + 1;
	}
	return first ? (size_t)(first - buf) : len;
}

struct json_t *import_json_load(const char *buf, size_t len, int noise,
				struct import_error *err)
{
	json_error_t je;
	json_t *doc;
	size_t off = noise ? json_start(buf, len) : 0, i;
	int line = 1;
	char why[sizeof(je.text)];

	for (i = 0; i < off; i++)
		line += buf[i] == '\n' && line < INT_MAX;
	if (off == len) {
		import_fail(err, 0, "", "no JSON object found");
		return NULL;
	}
	doc = json_loadb(buf + off, len - off,
			 noise ? JSON_DISABLE_EOF_CHECK : 0, &je);
	if (!doc) {
		bytes_show(je.text, strnlen(je.text, sizeof(je.text)), why,
			   sizeof(why));
		long long at = je.line > 0 ? (long long)line - 1 + je.line : 0;

		import_fail(err, at > INT_MAX ? INT_MAX : (int)at, "",
			    "invalid JSON: %s", why);
		return NULL;
	}
	if (!json_is_object(doc)) {
		json_decref(doc);
		import_fail(err, line, "", "JSON document is not an object");
		return NULL;
	}
	return doc;
}
