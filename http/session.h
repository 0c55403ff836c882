/* SPDX-License-Identifier: MIT */
/*
 * session: the web sign-ins klabd holds in memory, a fixed table of
 * SESSION_SLOTS.  A session is a random id bound to the hash of the user
 * token it was opened with, never to a name or a role: auth.c looks the
 * hash up among the tokens on every use, so a revoked token's sessions
 * end at once.  One token holds at most SESSION_PER_TOKEN sessions (its
 * next sign-in replaces its own oldest); a sign-in never ends another
 * token's live session: when every slot holds one, it is refused.
 *
 * Times are the caller's CLOCK_MONOTONIC seconds, so the table is pure
 * but for drawing ids (tests/unit/test_session.c).  Every call locks.
 */
#ifndef KLAB_SESSION_H
#define KLAB_SESSION_H

#include <time.h>

#define SESSION_SLOTS 256
#define SESSION_PER_TOKEN 8
#define SESSION_TTL (12 * 3600)	/* seconds */
#define SESSION_HEX_LEN 64	/* ids and token hashes, without the NUL */

enum session_rc {
	SESSION_OK = 0,
	SESSION_ERR = -1,	/* no randomness: errno set */
	SESSION_FULL = -2,	/* every slot holds another token's session */
};

/* An empty table; session_table_destroy() accepts NULL.  Aborts without
 * memory. */
struct session_table *session_table_create(void);
void session_table_destroy(struct session_table *t);

/* Open a session for the token whose stored hash is hash: its new id
 * into id.  Replaces the token's oldest session when it has
 * SESSION_PER_TOKEN live ones.  A session_rc. */
int session_open(struct session_table *t, const char *hash, time_t now,
		 char id[SESSION_HEX_LEN + 1]);
/* The token hash of the live session id into hash: 0, or -1 when there is
 * no such live session.  Ids are compared in constant time. */
int session_find(struct session_table *t, const char *id, time_t now,
		 char hash[SESSION_HEX_LEN + 1]);
/* End session id (sign-out, or its token is gone); no-op when unknown. */
void session_close(struct session_table *t, const char *id);
/* Live sessions in the table, and those of hash (NULL: not counted). */
int session_count(struct session_table *t, const char *hash, time_t now,
		  int *of_hash);

#endif
