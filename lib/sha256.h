/* SPDX-License-Identifier: MIT */
/*
 * sha256: the SHA-256 hash (FIPS 180-4), our own small implementation so
 * that klab-agent can check the kernels and initramfs images it downloads
 * without linking a crypto library.  Streaming: init, update any number of
 * times, final.  Not constant-time; only used to check integrity.
 */
#ifndef KLAB_SHA256_H
#define KLAB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64	/* without the NUL */

struct sha256 {
	uint32_t h[8];
	uint64_t len;		/* bytes hashed so far */
	unsigned char block[64];
	size_t fill;		/* bytes waiting in block */
};

void sha256_init(struct sha256 *ctx);
void sha256_update(struct sha256 *ctx, const void *data, size_t len);
/* Write the digest; ctx must be re-initialised before it is used again. */
void sha256_final(struct sha256 *ctx, unsigned char out[SHA256_DIGEST_LEN]);
/* Write the digest as 64 lowercase hex digits and a NUL. */
void sha256_final_hex(struct sha256 *ctx, char out[SHA256_HEX_LEN + 1]);
/* One-shot hex digest of a buffer. */
void sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN + 1]);
/* Hex digest of a file; 0, or -1 with errno set. */
int sha256_file_hex(const char *path, char out[SHA256_HEX_LEN + 1]);

#endif
