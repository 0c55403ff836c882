// SPDX-License-Identifier: MIT
/*
 * Unit tests for judge/decision.c and the rows it makes: the verdict's
 * names both ways, the one roll-up (worse, else undecided when a part is
 * open, else better, else same), a cell's decision as a row and back; the
 * rows in the database (db_comparison_decide keeps a final row through
 * later looks, NAN stays NAN) and migration 19, which turns schema 18's
 * "METRIC VERDICT" text into final rows.
 */
#include <math.h>

#include "web_testlib.h"	/* the temporary database */
#include "db/comparisons.h"
#include "db/db_int.h"	/* the handle, to make a schema 18 database */
#include "judge/decision.h"

/* The verdict's names both ways, and the one roll-up. */
static void test_names_rollup(void **state)
{
	static const enum cmp_verdict all[] = {
		V_NONE, V_SAME, V_BETTER, V_WORSE, V_UNDECIDED,
	};
	struct vd_tally t = VD_TALLY_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		assert_int_equal(cmp_verdict_of(cmp_verdict_name(all[i])),
				 all[i]);
	assert_string_equal(cmp_verdict_name(V_NONE), "none");
	assert_int_equal(cmp_verdict_of(NULL), V_NONE);
	assert_int_equal(cmp_verdict_of(""), V_NONE);
	assert_int_equal(cmp_verdict_of("Worse"), V_NONE);
	assert_true(cmp_verdict_decided(V_SAME));
	assert_false(cmp_verdict_decided(V_UNDECIDED));
	assert_false(cmp_verdict_decided(V_NONE));
	/* nothing: undecided; same; better beats same */
	assert_int_equal(vd_tally_verdict(&t), V_UNDECIDED);
	vd_tally_add(&t, V_SAME);
	assert_int_equal(vd_tally_verdict(&t), V_SAME);
	vd_tally_add(&t, V_BETTER);
	assert_int_equal(vd_tally_verdict(&t), V_BETTER);
	/* an open part (undecided, or none) beats better; worse beats all */
	vd_tally_add(&t, V_NONE);
	assert_int_equal(vd_tally_verdict(&t), V_UNDECIDED);
	vd_tally_add(&t, V_WORSE);
	assert_int_equal(vd_tally_verdict(&t), V_WORSE);
	assert_int_equal(vd_tally_decided(&t), 3);
	assert_int_equal(t.open, 1);
}

/* A cell decided worse at a look of 3 cells. */
static void cell_worse(struct cmp_cell *c)
{
	memset(c, 0, sizeof(*c));
	c->present = 1;
	c->verdict = V_WORSE;
	c->delta_pct = -25.0;
	c->vd.verdict = V_WORSE;
	c->vd.note = "";
	c->vd.analysis = "welch";
	c->vd.tested = 1;
	c->vd.nb = c->vd.nc = 3;
	c->vd.delta_pct = -25.0;
	c->vd.ci_lo = -27.5;
	c->vd.ci_hi = -22.5;
	c->vd.p = 0.0001;
	c->vd.p_adj = 0.0002;
	c->vd.threshold_pct = 2;
	c->vd.floor_pct = 2;
	c->vd.noise_pct = NAN;
	c->vd.sd_pct = 0.5;
}

/* A cell's decision as a row, and back onto another look's cell. */
static void test_row(void **state)
{
	struct db_cmp_decision d;
	struct cmp_cell c3, c8;

	(void)state;
	cell_worse(&c3);
	cmp_decision_of("m.rate", &c3, 3, &d);
	assert_string_equal(d.metric, "m.rate");
	assert_string_equal(d.verdict, "worse");
	assert_true(d.final);
	assert_int_equal(d.look, 3);
	assert_int_equal(d.n_cand, 3);
	assert_string_equal(d.analysis, "welch");
	memset(&c8, 0, sizeof(c8));
	c8.verdict = c8.vd.verdict = V_UNDECIDED;
	c8.vd.nc = 8;
	c8.delta_pct = c8.vd.delta_pct = -20;
	cmp_decision_apply(&d, &c8);
	assert_int_equal(c8.verdict, V_WORSE);
	assert_int_equal(c8.vd.verdict, V_WORSE);
	assert_true(c8.delta_pct == -25.0 && c8.vd.delta_pct == -25.0);
	assert_true(c8.vd.p_adj == 0.0002 && c8.vd.ci_hi == -22.5);
	assert_true(isnan(c8.vd.noise_pct));
	assert_int_equal(c8.vd.nc, 3);
	assert_int_equal(c8.vd.tested, 1);
	/* a row of schema 18 (look 0): the verdict, not the figures */
	memset(&c8, 0, sizeof(c8));
	c8.vd.nc = 8;
	d.look = 0;
	d.verdict = "same";
	d.note = "x";
	cmp_decision_apply(&d, &c8);
	assert_int_equal(c8.verdict, V_SAME);
	assert_string_equal(c8.vd.note, "x");
	assert_int_equal(c8.vd.nc, 8);
	assert_int_equal(c8.vd.tested, 0);
}

/* A comparison row for the decision tests; its id. */
static int64_t cmp_row(struct wfix *f)
{
	struct db_comparison c;
	int64_t id = 0;

	memset(&c, 0, sizeof(c));
	c.base = "a";
	c.candidate = "b";
	c.rig = c.suite = c.who = "x";
	c.max_cells = 8;
	c.planned = 3;
	assert_int_equal(db_comparison_add(f->db, &c, &id, f->err,
					   sizeof(f->err)), DB_OK);
	return id;
}

/* Schema 19: a look's decisions as rows; a final one stays through the
 * next look, the others are replaced; NAN is kept as NAN. */
static void test_comparison_decisions(void **state)
{
	struct wfix *f = *state;
	struct db_cmp_decision d[2], *v = NULL;
	int64_t id = cmp_row(f);
	size_t n = 0;

	memset(d, 0, sizeof(d));
	d[0].metric = "m.b";
	d[0].verdict = "undecided";
	d[0].look = 3;
	d[0].note = d[0].analysis = "";
	d[0].delta_pct = -1.5;
	d[0].p = 0.25;
	d[0].ci_lo = d[0].ci_hi = d[0].p_adj = d[0].threshold_pct = NAN;
	d[0].floor_pct = d[0].noise_pct = d[0].sd_pct = NAN;
	d[1] = d[0];
	d[1].metric = "m.a";
	d[1].verdict = "worse";
	d[1].final = 1;
	d[1].analysis = "welch";
	d[1].tested = 1;
	d[1].n_cand = 3;
	assert_int_equal(db_comparison_decide(f->db, id, d, 2), DB_OK);
	assert_int_equal(db_comparison_decisions(f->db, id, &v, &n), DB_OK);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].metric, "m.a");	/* by metric */
	assert_string_equal(v[0].verdict, "worse");
	assert_string_equal(v[0].analysis, "welch");
	assert_int_equal(v[0].final, 1);
	assert_int_equal(v[0].n_cand, 3);
	assert_true(v[1].delta_pct == -1.5 && v[1].p == 0.25);
	assert_true(isnan(v[1].ci_lo) && isnan(v[1].sd_pct));
	db_cmp_decisions_free(v, n);
	/* the next look: m.a stays worse at look 3, m.b is replaced */
	d[0].look = d[1].look = 5;
	d[0].verdict = "same";
	d[1].verdict = "undecided";
	d[1].final = 0;
	assert_int_equal(db_comparison_decide(f->db, id, d, 2), DB_OK);
	assert_int_equal(db_comparison_decisions(f->db, id, &v, &n), DB_OK);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].verdict, "worse");
	assert_int_equal(v[0].look, 3);
	assert_string_equal(v[1].verdict, "same");
	assert_int_equal(v[1].look, 5);
	db_cmp_decisions_free(v, n);
	assert_int_equal(db_comparison_decisions(f->db, id + 1, &v, &n),
			 DB_OK);
	assert_int_equal(n, 0);
}

/* Migration 19: schema 18's "METRIC VERDICT" lines become final rows
 * (worse, better, same; nothing else), and the column goes. */
static void test_migrate_decided_text(void **state)
{
	struct wfix *f = *state;
	struct db_cmp_decision *v = NULL;
	int64_t id = cmp_row(f);
	char sql[500];
	size_t n = 0;

	/* the database as schema 18 left it (20's table gone too) */
	snprintf(sql, sizeof(sql), "DROP TABLE run_hists; DROP TABLE "
		 "comparison_decisions; ALTER TABLE comparisons ADD COLUMN "
		 "decided TEXT NOT NULL DEFAULT ''; UPDATE comparisons SET "
		 "decided = 'm.c same' || char(10) "
		 "|| 'm.a worse' || char(10) || 'm.b undecided' || char(10) "
		 "|| 'junk' || char(10) || 'm.d better' WHERE id = %lld; "
		 "PRAGMA user_version = 18", (long long)id);
	assert_int_equal(sqlite3_exec(f->db->h, sql, NULL, NULL, NULL),
			 SQLITE_OK);
	db_close(f->db);
	f->db = db_open(f->path, f->err, sizeof(f->err));
	assert_non_null(f->db);
	assert_int_equal(db_user_version(f->db), db_schema_version());
	assert_int_equal(db_comparison_decisions(f->db, id, &v, &n), DB_OK);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].metric, "m.a");
	assert_string_equal(v[0].verdict, "worse");
	assert_string_equal(v[1].metric, "m.c");
	assert_string_equal(v[1].verdict, "same");
	assert_string_equal(v[2].metric, "m.d");
	assert_string_equal(v[2].verdict, "better");
	assert_true(v[0].final && v[1].final && v[2].final);
	assert_int_equal(v[0].look, 0);
	assert_true(isnan(v[0].delta_pct));
	db_cmp_decisions_free(v, n);
	assert_int_not_equal(sqlite3_exec(f->db->h, "SELECT decided FROM "
					  "comparisons", NULL, NULL, NULL),
			     SQLITE_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_rollup),
		cmocka_unit_test(test_row),
		cmocka_unit_test_setup_teardown(test_comparison_decisions,
						wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_decided_text,
						wfix_setup, wfix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
