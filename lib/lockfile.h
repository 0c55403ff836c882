/* SPDX-License-Identifier: MIT */
/*
 * lockfile: one process at a time on a resource, by an exclusive flock(2)
 * on a file beside it that holds the owner's pid.  The lock goes with the
 * process, however it ends (a SIGKILL included), and is never inherited
 * across exec (the descriptor is close-on-exec).
 */
#ifndef KLAB_LOCKFILE_H
#define KLAB_LOCKFILE_H

#include <stddef.h>

/*
 * Take the lock on path (created, mode 0600) without waiting, and write
 * this process's pid into it.  The descriptor that holds it (close it to
 * let go), or -1 with err filled: "'PATH' is locked by pid N" (or "by
 * another process" when its pid cannot be read) when another holds it.
 */
int lockfile_take(const char *path, char *err, size_t errlen);

#endif
