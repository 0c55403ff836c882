// SPDX-License-Identifier: MIT
/*
 * The pool of database handles every thread of klabd shares: request
 * threads, the rig manager, the builders, the workflow drivers and the
 * alert thread take one (klabd_db_get) and give it back (klabd_db_put).
 * It lives with klabd's main, below every room that uses it, so no room
 * depends on the HTTP server for its database.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/db.h"
#include "klabd/klabd.h"

struct db *klabd_db_get(struct klabd *d, char *err, size_t errlen)
{
	struct db *db = NULL;

	/* the oldest idle handle first: requests go round the pool, so each
	 * handle prepares the lab's statements in the warm-up, not hours
	 * later at a burst (docs/PERFORMANCE-LOG.md, the fifth soak) */
	pthread_mutex_lock(&d->pool_lock);
	if (d->npool) {
		db = d->pool[0];
		memmove(d->pool, d->pool + 1, --d->npool * sizeof(*d->pool));
	}
	pthread_mutex_unlock(&d->pool_lock);
	if (!db)
		db = db_open(d->db_path, err, errlen);
	return db;
}

struct db *klabd_db_get_logged(struct klabd *d, const char *what)
{
	struct db *db;
	char err[256];

	db = klabd_db_get(d, err, sizeof(err));
	if (!db)
		fprintf(stderr, "klabd: %s: %s\n", what, err);
	return db;
}

void klabd_db_put(struct klabd *d, struct db *db)
{
	if (!db)
		return;
	pthread_mutex_lock(&d->pool_lock);
	if (d->npool >= KLABD_POOL_MAX) {
		/* a burst of clients is over: keep a few handles, not all */
		pthread_mutex_unlock(&d->pool_lock);
		db_close(db);
		return;
	}
	if (d->npool == d->pool_alloc) {
		size_t na = d->pool_alloc ? d->pool_alloc * 2 : 8;
		struct db **p = realloc(d->pool, na * sizeof(*p));

		if (!p) {
			pthread_mutex_unlock(&d->pool_lock);
			db_close(db);
			return;
		}
		d->pool = p;
		d->pool_alloc = na;
	}
	d->pool[d->npool++] = db;
	pthread_mutex_unlock(&d->pool_lock);
}

void klabd_mem(struct klabd *d, struct klabd_mem *m)
{
	struct mallinfo2 mi = mallinfo2();
	size_t i;

	memset(m, 0, sizeof(*m));
	m->heap = (long long)mi.arena;
	m->in_use = (long long)(mi.uordblks + mi.hblkhd);
	m->free = (long long)mi.fordblks;
	m->mmapped = (long long)mi.hblkhd;
	pthread_mutex_lock(&d->pool_lock);
	m->pool_idle = (long long)d->npool;
	for (i = 0; i < d->npool; i++) {
		m->pool_cache += db_cache_bytes(d->pool[i]);
		m->pool_stmt += db_stmt_bytes(d->pool[i]);
	}
	pthread_mutex_unlock(&d->pool_lock);
	m->slab_used = db_pagecache_lines();
}

void klabd_housekeep(struct klabd *d)
{
	size_t i;

	/* a handle in the pool is no thread's: the lock keeps it so */
	pthread_mutex_lock(&d->pool_lock);
	for (i = 0; i < d->npool; i++)
		db_release_memory(d->pool[i]);
	pthread_mutex_unlock(&d->pool_lock);
	malloc_trim(0);
}

void klabd_db_close_idle(struct klabd *d)
{
	size_t i;

	/* under the lock: the drivers still take and return handles (they
	 * stop after HTTP), and a handle one takes is its own until put */
	pthread_mutex_lock(&d->pool_lock);
	for (i = 0; i < d->npool; i++)
		db_close(d->pool[i]);
	free(d->pool);
	d->pool = NULL;
	d->npool = d->pool_alloc = 0;
	pthread_mutex_unlock(&d->pool_lock);
}

/* The database holds token hashes and results: owner only, with the
 * WAL files sqlite creates beside it. */
void klabd_db_private(const char *path)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	char p[4096];
	size_t i;

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, sfx[i]);
		if (chmod(p, 0600) && errno != ENOENT)
			fprintf(stderr, "klabd: cannot chmod '%s': %s\n", p,
				strerror(errno));
	}
}
