// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the splitting of a submitted patch series
 * (flow/submissions_check.c, sub_series_split): the input is one
 * uploaded file, an mbox or git format-patch output or anything else.
 * Besides the sanitizers' checks it asserts what a submission relies on:
 * the count is -1 (full), 0 (no diff) or the patches found, each with a
 * name that is the file's (or "FILE[i/k]") and a subject without control
 * bytes, at most SUB_SUBJECT_MAX long; a file with no "--- " line
 * followed by a "+++ " line has no patch.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flow/submissions.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A "--- " line followed by a "+++ " line somewhere in the text. */
static int has_diff(const char *t, size_t len)
{
	const char *p = t, *end = t + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return 0;
		if (end - p > 4 && !memcmp(p, "--- ", 4) && end - nl > 5 &&
		    !memcmp(nl + 1, "+++ ", 4))
			return 1;
		p = nl + 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char subj[SUB_MAX_PATCHES][SUB_SUBJECT_MAX + 1];
	static struct db_sub_patch p[SUB_MAX_PATCHES];
	struct sub_file f = { "fuzz.mbox", (const char *)data, size };
	size_t n = 0, i, j;
	int k = sub_series_split(&f, p, &n, subj);

	if (k < -1 || (k >= 0 && (size_t)k != n) || n > SUB_MAX_PATCHES)
		abort();
	if (k > 0 && !has_diff(f.text, size))
		abort();
	for (i = 0; i < n; i++) {
		if (strncmp(p[i].name, "fuzz.mbox", 9) ||
		    strlen(p[i].subject) > SUB_SUBJECT_MAX)
			abort();
		for (j = 0; p[i].subject[j]; j++)
			if ((unsigned char)p[i].subject[j] < 32)
				abort();
		free(p[i].name);
	}
	return 0;
}
