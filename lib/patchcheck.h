/* SPDX-License-Identifier: MIT */
/*
 * patchcheck: the rule a submitted patch meets before klabd stores it.
 * A patch builds a kernel, so what it may do to the tree is narrow: it
 * edits, adds and removes regular files inside the tree, nothing else.
 * Refused, by name: a symbolic link made, changed or removed (git's mode
 * 120000), a rename or a copy (git's "rename from", "copy to" ...), and a
 * "--- "/"+++ " header whose path (after -p1) is absolute or climbs out
 * with "..".  kernels/build-lib.sh's patch_scan applies the same rule
 * again inside the build sandbox, for builds started by hand.
 *
 * The caps of one request: PATCH_MAX_FILES files, PATCH_MAX_PIECES
 * patches after a series is split, PATCH_MAX_BYTES bytes in all.
 */
#ifndef KLAB_PATCHCHECK_H
#define KLAB_PATCHCHECK_H

#include <stddef.h>

#define PATCH_MAX_FILES 64
#define PATCH_MAX_PIECES 200
#define PATCH_MAX_BYTES (16u << 20)

/*
 * 0 when the len bytes at text meet the rule.  Else -1, with why set to
 * the reason ("it makes or changes a symbolic link (fs/x)", "it names a
 * path outside the tree (../etc/passwd)") and *line to the 1-based line
 * that broke it.
 */
int patch_check(const char *text, size_t len, char *why, size_t whylen,
		size_t *line);

#endif
