// SPDX-License-Identifier: MIT
/*
 * The kexec image of a bzImage (kexec_image.h).  kernels/kexec-image.sh
 * decompresses the payload (never as root: a built kernel is a patch's
 * product); here the result is read as plain bytes, bounded, checked as
 * an x86-64 ELF and written compact: a rig hashes every boot file it
 * loads, and Debian's 6.1 kernel decompresses to 53 MB, of which 19 MB
 * are the 2 MiB alignment of its segments and the zeros at their ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "klabd/klabd.h"
#include "lab/catalog.h"
#include "lab/kexec_image.h"
#include "lib/alloc.h"
#include "lib/kexec_elf.h"

/* Read at most max bytes of path into sb: 0, 1 when it is larger, -1. */
static int read_bounded(const char *path, size_t max, struct strbuf *sb)
{
	struct stat st;
	size_t got = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return 1;
	}
	sb_grow(sb, (size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		r = read(fd, sb->buf + sb->len, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		sb->len += (size_t)r;
		got += (size_t)r;
	}
	sb->buf[sb->len] = '\0';
	close(fd);
	return got == (size_t)st.st_size ? 0 : -1;
}

char *kexec_image_make(struct klabd *d, const char *image,
		       const char *image_sha, char *err, size_t errlen)
{
	struct strbuf path = STRBUF_INIT, raw = STRBUF_INIT;
	struct strbuf in = STRBUF_INIT, elf = STRBUF_INIT;
	const char *args[3];
	char why[300] = "";
	int rc;

	sb_init(&path);
	sb_init(&raw);
	sb_addf(&path, "%s/kexec", d->data_dir);
	mkdir(path.buf, 0755);
	sb_addf(&path, "/%.16s.elf", image_sha);
	if (access(path.buf, R_OK) == 0)
		return sb_detach(&path, NULL);
	sb_addf(&raw, "%s/kexec/%.16s.raw", d->data_dir, image_sha);
	args[0] = image;
	args[1] = raw.buf;
	args[2] = NULL;
	if (catalog_script(d, "kexec-image.sh", args, NULL, why,
			   sizeof(why))) {
		snprintf(err, errlen, "%s", *why ? why :
			 "kexec-image.sh failed");
		goto fail;
	}
	sb_init(&in);
	sb_init(&elf);
	rc = read_bounded(raw.buf, KEXEC_ELF_MAX, &in);
	unlink(raw.buf);
	if (rc) {
		snprintf(err, errlen, rc > 0 ? "'%s' decompresses to over "
			 "512 MiB" : "cannot read what kexec-image.sh made of "
			 "'%s'", image);
		goto fail;
	}
	if (kexec_elf_compact((const unsigned char *)in.buf, in.len, &elf,
			      why, sizeof(why))) {
		snprintf(err, errlen, "the kernel in '%s': %s", image, why);
		goto fail;
	}
	sb_release(&in);
	if (sb_write_file(&elf, path.buf)) {
		snprintf(err, errlen, "cannot write '%s': %s", path.buf,
			 strerror(errno));
		goto fail;
	}
	sb_release(&elf);
	sb_release(&raw);
	return sb_detach(&path, NULL);
fail:
	sb_release(&in);
	sb_release(&elf);
	sb_release(&raw);
	sb_release(&path);
	return NULL;
}
