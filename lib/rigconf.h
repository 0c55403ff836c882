/* SPDX-License-Identifier: MIT */
/*
 * rigconf: a rig's configuration as one canonical text, so that every run
 * records the configuration it was made under and a comparison never
 * pools two of them (docs/VERDICTS.md, "What enters a comparison").
 *
 * The text is "key=value" lines sorted by key, each key once, values on
 * one line; its short hash (the first RIGCONF_HASH_LEN hex digits of its
 * SHA-256) names it.  The empty text is "no configuration recorded"
 * (runs stored before klab recorded them, imports to an unconfigured
 * rig) and its hash is "".
 */
#ifndef KLAB_RIGCONF_H
#define KLAB_RIGCONF_H

#include <stddef.h>

#include "lib/strbuf.h"

#define RIGCONF_HASH_LEN 12

/* Append "key=value\n" to lines (any order); a newline or carriage
 * return in the value becomes a space. */
void rigconf_add(struct strbuf *lines, const char *key, const char *value);
/* The canonical text of lines (malloc'd): sorted by key, the first of
 * duplicate keys kept, empty lines dropped.  Aborts on OOM. */
char *rigconf_canonical(const char *lines);
/* The short hash of a canonical text; "" for the empty text. */
void rigconf_hash(const char *canon, char out[RIGCONF_HASH_LEN + 1]);
/* The value of key in a canonical text (malloc'd), NULL when absent. */
char *rigconf_get(const char *canon, const char *key);
/*
 * Append to out the "key=value" pairs (space-separated) of texts[i]
 * whose key has not the same value in every one of texts[0..n) (a key
 * missing from one counts as differing: shown as "key=" there).
 */
void rigconf_diff(const char *const *texts, size_t n, size_t i,
		  struct strbuf *out);

#endif
