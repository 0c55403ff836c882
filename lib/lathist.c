// SPDX-License-Identifier: MIT
/*
 * lathist: compact latency histograms (see lathist.h): building, merging
 * and the strict JSON round trip.  Allocation failure aborts, as
 * everywhere in klab.
 */
#include "lathist.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lathist_init(struct lathist *h)
{
	memset(h, 0, sizeof(*h));
}

void lathist_release(struct lathist *h)
{
	free(h->up);
	free(h->cnt);
	lathist_init(h);
}

static void lathist_grow(struct lathist *h, size_t want)
{
	if (want <= h->alloc)
		return;
	h->alloc = want < 64 ? 64 : want * 2;
	h->up = realloc(h->up, h->alloc * sizeof(*h->up));
	h->cnt = realloc(h->cnt, h->alloc * sizeof(*h->cnt));
	if (!h->up || !h->cnt)
		abort();
}

int lathist_add(struct lathist *h, uint64_t up, uint64_t count)
{
	if (h->n && up <= h->up[h->n - 1])
		return -1;
	lathist_grow(h, h->n + 1);
	h->up[h->n] = up;
	h->cnt[h->n] = count;
	h->n++;
	h->total += count;
	return 0;
}

void lathist_merge(struct lathist *dst, const struct lathist *src)
{
	struct lathist m;
	size_t i = 0, j = 0;

	lathist_init(&m);
	while (i < dst->n || j < src->n) {
		if (j == src->n || (i < dst->n && dst->up[i] < src->up[j])) {
			lathist_add(&m, dst->up[i], dst->cnt[i]);
			i++;
		} else if (i == dst->n || src->up[j] < dst->up[i]) {
			lathist_add(&m, src->up[j], src->cnt[j]);
			j++;
		} else {
			lathist_add(&m, dst->up[i], dst->cnt[i] + src->cnt[j]);
			i++;
			j++;
		}
	}
	lathist_release(dst);
	*dst = m;
}

json_t *lathist_to_json(const struct lathist *h)
{
	json_t *doc = json_object(), *arr = json_array(), *b;
	size_t i;

	if (!doc || !arr)
		abort();
	for (i = 0; i < h->n; i++) {
		b = json_pack("[II]", (json_int_t)h->up[i],
			      (json_int_t)h->cnt[i]);
		if (!b || json_array_append_new(arr, b))
			abort();
	}
	json_object_set_new(doc, "unit", json_string("ns"));
	json_object_set_new(doc, "buckets", arr);
	return doc;
}

char *lathist_dump(const struct lathist *h)
{
	json_t *doc = lathist_to_json(h);
	char *s = json_dumps(doc, JSON_COMPACT);

	json_decref(doc);
	if (!s)
		abort();
	return s;
}

static int fail(char *err, size_t errlen, const char *msg, size_t i)
{
	if (i == (size_t)-1)
		snprintf(err, errlen, "%s", msg);
	else
		snprintf(err, errlen, "buckets[%zu]: %s", i, msg);
	return -1;
}

static int bucket_from_json(struct lathist *h, const json_t *b, size_t i,
			    char *err, size_t errlen)
{
	json_t *u = json_array_get(b, 0), *c = json_array_get(b, 1);
	json_int_t up, n;

	if (!json_is_array(b) || json_array_size(b) != 2 ||
	    !json_is_integer(u) || !json_is_integer(c))
		return fail(err, errlen, "expected [upper, count] integers",
			    i);
	up = json_integer_value(u);
	n = json_integer_value(c);
	if (up <= 0 || n <= 0)
		return fail(err, errlen, "upper and count must be above 0", i);
	if ((uint64_t)n > UINT64_MAX / 2 - h->total)
		return fail(err, errlen, "count too large", i);
	if (lathist_add(h, (uint64_t)up, (uint64_t)n))
		return fail(err, errlen, "upper bounds must increase", i);
	return 0;
}

int lathist_from_json(struct lathist *h, const json_t *v, char *err,
		      size_t errlen)
{
	const json_t *unit = json_object_get(v, "unit");
	const json_t *arr = json_object_get(v, "buckets");
	size_t i;

	if (!json_is_object(v))
		return fail(err, errlen, "expected an object", (size_t)-1);
	if (!json_is_string(unit) || strcmp(json_string_value(unit), "ns"))
		return fail(err, errlen, "unit: expected \"ns\"", (size_t)-1);
	if (!json_is_array(arr))
		return fail(err, errlen, "buckets: expected an array",
			    (size_t)-1);
	if (json_array_size(arr) > LATHIST_MAX_BUCKETS)
		return fail(err, errlen, "buckets: too many buckets",
			    (size_t)-1);
	for (i = 0; i < json_array_size(arr); i++)
		if (bucket_from_json(h, json_array_get(arr, i), i, err,
				     errlen)) {
			lathist_release(h);
			return -1;
		}
	return 0;
}

int lathist_parse(struct lathist *h, const char *text, size_t len,
		  char *err, size_t errlen)
{
	json_error_t je;
	json_t *doc;
	int rc;

	if (len > LATHIST_MAX_JSON)
		return fail(err, errlen, "histogram too large", (size_t)-1);
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		snprintf(err, errlen, "not JSON: %s", je.text);
		return -1;
	}
	rc = lathist_from_json(h, doc, err, errlen);
	json_decref(doc);
	return rc;
}
