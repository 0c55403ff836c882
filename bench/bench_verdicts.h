/* SPDX-License-Identifier: MIT */
/* bench_verdicts' parts: the random numbers of bench_verdicts.c and the
 * "same at the cap" mode of bench_verdicts_same.c. */
#ifndef KLAB_BENCH_VERDICTS_H
#define KLAB_BENCH_VERDICTS_H

#include <stddef.h>

/* A standard normal deviate from the seeded stream. */
double rng_normal(void);
/* bench_verdicts --same [--pages N]: the tables of docs/VERDICTS.md,
 * "Same at the cap". */
void same_tables(size_t pages);

#endif
