// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for lib/kexec_elf.c's kexec_elf_compact: klabd's
 * reader of a decompressed kernel, which a patch's build shaped.  The
 * input is the ELF.  Besides the sanitizers' checks it asserts what a
 * rig's kexec relies on: a compact copy is an ELF whose program headers
 * and segments all lie inside it, each at a page offset congruent to its
 * address, no longer in the file than in memory.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kexec_elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t get(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void check(const unsigned char *o, size_t len)
{
	uint64_t phoff, off, filesz, memsz, vaddr;
	unsigned n, i;

	if (len < 64 || memcmp(o, "\177ELF", 4))
		abort();
	phoff = get(o + 32, 8);
	n = (unsigned)get(o + 56, 2);
	if (phoff != 64 || n == 0 || n > KEXEC_ELF_MAX_LOADS ||
	    64 + (uint64_t)n * 56 > len || get(o + 40, 8) || get(o + 60, 2))
		abort();
	for (i = 0; i < n; i++) {
		const unsigned char *p = o + 64 + (size_t)i * 56;

		off = get(p + 8, 8);
		vaddr = get(p + 16, 8);
		filesz = get(p + 32, 8);
		memsz = get(p + 40, 8);
		if (get(p, 4) != 1 || off > len || filesz > len - off ||
		    filesz > memsz || off % 4096 != vaddr % 4096 ||
		    (filesz && !o[off + filesz - 1]))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf out = STRBUF_INIT;
	char err[300];

	sb_init(&out);
	if (kexec_elf_compact(data, size, &out, err, sizeof(err)) == 0)
		check((const unsigned char *)out.buf, out.len);
	else if (!err[0] || out.len)
		abort();
	sb_release(&out);
	return 0;
}
