/* SPDX-License-Identifier: MIT */
/*
 * git: running git on a repository of the configuration (a [base NAME]
 * git = PATH, a bisection's private clone): an argument vector through
 * lib/proc.h with a timeout, never a shell.  Bisections (flow/bisect_git.c)
 * and tracked git lines (flow/track_git.c) both call it.
 */
#ifndef KLAB_LIB_GIT_H
#define KLAB_LIB_GIT_H

#include <stddef.h>

#include "lib/strbuf.h"

#define GIT_TIMEOUT_MS (300 * 1000)

/* git -C dir args... (at most 20): its exit status, its stdout into out
 * (emptied first; may be NULL), or -1 with err set; err holds git's last
 * stderr line when it fails. */
int git_run(const char *dir, const char *const *args, struct strbuf *out,
	    char *err, size_t errlen);
/* Drop the line ends at the end of sb. */
void git_chomp(struct strbuf *sb);

#endif
