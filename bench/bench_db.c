// SPDX-License-Identifier: MIT
/*
 * bench_db: how fast the data layer stores and reads results, measured as
 * ratios against a reference in the same run (timings are never test
 * assertions; this is not run by make check).
 *
 *  1. import: RUNS runs x METRICS metrics (default 1000 x 100 = 100k
 *     results) through db_import, BATCH runs (distinct kernels) per call,
 *     on a fresh temporary database;
 *  2. reference: the same number of rows inserted by a bare sqlite loop
 *     (one transaction, one prepared statement) into a results table of
 *     the same shape (same columns, foreign keys and indexes, same
 *     pragmas) in another temporary file;
 *  3. reads, on the imported database grown to 10k points of one metric:
 *     db_samples for 10 kernels and db_history of 10k points, median of
 *     100 calls each.
 *
 * The reference loop is the one place outside db/ with SQL in it: it is
 * what the data layer is measured against.
 *
 * Build and run (from the top of the tree):
 *   cc -std=c11 -D_GNU_SOURCE -O2 -I. -o build/bench_db bench/bench_db.c \
 *      db/[a-z]*.c $(pkg-config --cflags --libs sqlite3) -lm
 *   build/bench_db [RUNS [METRICS [BATCH]]]
 * KLAB_BENCH_KEEP=1 keeps the temporary databases and prints where.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "lib/results.h"

#define NQUERY 100

/* Wall clock and this process's CPU time: the machine may be shared, and
 * CPU time is what a busy neighbour disturbs least. */
struct span {
	double wall, cpu;
};

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct span span_start(void)
{
	struct span s = { clock_s(CLOCK_MONOTONIC),
			  clock_s(CLOCK_PROCESS_CPUTIME_ID) };

	return s;
}

/* Seconds since start, added to *acc. */
static void span_add(struct span *acc, struct span start)
{
	acc->wall += clock_s(CLOCK_MONOTONIC) - start.wall;
	acc->cpu += clock_s(CLOCK_PROCESS_CPUTIME_ID) - start.cpu;
}

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "bench_db: %s: %s\n", what, msg);
	exit(1);
}

static long arg(int argc, char **argv, int i, long def, long max)
{
	char *end;
	long v;

	if (argc <= i)
		return def;
	v = strtol(argv[i], &end, 10);
	if (*end || v <= 0 || v > max)
		die("bad argument", argv[i]);
	return v;
}

static char *xfmt(const char *prefix, long a)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s%03ld", prefix, a);
	return strdup(buf);
}

/* One import call's set: nk kernels from k0, nm metrics each. */
static void make_set(struct result_set *rs, long k0, long nk, long nm,
		     const char *kprefix)
{
	long k, m;
	struct result *r;

	memset(rs, 0, sizeof(*rs));
	rs->v = calloc((size_t)(nk * nm), sizeof(*rs->v));
	if (!rs->v)
		die("memory", "out of memory");
	for (k = k0; k < k0 + nk; k++) {
		for (m = 0; m < nm; m++) {
			r = &rs->v[rs->n++];
			r->kernel = xfmt(kprefix, k);
			r->metric = xfmt("bench.metric", m);
			r->unit = strdup(m % 2 ? "ms" : "MB/s");
			r->dir = m % 2 ? DIR_LOWER : DIR_HIGHER;
			r->value = (double)(k * 1000 + m) / 7.0;
		}
	}
}

/* Import nsets sets; returns the time spent in db_import only. */
static struct span import_sets(struct db *db, struct result_set *sets,
			       long nsets)
{
	struct db_import_opts o = { .rig = "default", .suite = "tiobench" };
	struct span total = { 0, 0 }, t;
	char err[256];
	long i;

	for (i = 0; i < nsets; i++) {
		t = span_start();
		if (db_import(db, &sets[i], &o, NULL, NULL, err,
			      sizeof(err)) != DB_OK)
			die("db_import", err);
		span_add(&total, t);
	}
	return total;
}

static void exec_or_die(sqlite3 *h, const char *sql)
{
	if (sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK)
		die("reference", sqlite3_errmsg(h));
}

/* The bare loop: rows rows into a results table of the same shape. */
static struct span reference(const char *path, long runs, long nm)
{
	struct span total = { 0, 0 }, t;
	sqlite3 *h;
	sqlite3_stmt *st;
	long i;

	if (sqlite3_open(path, &h) != SQLITE_OK)
		die("reference", path);
	exec_or_die(h, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;"
		    "PRAGMA synchronous=NORMAL;"
		    "CREATE TABLE runs (id INTEGER PRIMARY KEY);"
		    "CREATE TABLE metrics (id INTEGER PRIMARY KEY);"
		    "CREATE TABLE results ("
		    " run_id INTEGER NOT NULL REFERENCES runs(id)"
		    "  ON DELETE CASCADE,"
		    " metric_id INTEGER NOT NULL REFERENCES metrics(id),"
		    " value REAL NOT NULL);"
		    "CREATE INDEX results_run"
		    " ON results(run_id, metric_id, value);"
		    "CREATE INDEX results_metric"
		    " ON results(metric_id, run_id, value);"
		    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1"
		    " FROM c WHERE x < 100000)"
		    " INSERT INTO runs SELECT x FROM c;"
		    "INSERT INTO metrics SELECT id FROM runs"
		    " WHERE id <= 10000");
	if (sqlite3_prepare_v2(h, "INSERT INTO results (run_id, metric_id,"
			       " value) VALUES (?1, ?2, ?3)", -1, &st,
			       NULL) != SQLITE_OK)
		die("reference", sqlite3_errmsg(h));
	t = span_start();
	exec_or_die(h, "BEGIN IMMEDIATE");
	for (i = 0; i < runs * nm; i++) {
		sqlite3_bind_int64(st, 1, i / nm + 1);
		sqlite3_bind_int64(st, 2, i % nm + 1);
		sqlite3_bind_double(st, 3, (double)i / 7.0);
		if (sqlite3_step(st) != SQLITE_DONE)
			die("reference", sqlite3_errmsg(h));
		sqlite3_reset(st);
	}
	exec_or_die(h, "COMMIT");
	span_add(&total, t);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return total;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median milliseconds (wall, CPU) of NQUERY calls; *rows gets the last
 * row count. */
static struct span median_ms(struct db *db, int history, size_t *rows)
{
	static const char *const ks[10] = {
		"bench-000", "bench-001", "bench-002", "bench-003",
		"bench-004", "bench-005", "bench-006", "bench-007",
		"bench-008", "bench-009" };
	double wall[NQUERY], cpu[NQUERY];
	struct span t, m;
	struct db_sample *s;
	char err[256];
	int i, rc;

	for (i = 0; i < NQUERY; i++) {
		t = span_start();
		if (history)
			rc = db_history(db, "bench.metric000", "default",
					"tiobench", 10000, &s, rows, err,
					sizeof(err));
		else
			rc = db_samples(db, ks, 10, "default", "tiobench",
					NULL, &s, rows, err, sizeof(err));
		m.wall = m.cpu = 0;
		span_add(&m, t);
		wall[i] = m.wall * 1000;
		cpu[i] = m.cpu * 1000;
		if (rc != DB_OK)
			die(history ? "db_history" : "db_samples", err);
		db_samples_free(s, *rows);
	}
	qsort(wall, NQUERY, sizeof(wall[0]), cmp_double);
	qsort(cpu, NQUERY, sizeof(cpu[0]), cmp_double);
	m.wall = wall[NQUERY / 2];
	m.cpu = cpu[NQUERY / 2];
	return m;
}

/* Grow the history metric to 10k points: more runs, one metric each. */
static void grow_history(struct db *db, long have)
{
	struct result_set rs;
	long k;

	for (k = have; k < 10000; k += 500) {
		make_set(&rs, k, k + 500 > 10000 ? 10000 - k : 500, 1,
			 "hist-");
		import_sets(db, &rs, 1);
		result_set_release(&rs);
	}
}

static void remove_db(const char *p)
{
	char f[128];

	unlink(p);
	snprintf(f, sizeof(f), "%s-wal", p);
	unlink(f);
	snprintf(f, sizeof(f), "%s-shm", p);
	unlink(f);
}

int main(int argc, char **argv)
{
	long runs = arg(argc, argv, 1, 1000, 100000);
	long nm = arg(argc, argv, 2, 100, 10000);
	long batch = arg(argc, argv, 3, 10, 100000);
	long nsets = (runs + batch - 1) / batch, i;
	char dir[] = "/tmp/klab-bench-db.XXXXXX", path[96], ref[96], err[256];
	double rows = (double)(runs * nm);
	struct result_set *sets;
	struct span imp, bare, samp, hist;
	size_t nsamples, nhistory;
	struct db *db;

	if (!mkdtemp(dir))
		die("mkdtemp", dir);
	snprintf(path, sizeof(path), "%s/klab.db", dir);
	snprintf(ref, sizeof(ref), "%s/reference.db", dir);
	db = db_open(path, err, sizeof(err));
	if (!db)
		die("db_open", err);
	/* Build every set first: only the database work is timed.  Kernel
	 * bench-N (N < 100) gets runs / 100 repetitions. */
	sets = calloc((size_t)nsets, sizeof(*sets));
	if (!sets)
		die("memory", "out of memory");
	for (i = 0; i < nsets; i++)
		make_set(&sets[i], (i * batch) % 100,
			 i == nsets - 1 ? runs - i * batch : batch, nm,
			 "bench-");
	imp = import_sets(db, sets, nsets);
	bare = reference(ref, runs, nm);
	printf("import:    %.0f results (%ld runs x %ld metrics, %ld runs per "
	       "db_import): %.3f s wall, %.3f s cpu: %.0f rows/s (cpu %.0f)\n",
	       rows, runs, nm, batch, imp.wall, imp.cpu, rows / imp.wall,
	       rows / imp.cpu);
	printf("reference: %.0f rows, bare sqlite insert loop: %.3f s wall, "
	       "%.3f s cpu: %.0f rows/s (cpu %.0f)\n", rows, bare.wall,
	       bare.cpu, rows / bare.wall, rows / bare.cpu);
	printf("ratio:     import reaches %.1f%% of the bare loop "
	       "(%.1f%% by cpu time)\n", 100.0 * bare.wall / imp.wall,
	       100.0 * bare.cpu / imp.cpu);
	grow_history(db, runs);
	samp = median_ms(db, 0, &nsamples);
	hist = median_ms(db, 1, &nhistory);
	printf("db_samples: 10 kernels, %zu samples: median %.2f ms wall, "
	       "%.2f ms cpu (%d calls)\n", nsamples, samp.wall, samp.cpu,
	       NQUERY);
	printf("db_history: %zu points of one metric, %lld results stored: "
	       "median %.2f ms wall, %.2f ms cpu (%d calls)\n", nhistory,
	       (long long)db_count(db, "results"), hist.wall, hist.cpu,
	       NQUERY);
	for (i = 0; i < nsets; i++)
		result_set_release(&sets[i]);
	free(sets);
	db_close(db);
	if (getenv("KLAB_BENCH_KEEP")) {
		printf("kept: %s %s\n", path, ref);
		return 0;
	}
	remove_db(path);
	remove_db(ref);
	rmdir(dir);
	return 0;
}
