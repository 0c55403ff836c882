/* SPDX-License-Identifier: MIT */
/*
 * query: the key=value parameters of a request (URL query string or an
 * application/x-www-form-urlencoded body), decoded.  Keys may repeat
 * (?k=6.1.176&k=6.1.192): query_all returns every value in order.
 */
#ifndef KLAB_QUERY_H
#define KLAB_QUERY_H

#include <stddef.h>

struct query_pair {
	char *key, *value;
};

struct query {
	struct query_pair *v;
	size_t n, alloc;
};

void query_init(struct query *q);
void query_release(struct query *q);
/* Add a decoded pair (copies both). */
void query_add(struct query *q, const char *key, const char *value);
/* Parse "a=1&b=x%20y"; '+' is a space.  Invalid escapes are kept as is. */
void query_parse(struct query *q, const char *s, size_t len);
/* First value of key, or NULL. */
const char *query_get(const struct query *q, const char *key);
/* Every value of key, in order; also splits each on ',' when split != 0.
 * Returns the count; *out (malloc'd array of borrowed pointers) may be
 * NULL when the count is 0.  Split values are stored in q itself. */
size_t query_all(struct query *q, const char *key, int split,
		 const char ***out);
/*
 * 1 when v, a decoded value (a sign-in's next=), is a path on this site
 * that no browser reads as another host, 0 otherwise (NULL too): "/", or
 * '/' followed by a byte other than '/' and a backslash; only printable
 * ASCII, no space or control byte anywhere; and all this again once v is
 * percent-decoded a second time.
 */
int query_local_path(const char *v);
/* Append "k=v&..." of q, URL-encoded, to sb (for permalinks). */
struct strbuf;
void query_format(const struct query *q, struct strbuf *sb);

#endif
