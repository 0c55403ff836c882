// SPDX-License-Identifier: MIT
/*
 * Growable string buffer.  See strbuf.h.
 */
#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char sb_empty[1];

void sb_init(struct strbuf *sb)
{
	sb->buf = sb_empty;
	sb->len = 0;
	sb->alloc = 0;
}

void sb_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	sb_init(sb);
}

char *sb_detach(struct strbuf *sb, size_t *len)
{
	char *p;

	if (!sb->alloc)
		sb_grow(sb, 1);
	p = sb->buf;
	if (len)
		*len = sb->len;
	sb_init(sb);
	return p;
}

void sb_reset(struct strbuf *sb)
{
	if (sb->alloc) {
		sb->len = 0;
		sb->buf[0] = '\0';
	}
}

void sb_grow(struct strbuf *sb, size_t extra)
{
	size_t want;
	char *p;

	if (!sb->buf)
		sb_init(sb);
	if (sb->len + extra + 1 <= sb->alloc)
		return;
	want = sb->alloc ? sb->alloc : 64;
	while (want < sb->len + extra + 1)
		want *= 2;
	p = sb->alloc ? realloc(sb->buf, want) : malloc(want);
	if (!p)
		abort();
	if (!sb->alloc)
		p[0] = '\0';
	sb->buf = p;
	sb->alloc = want;
}

void sb_add(struct strbuf *sb, const void *data, size_t len)
{
	sb_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
	sb_add(sb, &c, 1);
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	sb_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		sb_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

/* The HTML entity that stands for c, NULL when c stands for itself. */
static const char *html_entity(char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	default: return NULL;
	}
}

void sb_add_html(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		const char *e = html_entity(*s);

		if (e)
			sb_adds(sb, e);
		else
			sb_addc(sb, *s);
	}
}

void sb_add_csv(struct strbuf *sb, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		sb_adds(sb, s);
		return;
	}
	sb_addc(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			sb_addc(sb, '"');
		sb_addc(sb, *s);
	}
	sb_addc(sb, '"');
}

void sb_add_urlenc(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-_.~", c)) {
			sb_addc(sb, (char)c);
		} else {
			sb_addc(sb, '%');
			sb_addc(sb, hex[c >> 4]);
			sb_addc(sb, hex[c & 15]);
		}
	}
}

int sb_read_file(struct strbuf *sb, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	for (;;) {
		sb_grow(sb, 65536);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		sb->len += (size_t)n;
		sb->buf[sb->len] = '\0';
	}
	close(fd);
	return 0;
}

int sb_write_file(const struct strbuf *sb, const char *path)
{
	struct strbuf tmp = STRBUF_INIT;
	size_t done = 0;
	ssize_t w;
	int fd, rc = -1, saved;

	sb_init(&tmp);
	sb_addf(&tmp, "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto out;
	while (done < sb->len) {
		w = write(fd, sb->buf + done, sb->len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = EIO;
			break;
		}
		done += (size_t)w;
	}
	if (done == sb->len && !fsync(fd))
		rc = 0;
	saved = errno;
	close(fd);
	if (!rc)
		rc = rename(tmp.buf, path);
	else
		errno = saved;
	if (rc) {
		saved = errno;
		unlink(tmp.buf);
		errno = saved;
	}
out:
	sb_release(&tmp);
	return rc;
}
