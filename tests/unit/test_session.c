// SPDX-License-Identifier: MIT
/* Unit tests for http/session.c: the per-token cap, a full table
 * that refuses rather than signs anyone out, expiry and sign-out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "http/session.h"

#define NOW 1000

/* A token hash for user n: 64 hex digits. */
static void hash_of(int n, char h[SESSION_HEX_LEN + 1])
{
	snprintf(h, SESSION_HEX_LEN + 1, "%064d", n);
}

static int alive(struct session_table *t, const char *id, time_t now)
{
	char h[SESSION_HEX_LEN + 1];

	return session_find(t, id, now, h) == 0;
}

/* A 9th sign-in of one token ends that token's oldest session only. */
static void test_cap_per_token(void **state)
{
	struct session_table *t = session_table_create();
	char a[SESSION_HEX_LEN + 1], b[SESSION_HEX_LEN + 1];
	char ida[SESSION_HEX_LEN + 1], idb[20][SESSION_HEX_LEN + 1];
	char got[SESSION_HEX_LEN + 1];
	int i, mine;

	hash_of(1, a);
	hash_of(2, b);
	assert_int_equal(session_open(t, a, NOW, ida), SESSION_OK);
	for (i = 0; i < 20; i++)
		assert_int_equal(session_open(t, b, NOW, idb[i]), SESSION_OK);
	assert_int_equal(session_count(t, b, NOW, &mine),
			 1 + SESSION_PER_TOKEN);
	assert_int_equal(mine, SESSION_PER_TOKEN);
	assert_int_equal(session_find(t, ida, NOW, got), 0);
	assert_string_equal(got, a);
	for (i = 0; i < 20; i++)
		assert_int_equal(alive(t, idb[i], NOW),
				 i >= 20 - SESSION_PER_TOKEN);
	session_table_destroy(t);
}

/* Full of others' live sessions: refused, nobody signed out; an expired
 * or closed slot is free again. */
static void test_full(void **state)
{
	struct session_table *t = session_table_create();
	static char ids[SESSION_SLOTS][SESSION_HEX_LEN + 1];
	char h[SESSION_HEX_LEN + 1], late[SESSION_HEX_LEN + 1];
	char id[SESSION_HEX_LEN + 1];
	int i;

	for (i = 0; i < SESSION_SLOTS; i++) {
		hash_of(100 + i / SESSION_PER_TOKEN, h);
		assert_int_equal(session_open(t, h, NOW + i % 2, ids[i]),
				 SESSION_OK);
	}
	hash_of(7, late);
	assert_int_equal(session_open(t, late, NOW + 2, id), SESSION_FULL);
	for (i = 0; i < SESSION_SLOTS; i++)
		assert_true(alive(t, ids[i], NOW + 2));
	/* a token at its cap still replaces its own oldest */
	hash_of(100, h);
	assert_int_equal(session_open(t, h, NOW + 2, id), SESSION_OK);
	assert_false(alive(t, ids[0], NOW + 2));
	assert_true(alive(t, ids[1], NOW + 2));
	session_close(t, ids[5]);
	assert_false(alive(t, ids[5], NOW + 2));
	assert_int_equal(session_open(t, late, NOW + 2, id), SESSION_OK);
	assert_int_equal(session_open(t, late, NOW + 2, id), SESSION_FULL);
	/* the sessions opened at NOW expire first, and free their slots */
	assert_false(alive(t, ids[2], NOW + SESSION_TTL + 1));
	assert_true(alive(t, ids[3], NOW + SESSION_TTL + 1));
	assert_int_equal(session_open(t, late, NOW + SESSION_TTL + 1, id),
			 SESSION_OK);
	session_table_destroy(t);
}

/* Ids: 64 hex digits, distinct; anything else is never found. */
static void test_ids(void **state)
{
	struct session_table *t = session_table_create();
	char h[SESSION_HEX_LEN + 1], x[SESSION_HEX_LEN + 1];
	char id1[SESSION_HEX_LEN + 1], id2[SESSION_HEX_LEN + 1];

	hash_of(3, h);
	assert_int_equal(session_open(t, h, NOW, id1), SESSION_OK);
	assert_int_equal(session_open(t, h, NOW, id2), SESSION_OK);
	assert_int_equal(strlen(id1), SESSION_HEX_LEN);
	assert_int_equal(strspn(id1, "0123456789abcdef"), SESSION_HEX_LEN);
	assert_string_not_equal(id1, id2);
	assert_int_not_equal(session_find(t, "", NOW, x), 0);
	assert_int_not_equal(session_find(t, h, NOW, x), 0);
	id1[10] = id1[10] == '0' ? '1' : '0';
	assert_int_not_equal(session_find(t, id1, NOW, x), 0);
	session_close(t, "short");
	assert_true(alive(t, id2, NOW));
	session_table_destroy(t);
	session_table_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cap_per_token),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
