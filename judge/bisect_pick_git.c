// SPDX-License-Identifier: MIT
/*
 * Reading `git bisect`'s output (see bisect_pick_git.h): line by line, the
 * first line that says what happened decides.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_pick_git.h"

#define FIRST_BAD " is the first bad commit"
#define ONLY_SKIP "There are only 'skip'ped commits left to test."
#define BISECTING "Bisecting: "

int bisect_git_is_hex(const char *s, size_t len)
{
	size_t i;

	if (len < 4 || len > BIS_GIT_HEX_MAX)
		return 0;
	for (i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]) ||
		    isupper((unsigned char)s[i]))
			return 0;
	return 1;
}

/* "N revision(s) left to test after this (roughly K step(s))" */
static void parse_left(const char *l, struct bis_git_out *o)
{
	const char *p;
	char *end;
	long v;

	v = strtol(l, &end, 10);
	if (end != l && v >= 0 && v < 1L << 30)
		o->revs_left = (int)v;
	p = strstr(l, "(roughly ");
	if (p) {
		p += strlen("(roughly ");
		v = strtol(p, &end, 10);
		if (end != p && v >= 0 && v < 1L << 30)
			o->steps_left = (int)v;
	}
}

void bisect_git_parse(const char *out, struct bis_git_out *o)
{
	const char *l = out, *nl;
	size_t len, hl;

	memset(o, 0, sizeof(*o));
	o->state = BIS_GIT_UNKNOWN;
	o->revs_left = o->steps_left = -1;
	for (; *l; l = *nl ? nl + 1 : nl) {
		nl = strchr(l, '\n');
		if (!nl)
			nl = l + strlen(l);
		len = (size_t)(nl - l);
		hl = strcspn(l, " \n");
		if (len == hl + strlen(FIRST_BAD) &&
		    !strncmp(l + hl, FIRST_BAD, strlen(FIRST_BAD)) &&
		    bisect_git_is_hex(l, hl)) {
			snprintf(o->commit, sizeof(o->commit), "%.*s",
				 (int)hl, l);
			o->state = BIS_GIT_FOUND;
			return;
		}
		if (!strncmp(l, ONLY_SKIP, strlen(ONLY_SKIP))) {
			o->state = BIS_GIT_CANNOT;
			return;
		}
		if (!strncmp(l, BISECTING, strlen(BISECTING))) {
			parse_left(l + strlen(BISECTING), o);
			o->state = BIS_GIT_TEST;
			return;
		}
	}
}
