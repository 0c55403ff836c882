// SPDX-License-Identifier: MIT
/*
 * Unit tests for the latency histograms of runs (db/db_hist.c, schema 20)
 * on a temporary sqlite file: an import stores them as rows that
 * db_hist_list gives back as numbers, in the order of their raw output
 * names; the API's raw outputs "hist/<phase>.json" are still listed and
 * read as the compact JSON they always were; and migration 20 moves the
 * histograms a database kept as those raw outputs into rows, keeping
 * every byte the API answers.
 */
#include "web_testlib.h"	/* the temporary database */
#include "db/db_int.h"	/* white-box: the schema put back to 19 */

/* A histogram of n buckets: upper 100 (i + 1), count i + 1. */
static void hist_make(struct lathist *h, size_t n)
{
	size_t i;

	lathist_init(h);
	for (i = 0; i < n; i++)
		assert_int_equal(lathist_add(h, 100 * (i + 1), i + 1), 0);
}

/* One run of kernel k with the histograms of phases (NULL-ended), each
 * of nb buckets; its id. */
static int64_t import_run(struct wfix *f, const char *k,
			  const char *const *phases, size_t nb)
{
	struct db_import_opts o = { .rig = "scsi", .suite = "tio" };
	struct result_set rs;
	struct lathist h;
	int64_t *ids, id;
	size_t n;

	result_set_init(&rs);
	result_set_setstr(&rs.kernel, k);
	result_set_add(&rs, NULL, "iops.total", "IOPS", 100, DIR_HIGHER);
	for (; phases && *phases; phases++) {
		hist_make(&h, nb);
		result_set_hist_merge(&rs, *phases, &h);
		lathist_release(&h);
	}
	if (db_import(f->db, &rs, &o, &ids, &n, f->err, sizeof(f->err)))
		fail_msg("import: %s", f->err);
	result_set_release(&rs);
	assert_int_equal(n, 1);
	id = ids[0];
	free(ids);
	return id;
}

static void expect_raw(struct wfix *f, int64_t run, const char *name,
		       const char *text)
{
	char *data;
	size_t len;

	assert_int_equal(db_raw_get(f->db, run, name, &data, &len), DB_OK);
	assert_int_equal(len, strlen(text));
	assert_string_equal(data, text);
	free(data);
}

static void expect_names(struct wfix *f, int64_t run,
			 const char *const *want, size_t nwant)
{
	char **names;
	size_t n, i;

	assert_int_equal(db_raw_list(f->db, run, &names, &n), DB_OK);
	assert_int_equal(n, nwant);
	for (i = 0; i < n; i++) {
		assert_string_equal(names[i], want[i]);
		free(names[i]);
	}
	free(names);
}

static void test_import_rows(void **state)
{
	static const char *const phases[] = { "iops", "iops.dev", "x", NULL };
	static const char *const names[] = { "hist/iops.dev.json",
					     "hist/iops.json", "hist/x.json" };
	struct wfix *f = *state;
	struct db_hist *v;
	size_t n, i;
	int64_t run = import_run(f, "6.1.1", phases, 3);
	char *data;
	size_t len;

	assert_int_equal(db_hist_list(f->db, run, &v, &n), DB_OK);
	assert_int_equal(n, 3);
	/* the raw output names' order: "iops.dev.json" < "iops.json" */
	assert_string_equal(v[0].phase, "iops.dev");
	assert_string_equal(v[1].phase, "iops");
	assert_string_equal(v[2].phase, "x");
	for (i = 0; i < n; i++) {
		assert_int_equal(v[i].h.n, 3);
		assert_int_equal(v[i].h.up[2], 300);
		assert_int_equal(v[i].h.cnt[2], 3);
		assert_int_equal(v[i].h.total, 6);
	}
	db_hists_free(v, n);
	/* the API's raw outputs, as before: listed and read as JSON */
	assert_int_equal(db_count(f->db, "raw_outputs"), 0);
	expect_names(f, run, names, 3);
	expect_raw(f, run, "hist/iops.json", "{\"unit\":\"ns\",\"buckets\":"
		   "[[100,1],[200,2],[300,3]]}");
	assert_int_equal(db_raw_get(f->db, run, "hist/nope.json", &data,
				    &len), DB_NOTFOUND);
	assert_int_equal(db_raw_get(f->db, run, "hist/.json", &data, &len),
			 DB_NOTFOUND);
	/* a raw output put under such a name is read first */
	assert_int_equal(db_raw_put(f->db, run, "hist/x.json", "mine", 4),
			 DB_OK);
	expect_raw(f, run, "hist/x.json", "mine");
	expect_names(f, run, names, 3);
	/* an empty histogram is one too */
	run = import_run(f, "6.1.2", phases + 2, 0);
	expect_raw(f, run, "hist/x.json", "{\"unit\":\"ns\",\"buckets\":[]}");
	assert_int_equal(db_hist_list(f->db, run, &v, &n), DB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].h.n, 0);
	db_hists_free(v, n);
}

/* A row that breaks lathist's rules is left out of the list and is an
 * error as a raw output. */
static void test_bad_row(void **state)
{
	static const char *const phases[] = { "a", "b", NULL };
	struct wfix *f = *state;
	int64_t run = import_run(f, "6.1.1", phases, 2);
	struct db_hist *v;
	char *data;
	size_t n, len;

	assert_int_equal(sqlite3_exec(f->db->h, "UPDATE run_hists SET "
				      "buckets = X'0102' WHERE phase = 'a'",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(db_hist_list(f->db, run, &v, &n), DB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].phase, "b");
	db_hists_free(v, n);
	assert_int_equal(db_raw_get(f->db, run, "hist/a.json", &data, &len),
			 DB_ERR);
	/* bounds and counts of 0 */
	assert_int_equal(sqlite3_exec(f->db->h, "UPDATE run_hists SET "
				      "buckets = zeroblob(32) WHERE "
				      "phase = 'a'",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(db_hist_list(f->db, run, &v, &n), DB_OK);
	assert_int_equal(n, 1);
	db_hists_free(v, n);
}

static void test_migrate_20(void **state)
{
	static const char canon[] = "{\"unit\":\"ns\",\"buckets\":"
				    "[[100,1],[200,2]]}";
	static const char spaced[] = "{ \"unit\": \"ns\", \"buckets\": "
				     "[[100, 1]] }";
	static const char bad[] = "{\"unit\":\"ns\",\"buckets\":[[5,1],[4,1]]}";
	static const char other[] = "{\"unit\":\"ns\",\"buckets\":[[7,7]]}";
	static const char *const names[] = { "hist/a.json", "hist/b.json",
					     "hist/c.json", "hist/d.json",
					     "same.json" };
	struct wfix *f = *state;
	int64_t run = import_run(f, "6.1.1", NULL, 0);
	struct db_hist *v;
	size_t n;

	/* the database as schema 19 left it: no run_hists, the histograms
	 * raw outputs "hist/<phase>.json" */
	assert_int_equal(sqlite3_exec(f->db->h, UNDO_MIGRATIONS_FROM_21
				      "DROP TABLE run_hists;"
				      "PRAGMA user_version = 19", NULL, NULL,
				      NULL), SQLITE_OK);
	assert_int_equal(db_raw_put(f->db, run, "hist/a.json", canon,
				    strlen(canon)), DB_OK);
	assert_int_equal(db_raw_put(f->db, run, "same.json", canon,
				    strlen(canon)), DB_OK);
	assert_int_equal(db_raw_put(f->db, run, "hist/b.json", spaced,
				    strlen(spaced)), DB_OK);
	assert_int_equal(db_raw_put(f->db, run, "hist/c.json", bad,
				    strlen(bad)), DB_OK);
	assert_int_equal(db_raw_put(f->db, run, "hist/d.json", other,
				    strlen(other)), DB_OK);
	assert_int_equal(db_count(f->db, "raw_blobs"), 4);
	db_close(f->db);

	f->db = db_open(f->path, f->err, sizeof(f->err));
	assert_non_null(f->db);
	assert_int_equal(db_user_version(f->db), db_schema_version());
	/* a, b and d are rows; c never read as a histogram */
	assert_int_equal(db_hist_list(f->db, run, &v, &n), DB_OK);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].phase, "a");
	assert_int_equal(v[0].h.total, 3);
	assert_string_equal(v[1].phase, "b");
	assert_int_equal(v[1].h.total, 1);
	assert_string_equal(v[2].phase, "d");
	db_hists_free(v, n);
	/* every byte the API answered, answered still */
	expect_names(f, run, names, 5);
	expect_raw(f, run, "hist/a.json", canon);
	expect_raw(f, run, "hist/b.json", spaced);
	expect_raw(f, run, "hist/c.json", bad);
	expect_raw(f, run, "hist/d.json", other);
	expect_raw(f, run, "same.json", canon);
	/* a and d moved out; b and c kept as they are beside them; d's blob
	 * went, a's stays for same.json */
	assert_int_equal(db_count(f->db, "raw_outputs"), 3);
	assert_int_equal(db_count(f->db, "raw_blobs"), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_import_rows, wfix_setup,
						wfix_teardown),
		cmocka_unit_test_setup_teardown(test_bad_row, wfix_setup,
						wfix_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_20, wfix_setup,
						wfix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
