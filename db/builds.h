/* SPDX-License-Identifier: MIT */
/*
 * builds: kernel build requests and their outcome.  A build is a base tree
 * plus an ordered patch series plus the lab config; lab/build.c
 * runs kernels/build-kernel.sh for it and, on success, puts the kernel in
 * the catalog under ident.
 */
#ifndef KLAB_DB_BUILDS_H
#define KLAB_DB_BUILDS_H

#include <stdint.h>

#include "db.h"

struct db_build {
	int64_t id;
	char *ident;		/* requested, or from the record when built */
	char *base;		/* "debian-6.1", "git:PATH@C", "dir:PATH" */
	char *patches;		/* patch files, '\n' separated, in order */
	char *state;		/* queued building done failed */
	char *error;
	char *record;		/* build-kernel.sh's key=value output */
	char *log;		/* path of build.log, "" */
	int64_t created, finished;
	char *owner;		/* who asked: a token's name, "" the lab */
	int may_replace;	/* its kernel may replace another's (an
				 * operator's request, or the lab's own) */
};

int db_build_add(struct db *db, const char *ident, const char *base,
		 const char *patches, const char *owner, int may_replace,
		 int64_t *id);
int db_build_get(struct db *db, int64_t id, struct db_build *out);
int db_build_list(struct db *db, int limit, struct db_build **out,
		  size_t *n);
/* Oldest queued build, marked "building": DB_NOTFOUND when none. */
int db_build_take(struct db *db, struct db_build *out);
int db_build_finish(struct db *db, int64_t id, const char *state,
		    const char *ident, const char *error,
		    const char *record, const char *log);
/* Builds left "building" by a previous klabd go back to the queue. */
int db_build_requeue_stale(struct db *db);
void db_build_release(struct db_build *b);
void db_builds_free(struct db_build *v, size_t n);

#endif
