/* SPDX-License-Identifier: MIT */
/*
 * sha256: the SHA-256 hash through OpenSSL's EVP interface (libcrypto is
 * linked anyway, through libcurl).  Streaming: init, update any number of
 * times, final; final releases what init took, so every init must be
 * followed by a final.  Used to check downloads and to store secrets as
 * hashes (compare those with CRYPTO_memcmp, never strcmp).
 */
#ifndef KLAB_SHA256_H
#define KLAB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64	/* without the NUL */

struct sha256 {
	void *md;		/* EVP_MD_CTX, NULL after final */
};

/* Aborts when out of memory. */
void sha256_init(struct sha256 *ctx);
void sha256_update(struct sha256 *ctx, const void *data, size_t len);
/* Write the digest; ctx must be re-initialised before it is used again. */
void sha256_final(struct sha256 *ctx, unsigned char out[SHA256_DIGEST_LEN]);
/* N bytes of IN as 2 * N lowercase hex digits and a NUL into OUT: klab's
 * one hex writer (digests, tokens, MACs). */
void hex_encode(const void *in, size_t n, char *out);
/* Write the digest as 64 lowercase hex digits and a NUL. */
void sha256_final_hex(struct sha256 *ctx, char out[SHA256_HEX_LEN + 1]);
/* One-shot hex digest of a buffer. */
void sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN + 1]);
/* Hex digest of a file; 0, or -1 with errno set. */
int sha256_file_hex(const char *path, char out[SHA256_HEX_LEN + 1]);
/* The stored form of a secret (a token): its hex SHA-256. */
void secret_hash_hex(const char *secret, char out[SHA256_HEX_LEN + 1]);
/* Constant-time equality of two NUL-terminated strings of hex (hashes of
 * secrets): CRYPTO_memcmp, never strcmp. */
int secret_equal(const char *a, const char *b);
/* 1 when s is a hash as sha256_hex writes it: 64 lowercase hex digits. */
int sha256_hex_ok(const char *s);

#endif
