/* SPDX-License-Identifier: MIT */
/*
 * strbuf: a growable, always NUL-terminated byte buffer (git's strbuf,
 * redis's sds).  Used for every string klab builds: SQL-free text reports,
 * HTML pages, JSON bodies, paths.  Allocation failure aborts: klab does not
 * try to limp on without memory.
 */
#ifndef KLAB_STRBUF_H
#define KLAB_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;	/* always NUL-terminated once initialised */
	size_t len;
	size_t alloc;
};

#define STRBUF_INIT { NULL, 0, 0 }

void sb_init(struct strbuf *sb);
void sb_release(struct strbuf *sb);
/* Hand the buffer to the caller (free() it); sb is re-initialised. */
char *sb_detach(struct strbuf *sb, size_t *len);
void sb_reset(struct strbuf *sb);
void sb_grow(struct strbuf *sb, size_t extra);
void sb_add(struct strbuf *sb, const void *data, size_t len);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Append s with &, <, >, " and ' replaced by HTML entities. */
void sb_add_html(struct strbuf *sb, const char *s);
/* Append s as one CSV field (quoted when it needs to be). */
void sb_add_csv(struct strbuf *sb, const char *s);
/* Append s percent-encoded for a URL query value. */
void sb_add_urlenc(struct strbuf *sb, const char *s);
/* Read a whole file; 0 on success, -1 with errno set on failure. */
int sb_read_file(struct strbuf *sb, const char *path);
/* Write sb to path whole or not at all: through path.tmp.PID, fsynced,
 * renamed into place.  0, or -1 with errno set and no file left. */
int sb_write_file(const struct strbuf *sb, const char *path);

#endif
