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

struct klabd;

/*
 * The kexec image of bzImage image (sha256 image_sha, hex), made once
 * into DATA/kexec/SHA16.elf by kernels/kexec-image.sh and
 * kexec_elf_compact, fsynced and renamed into place.  Its path (heap), or
 * NULL with err set: the caller hands out the bzImage then.
 */
char *kexec_image_make(struct klabd *d, const char *image,
		       const char *image_sha, char *err, size_t errlen);

#endif
