// SPDX-License-Identifier: MIT
/*
 * Unit tests for the data layer (db/) on a temporary sqlite file: opening
 * and migrating, the kernel, rig and suite catalogues, db_import with its
 * repetitions and all-or-nothing behaviour, samples and history as the
 * pages read them, raw outputs, counts, foreign keys and the refusal of a
 * database written by a newer klab.  Result sets are built by hand so the
 * test depends on db/ alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db.h"
#include "db/db_int.h"	/* white-box checks on the handle */
#include "db_testlib.h"	/* testdb_remove */
#include "klabd/outcome.h"

struct fixture {
	char dir[64];
	char path[128];
	struct db *db;
	char err[256];
};

static char *xdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void rs_add(struct result_set *rs, const char *kernel,
		   const char *metric, const char *unit, double value,
		   enum metric_dir dir)
{
	struct result *r;

	rs->v = realloc(rs->v, (rs->n + 1) * sizeof(*rs->v));
	assert_non_null(rs->v);
	r = &rs->v[rs->n++];
	r->kernel = xdup(kernel);
	r->metric = xdup(metric);
	r->unit = xdup(unit);
	r->value = value;
	r->dir = dir;
}

static void rs_free(struct result_set *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		free(rs->v[i].kernel);
		free(rs->v[i].metric);
		free(rs->v[i].unit);
	}
	free(rs->v);
	free(rs->kernel);
	free(rs->error);
	memset(rs, 0, sizeof(*rs));
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/klab-test-db.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/klab.db", f->dir);
	f->db = db_open(f->path, f->err, sizeof(f->err));
	assert_non_null(f->db);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	testdb_remove(f->db, f->dir, f->path);
	free(f);
	return 0;
}

/* A tiobench-like set for one or two kernels. */
static void tio_set(struct result_set *rs, const char *k1, const char *k2,
		    double base)
{
	const char *ks[2] = { k1, k2 };
	int i;

	memset(rs, 0, sizeof(*rs));
	for (i = 0; i < 2 && ks[i]; i++) {
		rs_add(rs, ks[i], "tiobench.seq_read.rate", "MB/s", base + i,
		       DIR_HIGHER);
		rs_add(rs, ks[i], "tiobench.seq_read.lat_avg", "ms",
		       base / 10 + i, DIR_LOWER);
		rs_add(rs, ks[i], "dbench.throughput", "MB/s", base * 2 + i,
		       DIR_HIGHER);
	}
}

static const struct db_import_opts default_opts = {
	.rig = "default", .suite = "tiobench",
};

static void import_ok(struct fixture *f, const struct result_set *rs,
		      const struct db_import_opts *o, int64_t **ids, size_t *n)
{
	int rc = db_import(f->db, rs, o, ids, n, f->err, sizeof(f->err));

	if (rc != DB_OK)
		fail_msg("import failed: %s", f->err);
}

static void test_open_migrate_reopen(void **state)
{
	struct fixture *f = *state;
	struct db_kernel k = { .ident = "6.1.176" };
	char wal[160];

	assert_true(db_schema_version() >= 1);
	assert_int_equal(db_user_version(f->db), db_schema_version());
	assert_int_equal(db_count(f->db, "rigs"), 1);
	assert_int_equal(db_count(f->db, "suites"), 8);
	assert_int_equal(db_kernel_put(f->db, &k, f->err, sizeof(f->err)),
			 DB_OK);
	snprintf(wal, sizeof(wal), "%s-wal", f->path);
	assert_int_equal(access(wal, F_OK), 0);	/* WAL mode */
	db_close(f->db);
	f->db = db_open(f->path, f->err, sizeof(f->err));
	assert_non_null(f->db);
	assert_int_equal(db_user_version(f->db), db_schema_version());
	assert_int_equal(db_count(f->db, "kernels"), 1);
	assert_int_equal(db_count(f->db, "suites"), 8);	/* seeded once */
	assert_int_equal(db_count(f->db, "bogus"), DB_INVALID);
	assert_null(db_open("", f->err, sizeof(f->err)));
}

static void test_open_garbage(void **state)
{
	struct fixture *f = *state;
	char path[160];
	FILE *fp;
	int i;

	snprintf(path, sizeof(path), "%s/garbage.db", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	for (i = 0; i < 1000; i++)
		fputs("this is not an sqlite file\n", fp);
	fclose(fp);
	assert_null(db_open(path, f->err, sizeof(f->err)));
	assert_non_null(strstr(f->err, "cannot open database '"));
	assert_non_null(strstr(f->err, "garbage.db': "));
	unlink(path);
}

static void test_kernels(void **state)
{
	struct fixture *f = *state;
	struct db_kernel a = { .ident = "2.4.22-axboe-2l", .version = "2.4.22",
			       .base = "2.4.22", .source = "build",
			       .created = 1000 };
	struct db_kernel b = { .ident = "6.1.192+elv-lowlat", .created = 2000 };
	struct db_kernel upd = { .ident = "2.4.22-axboe-2l",
				 .provenance = "mail from axboe" };
	struct db_kernel got, *v;
	size_t n;

	assert_int_equal(db_kernel_put(f->db, &a, f->err, sizeof(f->err)),
			 DB_OK);
	assert_int_equal(db_kernel_put(f->db, &b, f->err, sizeof(f->err)),
			 DB_OK);
	assert_int_equal(db_kernel_put(f->db, &upd, f->err, sizeof(f->err)),
			 DB_OK);
	assert_int_equal(db_kernel_get(f->db, a.ident, &got), DB_OK);
	assert_string_equal(got.version, "2.4.22");	/* kept */
	assert_string_equal(got.source, "build");
	assert_string_equal(got.provenance, "mail from axboe");
	assert_string_equal(got.patch_hash, "");
	assert_int_equal(got.created, 1000);
	assert_int_equal(got.nruns, 0);
	db_kernel_release(&got);
	assert_int_equal(db_kernel_get(f->db, "nope", &got), DB_NOTFOUND);
	assert_int_equal(db_kernel_list(f->db, &v, &n), DB_OK);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].ident, b.ident);	/* newest first */
	assert_string_equal(v[1].ident, a.ident);
	db_kernels_free(v, n);
	upd.ident = "";
	assert_int_equal(db_kernel_put(f->db, &upd, f->err, sizeof(f->err)),
			 DB_INVALID);
	upd.ident = "bad\nname";
	assert_int_equal(db_kernel_put(f->db, &upd, f->err, sizeof(f->err)),
			 DB_INVALID);
	assert_int_equal(db_count(f->db, "kernels"), 2);
}

static void test_rigs_suites(void **state)
{
	struct fixture *f = *state;
	struct db_rig r = { .name = "qemu-scsi", .kind = "qemu",
			    .profile = "scsi", .disks = 1, .cpus = 2,
			    .memory_mb = 512 };
	struct db_rig got, *rv;
	struct db_suite s, *sv;
	size_t n;

	assert_int_equal(db_rig_get(f->db, "default", &got), DB_OK);
	assert_string_equal(got.kind, "manual");
	assert_string_equal(got.state, "idle");
	db_rig_release(&got);
	assert_int_equal(db_rig_put(f->db, &r, f->err, sizeof(f->err)), DB_OK);
	assert_int_equal(db_rig_set_state(f->db, "qemu-scsi", "booting"),
			 DB_OK);
	assert_int_equal(db_rig_set_state(f->db, "nope", "idle"), DB_NOTFOUND);
	r.profile = NULL;
	r.disks = 0;
	r.memory_mb = 1024;
	assert_int_equal(db_rig_put(f->db, &r, f->err, sizeof(f->err)), DB_OK);
	assert_int_equal(db_rig_get(f->db, "qemu-scsi", &got), DB_OK);
	assert_string_equal(got.profile, "scsi");
	assert_int_equal(got.disks, 1);
	assert_int_equal(got.memory_mb, 1024);
	assert_string_equal(got.state, "booting");
	db_rig_release(&got);
	r.kind = "toaster";
	assert_int_equal(db_rig_put(f->db, &r, f->err, sizeof(f->err)),
			 DB_INVALID);
	assert_string_equal(f->err, "unknown rig kind 'toaster'");
	assert_int_equal(db_rig_list(f->db, &rv, &n), DB_OK);
	assert_int_equal(n, 2);
	assert_string_equal(rv[0].name, "default");
	db_rigs_free(rv, n);

	assert_int_equal(db_suite_put(f->db, "mine", "my suite", f->err,
				      sizeof(f->err)), DB_OK);
	assert_int_equal(db_suite_put(f->db, "mine", NULL, f->err,
				      sizeof(f->err)), DB_OK);
	assert_int_equal(db_suite_get(f->db, "mine", &s), DB_OK);
	assert_string_equal(s.description, "my suite");
	db_suite_release(&s);
	assert_int_equal(db_suite_get(f->db, "nope", &s), DB_NOTFOUND);
	assert_int_equal(db_suite_list(f->db, &sv, &n), DB_OK);
	assert_int_equal(n, 9);
	assert_string_equal(sv[0].name, "dbench");	/* by name */
	assert_true(strlen(sv[0].description) > 0);
	db_suites_free(sv, n);
}

static void test_import_repetitions(void **state)
{
	struct fixture *f = *state;
	struct result_set rs;
	struct db_kernel k;
	struct db_run run, *runs;
	int64_t *ids;
	size_t n, i;

	tio_set(&rs, "6.1.176", "6.1.192", 40);
	for (i = 1; i <= 3; i++) {
		import_ok(f, &rs, &default_opts, &ids, &n);
		assert_int_equal(n, 2);
		assert_int_equal(db_run_get(f->db, ids[0], &run), DB_OK);
		assert_string_equal(run.kernel, "6.1.176");
		assert_string_equal(run.rig, "default");
		assert_string_equal(run.suite, "tiobench");
		assert_string_equal(run.status, "done");
		assert_string_equal(run.error, "");
		assert_int_equal(run.repetition, i);
		assert_int_equal(run.nresults, 3);
		assert_true(run.finished > 0);
		db_run_release(&run);
		assert_int_equal(db_run_get(f->db, ids[1], &run), DB_OK);
		assert_string_equal(run.kernel, "6.1.192");
		assert_int_equal(run.repetition, i);
		db_run_release(&run);
		free(ids);
	}
	/* Another suite counts its own repetitions. */
	import_ok(f, &rs, &(struct db_import_opts){ .rig = "default",
		  .suite = "dbench", .job_id = 7 }, &ids, &n);
	assert_int_equal(db_run_get(f->db, ids[0], &run), DB_OK);
	assert_int_equal(run.repetition, 1);
	assert_int_equal(run.job_id, 7);
	db_run_release(&run);
	free(ids);
	rs_free(&rs);

	assert_int_equal(db_kernel_get(f->db, "6.1.176", &k), DB_OK);
	assert_string_equal(k.source, "import");
	assert_int_equal(k.nruns, 4);
	db_kernel_release(&k);
	assert_int_equal(db_count(f->db, "runs"), 8);
	assert_int_equal(db_count(f->db, "results"), 24);
	assert_int_equal(db_count(f->db, "metrics"), 3);
	assert_int_equal(db_run_list(f->db, "6.1.176", NULL, "tiobench", 2,
				     &runs, &n), DB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(runs[0].repetition, 3);	/* newest first */
	assert_int_equal(runs[1].repetition, 2);
	db_runs_free(runs, n);
	assert_int_equal(db_run_list(f->db, NULL, NULL, NULL, 0, &runs, &n),
			 DB_OK);
	assert_int_equal(n, 8);
	db_runs_free(runs, n);
	assert_int_equal(db_run_get(f->db, 12345, &run), DB_NOTFOUND);
}

static void test_import_status(void **state)
{
	struct fixture *f = *state;
	struct result_set rs;
	struct db_run run;
	int64_t *ids;
	size_t n;

	memset(&rs, 0, sizeof(rs));
	rs.kernel = strdup("6.12.117");
	rs.error = strdup("disk full on /dev/sdb");
	import_ok(f, &rs, &default_opts, &ids, &n);
	assert_int_equal(n, 1);
	assert_int_equal(db_run_get(f->db, ids[0], &run), DB_OK);
	assert_string_equal(run.status, "failed");
	assert_string_equal(run.error, "disk full on /dev/sdb");
	assert_int_equal(run.nresults, 0);
	db_run_release(&run);
	free(ids);
	/* Results with a NULL kernel go to rs->kernel. */
	rs_add(&rs, NULL, "fio.randread.read.iops", "IOPS", 4100, DIR_HIGHER);
	rs.incomplete = 1;
	import_ok(f, &rs, &default_opts, &ids, &n);
	assert_int_equal(db_run_get(f->db, ids[0], &run), DB_OK);
	assert_string_equal(run.kernel, "6.12.117");
	assert_string_equal(run.status, "incomplete");
	assert_int_equal(run.repetition, 2);
	assert_int_equal(run.nresults, 1);
	db_run_release(&run);
	free(ids);
	rs_free(&rs);
	/* Nothing at all is refused. */
	assert_int_equal(db_import(f->db, &rs, &default_opts, NULL, NULL,
				   f->err, sizeof(f->err)), DB_INVALID);
}

static void assert_counts(struct db *db, const int64_t *want)
{
	static const char *const what[] = { "kernels", "runs", "results",
					    "metrics", "raw_outputs" };
	size_t i;

	for (i = 0; i < 5; i++)
		assert_int_equal(db_count(db, what[i]), want[i]);
}

static void test_import_all_or_nothing(void **state)
{
	struct fixture *f = *state;
	struct db_import_opts o = { .rig = "default", .suite = "tiobench",
				    .raw_name = "tiobench.txt", .raw = "x",
				    .raw_len = 1 };
	const int64_t before[5] = { 2, 2, 6, 3, 2 };
	struct result_set rs;
	size_t i;

	tio_set(&rs, "6.1.176", "6.1.192", 40);
	import_ok(f, &rs, &o, NULL, NULL);
	rs_free(&rs);
	assert_counts(f->db, before);

	/* New kernel, new metric, then a unit conflict on the last one. */
	tio_set(&rs, "6.1.180", NULL, 50);
	rs_add(&rs, "6.1.180", "new.metric", "ms", 1, DIR_LOWER);
	for (i = 0; i < 50; i++)
		rs_add(&rs, "6.1.180", "tiobench.seq_read.rate", "MB/s", i,
		       DIR_HIGHER);
	rs_add(&rs, "6.1.180", "tiobench.seq_read.lat_avg", "s", 1, DIR_LOWER);
	assert_int_equal(db_import(f->db, &rs, &o, NULL, NULL, f->err,
				   sizeof(f->err)), DB_INVALID);
	assert_string_equal(f->err, "metric 'tiobench.seq_read.lat_avg' has "
			    "unit 'ms', not 's'");
	assert_counts(f->db, before);
	assert_int_equal(db_kernel_get(f->db, "6.1.180",
				       &(struct db_kernel){ 0 }), DB_NOTFOUND);
	rs_free(&rs);

	/* A direction conflict is refused the same way. */
	tio_set(&rs, "6.1.180", NULL, 50);
	rs.v[0].dir = DIR_LOWER;
	assert_int_equal(db_import(f->db, &rs, &o, NULL, NULL, f->err,
				   sizeof(f->err)), DB_INVALID);
	assert_non_null(strstr(f->err, "'tiobench.seq_read.rate'"));
	assert_counts(f->db, before);
	rs_free(&rs);

	/* new.metric was rolled back, so another unit is fine now. */
	memset(&rs, 0, sizeof(rs));
	rs_add(&rs, "6.1.180", "new.metric", "s", 1, DIR_LOWER);
	import_ok(f, &rs, &o, NULL, NULL);
	rs_free(&rs);
	assert_int_equal(db_count(f->db, "metrics"), 4);
	assert_int_equal(db_count(f->db, "results"), 7);
}

static void test_import_bad_input(void **state)
{
	struct fixture *f = *state;
	struct result_set rs;
	const int64_t none[5] = { 0, 0, 0, 0, 0 };

	tio_set(&rs, "6.1.176", NULL, 40);
	assert_int_equal(db_import(f->db, &rs, &(struct db_import_opts){
			 .rig = "nope", .suite = "tiobench" }, NULL, NULL,
			 f->err, sizeof(f->err)), DB_NOTFOUND);
	assert_string_equal(f->err, "unknown rig 'nope'");
	assert_int_equal(db_import(f->db, &rs, &(struct db_import_opts){
			 .rig = "default", .suite = "nope" }, NULL, NULL,
			 f->err, sizeof(f->err)), DB_NOTFOUND);
	assert_string_equal(f->err, "unknown suite 'nope'");
	rs_add(&rs, NULL, "orphan.metric", "", 1, DIR_NONE);
	assert_int_equal(db_import(f->db, &rs, &default_opts, NULL, NULL,
				   f->err, sizeof(f->err)), DB_INVALID);
	assert_string_equal(f->err, "result 'orphan.metric' names no kernel");
	rs_free(&rs);
	tio_set(&rs, "6.1.176", NULL, 40);
	rs.v[1].value = NAN;
	assert_int_equal(db_import(f->db, &rs, &default_opts, NULL, NULL,
				   f->err, sizeof(f->err)), DB_INVALID);
	rs_free(&rs);
	assert_counts(f->db, none);
}

static void test_samples(void **state)
{
	struct fixture *f = *state;
	const char *const ks[] = { "6.1.192", "6.1.176" };
	const char *const bad[] = { "6.1.176", "9.9.9" };
	struct result_set rs;
	struct db_sample *v;
	size_t n;

	tio_set(&rs, "6.1.176", "6.1.192", 40);
	import_ok(f, &rs, &default_opts, NULL, NULL);
	rs_free(&rs);
	tio_set(&rs, "6.1.176", "6.1.192", 60);
	import_ok(f, &rs, &default_opts, NULL, NULL);
	import_ok(f, &rs, &(struct db_import_opts){ .rig = "default",
		  .suite = "dbench" }, NULL, NULL);
	rs_free(&rs);

	assert_int_equal(db_samples(f->db, ks, 2, "default", "tiobench",
				    "tiobench.", &v, &n, f->err,
				    sizeof(f->err)), DB_OK);
	assert_int_equal(n, 8);	/* 2 kernels x 2 metrics x 2 reps */
	assert_string_equal(v[0].kernel, "6.1.192");	/* order given */
	assert_string_equal(v[0].metric, "tiobench.seq_read.lat_avg");
	assert_int_equal(v[0].repetition, 1);
	assert_true(v[0].value == 5.0);
	assert_int_equal(v[0].dir, DIR_LOWER);
	assert_string_equal(v[0].unit, "ms");
	assert_int_equal(v[1].repetition, 2);
	assert_true(v[1].value == 7.0);
	assert_string_equal(v[2].metric, "tiobench.seq_read.rate");
	assert_int_equal(v[2].dir, DIR_HIGHER);
	assert_true(v[3].value == 61.0);
	assert_string_equal(v[4].kernel, "6.1.176");
	assert_true(v[4].time > 0 && v[4].run_id > 0);
	db_samples_free(v, n);

	/* Any suite: the dbench run joins in, no prefix: all metrics. */
	assert_int_equal(db_samples(f->db, ks, 1, NULL, NULL, NULL, &v, &n,
				    f->err, sizeof(f->err)), DB_OK);
	assert_int_equal(n, 9);
	assert_string_equal(v[0].metric, "dbench.throughput");
	db_samples_free(v, n);

	assert_int_equal(db_samples(f->db, bad, 2, NULL, NULL, NULL, &v, &n,
				    f->err, sizeof(f->err)), DB_NOTFOUND);
	assert_string_equal(f->err, "unknown kernel '9.9.9'");
	assert_null(v);
	assert_int_equal(db_samples(f->db, ks, 2, "nope", NULL, NULL, &v, &n,
				    f->err, sizeof(f->err)), DB_NOTFOUND);
	assert_string_equal(f->err, "unknown rig 'nope'");
}

static void test_history_and_metrics(void **state)
{
	struct fixture *f = *state;
	struct result_set rs;
	struct db_sample *v;
	struct db_metric *m;
	int64_t *ids, last[5];
	size_t n, i;

	for (i = 0; i < 5; i++) {
		tio_set(&rs, "6.1.176", NULL, 10.0 * (double)i);
		import_ok(f, &rs, &default_opts, &ids, &n);
		last[i] = ids[0];
		free(ids);
		rs_free(&rs);
	}
	assert_int_equal(db_history(f->db, "tiobench.seq_read.rate",
				    "default", "tiobench", 0, &v, &n, f->err,
				    sizeof(f->err)), DB_OK);
	assert_int_equal(n, 5);
	for (i = 0; i < 5; i++) {	/* oldest first */
		assert_int_equal(v[i].run_id, last[i]);
		assert_true(v[i].value == 10.0 * (double)i);
		assert_string_equal(v[i].kernel, "6.1.176");
		assert_string_equal(v[i].metric, "tiobench.seq_read.rate");
	}
	db_samples_free(v, n);
	assert_int_equal(db_history(f->db, "tiobench.seq_read.rate", NULL,
				    NULL, 2, &v, &n, f->err, sizeof(f->err)),
			 DB_OK);
	assert_int_equal(n, 2);	/* the newest two, oldest first */
	assert_int_equal(v[0].run_id, last[3]);
	assert_int_equal(v[1].run_id, last[4]);
	db_samples_free(v, n);
	assert_int_equal(db_history(f->db, "tiobench.seq_read.rate", NULL,
				    "dbench", 0, &v, &n, f->err,
				    sizeof(f->err)), DB_OK);
	assert_int_equal(n, 0);
	db_samples_free(v, n);
	assert_int_equal(db_history(f->db, "no.such", NULL, NULL, 0, &v, &n,
				    f->err, sizeof(f->err)), DB_NOTFOUND);
	assert_string_equal(f->err, "unknown metric 'no.such'");

	assert_int_equal(db_metric_list(f->db, &m, &n), DB_OK);
	assert_int_equal(n, 3);
	assert_string_equal(m[0].name, "dbench.throughput");
	assert_string_equal(m[1].name, "tiobench.seq_read.lat_avg");
	assert_int_equal(m[1].dir, DIR_LOWER);
	assert_string_equal(m[1].unit, "ms");
	db_metrics_free(m, n);
}

static void test_raw(void **state)
{
	struct fixture *f = *state;
	static const char bin[] = { 'a', 0, 'b', '\xff' };
	struct db_import_opts o = { .rig = "default", .suite = "tiobench",
				    .raw_name = "tiobench.txt",
				    .raw = "Sequential Reads\n",
				    .raw_len = 17 };
	struct result_set rs;
	int64_t *ids;
	char *data, **names;
	size_t n, len;

	tio_set(&rs, "6.1.176", NULL, 40);
	import_ok(f, &rs, &o, &ids, &n);
	rs_free(&rs);
	assert_int_equal(db_raw_get(f->db, ids[0], "tiobench.txt", &data,
				    &len), DB_OK);
	assert_int_equal(len, 17);
	assert_string_equal(data, "Sequential Reads\n");
	free(data);
	assert_int_equal(db_raw_put(f->db, ids[0], "console.log", bin, 4),
			 DB_OK);
	assert_int_equal(db_raw_put(f->db, ids[0], "empty", NULL, 0), DB_OK);
	assert_int_equal(db_raw_put(f->db, ids[0], "tiobench.txt", "new", 3),
			 DB_OK);	/* replaces */
	assert_int_equal(db_raw_get(f->db, ids[0], "console.log", &data,
				    &len), DB_OK);
	assert_int_equal(len, 4);
	assert_memory_equal(data, bin, 4);
	free(data);
	assert_int_equal(db_raw_get(f->db, ids[0], "empty", &data, &len),
			 DB_OK);
	assert_int_equal(len, 0);
	assert_string_equal(data, "");
	free(data);
	assert_int_equal(db_raw_list(f->db, ids[0], &names, &n), DB_OK);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "console.log");
	assert_string_equal(names[1], "empty");
	assert_string_equal(names[2], "tiobench.txt");
	while (n > 0)
		free(names[--n]);
	free(names);
	assert_int_equal(db_count(f->db, "raw_outputs"), 3);
	assert_int_equal(db_raw_get(f->db, ids[0], "nope", &data, &len),
			 DB_NOTFOUND);
	assert_int_equal(db_raw_put(f->db, ids[0] + 100, "x", "y", 1),
			 DB_NOTFOUND);
	free(ids);
}

/* Transactions: db_import inside db_begin joins the caller's transaction. */
static void test_transactions(void **state)
{
	struct fixture *f = *state;
	struct result_set rs;

	tio_set(&rs, "6.1.176", NULL, 40);
	assert_int_equal(db_begin(f->db), DB_OK);
	import_ok(f, &rs, &default_opts, NULL, NULL);
	assert_int_equal(db_count(f->db, "runs"), 1);
	db_rollback(f->db);
	assert_int_equal(db_count(f->db, "runs"), 0);
	assert_int_equal(db_count(f->db, "metrics"), 0);
	/* A metric cached by the rolled-back import must not be reused. */
	import_ok(f, &rs, &default_opts, NULL, NULL);
	assert_int_equal(db_count(f->db, "results"), 3);
	assert_int_equal(db_begin(f->db), DB_OK);
	import_ok(f, &rs, &default_opts, NULL, NULL);
	assert_int_equal(db_commit(f->db), DB_OK);
	assert_int_equal(db_count(f->db, "results"), 6);
	rs_free(&rs);
}

static void test_foreign_keys(void **state)
{
	struct fixture *f = *state;
	int on = -1;

	/* White box: the connection db_open made enforces foreign keys
	 * (asked of the connection itself, no SQL outside db/). */
	assert_int_equal(sqlite3_db_config(f->db->h,
					   SQLITE_DBCONFIG_ENABLE_FKEY, -1,
					   &on), SQLITE_OK);
	assert_int_equal(on, 1);
	/* Through the API, a reference to a missing run is refused. */
	assert_int_equal(db_raw_put(f->db, 999, "x", "y", 1), DB_NOTFOUND);
	assert_int_equal(db_count(f->db, "raw_outputs"), 0);
}

/* Write PRAGMA user_version's bytes (offset 60, big-endian) by hand. */
static void set_user_version(const char *path, uint32_t v)
{
	unsigned char b[4] = { v >> 24, v >> 16, v >> 8, v };
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, b, 4, 60), 4);
	close(fd);
}

static void test_future_refused(void **state)
{
	struct fixture *f = *state;
	char wal[160];

	db_close(f->db);	/* the last close checkpoints the WAL away */
	f->db = NULL;
	snprintf(wal, sizeof(wal), "%s-wal", f->path);
	assert_int_equal(access(wal, F_OK), -1);
	set_user_version(f->path, 99);
	assert_null(db_open(f->path, f->err, sizeof(f->err)));
	assert_non_null(strstr(f->err, "schema version 99, newer than"));
	assert_non_null(strstr(f->err, f->path));
	set_user_version(f->path, (uint32_t)db_schema_version());
	f->db = db_open(f->path, f->err, sizeof(f->err));
	assert_non_null(f->db);
}

/* Schema 4: the raw upload stored once per import, imports recorded
 * under a key, repeats answered from it, limits checked before writing. */
static void test_import_once_idempotent(void **state)
{
	struct fixture *f = *state;
	struct db_import_opts o = { .rig = "default", .suite = "tiobench",
				    .raw_name = "upload", .raw = "text one",
				    .raw_len = 8, .idem_key = "key:a" };
	struct result_set rs;
	int64_t *ids, *ids2;
	char *data;
	size_t n, n2, len;

	tio_set(&rs, "6.1.176", "6.1.192", 40);
	import_ok(f, &rs, &o, &ids, &n);
	assert_int_equal(n, 2);
	assert_int_equal(db_count(f->db, "raw_outputs"), 2);
	assert_int_equal(db_count(f->db, "raw_blobs"), 1);
	assert_int_equal(db_raw_get(f->db, ids[1], "upload", &data, &len),
			 DB_OK);
	assert_string_equal(data, "text one");
	free(data);
	/* the same key and content: the same runs, nothing stored */
	assert_int_equal(db_import(f->db, &rs, &o, &ids2, &n2, f->err,
				   sizeof(f->err)), DB_REPEATED);
	assert_int_equal(n2, 2);
	assert_memory_equal(ids, ids2, 2 * sizeof(*ids));
	free(ids2);
	assert_int_equal(db_count(f->db, "runs"), 2);
	/* the same key, other content */
	o.raw = "text two";
	assert_int_equal(db_import(f->db, &rs, &o, NULL, NULL, f->err,
				   sizeof(f->err)), DB_CONFLICT);
	assert_non_null(strstr(f->err, "key:a"));
	/* another key, the first content: new runs, the blob shared */
	o.raw = "text one";
	o.idem_key = "key:b";
	import_ok(f, &rs, &o, &ids2, &n2);
	free(ids2);
	assert_int_equal(db_count(f->db, "runs"), 4);
	assert_int_equal(db_count(f->db, "raw_blobs"), 1);
	assert_int_equal(db_count(f->db, "imports"), 2);
	/* limits: refused before anything is written */
	o.idem_key = "key:c";
	o.max_kernels = 1;
	assert_int_equal(db_import(f->db, &rs, &o, NULL, NULL, f->err,
				   sizeof(f->err)), DB_TOOBIG);
	assert_string_equal(f->err, "import has 2 kernels, more than "
			    "max_import_kernels (1)");
	o.max_kernels = 0;
	o.max_results = 5;
	assert_int_equal(db_import(f->db, &rs, &o, NULL, NULL, f->err,
				   sizeof(f->err)), DB_TOOBIG);
	assert_int_equal(db_count(f->db, "runs"), 4);
	assert_int_equal(db_count(f->db, "imports"), 2);
	assert_int_equal(outcome_of_db(DB_TOOBIG), OUT_TOOBIG);
	assert_int_equal(outcome_of_db(DB_REPEATED), OUT_OK);
	rs_free(&rs);
	free(ids);
}

/* Names outside the identifier rule never reach the tables. */
static void test_names_refused(void **state)
{
	struct fixture *f = *state;
	struct db_kernel k = { .ident = "a<b" };
	struct db_rig g = { .name = "../r", .kind = "manual", .state = "idle" };
	struct result_set rs;

	assert_int_equal(db_kernel_put(f->db, &k, f->err, sizeof(f->err)),
			 DB_INVALID);
	assert_non_null(strstr(f->err, "byte 2"));
	assert_int_equal(db_rig_put(f->db, &g, f->err, sizeof(f->err)),
			 DB_INVALID);
	assert_int_equal(db_suite_put(f->db, "a b", "", f->err,
				      sizeof(f->err)), DB_INVALID);
	memset(&rs, 0, sizeof(rs));
	rs_add(&rs, "6.1.176", "m\xe2\x80\xae", "", 1, DIR_NONE);
	assert_int_equal(db_import(f->db, &rs, &default_opts, NULL, NULL,
				   f->err, sizeof(f->err)), DB_INVALID);
	rs_free(&rs);
	assert_int_equal(db_count(f->db, "kernels"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_open_migrate_reopen),
		T(test_open_garbage),
		T(test_kernels),
		T(test_rigs_suites),
		T(test_import_repetitions),
		T(test_import_status),
		T(test_import_all_or_nothing),
		T(test_import_bad_input),
		T(test_samples),
		T(test_history_and_metrics),
		T(test_raw),
		T(test_transactions),
		T(test_foreign_keys),
		T(test_future_refused),
		T(test_import_once_idempotent),
		T(test_names_refused),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
