/* SPDX-License-Identifier: MIT */
/*
 * The kexec image: the kernel of a bzImage, already decompressed, as the
 * compact x86-64 ELF a rig's `kexec -l` loads (kexec-tools' elf-x86_64
 * type, `--args-linux`).  A kexec into it skips the bzImage's own
 * decompressor, which under TCG is most of a switch's time before the
 * kernel's banner (docs/RIGS.md, "The kexec image").  Cold boots keep
 * the bzImage (QEMU's -kernel).
 */
#ifndef KLAB_KEXEC_IMAGE_H
#define KLAB_KEXEC_IMAGE_H

#include <stddef.h>

#include "lib/strbuf.h"

struct klabd;

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

/*
 * The kexec image of bzImage image (sha256 image_sha, hex), made once
 * into DATA/kexec/SHA16.elf by kernels/kexec-image.sh and
 * kexec_elf_compact, fsynced and renamed into place.  Its path (heap), or
 * NULL with err set: the caller hands out the bzImage then.
 */
char *kexec_image_make(struct klabd *d, const char *image,
		       const char *image_sha, char *err, size_t errlen);

#endif
