/* SPDX-License-Identifier: MIT */
/*
 * bisect_pick_git: what `git bisect` said, pure (no git, no database).  A git
 * bisection (flow/bisect_git.c) lets git choose the commits: after
 * `git bisect start --no-checkout BAD GOOD` and each `git bisect good|bad
 * |skip COMMIT`, git prints either the next step ("Bisecting: N revisions
 * left to test after this (roughly K steps)", the commit in BISECT_HEAD),
 * or the answer ("HASH is the first bad commit"), or that only skipped
 * commits are left ("There are only 'skip'ped commits left to test.").
 */
#ifndef KLAB_JUDGE_BISECT_PICK_GIT_H
#define KLAB_JUDGE_BISECT_PICK_GIT_H

#include <stddef.h>

enum bis_git_state {
	BIS_GIT_TEST = 0,	/* test the commit in BISECT_HEAD */
	BIS_GIT_FOUND,		/* first bad is .commit */
	BIS_GIT_CANNOT,		/* only skipped commits left */
	BIS_GIT_UNKNOWN,	/* none of these: an error */
};

#define BIS_GIT_HEX_MAX 64	/* sha256 */

struct bis_git_out {
	enum bis_git_state state;
	char commit[BIS_GIT_HEX_MAX + 1];	/* FOUND: the full hash */
	int revs_left;		/* TEST: "N revisions left", -1: unknown */
	int steps_left;		/* TEST: "roughly K steps", -1: unknown */
};

/* Read git bisect's output out (stdout), into *o. */
void bisect_git_parse(const char *out, struct bis_git_out *o);
/* A full or abbreviated hexadecimal object name of 4..64 digits. */
int bisect_git_is_hex(const char *s, size_t len);

#endif
