/* SPDX-License-Identifier: MIT */
/*
 * alloc: memory that cannot fail, for lib/ and the programs built on it
 * (git's xrealloc, xstrdup and ALLOC_GROW).  klab does not try to limp on
 * without memory: each of these aborts when the allocator says no.  db/
 * keeps its own twins (db_xrealloc, DB_ALLOC_GROW) behind db_int.h.
 */
#ifndef KLAB_ALLOC_H
#define KLAB_ALLOC_H

#include <stddef.h>

/* realloc(p, n), never NULL (n 0 still gets a block). */
void *xrealloc(void *p, size_t n);
/* calloc(n, size), never NULL. */
void *xcalloc(size_t n, size_t size);
/* A heap copy of s; NULL stays NULL. */
char *xstrdup(const char *s);
/* Replace *field with a copy of v (NULL: no string), freeing the old. */
void alloc_str_set(char **field, const char *v);
/* free() each *fields[i] and set it to NULL: the release of a struct's
 * string fields, written as one list. */
void alloc_strs_free(char **const fields[], size_t n);

#define ALLOC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Arrays that grow: make room for element nr of x, whose capacity is
 * alloc (a size_t), doubling it (16 at first).  alloc_grow() returns the
 * array, moved or not.
 */
void *alloc_grow(void *x, size_t elem, size_t nr, size_t *alloc);
#define ALLOC_GROW(x, nr, alloc) \
	((x) = alloc_grow((x), sizeof(*(x)), (nr), &(alloc)))

#endif
