// SPDX-License-Identifier: MIT
/*
 * Allocation that aborts on failure.  See alloc.h.
 */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

char *xstrdup(const char *s)
{
	char *p;

	if (!s)
		return NULL;
	p = strdup(s);
	if (!p)
		abort();
	return p;
}

void *alloc_grow(void *x, size_t elem, size_t nr, size_t *alloc)
{
	if (nr < *alloc)
		return x;
	*alloc = *alloc ? *alloc * 2 : 16;
	if (*alloc <= nr)
		*alloc = nr + 1;
	return xrealloc(x, *alloc * elem);
}

void alloc_str_set(char **field, const char *v)
{
	char *copy = xstrdup(v);

	free(*field);
	*field = copy;
}

void alloc_strs_free(char **const fields[], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(*fields[i]);
		*fields[i] = NULL;
	}
}
