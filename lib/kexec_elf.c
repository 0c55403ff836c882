// SPDX-License-Identifier: MIT
/*
 * The compact copy of a kernel's ELF that a kexec loads (kexec_elf.h).
 * Bounds first: the input is a decompressed kernel a patch's build
 * shaped, so every header and segment is checked to lie inside it
 * before a byte of it is read.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/kexec_elf.h"

enum {
	EHDR_SIZE = 64,
	PHDR_SIZE = 56,
	PT_LOAD_TYPE = 1,
	EM_X86_64_ID = 62,
	ET_EXEC_TYPE = 2,
	PAGE = 4096,
};

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

struct seg {
	const unsigned char *ph;	/* its program header in the input */
	uint64_t off, filesz, vaddr;
	uint64_t at;			/* its offset in the copy */
};

int kexec_elf_compact(const unsigned char *in, size_t len, struct strbuf *out,
		      char *err, size_t errlen)
{
	struct seg s[KEXEC_ELF_MAX_LOADS];
	unsigned char hdr[EHDR_SIZE], ph[PHDR_SIZE];
	uint64_t phoff, pos;
	unsigned phnum, i, n = 0;
	static const unsigned char zeros[PAGE];

	if (len < EHDR_SIZE || memcmp(in, "\177ELF", 4)) {
		snprintf(err, errlen, "not an ELF file");
		return -1;
	}
	if (in[4] != 2 || in[5] != 1 || get16(in + 18) != EM_X86_64_ID ||
	    get16(in + 16) != ET_EXEC_TYPE) {
		snprintf(err, errlen, "not an x86-64 ELF executable (class "
			 "%u, data %u, machine %u, type %u)", in[4], in[5],
			 get16(in + 18), get16(in + 16));
		return -1;
	}
	phoff = get64(in + 32);
	phnum = get16(in + 56);
	if (get16(in + 54) != PHDR_SIZE || phnum == 0 || phoff > len ||
	    (uint64_t)phnum * PHDR_SIZE > len - phoff) {
		snprintf(err, errlen, "program headers (%u at offset %llu) "
			 "are not in the file", phnum,
			 (unsigned long long)phoff);
		return -1;
	}
	for (i = 0; i < phnum; i++) {
		const unsigned char *p = in + phoff + (size_t)i * PHDR_SIZE;
		uint64_t off = get64(p + 8), filesz = get64(p + 32);

		if (get32(p) != PT_LOAD_TYPE)
			continue;
		if (n == KEXEC_ELF_MAX_LOADS) {
			snprintf(err, errlen, "more than %d loadable segments",
				 KEXEC_ELF_MAX_LOADS);
			return -1;
		}
		if (off > len || filesz > len - off) {
			snprintf(err, errlen, "segment %u (offset %llu, %llu "
				 "bytes) is past the end of the file (%zu "
				 "bytes)", i, (unsigned long long)off,
				 (unsigned long long)filesz, len);
			return -1;
		}
		if (filesz > get64(p + 40)) {
			snprintf(err, errlen, "segment %u has %llu bytes in "
				 "the file, more than its %llu in memory", i,
				 (unsigned long long)filesz,
				 (unsigned long long)get64(p + 40));
			return -1;
		}
		while (filesz && !in[off + filesz - 1])
			filesz--;
		s[n].ph = p;
		s[n].off = off;
		s[n].filesz = filesz;
		s[n].vaddr = get64(p + 16);
		n++;
	}
	if (!n) {
		snprintf(err, errlen, "no loadable segment");
		return -1;
	}
	memcpy(hdr, in, EHDR_SIZE);
	put64(hdr + 32, EHDR_SIZE);		/* e_phoff */
	put64(hdr + 40, 0);			/* e_shoff */
	put16(hdr + 58, 0);			/* e_shentsize */
	put16(hdr + 60, 0);			/* e_shnum */
	put16(hdr + 62, 0);			/* e_shstrndx */
	put16(hdr + 56, (uint16_t)n);
	sb_add(out, hdr, EHDR_SIZE);
	pos = EHDR_SIZE + (uint64_t)n * PHDR_SIZE;
	for (i = 0; i < n; i++) {
		/* a page-aligned offset with the address's page offset */
		pos = (pos + PAGE - 1) / PAGE * PAGE + s[i].vaddr % PAGE;
		s[i].at = pos;
		memcpy(ph, s[i].ph, PHDR_SIZE);
		put64(ph + 8, pos);			/* p_offset */
		put64(ph + 32, s[i].filesz);		/* p_filesz */
		put64(ph + 48, PAGE);			/* p_align */
		sb_add(out, ph, PHDR_SIZE);
		pos += s[i].filesz;
	}
	pos = EHDR_SIZE + (uint64_t)n * PHDR_SIZE;
	for (i = 0; i < n; i++) {
		while (pos < s[i].at) {
			size_t k = s[i].at - pos > PAGE ? PAGE :
				   (size_t)(s[i].at - pos);

			sb_add(out, zeros, k);
			pos += k;
		}
		sb_add(out, in + s[i].off, (size_t)s[i].filesz);
		pos += s[i].filesz;
	}
	return 0;
}
