/* SPDX-License-Identifier: MIT */
/*
 * track: the kernel lines klabd watches (flow/track.c).  A track
 * names a distribution's line ("debian", "newest-6.1"), the rigs and the
 * suite its new kernels are queued on, and remembers the newest package
 * seen, the kernel it became, and when the archive was last asked.
 */
#ifndef KLAB_DB_TRACK_H
#define KLAB_DB_TRACK_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

struct db_track {
	int64_t id;
	char *distro;		/* "debian" */
	char *line;		/* "newest-6.1", "newest-6.12" */
	char *rigs;		/* comma-separated rig names */
	char *suite;
	char *last_package;	/* newest package seen, "" before the first */
	char *last_kernel;	/* its catalog ident, "" before the first */
	int64_t checks;		/* archive checks made */
	int64_t last_check;	/* unix seconds, 0: never */
	char *last_error;	/* of the last check, "" when it went well */
	int64_t jobs;		/* jobs queued so far */
	char *who;		/* who asked for it */
	int64_t created;
};

/* Add a track; *id its id.  DB_CONFLICT when the same one exists. */
int db_track_add(struct db *db, const struct db_track *t, int64_t *id,
		 char *err, size_t errlen);
int db_track_get(struct db *db, int64_t id, struct db_track *out);
/* Oldest first. */
int db_track_list(struct db *db, struct db_track **out, size_t *n);
/* DB_NOTFOUND when there is no track id. */
int db_track_delete(struct db *db, int64_t id, char *err, size_t errlen);
/* A check happened at now: error (NULL or "" when none) recorded. */
int db_track_checked(struct db *db, int64_t id, int64_t now,
		     const char *error);
/* A new package became kernel, and jobs more jobs were queued. */
int db_track_advance(struct db *db, int64_t id, const char *package,
		     const char *kernel, int64_t jobs);
void db_track_release(struct db_track *t);
void db_tracks_free(struct db_track *v, size_t n);

#endif
