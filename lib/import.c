// SPDX-License-Identifier: MIT
/*
 * import: format names, format detection and the import_text dispatcher in
 * front of the individual parsers (import_tiobench.c, import_dbench.c,
 * import_readlat.c, import_fio.c, import_klab.c).  Detection looks for the
 * markers each tool prints, in an order that puts the unambiguous JSON
 * documents first; a text holding several kinds goes to import_mail.c,
 * which hands each kind's lines to its parser.
 */
#include "import.h"

#include <jansson.h>
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
	{ IMPORT_MAIL, "mail", NULL },
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
 * The format of a text, and whether it mixes kinds (IMPORT_MAIL, also
 * when a result in it is malformed: import_mail names it).  The one kind
 * of dbench or read latency results found, even where the line breaks
 * of a re-flowed mail hide the markers import_detect looks for.
 */
static enum import_format detect_all(const char *buf, size_t len)
{
	enum import_format f = import_detect(buf, len);
	int tio = has_tiobench_title(buf, len) && has(buf, len, "---");
	int kinds;

	if (f == IMPORT_KLAB || f == IMPORT_FIO)
		return f;
	kinds = import_mail_kinds(buf, len, tio);
	if (kinds < 0 || (kinds & (kinds - 1)))
		return IMPORT_MAIL;
	if (kinds == 1 << IMPORT_DBENCH)
		return IMPORT_DBENCH;
	if (kinds == 1 << IMPORT_READLAT)
		return IMPORT_READLAT;
	return f;
}

/*
 * Sets out->format to the importer's name, except for klab documents that
 * name their own format.  Returns the number of results added, or -1.
 */
int import_text_report(const char *buf, size_t len, enum import_format fmt,
		       const char *kernel, struct result_set *out,
		       struct import_report *rep, struct import_error *err)
{
	char why[300];
	size_t i, before = out->n;
	int n;

	if (rep)
		memset(rep, 0, sizeof(*rep));
	if (!buf)
		len = 0;
	if (kernel && ident_checks(IDENT_KERNEL, kernel, why, sizeof(why)))
		return import_fail(err, 0, "kernel", "%s", why);
	if (fmt == IMPORT_AUTO)
		fmt = detect_all(buf ? buf : "", len);
	if (fmt == IMPORT_AUTO)
		return import_fail(err, 0, "format", "cannot tell the format: "
				   "no tiobench table, dbench Throughput line, "
				   "read latency line, fio or klab JSON found");
	if (fmt == IMPORT_MAIL)
		return import_mail(buf ? buf : "", len, kernel, out, rep, err);
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
	if (rep) {
		rep->nparts = 1;
		rep->part[0].fmt = fmt;
		rep->part[0].first = before;
		rep->part[0].n = (size_t)n;
	}
	return n;
}

int import_text(const char *buf, size_t len, enum import_format fmt,
		const char *kernel, struct result_set *out,
		struct import_error *err)
{
	return import_text_report(buf, len, fmt, kernel, out, NULL, err);
}

/* The kernels of rs->v[first .. first + n) with their counts. */
static json_t *part_kernels(const struct result_set *rs, size_t first,
			    size_t n)
{
	json_t *list = json_array(), *idx = json_object(), *e;
	const char *k;
	size_t i;

	for (i = first; i < first + n && i < rs->n; i++) {
		k = rs->v[i].kernel ? rs->v[i].kernel : rs->kernel;
		if (!k)
			continue;
		e = json_object_get(idx, k);
		if (!e) {
			e = json_pack("{s:s, s:I}", "kernel", k, "results",
				      (json_int_t)0);
			json_array_append_new(list, e);
			json_object_set(idx, k, e);
		}
		json_object_set_new(e, "results", json_integer(
			json_integer_value(json_object_get(e, "results")) + 1));
	}
	json_decref(idx);
	return list;
}

json_t *import_report_json(const struct import_report *rep,
			   const struct result_set *rs)
{
	json_t *parts = json_array();
	size_t i;

	for (i = 0; rep && i < rep->nparts; i++)
		json_array_append_new(parts, json_pack("{s:s, s:I, s:o}",
			"format", import_format_name(rep->part[i].fmt),
			"results", (json_int_t)rep->part[i].n, "kernels",
			part_kernels(rs, rep->part[i].first,
				     rep->part[i].n)));
	return parts;
}
