/* SPDX-License-Identifier: MIT */
/*
 * The rig's boot-file cache: kernels and initramfs images the agent has
 * already downloaded and verified, kept on the rig's own disk (a QEMU
 * rig's cache disk, a remote rig's klab.cache= device or directory) so
 * that a repeated cell downloads nothing (docs/AGENT.md, "Boot-file
 * cache").  One flat directory; each entry is a file named by the
 * lowercase hex sha256 of its content.  An entry is used only after its
 * content hashed to its name again; recency is the entry's mtime
 * (touched on every use) and the oldest entries go first when the cache
 * is over its limit.  Pure: libc and lib/ only, no logging.
 */
#ifndef KLAB_AGENT_CACHE_H
#define KLAB_AGENT_CACHE_H

#include <stddef.h>

#include "lib/strbuf.h"

enum cache_state {
	CACHE_MISS = 0,		/* no entry */
	CACHE_HIT = 1,		/* entry checked and touched */
	CACHE_CORRUPT = 2,	/* entry did not hash to its name: removed */
};

/* Is s a cache key: 64 lowercase hex digits? */
int cache_key_ok(const char *s);
/* Append dir/key to out. */
void cache_entry_path(struct strbuf *out, const char *dir, const char *key);
/*
 * Look up key in dir: hash the entry, touch it on a match, remove it on
 * a mismatch.  Returns a cache_state; path gets dir/key in every case.
 */
int cache_entry_check(const char *dir, const char *key, struct strbuf *path);
/* Mark dir/key as just used (mtime = now). 0, or -1 with errno. */
int cache_entry_touch(const char *dir, const char *key);
/*
 * Bytes dir's entries may take: max when not 0, else three quarters of
 * the file system holding dir (room for one more download).  0 when dir
 * cannot be measured.
 */
unsigned long long cache_limit(const char *dir, unsigned long long max);
/*
 * Remove the least recently used entries of dir (and leftover partial
 * downloads) until the entries take at most limit bytes; keys in keep
 * (NULL-terminated, may be NULL) are never removed.  Returns the number
 * of entries removed, *left (if not NULL) the bytes still cached, or -1
 * with err filled when dir cannot be read.
 */
int cache_evict(const char *dir, unsigned long long limit,
		const char *const *keep, unsigned long long *left, char *err,
		size_t errlen);

#endif
