/* SPDX-License-Identifier: MIT */
/*
 * A kernel's ELF made compact for a kexec (docs/RIGS.md, "The kexec
 * image"): what lab/kexec_image.c writes for every kernel a rig kexecs
 * into, and what bench/bench_kexec_image.sh boots.
 */
#ifndef KLAB_KEXEC_ELF_H
#define KLAB_KEXEC_ELF_H

#include <stddef.h>

#include "lib/strbuf.h"

/* Largest ELF taken (the decompressed kernel) and segments kept. */
#define KEXEC_ELF_MAX ((size_t)512 << 20)
#define KEXEC_ELF_MAX_LOADS 16

/*
 * in[0..len): an ELF64 little-endian x86-64 executable (a vmlinux, as a
 * bzImage's payload holds it).  Appends to out its compact copy: the ELF
 * header, its PT_LOAD program headers only, and each segment's bytes less
 * their trailing zeros (p_filesz cut, p_memsz kept: kexec zero-fills the
 * rest), at a page-aligned offset congruent to its address.  Section
 * headers and other program headers are dropped.  0, or -1 with err set
 * ("not an ELF file", "segment 2 (offset ..) is past the end of the file").
 */
int kexec_elf_compact(const unsigned char *in, size_t len, struct strbuf *out,
		      char *err, size_t errlen);

#endif
