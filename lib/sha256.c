// SPDX-License-Identifier: MIT
/*
 * SHA-256 as FIPS 180-4 describes it: a 64-byte block compression over
 * eight 32-bit words, message padded with 0x80, zeros and the bit length.
 * See sha256.h.
 */
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], s[8], t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = load_be32(p + 4 * i);
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^
			      (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^
			      (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(s, h, sizeof(s));
	for (i = 0; i < 64; i++) {
		t1 = s[7] + (ror(s[4], 6) ^ ror(s[4], 11) ^ ror(s[4], 25)) +
		     ((s[4] & s[5]) ^ (~s[4] & s[6])) + sha256_k[i] + w[i];
		t2 = (ror(s[0], 2) ^ ror(s[0], 13) ^ ror(s[0], 22)) +
		     ((s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]));
		memmove(s + 1, s, 7 * sizeof(s[0]));
		s[4] += t1;
		s[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += s[i];
}

void sha256_init(struct sha256 *ctx)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(ctx->h, iv, sizeof(iv));
	ctx->len = 0;
	ctx->fill = 0;
}

void sha256_update(struct sha256 *ctx, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t n;

	ctx->len += len;
	while (len) {
		n = sizeof(ctx->block) - ctx->fill;
		if (n > len)
			n = len;
		memcpy(ctx->block + ctx->fill, p, n);
		ctx->fill += n;
		p += n;
		len -= n;
		if (ctx->fill == sizeof(ctx->block)) {
			sha256_block(ctx->h, ctx->block);
			ctx->fill = 0;
		}
	}
}

void sha256_final(struct sha256 *ctx, unsigned char out[SHA256_DIGEST_LEN])
{
	uint64_t bits = ctx->len * 8;
	int i;

	ctx->block[ctx->fill++] = 0x80;
	if (ctx->fill > 56) {
		memset(ctx->block + ctx->fill, 0, 64 - ctx->fill);
		sha256_block(ctx->h, ctx->block);
		ctx->fill = 0;
	}
	memset(ctx->block + ctx->fill, 0, 56 - ctx->fill);
	store_be32(ctx->block + 56, (uint32_t)(bits >> 32));
	store_be32(ctx->block + 60, (uint32_t)bits);
	sha256_block(ctx->h, ctx->block);
	for (i = 0; i < 8; i++)
		store_be32(out + 4 * i, ctx->h[i]);
}

void sha256_final_hex(struct sha256 *ctx, char out[SHA256_HEX_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char d[SHA256_DIGEST_LEN];
	int i;

	sha256_final(ctx, d);
	for (i = 0; i < SHA256_DIGEST_LEN; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[SHA256_HEX_LEN] = '\0';
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
	if (n < 0) {
		errno = saved;
		return -1;
	}
	sha256_final_hex(&ctx, out);
	return 0;
}
