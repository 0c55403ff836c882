// SPDX-License-Identifier: MIT
/*
 * Unit tests for db/db_track.c: a git line (migration 22) and its heads,
 * the line's history: added once per commit, changed as the tracker
 * moves them on, found by their bisection and their kernel, listed
 * oldest first (the newest N when limited), gone with their track.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "db/track.h"
#include "lib/alloc.h"
#include "db_testlib.h"

static int64_t git_track(struct db *db)
{
	struct db_track t;
	char err[256];
	int64_t id = 0;

	memset(&t, 0, sizeof(t));
	t.distro = "git";
	t.line = "fakegit/main";
	t.rigs = "r1,r2";
	t.suite = "tiobench,dbench";
	t.who = "op";
	t.base = "fakegit";
	t.branch = "main";
	t.state = "";
	t.max_cells = 3;
	assert_int_equal(db_track_add(db, &t, &id, err, sizeof(err)), DB_OK);
	return id;
}

static int64_t head(struct db *db, int64_t track, const char *hash,
		    int64_t prev, int64_t skipped)
{
	struct db_track_head h;
	int64_t id = 0;

	memset(&h, 0, sizeof(h));
	h.track_id = track;
	h.hash = (char *)hash;
	h.subject = "plug: a change";
	h.author = "Dev <dev@example.invalid>";
	h.build = 7;
	h.prev = prev;
	h.skipped = skipped;
	assert_int_equal(db_track_head_add(db, &h, &id), DB_OK);
	return id;
}

static void test_git_track(void **state)
{
	struct fx *f = *state;
	struct db_track t;
	int64_t id = git_track(f->db);

	assert_int_equal(db_track_get(f->db, id, &t), DB_OK);
	assert_string_equal(t.distro, "git");
	assert_string_equal(t.base, "fakegit");
	assert_string_equal(t.branch, "main");
	assert_string_equal(t.state, "");
	assert_int_equal(t.max_cells, 3);
	assert_true(t.scale == 1.0);	/* none given: the suite's own */
	assert_int_equal(t.backlog, 0);
	db_track_release(&t);
	assert_int_equal(db_track_set_state(f->db, id, "comparing", 5), DB_OK);
	assert_int_equal(db_track_get(f->db, id, &t), DB_OK);
	assert_string_equal(t.state, "comparing");
	assert_int_equal(t.backlog, 5);
	db_track_release(&t);
}

static void test_heads(void **state)
{
	struct fx *f = *state;
	struct db_track_head *v = NULL, h;
	int64_t tr = git_track(f->db), a, b, c;
	size_t n = 0;

	a = head(f->db, tr, "aaaa", 0, 0);
	b = head(f->db, tr, "bbbb", a, 5);
	c = head(f->db, tr, "cccc", b, 2);
	memset(&h, 0, sizeof(h));
	h.track_id = tr;
	h.hash = "bbbb";
	h.subject = h.author = "";
	assert_int_equal(db_track_head_add(f->db, &h, NULL), DB_CONFLICT);
	assert_int_equal(db_track_heads(f->db, tr, 0, &v, &n), DB_OK);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].hash, "aaaa");
	assert_string_equal(v[2].hash, "cccc");
	assert_string_equal(v[1].state, "building");
	assert_int_equal(v[1].prev, a);
	assert_int_equal(v[1].skipped, 5);
	db_track_heads_free(v, n);
	assert_int_equal(db_track_heads(f->db, tr, 2, &v, &n), DB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].id, b);
	assert_int_equal(v[1].id, c);
	db_track_heads_free(v, n);

	assert_int_equal(db_track_head_get(f->db, b, &h), DB_OK);
	alloc_str_set(&h.kernel, "trk1-bbbb");
	alloc_str_set(&h.state, "tested");
	alloc_str_set(&h.verdict, "worse");
	alloc_str_set(&h.worse, "r1 tiobench tiobench.seq_read.rate");
	alloc_str_set(&h.comparisons, "4,5");
	h.bisection = 9;
	assert_int_equal(db_track_head_set(f->db, &h), DB_OK);
	db_track_head_release(&h);
	assert_int_equal(db_track_head_of_bisection(f->db, 9, &h), DB_OK);
	assert_int_equal(h.id, b);
	assert_string_equal(h.verdict, "worse");
	assert_string_equal(h.comparisons, "4,5");
	db_track_head_release(&h);
	assert_int_equal(db_track_head_of_bisection(f->db, 8, &h),
			 DB_NOTFOUND);
	assert_int_equal(db_track_head_of_bisection(f->db, 0, &h),
			 DB_NOTFOUND);
	assert_int_equal(db_track_head_kernel(f->db, "trk1-bbbb"), 1);
	assert_int_equal(db_track_head_kernel(f->db, "6.1.192"), 0);
	assert_int_equal(db_track_head_kernel(f->db, ""), 0);

	/* untracked: its heads go with it */
	assert_int_equal(db_track_delete(f->db, tr, NULL, 0), DB_OK);
	assert_int_equal(db_track_heads(f->db, tr, 0, &v, &n), DB_OK);
	assert_int_equal(n, 0);
	db_track_heads_free(v, n);
	assert_int_equal(db_track_head_kernel(f->db, "trk1-bbbb"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_git_track, dbfix_setup,
						dbfix_teardown),
		cmocka_unit_test_setup_teardown(test_heads, dbfix_setup,
						dbfix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
