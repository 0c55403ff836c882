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
		memcpy(ph, s[i].ph, PHDR_SIZE);
		put64(ph + 8, pos);			/* p_offset */
		put64(ph + 32, s[i].filesz);		/* p_filesz */
		put64(ph + 48, PAGE);			/* p_align */
		sb_add(out, ph, PHDR_SIZE);
		pos += s[i].filesz;
	}
	pos = EHDR_SIZE + (uint64_t)n * PHDR_SIZE;
	for (i = 0; i < n; i++) {
		uint64_t at = (pos + PAGE - 1) / PAGE * PAGE +
			      s[i].vaddr % PAGE;

		while (pos < at) {
			size_t k = at - pos > PAGE ? PAGE : (size_t)(at - pos);

			sb_add(out, zeros, k);
			pos += k;
		}
		sb_add(out, in + s[i].off, (size_t)s[i].filesz);
		pos += s[i].filesz;
	}
	return 0;
}

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

/* Write data to path through path.tmp, fsynced: 0 or -1 with errno. */
static int write_atomic(const char *path, const struct strbuf *data)
{
	struct strbuf tmp = STRBUF_INIT;
	size_t done = 0;
	ssize_t w;
	int fd, rc = -1;

	sb_init(&tmp);
	sb_addf(&tmp, "%s.tmp", path);
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto out;
	while (done < data->len) {
		w = write(fd, data->buf + done, data->len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	if (done == data->len && !fsync(fd))
		rc = 0;
	close(fd);
	if (!rc)
		rc = rename(tmp.buf, path);
	if (rc)
		unlink(tmp.buf);
out:
	sb_release(&tmp);
	return rc;
}

char *kexec_image_make(struct klabd *d, const char *image,
		       const char *image_sha, char *err, size_t errlen)
{
	struct strbuf path = STRBUF_INIT, raw = STRBUF_INIT;
	struct strbuf in = STRBUF_INIT, elf = STRBUF_INIT;
	const char *args[3];
	char why[300];
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
	if (write_atomic(path.buf, &elf)) {
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
