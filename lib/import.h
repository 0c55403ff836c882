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
	IMPORT_MAIL,		/* a mail mixing the three text kinds */
};

/*
 * What each kind of results contributed to an import: its format and its
 * results, out->v[first .. first + n), in the order the kinds first
 * appear in the text.  One part for a file of one kind.
 */
#define IMPORT_MAX_PARTS 3	/* tiobench, dbench, readlat */

struct import_part {
	enum import_format fmt;
	size_t first, n;
};

struct import_report {
	struct import_part part[IMPORT_MAX_PARTS];
	size_t nparts;
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

/*
 * import_text, and rep (may be NULL) says what each kind contributed.
 * IMPORT_AUTO finds every kind of a mail: tiobench tables, dbench
 * Throughput lines and read latency lines each go to their own importer
 * (IMPORT_MAIL: the same even for one kind), also when an archive
 * re-flowed the mail into one paragraph; a file of one kind, and fio
 * and klab JSON, are read as import_text always read them.  All or
 * nothing: the first error of any kind fails the import.
 */
int import_text_report(const char *buf, size_t len, enum import_format fmt,
		       const char *kernel, struct result_set *out,
		       struct import_report *rep, struct import_error *err);

/*
 * rep as JSON, a new reference: [{"format": F, "results": N, "kernels":
 * [{"kernel": K, "results": N}, ...]}, ...], kernels in order of first
 * appearance.  rs is the set rep describes.
 */
struct json_t *import_report_json(const struct import_report *rep,
				  const struct result_set *rs);

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
/* import_klab of a document already parsed (doc is not changed): an agent's
 * upload is read once (lib/upload.h).  A doc that is not an object fails
 * as its text would ("line 1: JSON document is not an object"). */
int import_klab_doc(const struct json_t *doc, const char *kernel,
		    struct result_set *out, struct import_error *err);

#endif
