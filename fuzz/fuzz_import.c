// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for every importer (lib/import*.c) and the
 * klab-results/1 reader.  The first input byte picks the format (AUTO,
 * tiobench, dbench, readlat, fio, klab, mail) and whether a default
 * kernel is given; the rest is the text.  Besides the sanitizers' checks
 * it asserts the importer contract: a failure leaves the output untouched
 * and names a reason, a success yields results that survive the JSON
 * round trip and a report whose kinds cover them exactly.
 * Build and run: see fuzz/run.sh and docs/RESULTS.md.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const struct result_set *rs, int n)
{
	struct result_set back;
	struct import_error err;
	json_t *doc = result_set_to_json(rs);
	size_t i;

	if (!doc)
		abort();
	result_set_init(&back);
	if (result_set_from_json(&back, doc, &err) || back.n != (size_t)n)
		abort();
	for (i = 0; i < back.n; i++)
		if (strcmp(back.v[i].metric, rs->v[i].metric) ||
		    back.v[i].value != rs->v[i].value)
			abort();
	result_set_release(&back);
	json_decref(doc);
}

/* The kinds of rep, in order, are every result of rs exactly once. */
static void check_report(const struct import_report *rep,
			 const struct result_set *rs, int n)
{
	size_t i, at = 0;
	json_t *j;

	if (rep->nparts < 1 || rep->nparts > IMPORT_MAX_PARTS)
		abort();
	for (i = 0; i < rep->nparts; i++) {
		if (rep->part[i].first != at)
			abort();
		at += rep->part[i].n;
	}
	if (at != (size_t)n)
		abort();
	j = import_report_json(rep, rs);
	if (json_array_size(j) != rep->nparts)
		abort();
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct result_set rs;
	struct import_error err;
	struct import_report rep;
	enum import_format f;
	const char *kernel;
	char *buf;
	int n;

	if (size < 1)
		return 0;
	f = (enum import_format)(data[0] % 7);
	kernel = (data[0] & 0x80) ? "6.1.176" : NULL;
	buf = malloc(size - 1 ? size - 1 : 1);	/* exact size: no NUL */
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	(void)import_detect(buf, size - 1);
	result_set_init(&rs);
	memset(&err, 0, sizeof(err));
	n = import_text_report(buf, size - 1, f, kernel, &rs, &rep, &err);
	if (n < 0) {
		if (rs.n != 0 || !err.msg[0] || !memchr(err.msg, 0, 256))
			abort();
	} else {
		if (rs.n != (size_t)n || !rs.format)
			abort();
		round_trip(&rs, n);
		check_report(&rep, &rs, n);
	}
	result_set_release(&rs);
	free(buf);
	return 0;
}
