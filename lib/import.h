/* SPDX-License-Identifier: MIT */
/*
 * import: pure parsers for what kernel developers already paste into mail.
 * Each takes a text buffer (not necessarily NUL-terminated, not necessarily
 * UTF-8) and appends results to a result_set.  None touches the database.
 * On error they return -1, fill *err with the line and the field at fault,
 * and leave out as it was before the call (callers import all or nothing).
 */
#ifndef KLAB_IMPORT_H
#define KLAB_IMPORT_H

#include <stddef.h>

#include "results.h"

enum import_format {
	IMPORT_AUTO = 0,
	IMPORT_TIOBENCH,	/* tiobench tables, four sections */
	IMPORT_DBENCH,		/* "Throughput 412.5 MB/sec  50 clients ..." */
	IMPORT_READLAT,		/* "reads: .." + "read latency min .. " */
	IMPORT_FIO,		/* fio --output-format=json / json+ */
	IMPORT_KLAB,		/* klab-results/1 JSON (klab-run, agent) */
};

const char *import_format_name(enum import_format f);
/* -1 when s names no format. */
int import_format_parse(const char *s, enum import_format *out);
/* Guess the format from the content; IMPORT_AUTO when nothing matches. */
enum import_format import_detect(const char *buf, size_t len);

/*
 * Parse buf in format fmt (IMPORT_AUTO: detect).  kernel is the identifier
 * to use where the text names none (NULL: the text must name it).  Sets
 * out->format.  Returns the number of results added, or -1.
 */
int import_text(const char *buf, size_t len, enum import_format fmt,
		const char *kernel, struct result_set *out,
		struct import_error *err);

int import_tiobench(const char *buf, size_t len, const char *kernel,
		    struct result_set *out, struct import_error *err);
int import_dbench(const char *buf, size_t len, const char *kernel,
		  struct result_set *out, struct import_error *err);
int import_readlat(const char *buf, size_t len, const char *kernel,
		   struct result_set *out, struct import_error *err);
int import_fio(const char *buf, size_t len, const char *kernel,
	       struct result_set *out, struct import_error *err);
int import_klab(const char *buf, size_t len, const char *kernel,
		struct result_set *out, struct import_error *err);

#endif
