/* SPDX-License-Identifier: MIT */
/*
 * The sections of the home page (page_home.c: the status line and the
 * open regressions; page_home_lab.c: what the lab is doing).  Each
 * section is short, says when it is empty, and links to its full page;
 * a section whose query fails says so and the page goes on.
 */
#ifndef KLAB_WEB_PAGE_HOME_H
#define KLAB_WEB_PAGE_HOME_H

#include <stdint.h>

#include "db/db.h"
#include "lib/strbuf.h"

#define HOME_ROWS 10		/* rows of a section, at most */
#define HOME_CP_DAYS 7		/* the change points of the last days */

/* Each rig's state and current jobs, and the jobs that wait. */
void home_rigs(struct strbuf *sb, struct db *db, int64_t now);
/* Submissions running, and those that ended since midnight UTC. */
void home_submissions(struct strbuf *sb, struct db *db, int64_t now);
/* Each tracked line with its last tested head. */
void home_tracks(struct strbuf *sb, struct db *db);
/* The change points first seen in the last HOME_CP_DAYS days. */
void home_changepoints(struct strbuf *sb, struct db *db, int64_t now);
/* "<p class=err>cannot read what</p>", for a section whose query
 * failed. */
void home_cannot(struct strbuf *sb, const char *what);

#endif
