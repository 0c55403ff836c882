/* SPDX-License-Identifier: MIT */
/*
 * lathist: the compact latency histogram that travels in a klab-results/1
 * document ("hist": {phase: {...}}, docs/RESULTS.md) and is stored per run
 * as numbers (db/db_hist.c), shown by the API as the raw output
 * "hist/<phase>.json".  Only non-empty buckets are kept,
 * each as [upper, count]: count requests took less than upper nanoseconds
 * and at least the previous bucket's upper (0 for the first).  Upper
 * bounds strictly increase.  The workloads fill it from their fio-style
 * histogram (workloads/hist.h); the compare page merges the runs of a
 * kernel and draws the tail (web/chart_cdf.h).
 */
#ifndef KLAB_LATHIST_H
#define KLAB_LATHIST_H

#include <stddef.h>
#include <stdint.h>

struct json_t;

#define LATHIST_MAX_BUCKETS 4096
#define LATHIST_MAX_JSON (256 * 1024)

struct lathist {
	uint64_t *up, *cnt;
	size_t n, alloc;
	uint64_t total;
};

void lathist_init(struct lathist *h);
void lathist_release(struct lathist *h);
/* Append a bucket; up must be above the last one (else -1, nothing kept). */
int lathist_add(struct lathist *h, uint64_t up, uint64_t count);
/* dst += src, bucket by bucket (equal upper bounds add up). */
void lathist_merge(struct lathist *dst, const struct lathist *src);

/* {"unit": "ns", "buckets": [[upper, count], ...]}; a new reference. */
struct json_t *lathist_to_json(const struct lathist *h);
/* The same as compact text, malloc'd and NUL-terminated. */
char *lathist_dump(const struct lathist *h);
/*
 * Read v (or the text of it) into h, which must be empty.  Strict: unit
 * "ns", at most LATHIST_MAX_BUCKETS buckets, integer upper bounds that
 * strictly increase, counts > 0, a total that does not overflow.  0, or
 * -1 with a message in err naming the fault ("buckets[3]: ...").
 */
int lathist_from_json(struct lathist *h, const struct json_t *v, char *err,
		      size_t errlen);
int lathist_parse(struct lathist *h, const char *text, size_t len,
		  char *err, size_t errlen);

#endif
