// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/kexec_elf.c's kexec_elf_compact: a synthetic
 * vmlinux-like ELF (two loadable segments with zero tails, a note, section
 * headers) made compact; every bad input refused with its reason, never
 * read past its end.  A real kernel's is booted by
 * bench/bench_kexec_image.sh and the slow tier's t3200.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kexec_elf.h"

static void put(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void phdr(unsigned char *p, uint32_t type, uint64_t off,
		 uint64_t addr, uint64_t filesz, uint64_t memsz)
{
	put(p, type, 4);
	put(p + 4, 5, 4);
	put(p + 8, off, 8);
	put(p + 16, 0xffffffff81000000ull + addr, 8);
	put(p + 24, addr, 8);
	put(p + 32, filesz, 8);
	put(p + 40, memsz, 8);
	put(p + 48, 0x200000, 8);
}

/* A 3 MiB file: segment 0 at 0x200000 (16 bytes of text, 4 KiB of zeros),
 * a note, segment 1 at 0x280000 (one byte, then 64 KiB of zeros, memsz
 * larger still). */
static unsigned char *make_elf(size_t *len)
{
	unsigned char *e = calloc(1, 3 << 20);

	assert_non_null(e);
	memcpy(e, "\177ELF", 4);
	e[4] = 2;
	e[5] = 1;
	e[6] = 1;
	put(e + 16, 2, 2);			/* ET_EXEC */
	put(e + 18, 62, 2);			/* x86-64 */
	put(e + 24, 0x1000000, 8);		/* entry */
	put(e + 32, 64, 8);			/* phoff */
	put(e + 40, 0x2f0000, 8);		/* shoff */
	put(e + 52, 64, 2);
	put(e + 54, 56, 2);
	put(e + 56, 3, 2);
	put(e + 58, 64, 2);
	put(e + 60, 2, 2);
	phdr(e + 64, 1, 0x200000, 0x1000000, 16 + 4096, 16 + 4096);
	phdr(e + 120, 4, 0x200008, 0x1000008, 8, 8);
	phdr(e + 176, 1, 0x280000, 0x1080010, 1 + 65536, 1 << 20);
	memcpy(e + 0x200000, "0123456789abcdef", 16);
	e[0x280000] = 0x5a;
	*len = 3 << 20;
	return e;
}

static void test_compact(void **state)
{
	struct strbuf out = STRBUF_INIT;
	unsigned char *e;
	const unsigned char *o, *p;
	char err[200];
	size_t len;

	e = make_elf(&len);
	sb_init(&out);
	assert_int_equal(kexec_elf_compact(e, len, &out, err, sizeof(err)),
			 0);
	o = (const unsigned char *)out.buf;
	assert_memory_equal(o, "\177ELF", 4);
	assert_int_equal(get(o + 24, 8), 0x1000000);	/* entry kept */
	assert_int_equal(get(o + 32, 8), 64);
	assert_int_equal(get(o + 40, 8), 0);		/* no sections */
	assert_int_equal(get(o + 60, 2), 0);
	assert_int_equal(get(o + 56, 2), 2);		/* the two loads */
	p = o + 64;
	assert_int_equal(get(p, 4), 1);
	assert_int_equal(get(p + 8, 8), 4096);		/* page-aligned */
	assert_int_equal(get(p + 32, 8), 16);		/* zeros cut */
	assert_int_equal(get(p + 40, 8), 16 + 4096);	/* memsz kept */
	assert_int_equal(get(p + 24, 8), 0x1000000);
	assert_memory_equal(o + 4096, "0123456789abcdef", 16);
	p += 56;
	/* offset congruent to the address modulo the page: 0x010 */
	assert_int_equal(get(p + 8, 8), 8192 + 0x10);
	assert_int_equal(get(p + 32, 8), 1);
	assert_int_equal(get(p + 40, 8), 1 << 20);
	assert_int_equal(o[8192 + 0x10], 0x5a);
	assert_int_equal(out.len, 8192 + 0x10 + 1);
	sb_release(&out);
	free(e);
}

static void expect_refused(const unsigned char *e, size_t len,
			   const char *want)
{
	struct strbuf out = STRBUF_INIT;
	char err[200] = "";

	sb_init(&out);
	assert_int_equal(kexec_elf_compact(e, len, &out, err, sizeof(err)),
			 -1);
	if (!strstr(err, want))
		fail_msg("error '%s' does not say '%s'", err, want);
	sb_release(&out);
}

static void test_refused(void **state)
{
	unsigned char *e;
	size_t len;

	e = make_elf(&len);
	expect_refused(e, 10, "not an ELF file");
	expect_refused((const unsigned char *)"MZ\0\0", 4, "not an ELF");
	e[18] = 40;				/* ARM */
	expect_refused(e, len, "not an x86-64 ELF executable");
	e[18] = 62;
	e[16] = 3;				/* ET_DYN */
	expect_refused(e, len, "type 3");
	e[16] = 2;
	/* the program headers cut off, or past the end */
	expect_refused(e, 100, "program headers (3 at offset 64)");
	put(e + 32, (uint64_t)-1, 8);
	expect_refused(e, len, "are not in the file");
	put(e + 32, 64, 8);
	put(e + 54, 32, 2);
	expect_refused(e, len, "are not in the file");
	put(e + 54, 56, 2);
	/* a segment past the end: its offset, its size, its memsz */
	expect_refused(e, 0x280000, "segment 2 (offset 2621440");
	phdr(e + 64, 1, (uint64_t)-4096, 0x1000000, 16, 16);
	expect_refused(e, len, "segment 0");
	phdr(e + 64, 1, 0x200000, 0x1000000, (uint64_t)-1, (uint64_t)-1);
	expect_refused(e, len, "past the end of the file");
	phdr(e + 64, 1, 0x200000, 0x1000000, 64, 16);
	expect_refused(e, len, "more than its 16 in memory");
	/* no loads */
	phdr(e + 64, 4, 0x200000, 0x1000000, 16, 16);
	phdr(e + 176, 4, 0x280000, 0x1080000, 1, 1);
	expect_refused(e, len, "no loadable segment");
	free(e);
}

static void test_too_many_loads(void **state)
{
	unsigned char *e = calloc(1, 8192);
	int i;

	assert_non_null(e);
	memcpy(e, "\177ELF", 4);
	e[4] = 2;
	e[5] = 1;
	put(e + 16, 2, 2);
	put(e + 18, 62, 2);
	put(e + 32, 64, 8);
	put(e + 54, 56, 2);
	put(e + 56, KEXEC_ELF_MAX_LOADS + 1, 2);
	for (i = 0; i <= KEXEC_ELF_MAX_LOADS; i++)
		phdr(e + 64 + 56 * i, 1, 4096, 0x1000000, 1, 1);
	expect_refused(e, 8192, "more than 16 loadable segments");
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_too_many_loads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
