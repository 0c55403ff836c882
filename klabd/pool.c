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
#include "lib/alloc.h"

struct klabd_pool {
	pthread_mutex_t lock;	/* the idle handles, KLABD_POOL_MAX */
	struct db **idle;	/* oldest first */
	size_t n, alloc;
};

struct klabd_pool *klabd_pool_create(void)
{
	struct klabd_pool *p = xcalloc(1, sizeof(*p));

	pthread_mutex_init(&p->lock, NULL);
	return p;
}

void klabd_pool_destroy(struct klabd_pool *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		db_close(p->idle[i]);
	free(p->idle);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

struct db *klabd_db_get(struct klabd *d, char *err, size_t errlen)
{
	struct klabd_pool *p = d->pool;
	struct db *db = NULL;

	/* the oldest idle handle first: requests go round the pool, so each
	 * handle prepares the lab's statements in the warm-up, not hours
	 * later at a burst (docs/PERFORMANCE-LOG.md, the fifth soak) */
	pthread_mutex_lock(&p->lock);
	if (p->n) {
		db = p->idle[0];
		memmove(p->idle, p->idle + 1, --p->n * sizeof(*p->idle));
	}
	pthread_mutex_unlock(&p->lock);
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
	struct klabd_pool *p = d->pool;

	if (!db)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->n >= KLABD_POOL_MAX) {
		/* a burst of clients is over: keep a few handles, not all */
		pthread_mutex_unlock(&p->lock);
		db_close(db);
		return;
	}
	ALLOC_GROW(p->idle, p->n, p->alloc);
	p->idle[p->n++] = db;
	pthread_mutex_unlock(&p->lock);
}

void klabd_mem(struct klabd *d, struct klabd_mem *m)
{
	struct klabd_pool *p = d->pool;
	struct mallinfo2 mi = mallinfo2();
	size_t i;

	memset(m, 0, sizeof(*m));
	m->heap = (long long)mi.arena;
	m->in_use = (long long)(mi.uordblks + mi.hblkhd);
	m->free = (long long)mi.fordblks;
	m->mmapped = (long long)mi.hblkhd;
	pthread_mutex_lock(&p->lock);
	m->pool_idle = (long long)p->n;
	for (i = 0; i < p->n; i++) {
		m->pool_cache += db_cache_bytes(p->idle[i]);
		m->pool_stmt += db_stmt_bytes(p->idle[i]);
	}
	pthread_mutex_unlock(&p->lock);
	m->slab_used = db_pagecache_lines();
}

void klabd_housekeep(struct klabd *d)
{
	struct klabd_pool *p = d->pool;
	size_t i;

	/* a handle in the pool is no thread's: the lock keeps it so */
	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->n; i++)
		db_release_memory(p->idle[i]);
	pthread_mutex_unlock(&p->lock);
	malloc_trim(0);
}

void klabd_db_close_idle(struct klabd *d)
{
	struct klabd_pool *p = d->pool;
	size_t i;

	/* under the lock: the drivers still take and return handles (they
	 * stop after HTTP), and a handle one takes is its own until put */
	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->n; i++)
		db_close(p->idle[i]);
	free(p->idle);
	p->idle = NULL;
	p->n = p->alloc = 0;
	pthread_mutex_unlock(&p->lock);
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
