// SPDX-License-Identifier: MIT
/*
 * patchcheck: what a submitted patch may do to a kernel tree (see
 * patchcheck.h).  One pass over the lines, holding only the previous
 * line and the file of the last "diff --git" header.
 */
#include <stdio.h>
#include <string.h>

#include "patchcheck.h"

struct pc_line {
	const char *s;
	size_t n;
};

static int starts(const struct pc_line *l, const char *p)
{
	size_t k = strlen(p);

	return l->n >= k && !memcmp(l->s, p, k);
}

/* The path of a "--- "/"+++ " header at s (n bytes): up to a tab, with
 * its first component dropped (-p1); n 0 for /dev/null. */
static struct pc_line header_path(const char *s, size_t n)
{
	struct pc_line p = { s, n };
	const char *tab = memchr(s, '\t', n), *sl;

	if (tab)
		p.n = (size_t)(tab - s);
	if (p.n == 9 && !memcmp(p.s, "/dev/null", 9)) {
		p.n = 0;
		return p;
	}
	sl = memchr(p.s, '/', p.n);
	if (sl && sl != p.s) {
		p.n -= (size_t)(sl + 1 - p.s);
		p.s = sl + 1;
	}
	return p;
}

/* Absolute, or a ".." component anywhere. */
static int path_outside(struct pc_line p)
{
	size_t i = 0, j;

	if (p.n && p.s[0] == '/')
		return 1;
	while (i < p.n) {
		for (j = i; j < p.n && p.s[j] != '/'; j++)
			;
		if (j - i == 2 && p.s[i] == '.' && p.s[i + 1] == '.')
			return 1;
		i = j + 1;
	}
	return 0;
}

/* The b/ path of "diff --git a/X b/Y": Y, or empty. */
static struct pc_line git_path(const struct pc_line *l)
{
	struct pc_line p = { "", 0 };
	const char *b = NULL, *s = l->s + 11, *end = l->s + l->n;

	for (; s + 3 <= end; s++)
		if (s[0] == ' ' && s[1] != ' ')
			b = s + 1;
	if (b)
		p = header_path(b, (size_t)(end - b));
	return p;
}

static int refuse(char *why, size_t len, const char *what,
		  struct pc_line p)
{
	snprintf(why, len, "it %s (%.*s)", what, (int)(p.n > 200 ? 200 : p.n),
		 p.s);
	return -1;
}

/* The rule on line l, prev the line before; -1 with why when broken. */
static int check_line(const struct pc_line *l, const struct pc_line *prev,
		      struct pc_line *file, char *why, size_t whylen)
{
	static const char *const link_modes[] = {
		"new file mode 120000", "deleted file mode 120000",
		"old mode 120000", "new mode 120000",
	};
	static const char *const moves[] = {
		"rename from ", "rename to ", "copy from ", "copy to ",
	};
	struct pc_line a, b;
	size_t i;

	if (starts(l, "diff --git "))
		*file = git_path(l);
	for (i = 0; i < sizeof(link_modes) / sizeof(*link_modes); i++)
		if (starts(l, link_modes[i]))
			return refuse(why, whylen, "makes or changes a "
				      "symbolic link", *file);
	for (i = 0; i < sizeof(moves) / sizeof(*moves); i++)
		if (starts(l, moves[i]))
			return refuse(why, whylen, "renames or copies a file",
				      *file);
	if (!starts(l, "+++ ") || !starts(prev, "--- "))
		return 0;
	a = header_path(prev->s + 4, prev->n - 4);
	b = header_path(l->s + 4, l->n - 4);
	if (path_outside(b))
		return refuse(why, whylen, "names a path outside the tree", b);
	if (path_outside(a))
		return refuse(why, whylen, "names a path outside the tree", a);
	return 0;
}

int patch_check(const char *text, size_t len, char *why, size_t whylen,
		size_t *line)
{
	const char *p = text, *end = text + len, *nl;
	struct pc_line l, prev = { "", 0 }, file = { "", 0 };
	size_t no = 0;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		l.s = p;
		l.n = (size_t)((nl ? nl : end) - p);
		if (l.n && l.s[l.n - 1] == '\r')
			l.n--;
		no++;
		if (check_line(&l, &prev, &file, why, whylen)) {
			*line = no;
			return -1;
		}
		prev = l;
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}
