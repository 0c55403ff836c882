// SPDX-License-Identifier: MIT
/*
 * Unit tests for judge/bisect_pick.c: a table of verdict sequences (one
 * character per candidate: '.' untested, 'g' good, 'b' bad, 's' skip;
 * index 0 is the good end, the last the bad end) with the expected next
 * step or answer, skips included; and whole bisections simulated over
 * every first-bad position of ranges of 1 to 64 candidates, with and
 * without unbuildable steps, counted against the ideal log2(n).  And a
 * bisection's job configuration: the check it shares with jobs and
 * comparison runs (job_config_check), its row in the database
 * (migration 14's defaults) and how its page and report name it.  And
 * base cells an older klab lent a step (table comparison_borrowed: no
 * step borrows any more) still counted as its done base cells and
 * listed with its own; a verification taken from a comparison that ran
 * (db_bisection_verified).  And the bisection of a change
 * (db_bisection_of_change, the home page's culprit): by its page, by its
 * ends as asked or as its candidates' kernels, the one that found its
 * first bad candidate before a newer one still running.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "klabd/klabd.h"
#include "lab/job_check.h"
#include "db/bisections.h"
#include "db/comparisons.h"
#include "db/db_int.h"
#include "db_testlib.h"
#include "judge/bisect_pick.h"
#include "web/format.h"

#define MAXN 128

struct row {
	const char *marks;
	enum bis_state state;
	size_t at;		/* next (TEST), first bad (FOUND) */
	size_t good, bad;	/* the open range */
};

static size_t parse(const char *s, enum bis_mark *m)
{
	size_t i;

	for (i = 0; s[i]; i++)
		m[i] = s[i] == 'g' ? BIS_GOOD : s[i] == 'b' ? BIS_BAD :
		       s[i] == 's' ? BIS_SKIP : BIS_UNTESTED;
	return i - 1;
}

static void test_table(void **state)
{
	static const struct row rows[] = {
		/* 8 patches: the middle first, then halves */
		{ "g.......b", BIS_TEST, 4, 0, 8 },
		{ "g...g...b", BIS_TEST, 6, 4, 8 },
		{ "g...b...b", BIS_TEST, 2, 0, 4 },
		{ "g...g.b.b", BIS_TEST, 5, 4, 6 },
		{ "g...gbb.b", BIS_FOUND, 5, 4, 5 },
		{ "g...ggb.b", BIS_FOUND, 6, 5, 6 },
		/* one candidate: nothing to test */
		{ "gb", BIS_FOUND, 1, 0, 1 },
		{ "g.b", BIS_TEST, 1, 0, 2 },
		/* a skip: the neighbour below, then above */
		{ "g...s...b", BIS_TEST, 3, 0, 8 },
		{ "g..ss...b", BIS_TEST, 5, 0, 8 },
		{ "g...g.s.b", BIS_TEST, 5, 4, 8 },
		{ "g...gss.b", BIS_TEST, 7, 4, 8 },
		{ "g...gsb.b", BIS_CANNOT, 0, 4, 6 },
		{ "g...g.sb", BIS_TEST, 5, 4, 7 },
		{ "g..gsss.b", BIS_TEST, 7, 3, 8 },
		{ "g..gsssbb", BIS_CANNOT, 0, 3, 7 },
		{ "gsssb", BIS_CANNOT, 0, 0, 4 },
		/* marks beyond the first bad and below the last good count
		 * for nothing; inconsistent marks take the first bad */
		{ "g.g.b.g.b", BIS_TEST, 3, 2, 4 },
		{ "gb.....gb", BIS_FOUND, 1, 0, 1 },
	};
	enum bis_mark m[MAXN];
	struct bis_next nx;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		n = parse(rows[i].marks, m);
		bisect_next(m, n, &nx);
		if (nx.state != rows[i].state || nx.good != rows[i].good ||
		    nx.bad != rows[i].bad ||
		    (rows[i].state != BIS_CANNOT && nx.next != rows[i].at))
			fail_msg("%s: state %d next %zu range %zu..%zu, "
				 "expected %d %zu %zu..%zu", rows[i].marks,
				 nx.state,
				 nx.next, nx.good, nx.bad, rows[i].state,
				 rows[i].at, rows[i].good, rows[i].bad);
	}
}

/* A bisection of n candidates whose first bad is f, steps in unbuildable
 * (skip); the steps taken, the answer in *ans (0: cannot tell). */
static size_t simulate(size_t n, size_t f, const char *unbuildable,
		       size_t *ans)
{
	enum bis_mark m[MAXN];
	struct bis_next nx;
	size_t steps = 0;

	memset(m, 0, sizeof(m));
	for (;;) {
		bisect_next(m, n, &nx);
		if (nx.state != BIS_TEST)
			break;
		assert_true(m[nx.next] == BIS_UNTESTED);
		assert_true(nx.next > 0 && nx.next < n);
		steps++;
		if (unbuildable && unbuildable[nx.next] == 's')
			m[nx.next] = BIS_SKIP;
		else
			m[nx.next] = nx.next >= f ? BIS_BAD : BIS_GOOD;
	}
	*ans = nx.state == BIS_FOUND ? nx.next : 0;
	return steps;
}

static void test_every_position(void **state)
{
	size_t n, f, steps, ans;

	(void)state;
	for (n = 1; n <= 64; n++)
		for (f = 1; f <= n; f++) {
			steps = simulate(n, f, NULL, &ans);
			assert_int_equal(ans, f);
			assert_true(steps <= bisect_ideal_steps(n));
		}
}

static void test_skips(void **state)
{
	char unb[MAXN];
	size_t n = 16, f, steps, ans;

	(void)state;
	/* step 8 (the first midpoint) never builds */
	memset(unb, '.', sizeof(unb));
	unb[8] = 's';
	for (f = 1; f <= n; f++) {
		steps = simulate(n, f, unb, &ans);
		if (f == 8 || f == 9) {
			/* 8 untestable: 7 good, 9 bad leaves 8 or 9 */
			assert_true(ans == f || ans == 0);
		} else {
			assert_int_equal(ans, f);
		}
		assert_true(steps <= bisect_ideal_steps(n) + 2);
	}
	/* the culprit itself unbuildable: cannot tell, range named */
	memset(unb, '.', sizeof(unb));
	unb[5] = 's';
	steps = simulate(8, 5, unb, &ans);
	assert_int_equal(ans, 0);
	(void)steps;
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(bisect_mark_name(BIS_SKIP), "skip");
	assert_int_equal(bisect_mark_parse("bad"), BIS_BAD);
	assert_int_equal(bisect_mark_parse("nope"), -1);
	assert_int_equal(bisect_ideal_steps(8), 3);
	assert_int_equal(bisect_ideal_steps(9), 4);
	assert_int_equal(bisect_ideal_steps(1), 0);
}

/* Which end a step looks like: the midpoint of the ends' change, either
 * direction, and nothing decided across it or without numbers. */
static void test_side(void **state)
{
	(void)state;
	/* a latency up 480% at the ends (worse up) */
	assert_int_equal(bisect_side(480, -6, 9), BIS_GOOD);
	assert_int_equal(bisect_side(480, 400, 560), BIS_BAD);
	assert_int_equal(bisect_side(480, 200, 300), BIS_UNTESTED);
	assert_int_equal(bisect_side(480, -30, 239.9), BIS_GOOD);
	assert_int_equal(bisect_side(480, 240, 300), BIS_UNTESTED);
	/* a rate down 80% (worse down) */
	assert_int_equal(bisect_side(-80, -8, 5), BIS_GOOD);
	assert_int_equal(bisect_side(-80, -85, -70), BIS_BAD);
	assert_int_equal(bisect_side(-80, -50, -30), BIS_UNTESTED);
	/* nothing to stand on */
	assert_int_equal(bisect_side(0, -1, 1), BIS_UNTESTED);
	assert_int_equal(bisect_side(NAN, -1, 1), BIS_UNTESTED);
	assert_int_equal(bisect_side(480, NAN, 1), BIS_UNTESTED);
	assert_int_equal(bisect_side(480, 5, -5), BIS_UNTESTED);
}

/* err of job_config_check(scale, sched, cmdline) starts with want, the
 * outcome is o. */
static void config_refused(const struct klabd *d, double scale,
			   const char *sched, const char *cmdline,
			   enum outcome o, const char *want)
{
	char err[700] = "";

	assert_int_equal(job_config_check(d, scale, sched, cmdline, err,
					  sizeof(err)), o);
	if (strncmp(err, want, strlen(want)))
		fail_msg("'%s' does not start with '%s'", err, want);
}

static void test_config_check(void **state)
{
	struct klabd d;
	char err[700];

	(void)state;
	memset(&d, 0, sizeof(d));
	assert_int_equal(job_config_check(&d, 0, "", "", err, sizeof(err)),
			 OUT_OK);
	assert_int_equal(job_config_check(&d, 0.05, "mq-deadline",
					  "elevator=none quiet", err,
					  sizeof(err)), OUT_OK);
	assert_int_equal(job_config_check(&d, 10000, "none", NULL, err,
					  sizeof(err)), OUT_OK);
	config_refused(&d, -1, "", "", OUT_INVALID,
		       "field 'scale': -1 is not");
	config_refused(&d, 0.00001, "", "", OUT_INVALID, "field 'scale'");
	config_refused(&d, 20000, "", "", OUT_INVALID, "field 'scale'");
	config_refused(&d, 1, "bfq;reboot", "", OUT_INVALID,
		       "field 'scheduler': scheduler name 'bfq;reboot' has a "
		       "character not allowed at byte 4");
	config_refused(&d, 1, "mq deadline", "", OUT_INVALID,
		       "field 'scheduler'");
	config_refused(&d, 1, "../x", "", OUT_INVALID, "field 'scheduler'");
	config_refused(&d, 1, "", "init=/bin/sh", OUT_FORBIDDEN,
		       "field 'cmdline': kernel parameter 'init=/bin/sh' is "
		       "not allowed");
	config_refused(&d, 1, "", "quiet $(id)", OUT_FORBIDDEN,
		       "field 'cmdline': kernel parameter '$(id)'");
	d.cmdline_allow = "foo=";
	assert_int_equal(job_config_check(&d, 1, "", "foo=1", err,
					  sizeof(err)), OUT_OK);
	config_refused(&d, 1, "", "elevator=none", OUT_FORBIDDEN,
		       "field 'cmdline'");
}

/* Bisection id of db has the job configuration scale, sched, cmdline. */
static void config_expect(struct db *db, int64_t id, double scale,
			  const char *sched, const char *cmdline)
{
	struct db_bisection got;

	assert_int_equal(db_bisection_get(db, id, &got), DB_OK);
	assert_true(got.scale == scale);
	assert_string_equal(got.scheduler, sched);
	assert_string_equal(got.cmdline, cmdline);
	db_bisection_release(&got);
}

static void test_config_row(void **state)
{
	static const char *const ext[] = { "", "-wal", "-shm" };
	const char *tmp = getenv("TMPDIR");
	struct db_bisection b;
	struct db_bis_cand c[2];
	char dir[256], path[300], err[256];
	struct db *db;
	int64_t id = 0;
	int i;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/klab-test-bisect.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/klab.db", dir);
	db = db_open(path, err, sizeof(err));
	assert_non_null(db);
	memset(&b, 0, sizeof(b));
	memset(c, 0, sizeof(c));
	b.kind = "debian";
	b.base = b.rig = b.suite = b.who = b.metrics = "x";
	b.good = c[0].label = "6.1.170";
	b.bad = c[1].label = "6.1.171";
	c[1].idx = 1;
	b.max_cells = 3;
	b.scale = 0.05;
	b.scheduler = "mq-deadline";
	b.cmdline = "elevator=none quiet";
	assert_int_equal(db_bisection_add(db, &b, c, 2, &id, err,
					  sizeof(err)), DB_OK);
	config_expect(db, id, 0.05, "mq-deadline", "elevator=none quiet");
	/* none given: the suite's scale, the rig's defaults */
	b.scale = 0;
	b.scheduler = b.cmdline = NULL;
	assert_int_equal(db_bisection_add(db, &b, c, 2, &id, err,
					  sizeof(err)), DB_OK);
	config_expect(db, id, 1.0, "", "");
	/* a row of before migration 14: the columns' defaults */
	assert_int_equal(sqlite3_exec(db->h, "INSERT INTO bisections (kind, "
				      "base, good, bad, rig, suite, metrics, "
				      "max_cells, who, created) VALUES ('git', "
				      "'', 'a', 'b', 'r', 's', 'm', 3, 'w', 1)",
				      NULL, NULL, NULL), SQLITE_OK);
	config_expect(db, sqlite3_last_insert_rowid(db->h), 1.0, "", "");
	db_close(db);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/klab.db%s", dir, ext[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* Comparison of bisection bis (0: none) between kernels 1 and 2 with
 * done base cells at job ids from, from + 1, ... (n of them), one failed
 * base cell and one done candidate cell, through step idx. */
static int64_t borrow_fixture(struct db *db, int64_t bis, int64_t from,
			      int n, int idx)
{
	struct db_comparison c;
	char err[256], sql[600];
	int64_t id = 0;
	int i;

	memset(&c, 0, sizeof(c));
	c.base = "good";
	c.candidate = "bad";
	c.rig = c.suite = c.who = "x";
	c.max_cells = 8;
	c.planned = 3;
	assert_int_equal(db_comparison_add(db, &c, &id, err, sizeof(err)),
			 DB_OK);
	for (i = 0; i <= n + 1; i++) {
		/* n done base cells, a failed one, a done candidate cell */
		snprintf(sql, sizeof(sql), "INSERT INTO jobs (id, kernel_id, "
			 "rig_id, suite_id, state, created) SELECT %lld, %d, "
			 "r.id, s.id, '%s', 1 FROM rigs r, suites s WHERE "
			 "r.name = 'x' AND s.name = 'x'; "
			 "INSERT INTO comparison_jobs VALUES "
			 "(%lld, %lld, %d);", (long long)(from + i),
			 i <= n ? 1 : 2, i == n ? "failed" : "done",
			 (long long)id, (long long)(from + i), i > n);
		assert_int_equal(sqlite3_exec(db->h, sql, NULL, NULL, NULL),
				 SQLITE_OK);
	}
	if (bis) {
		snprintf(sql, sizeof(sql), "INSERT INTO bisection_steps "
			 "(bisection_id, idx, purpose, comparison_id, created) "
			 "VALUES (%lld, %d, 'step', %lld, 1)", (long long)bis,
			 idx, (long long)id);
		assert_int_equal(sqlite3_exec(db->h, sql, NULL, NULL, NULL),
				 SQLITE_OK);
	}
	return id;
}

static void test_borrow(void **state)
{
	static const char *const ext[] = { "", "-wal", "-shm" };
	const char *tmp = getenv("TMPDIR");
	struct db_comparison c;
	char dir[256], path[300], err[256];
	int64_t *jobs = NULL, step, cid;
	size_t nj = 0;
	struct db *db;
	int i;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/klab-test-borrow.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/klab.db", dir);
	db = db_open(path, err, sizeof(err));
	assert_non_null(db);
	assert_int_equal(sqlite3_exec(db->h, "INSERT INTO kernels (id, ident, "
				      "created) VALUES (1, 'good', 1), (2, "
				      "'bad', 1); INSERT INTO rigs (name, "
				      "created) VALUES ('x', 1); INSERT INTO "
				      "suites (name) VALUES ('x');"
				      "INSERT INTO bisections (id, kind, rig, "
				      "suite, metrics, max_cells, created) "
				      "VALUES (1, 'debian', 'x', 'x', 'm', 8, "
				      "1), (2, 'debian', 'x', 'x', 'm', 8, 1)",
				      NULL, NULL, NULL), SQLITE_OK);
	/* the verification: 4 good cells (ids 100-103); another bisection's
	 * step and a comparison of no bisection: 5 good cells each */
	borrow_fixture(db, 1, 100, 4, 5);
	borrow_fixture(db, 2, 200, 5, 5);
	borrow_fixture(db, 0, 300, 5, 0);
	/* the next step: 3 good cells of its own (ids 400-402) */
	step = borrow_fixture(db, 1, 400, 3, 2);
	/* a step after it, to which an older klab lent the newest 6 of
	 * 4 + 3 */
	cid = borrow_fixture(db, 1, 500, 0, 3);
	snprintf(path, sizeof(path), "INSERT INTO comparison_borrowed "
		 "(comparison_id, job_id) SELECT %lld, id FROM jobs WHERE id "
		 "IN (101, 102, 103, 400, 401, 402)", (long long)cid);
	assert_int_equal(sqlite3_exec(db->h, path, NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(db_comparison_get(db, cid, &c), DB_OK);
	assert_int_equal(c.borrowed, 6);
	assert_int_equal(c.done[0], 6);		/* borrowed, none of its own */
	assert_int_equal(c.total[0], 7);	/* and its failed one */
	assert_int_equal(c.failed[0], 1);
	assert_int_equal(c.done[1], 1);
	db_comparison_release(&c);
	assert_int_equal(db_comparison_done_jobs(db, cid, &jobs, &nj), DB_OK);
	/* 101-103, 400-402 borrowed (100 is the oldest), 501 its own */
	assert_int_equal(nj, 7);
	assert_int_equal(jobs[0], 101);
	assert_int_equal(jobs[3], 400);
	assert_int_equal(jobs[6], 501);
	free(jobs);
	/* the verification of bisection 2 is comparison step, as it ran:
	 * its candidate the step's kernel; no comparison 999: nothing */
	assert_int_equal(db_bisection_verified(db, 2, 1, step), DB_OK);
	assert_int_equal(db_bisection_verified(db, 2, 1, 999), DB_NOTFOUND);
	{
		struct db_bis_step *st = NULL;
		size_t ns = 0;

		assert_int_equal(db_bisection_steps(db, 2, &st, &ns), DB_OK);
		/* the fixture's step, then it */
		assert_int_equal(ns, 2);
		assert_string_equal(st[1].purpose, "verify");
		assert_int_equal(st[1].idx, 1);
		assert_int_equal(st[1].comparison, step);
		assert_string_equal(st[1].kernel, "bad");
		assert_string_equal(st[1].mark, "");
		db_bis_steps_free(st, ns);
	}
	db_close(db);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/klab.db%s", dir, ext[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void test_config_name(void **state)
{
	char buf[200];

	(void)state;
	fmt_job_config(buf, sizeof(buf), 0.05, "mq-deadline", "");
	assert_string_equal(buf, "scale 0.05, scheduler mq-deadline");
	fmt_job_config(buf, sizeof(buf), 1, "", "elevator=none quiet");
	assert_string_equal(buf, "scale 1, scheduler default, cmdline "
			    "\"elevator=none quiet\"");
}

/* A git bisection over kernels k-good..k-bad (a candidate k-mid), its
 * ends named by commit; *id its id. */
static void of_change_add(struct db *db, int64_t *id)
{
	static const char *const k[] = { "k-good", "k-bad", "k-mid" };
	static const char *const l[] = { "aaaa good", "bbbb bad",
					 "cccc mid" };
	struct db_bis_cand c[3];
	struct db_bisection b;
	char err[256];
	int i;

	memset(&b, 0, sizeof(b));
	memset(c, 0, sizeof(c));
	b.kind = "git";
	b.base = b.rig = b.suite = b.who = b.metrics = "x";
	b.good = "aaaa";
	b.bad = "bbbb";
	b.max_cells = 3;
	for (i = 0; i < 3; i++) {
		c[i].idx = i;
		c[i].label = (char *)l[i];
		c[i].kernel = (char *)k[i];
		c[i].author = (char *)"Dev <d@x>";
	}
	assert_int_equal(db_bisection_add(db, &b, c, 3, id, err, sizeof(err)),
			 DB_OK);
}

/* db_bisection_of_change(link, before, after): rc, and the bisection's
 * id and first bad candidate's index when found. */
static void of_change_expect(struct db *db, const char *link,
			     const char *before, const char *after, int rc,
			     int64_t id, int idx)
{
	struct db_bisection b;
	struct db_bis_cand c;

	assert_int_equal(db_bisection_of_change(db, link, before, after, &b,
						&c), rc);
	if (rc)
		return;
	assert_int_equal(b.id, id);
	assert_int_equal(c.idx, idx);
	if (idx == 2) {
		assert_string_equal(c.label, "cccc mid");
		assert_string_equal(c.kernel, "k-mid");
	}
	db_bisection_release(&b);
	db_bis_cand_release(&c);
}

static void test_of_change(void **state)
{
	struct fx *f = *state;
	int64_t a = 0, b = 0;
	char link[64];

	of_change_add(f->db, &a);
	/* running: found by its ends' kernels, by its ends as asked */
	of_change_expect(f->db, NULL, "k-good", "k-bad", DB_OK, a, -1);
	of_change_expect(f->db, "", "aaaa", "bbbb", DB_OK, a, -1);
	/* not: the ends swapped, a middle as the good end, nothing */
	of_change_expect(f->db, NULL, "k-bad", "k-good", DB_NOTFOUND, 0, 0);
	of_change_expect(f->db, NULL, "k-mid", "k-bad", DB_NOTFOUND, 0, 0);
	of_change_expect(f->db, NULL, "k-good", "", DB_NOTFOUND, 0, 0);
	of_change_expect(f->db, "", "", "", DB_NOTFOUND, 0, 0);
	/* found: its first bad candidate, by its page too */
	assert_int_equal(db_bisection_update(f->db, a, "finished", "done", 2,
					     "first bad", NULL, NULL), DB_OK);
	of_change_expect(f->db, NULL, "k-good", "k-bad", DB_OK, a, 2);
	snprintf(link, sizeof(link), "/bisections/%lld", (long long)a);
	of_change_expect(f->db, link, "", "", DB_OK, a, 2);
	of_change_expect(f->db, "/bisections/999", "", "", DB_NOTFOUND, 0,
			 0);
	/* a newer one of the same range, running: the answer still wins */
	of_change_add(f->db, &b);
	of_change_expect(f->db, NULL, "k-good", "k-bad", DB_OK, a, 2);
	snprintf(link, sizeof(link), "/bisections/%lld", (long long)b);
	of_change_expect(f->db, link, "", "", DB_OK, b, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_every_position),
		cmocka_unit_test(test_skips),
		cmocka_unit_test(test_side),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_config_check),
		cmocka_unit_test(test_config_row),
		cmocka_unit_test(test_config_name),
		cmocka_unit_test(test_borrow),
		cmocka_unit_test_setup_teardown(test_of_change, dbfix_setup,
						dbfix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
