// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the patch checker (lib/patchcheck.c): the input is
 * one submitted patch.  Besides the sanitizers' checks it asserts what
 * klabd relies on: the answer is 0 or -1; a refusal names a line of the
 * input and a reason of the known kinds; a patch that passes holds no
 * line that makes a symbolic link, renames or copies (the same lines a
 * plain scan finds); and the answer does not depend on the bytes after
 * the line that decided it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/patchcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const forbidden[] = {
	"new file mode 120000", "deleted file mode 120000", "old mode 120000",
	"new mode 120000", "rename from ", "rename to ", "copy from ",
	"copy to ",
};

/* A line of t starting with one of forbidden[]; its 1-based number. */
static size_t forbidden_line(const char *t, size_t len)
{
	const char *p = t, *end = t + len, *nl;
	size_t no = 0, i, k;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		k = (size_t)((nl ? nl : end) - p);
		no++;
		for (i = 0; i < sizeof(forbidden) / sizeof(*forbidden); i++)
			if (k >= strlen(forbidden[i]) &&
			    !memcmp(p, forbidden[i], strlen(forbidden[i])))
				return no;
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

/* Lines in t, counting a last one without a newline. */
static size_t lines(const char *t, size_t len)
{
	size_t n = 0, i;

	for (i = 0; i < len; i++)
		n += t[i] == '\n';
	return n + (len && t[len - 1] != '\n');
}

/* The bytes of t up to the end of line no (a copy, NUL added). */
static char *upto(const char *t, size_t len, size_t no, size_t *outlen)
{
	size_t i = 0, seen = 0;
	char *c;

	while (i < len && seen < no)
		seen += t[i++] == '\n';
	c = malloc(i + 1);
	if (!c)
		abort();
	memcpy(c, t, i);
	c[i] = '\0';
	*outlen = i;
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data;
	char why[300], why2[300];
	size_t line = 0, line2 = 0, n, f;
	char *head;
	int rc = patch_check(t, size, why, sizeof(why), &line);

	if (rc != 0 && rc != -1)
		abort();
	f = forbidden_line(t, size);
	if (rc == 0) {
		if (f)
			abort();	/* a link or a rename let through */
		return 0;
	}
	if (!line || line > lines(t, size) || (f && f < line) ||
	    strncmp(why, "it ", 3))
		abort();
	/* what follows the deciding line changes nothing */
	head = upto(t, size, line, &n);
	if (patch_check(head, n, why2, sizeof(why2), &line2) != -1 ||
	    line2 != line || strcmp(why, why2))
		abort();
	free(head);
	return 0;
}
