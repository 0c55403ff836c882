/* SPDX-License-Identifier: MIT */
/*
 * rand: klab's random numbers, in one place.
 *
 * Secrets (rig tokens, user tokens, CSRF tokens) come from rand_bytes(),
 * which reads getrandom(2) and fails loudly: there is no fallback to a
 * weaker generator.  Workloads that need a fast, reproducible stream for
 * I/O offsets (tiotest, rio, iops: --seed N) use rand_xorshift64(), the
 * one seeded PRNG of the tree; it is never used for anything secret.
 */
#ifndef KLAB_RAND_H
#define KLAB_RAND_H

#include <stddef.h>
#include <stdint.h>

/* Fill buf with len bytes from the kernel's CSPRNG.  0, or -1 with errno
 * set (the caller must fail; never fall back). */
int rand_bytes(void *buf, size_t len);
/* nbytes random bytes as 2 * nbytes lowercase hex digits plus NUL into
 * hex (size at least 2 * nbytes + 1).  0, or -1 with errno set. */
int rand_hex(char *hex, size_t nbytes);

/* xorshift64: the seeded PRNG for workload offsets (state must be
 * non-zero).  Not for secrets. */
static inline uint64_t rand_xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

#endif
