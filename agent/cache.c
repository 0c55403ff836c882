// SPDX-License-Identifier: MIT
/*
 * The rig's boot-file cache (see cache.h): entries named by their sha256,
 * checked by hashing before every use, least recently used (oldest
 * mtime) evicted first.  Partial downloads ("KEY.part") left by a boot
 * that died mid-download are swept by the eviction too.
 */
#include "agent/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "lib/sha256.h"

struct cache_item {
	char key[SHA256_HEX_LEN + 1];
	unsigned long long bytes;
	struct timespec used;
};

int cache_key_ok(const char *s)
{
	return sha256_hex_ok(s);
}

void cache_entry_path(struct strbuf *out, const char *dir, const char *key)
{
	sb_addf(out, "%s/%s", dir, key);
}

int cache_entry_touch(const char *dir, const char *key)
{
	struct strbuf path = STRBUF_INIT;
	int rc;

	sb_init(&path);
	cache_entry_path(&path, dir, key);
	rc = utimensat(AT_FDCWD, path.buf, NULL, 0);
	sb_release(&path);
	return rc;
}

int cache_entry_check(const char *dir, const char *key, struct strbuf *path)
{
	char got[SHA256_HEX_LEN + 1];

	cache_entry_path(path, dir, key);
	if (!cache_key_ok(key) || sha256_file_hex(path->buf, got))
		return CACHE_MISS;
	if (strcmp(got, key)) {
		unlink(path->buf);
		return CACHE_CORRUPT;
	}
	utimensat(AT_FDCWD, path->buf, NULL, 0);
	return CACHE_HIT;
}

unsigned long long cache_limit(const char *dir, unsigned long long max)
{
	struct statvfs st;

	if (max)
		return max;
	if (statvfs(dir, &st))
		return 0;
	return (unsigned long long)st.f_blocks * st.f_frsize / 4 * 3;
}

static int cache_kept(const char *key, const char *const *keep)
{
	for (; keep && *keep; keep++)
		if (!strcmp(*keep, key))
			return 1;
	return 0;
}

/* Oldest first; ties by key so the order is stable. */
static int cache_item_cmp(const void *a, const void *b)
{
	const struct cache_item *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* A leftover partial download: KEY.part. */
static int cache_is_part(const char *name)
{
	return strlen(name) == SHA256_HEX_LEN + 5 &&
	       !strcmp(name + SHA256_HEX_LEN, ".part");
}

/* The entries of dir into *items (partial downloads removed). */
static int cache_scan(const char *dir, struct cache_item **items, size_t *n,
		      char *err, size_t errlen)
{
	struct strbuf path = STRBUF_INIT;
	struct cache_item *v;
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);

	*items = NULL;
	*n = 0;
	if (!d) {
		snprintf(err, errlen, "cannot list cache '%s': %s", dir,
			 strerror(errno));
		return -1;
	}
	sb_init(&path);
	for (e = readdir(d); e; e = readdir(d)) {
		sb_reset(&path);
		cache_entry_path(&path, dir, e->d_name);
		if (cache_is_part(e->d_name)) {
			unlink(path.buf);
			continue;
		}
		if (!cache_key_ok(e->d_name) || lstat(path.buf, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		v = realloc(*items, (*n + 1) * sizeof(*v));
		if (!v)
			abort();
		*items = v;
		memcpy(v[*n].key, e->d_name, sizeof(v[*n].key));
		v[*n].bytes = (unsigned long long)st.st_size;
		v[*n].used = st.st_mtim;
		(*n)++;
	}
	closedir(d);
	sb_release(&path);
	return 0;
}

int cache_evict(const char *dir, unsigned long long limit,
		const char *const *keep, unsigned long long *left, char *err,
		size_t errlen)
{
	struct strbuf path = STRBUF_INIT;
	struct cache_item *items;
	unsigned long long total = 0;
	size_t n, i;
	int removed = 0;

	if (cache_scan(dir, &items, &n, err, errlen))
		return -1;
	for (i = 0; i < n; i++)
		total += items[i].bytes;
	if (n)
		qsort(items, n, sizeof(*items), cache_item_cmp);
	sb_init(&path);
	for (i = 0; i < n && total > limit; i++) {
		if (cache_kept(items[i].key, keep))
			continue;
		sb_reset(&path);
		cache_entry_path(&path, dir, items[i].key);
		if (unlink(path.buf) == 0) {
			total -= items[i].bytes;
			removed++;
		}
	}
	sb_release(&path);
	free(items);
	if (left)
		*left = total;
	return removed;
}
