// SPDX-License-Identifier: MIT
/*
 * The table of web sessions (session.h): who may keep a slot, and whose
 * slot a new sign-in may take.  A slot is free when empty or expired; a
 * token at its cap takes back its own oldest slot; nobody else's live
 * session is ever taken.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/auth.h"
#include "lib/sha256.h"
#include "lib/rand.h"
#include "http/session.h"

_Static_assert(SESSION_HEX_LEN == AUTH_HEX_LEN, "ids are auth's hex");
_Static_assert(SESSION_HEX_LEN == 2 * AUTH_TOKEN_BYTES, "ids are tokens");

struct session {
	char id[SESSION_HEX_LEN + 1];	/* "" when the slot is free */
	char hash[SESSION_HEX_LEN + 1];	/* the token's stored hash */
	time_t expires;
	unsigned long long born;	/* the table's count at opening */
};

struct session_table {
	pthread_mutex_t lock;
	unsigned long long opened;	/* sessions opened so far */
	struct session s[SESSION_SLOTS];
};

struct session_table *session_table_create(void)
{
	struct session_table *t = calloc(1, sizeof(*t));

	if (!t)
		abort();
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

void session_table_destroy(struct session_table *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	memset(t, 0, sizeof(*t));
	free(t);
}

static int live(const struct session *s, time_t now)
{
	return s->id[0] && s->expires >= now;
}

/* The slot a new session of hash goes to, -1 when there is none. */
static int slot_pick(struct session_table *t, const char *hash, time_t now)
{
	int i, free_slot = -1, oldest = -1, mine = 0;

	for (i = 0; i < SESSION_SLOTS; i++) {
		const struct session *s = &t->s[i];

		if (!live(s, now)) {
			if (free_slot < 0)
				free_slot = i;
			continue;
		}
		if (strcmp(s->hash, hash))
			continue;
		mine++;
		if (oldest < 0 || s->born < t->s[oldest].born)
			oldest = i;
	}
	return mine >= SESSION_PER_TOKEN ? oldest : free_slot;
}

int session_open(struct session_table *t, const char *hash, time_t now,
		 char id[SESSION_HEX_LEN + 1])
{
	int i;

	if (rand_hex(id, SESSION_HEX_LEN / 2))
		return SESSION_ERR;
	pthread_mutex_lock(&t->lock);
	i = slot_pick(t, hash, now);
	if (i >= 0) {
		memcpy(t->s[i].id, id, SESSION_HEX_LEN + 1);
		snprintf(t->s[i].hash, sizeof(t->s[i].hash), "%s", hash);
		t->s[i].expires = now + SESSION_TTL;
		t->s[i].born = ++t->opened;
	}
	pthread_mutex_unlock(&t->lock);
	return i >= 0 ? SESSION_OK : SESSION_FULL;
}

int session_find(struct session_table *t, const char *id, time_t now,
		 char hash[SESSION_HEX_LEN + 1])
{
	int i, found = -1;

	if (strlen(id) != SESSION_HEX_LEN)
		return -1;
	pthread_mutex_lock(&t->lock);
	for (i = 0; i < SESSION_SLOTS; i++) {
		if (!live(&t->s[i], now) || !secret_equal(t->s[i].id, id))
			continue;
		memcpy(hash, t->s[i].hash, SESSION_HEX_LEN + 1);
		found = 0;
	}
	pthread_mutex_unlock(&t->lock);
	return found;
}

void session_close(struct session_table *t, const char *id)
{
	int i;

	if (strlen(id) != SESSION_HEX_LEN)
		return;
	pthread_mutex_lock(&t->lock);
	for (i = 0; i < SESSION_SLOTS; i++)
		if (t->s[i].id[0] && secret_equal(t->s[i].id, id))
			memset(&t->s[i], 0, sizeof(t->s[i]));
	pthread_mutex_unlock(&t->lock);
}

int session_count(struct session_table *t, const char *hash, time_t now,
		  int *of_hash)
{
	int i, n = 0, mine = 0;

	pthread_mutex_lock(&t->lock);
	for (i = 0; i < SESSION_SLOTS; i++) {
		if (!live(&t->s[i], now))
			continue;
		n++;
		if (hash && !strcmp(t->s[i].hash, hash))
			mine++;
	}
	pthread_mutex_unlock(&t->lock);
	if (of_hash)
		*of_hash = mine;
	return n;
}
