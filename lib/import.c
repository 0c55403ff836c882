// SPDX-License-Identifier: MIT
/*
 * import: format names, format detection and the import_text dispatcher in
 * front of the individual parsers (import_tiobench.c, import_dbench.c,
 * import_readlat.c, import_fio.c, import_klab.c).  Detection looks for the
 * markers each tool prints, in an order that puts the unambiguous JSON
 * documents first.
 */
#include "import.h"

#include <string.h>

#include "ident.h"
#include "import_priv.h"
#include "tiobench.h"

static const struct {
	enum import_format fmt;
	const char *name;
	int (*parse)(const char *, size_t, const char *, struct result_set *,
		     struct import_error *);
} formats[] = {
	{ IMPORT_AUTO, "auto", NULL },
	{ IMPORT_TIOBENCH, "tiobench", import_tiobench },
	{ IMPORT_DBENCH, "dbench", import_dbench },
	{ IMPORT_READLAT, "readlat", import_readlat },
	{ IMPORT_FIO, "fio", import_fio },
	{ IMPORT_KLAB, "klab", import_klab },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

const char *import_format_name(enum import_format f)
{
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (formats[i].fmt == f)
			return formats[i].name;
	return "unknown";
}

int import_format_parse(const char *s, enum import_format *out)
{
	size_t i;

	if (!s)
		return -1;
	for (i = 0; i < NFORMATS; i++) {
		if (!strcmp(formats[i].name, s)) {
			*out = formats[i].fmt;
			return 0;
		}
	}
	return -1;
}

static int has(const char *buf, size_t len, const char *s)
{
	return memmem(buf, len, s, strlen(s)) != NULL;
}

static int has_tiobench_title(const char *buf, size_t len)
{
	int i;

	for (i = 0; i < TIOBENCH_NPHASES; i++)
		if (has(buf, len, tiobench_phases[i].title))
			return 1;
	return 0;
}

enum import_format import_detect(const char *buf, size_t len)
{
	const char *brace = memchr(buf, '{', len);

	if (brace && has(buf, len, "\"klab-results/1\""))
		return IMPORT_KLAB;
	if (brace && has(buf, len, "\"jobs\"") &&
	    (has(buf, len, "\"fio version\"") || has(buf, len, "\"jobname\"")))
		return IMPORT_FIO;
	if (has_tiobench_title(buf, len) && has(buf, len, "---"))
		return IMPORT_TIOBENCH;
	if (has(buf, len, "Throughput") && has(buf, len, "MB/sec"))
		return IMPORT_DBENCH;
	if (has(buf, len, "read latency") || has(buf, len, "reads:"))
		return IMPORT_READLAT;
	return IMPORT_AUTO;
}

/*
 * Sets out->format to the importer's name, except for klab documents that
 * name their own format.  Returns the number of results added, or -1.
 */
int import_text(const char *buf, size_t len, enum import_format fmt,
		const char *kernel, struct result_set *out,
		struct import_error *err)
{
	char why[300];
	size_t i;
	int n;

	if (!buf)
		len = 0;
	if (kernel && ident_checks(IDENT_KERNEL, kernel, why, sizeof(why)))
		return import_fail(err, 0, "kernel", "%s", why);
	if (fmt == IMPORT_AUTO)
		fmt = import_detect(buf ? buf : "", len);
	if (fmt == IMPORT_AUTO)
		return import_fail(err, 0, "format", "cannot tell the format: "
				   "no tiobench table, dbench Throughput line, "
				   "read latency line, fio or klab JSON found");
	for (i = 1; i < NFORMATS; i++)
		if (formats[i].fmt == fmt)
			break;
	if (i == NFORMATS)
		return import_fail(err, 0, "format", "unknown format %d",
				   (int)fmt);
	n = formats[i].parse(buf ? buf : "", len, kernel, out, err);
	if (n < 0)
		return -1;
	if (fmt != IMPORT_KLAB)
		result_set_setstr(&out->format, formats[i].name);
	return n;
}
