/* SPDX-License-Identifier: MIT */
/*
 * hist: a log-linear latency histogram with fio's bucket layout.  Values are
 * nanoseconds.  Values below 128 ns get a bucket each; above, every power of
 * two is split into 64 equal buckets, so a bucket's midpoint is within 0.8%
 * of any value in it (fio's FIO_IO_U_PLAT_BITS = 6).  With 37 groups the
 * buckets reach 2^42 ns (73 minutes); later values share the last bucket
 * but still count in the exact count, sum, min and max.
 *
 * Counts over 2 s and over 10 s are kept exactly, beside the buckets, for
 * tiobench's "Lat% >2s" and "Lat% >10s" columns.  One histogram per thread,
 * no locking: merge them when the threads are done.
 */
#ifndef KLAB_HIST_H
#define KLAB_HIST_H

#include <stdint.h>

#define HIST_BITS 6
#define HIST_VAL (1u << HIST_BITS)
#define HIST_GROUPS 37
#define HIST_NR (HIST_GROUPS * HIST_VAL)

#define HIST_SLOW1_NS 2000000000ull	/* 2 s */
#define HIST_SLOW2_NS 10000000000ull	/* 10 s */

struct hist {
	uint64_t count;
	uint64_t min, max;	/* exact; min is UINT64_MAX while empty */
	long double sum;	/* exact for our sizes (64-bit mantissa) */
	uint64_t over1, over2;	/* values > 2 s, > 10 s */
	uint64_t b[HIST_NR];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t ns);
/* dst += src. */
void hist_merge(struct hist *dst, const struct hist *src);

/* Bucket of a value, and the lowest / representative value of a bucket. */
unsigned hist_index(uint64_t ns);
uint64_t hist_bucket_low(unsigned idx);
uint64_t hist_bucket_mid(unsigned idx);

/*
 * The p-th percentile (0 < p <= 100) as fio computes it: the midpoint of the
 * first bucket where the running count reaches p% of the total, clamped to
 * the exact min and max; p = 100 is the exact max.  0 for an empty
 * histogram.
 */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);	/* ns, 0 when empty */
/*
 * Percent of values strictly above ns.  Exact for 2 s and 10 s; for any
 * other threshold, values in the bucket holding ns are not counted.
 */
double hist_share_over(const struct hist *h, uint64_t ns);

#endif
