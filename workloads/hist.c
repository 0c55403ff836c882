// SPDX-License-Identifier: MIT
/*
 * hist: fio-style log-linear latency histogram (see hist.h).  The index
 * and value functions follow fio's plat_val_to_idx() and plat_idx_to_val()
 * so that percentiles of the same samples agree with fio's bucket for bucket.
 */
#include "workloads/hist.h"

#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned hist_index(uint64_t ns)
{
	unsigned msb, err_bits, base, off, idx;

	if (ns < (HIST_VAL << 1))
		return (unsigned)ns;
	msb = 63 - (unsigned)__builtin_clzll(ns);
	err_bits = msb - HIST_BITS;
	base = (err_bits + 1) << HIST_BITS;
	off = (unsigned)(ns >> err_bits) & (HIST_VAL - 1);
	idx = base + off;
	return idx < HIST_NR ? idx : HIST_NR - 1;
}

uint64_t hist_bucket_low(unsigned idx)
{
	unsigned err_bits;

	if (idx < (HIST_VAL << 1))
		return idx;
	err_bits = (idx >> HIST_BITS) - 1;
	return (1ull << (err_bits + HIST_BITS)) +
	       (uint64_t)(idx % HIST_VAL) * (1ull << err_bits);
}

uint64_t hist_bucket_mid(unsigned idx)
{
	unsigned err_bits;

	if (idx < (HIST_VAL << 1))
		return idx;
	err_bits = (idx >> HIST_BITS) - 1;
	return hist_bucket_low(idx) + (1ull << err_bits) / 2;
}

void hist_add(struct hist *h, uint64_t ns)
{
	h->b[hist_index(ns)]++;
	h->count++;
	h->sum += ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	if (ns > HIST_SLOW1_NS)
		h->over1++;
	if (ns > HIST_SLOW2_NS)
		h->over2++;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned i;

	for (i = 0; i < HIST_NR; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	dst->over1 += src->over1;
	dst->over2 += src->over2;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	long double want, run = 0;
	uint64_t v;
	unsigned i;

	if (!h->count)
		return 0;
	if (p >= 100)
		return h->max;
	want = (long double)p / 100.0L * (long double)h->count;
	for (i = 0; i < HIST_NR; i++) {
		run += h->b[i];
		if (h->b[i] && run >= want)
			break;
	}
	if (i == HIST_NR)
		return h->max;
	v = hist_bucket_mid(i);
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)(h->sum / h->count) : 0.0;
}

double hist_share_over(const struct hist *h, uint64_t ns)
{
	uint64_t n = 0;
	unsigned i;

	if (!h->count)
		return 0.0;
	if (ns == HIST_SLOW1_NS)
		n = h->over1;
	else if (ns == HIST_SLOW2_NS)
		n = h->over2;
	else
		for (i = hist_index(ns) + 1; i < HIST_NR; i++)
			n += h->b[i];
	return 100.0 * (double)n / (double)h->count;
}
