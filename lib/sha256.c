// SPDX-License-Identifier: MIT
/*
 * SHA-256 through OpenSSL's EVP digest interface.  See sha256.h.
 */
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sha256_init(struct sha256 *ctx)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();

	if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1)
		abort();
	ctx->md = md;
}

void sha256_update(struct sha256 *ctx, const void *data, size_t len)
{
	if (len && EVP_DigestUpdate(ctx->md, data, len) != 1)
		abort();
}

void sha256_final(struct sha256 *ctx, unsigned char out[SHA256_DIGEST_LEN])
{
	unsigned int n = SHA256_DIGEST_LEN;

	if (EVP_DigestFinal_ex(ctx->md, out, &n) != 1)
		abort();
	EVP_MD_CTX_free(ctx->md);
	ctx->md = NULL;
}

void hex_encode(const void *in, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *b = in;
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[2 * n] = '\0';
}

void sha256_final_hex(struct sha256 *ctx, char out[SHA256_HEX_LEN + 1])
{
	unsigned char d[SHA256_DIGEST_LEN];

	sha256_final(ctx, d);
	hex_encode(d, sizeof(d), out);
}

void sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN + 1])
{
	struct sha256 ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, data, len);
	sha256_final_hex(&ctx, out);
}

int sha256_file_hex(const char *path, char out[SHA256_HEX_LEN + 1])
{
	struct sha256 ctx;
	unsigned char buf[65536];
	ssize_t n;
	int fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	sha256_init(&ctx);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sha256_update(&ctx, buf, (size_t)n);
	}
	saved = errno;
	close(fd);
	sha256_final_hex(&ctx, out);
	if (n < 0) {
		errno = saved;
		return -1;
	}
	return 0;
}

int sha256_hex_ok(const char *s)
{
	return s && strlen(s) == SHA256_HEX_LEN &&
	       strspn(s, "0123456789abcdef") == SHA256_HEX_LEN;
}

void secret_hash_hex(const char *secret, char out[SHA256_HEX_LEN + 1])
{
	sha256_hex(secret, strlen(secret), out);
}

int secret_equal(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (n != strlen(b))
		return 0;
	return CRYPTO_memcmp(a, b, n) == 0;
}
