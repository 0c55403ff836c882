// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for lib/query.c, the parser of URL query strings and
 * application/x-www-form-urlencoded bodies (every request's parameters).
 * The whole input is the query text.  Besides the sanitizers' checks it
 * asserts the parser's contract: no empty key, no NUL inside a decoded
 * key or value, query_format's permalink parses back to the same pairs,
 * and query_all's split values are non-empty and free of commas.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/query.h"
#include "lib/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* query_format leaves out the pairs whose key starts with byte 1 or 2. */
static int query_shown(const struct query_pair *p)
{
	return (unsigned char)p->key[0] >= 3;
}

/* parse(format(q)) must give back q's shown pairs, in order. */
static void query_check_round_trip(const struct query *q)
{
	struct strbuf sb = STRBUF_INIT;
	struct query back;
	size_t i, j = 0;

	sb_init(&sb);
	query_format(q, &sb);
	query_init(&back);
	query_parse(&back, sb.buf, sb.len);
	for (i = 0; i < q->n; i++) {
		if (!query_shown(&q->v[i]))
			continue;
		if (j >= back.n || strcmp(back.v[j].key, q->v[i].key) ||
		    strcmp(back.v[j].value, q->v[i].value))
			abort();
		j++;
	}
	if (j != back.n)
		abort();
	query_release(&back);
	sb_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, **all = NULL;
	struct query q;
	size_t i, n;
	char *key;

	query_init(&q);
	query_parse(&q, s, size);
	for (i = 0; i < q.n; i++)
		if (!q.v[i].key[0] || (i < 16 && !query_get(&q, q.v[i].key)))
			abort();
	query_check_round_trip(&q);
	if (q.n) {
		key = strdup(q.v[0].key);
		if (!key)
			abort();
		n = query_all(&q, key, size & 1, &all);
		for (i = 0; i < n; i++)
			if (!all[i][0] || ((size & 1) && strchr(all[i], ',')))
				abort();
		free(all);
		free(key);
		query_check_round_trip(&q);
	}
	query_release(&q);
	return 0;
}
