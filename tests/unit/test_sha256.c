// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/sha256.c: the FIPS 180-4 example vectors, lengths
 * around the 55/56/64-byte padding edges, a million bytes fed in uneven
 * pieces, and the file helper.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/sha256.h"

static void expect_hex(const char *msg, size_t len, const char *want)
{
	char got[SHA256_HEX_LEN + 1];

	sha256_hex(msg, len, got);
	assert_string_equal(got, want);
}

static void test_fips_vectors(void **state)
{
	const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnop"
			 "nopq";
	const char *m3 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijk"
			 "lmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstno"
			 "pqrstu";

	expect_hex("", 0, "e3b0c44298fc1c149afbf4c8996fb924"
			  "27ae41e4649b934ca495991b7852b855");
	expect_hex("abc", 3, "ba7816bf8f01cfea414140de5dae2223"
			     "b00361a396177a9cb410ff61f20015ad");
	expect_hex(m2, strlen(m2), "248d6a61d20638b8e5c026930c3e6039"
				   "a33ce45964ff2167f6ecedd419db06c1");
	expect_hex(m3, strlen(m3), "cf5b16a778af8380036ce59e7b049237"
				   "0b249b11e8f07a51afac45037afee9d1");
}

/* Digests of n 'x' bytes, from coreutils sha256sum. */
static void test_padding_edges(void **state)
{
	static const struct {
		size_t n;
		const char *hex;
	} v[] = {
		{ 55, "d5e285683cd4efc02d021a5c62014694"
			"958901005d6f71e89e0989fac77e4072" },
		{ 56, "04c26261370ee7541549d16dee320c72"
			"3e3fd14671e66a099afe0a377c16888e" },
		{ 63, "75220b47218278e656f2013bb8f0c455"
			"a25eaf01e86c64924e9d48d89776d6f2" },
		{ 64, "7ce100971f64e7001e8fe5a51973ecdf"
			"e1ced42befe7ee8d5fd6219506b5393c" },
		{ 65, "9537c5fdf120482f7d58d25e9ed583f5"
			"2c02b4e304ea814db1633ad565aed7e9" },
		{ 119, "000b48d4edf0fa7bee3c6236ecd2785b"
			"aa5db4eeb8bb54341b029e0d9fa5fb0c" },
		{ 1000, "44f8354494a5ba03ba1792a8d3e9c534"
			"c47a9181980fde7a3f44b06ef2ae7c7f" },
	};
	char buf[1000];
	size_t i;

	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		expect_hex(buf, v[i].n, v[i].hex);
}

/* A million 'a' (the FIPS long vector) in pieces of 1, 2, ... 97 bytes. */
static void test_million_streamed(void **state)
{
	char *buf = malloc(1000000);
	char got[SHA256_HEX_LEN + 1];
	struct sha256 ctx;
	size_t off = 0, step = 1;

	assert_non_null(buf);
	memset(buf, 'a', 1000000);
	sha256_init(&ctx);
	while (off < 1000000) {
		size_t n = 1000000 - off < step ? 1000000 - off : step;

		sha256_update(&ctx, buf + off, n);
		off += n;
		step = step % 97 + 1;
	}
	sha256_final_hex(&ctx, got);
	assert_string_equal(got, "cdc76e5c9914fb9281a1c7e284d73e67"
				 "f1809a48a497200e046d39ccc7112cd0");
	free(buf);
}

static void test_file(void **state)
{
	char path[] = "/tmp/klab-sha256.XXXXXX";
	char got[SHA256_HEX_LEN + 1];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	assert_int_equal(sha256_file_hex(path, got), 0);
	assert_string_equal(got, "ba7816bf8f01cfea414140de5dae2223"
				 "b00361a396177a9cb410ff61f20015ad");
	unlink(path);
	assert_int_equal(sha256_file_hex(path, got), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips_vectors),
		cmocka_unit_test(test_padding_edges),
		cmocka_unit_test(test_million_streamed),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
