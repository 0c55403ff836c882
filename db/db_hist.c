// SPDX-License-Identifier: MIT
/*
 * db_hist: the latency histograms of runs (lib/lathist.h), in table
 * run_hists (schema version 20): one row per run and phase, its buckets
 * packed in a BLOB of fixed-width integers that a page reads without
 * parsing any text:
 *
 *   bucket i is the 16 bytes at offset 16 i: its upper bound in ns, then
 *   its count, each an unsigned 64-bit little-endian integer.
 *
 * n buckets are 16 n bytes (an empty histogram an empty BLOB), upper
 * bounds strictly increase, counts are above 0, at most
 * LATHIST_MAX_BUCKETS: lathist's own rules, checked again on the way out
 * (a row that breaks them is skipped by the list, an error to the raw
 * output).  The API still serves each as the raw output
 * "hist/<phase>.json", the compact JSON it always gave (db_raw.c), made
 * from the numbers.  Migration 20 moved the histograms stored before as
 * those raw outputs into rows (db_hist_migrate).
 */
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

#define BUCKET_BYTES 16
#define HIST_PREFIX "hist/"
#define HIST_SUFFIX ".json"

static const char sql_hist_put[] =
	"INSERT INTO run_hists (run_id, phase, buckets) VALUES (?1, ?2, ?3)"
	" ON CONFLICT (run_id, phase) DO UPDATE SET buckets = excluded.buckets";
/* in the order of their raw output names, "hist/<phase>.json", as the
 * compare page always merged them */
static const char sql_hist_list[] =
	"SELECT phase, buckets FROM run_hists WHERE run_id = ?1"
	" ORDER BY phase || '" HIST_SUFFIX "'";
static const char sql_hist_get[] =
	"SELECT buckets FROM run_hists WHERE run_id = ?1 AND phase = ?2";

static void put_u64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* h packed, malloc'd (one byte for an empty one), its size in *len. */
static unsigned char *hist_pack(const struct lathist *h, size_t *len)
{
	unsigned char *p = db_xrealloc(NULL, h->n * BUCKET_BYTES + 1);
	size_t i;

	for (i = 0; i < h->n; i++) {
		put_u64(p + i * BUCKET_BYTES, h->up[i]);
		put_u64(p + i * BUCKET_BYTES + 8, h->cnt[i]);
	}
	*len = h->n * BUCKET_BYTES;
	return p;
}

/* The packed buckets p[0..len) into the empty h; 0, or -1 (h empty)
 * when they break lathist's rules. */
static int hist_unpack(struct lathist *h, const unsigned char *p, size_t len)
{
	uint64_t up, cnt;
	size_t i;

	if (len % BUCKET_BYTES || len / BUCKET_BYTES > LATHIST_MAX_BUCKETS)
		return -1;
	for (i = 0; i < len / BUCKET_BYTES; i++) {
		up = get_u64(p + i * BUCKET_BYTES);
		cnt = get_u64(p + i * BUCKET_BYTES + 8);
		if (!up || !cnt || cnt > UINT64_MAX / 2 - h->total ||
		    lathist_add(h, up, cnt)) {
			lathist_release(h);
			return -1;
		}
	}
	return 0;
}

/* Column col of st (a BLOB of buckets) into the empty h; 0 or -1. */
static int hist_column(sqlite3_stmt *st, int col, struct lathist *h)
{
	const void *p = sqlite3_column_blob(st, col);
	size_t len = (size_t)sqlite3_column_bytes(st, col);

	lathist_init(h);
	if (sqlite3_column_type(st, col) != SQLITE_BLOB)
		return -1;
	return hist_unpack(h, p, p ? len : 0);
}

int db_hist_put(struct db *db, int64_t run_id, const char *phase,
		const struct lathist *h)
{
	sqlite3_stmt *st = db_stmt(db, ST_HIST_PUT, sql_hist_put);
	unsigned char *p;
	size_t len;
	int rc;

	if (!st)
		return DB_ERR;
	p = hist_pack(h, &len);
	sqlite3_bind_int64(st, 1, run_id);
	db_bind_str(st, 2, phase);
	sqlite3_bind_blob(st, 3, p, (int)len, SQLITE_STATIC);
	rc = db_exec_stmt(st) == 0 ? DB_OK : DB_ERR;
	free(p);
	return rc;
}

int db_hist_list(struct db *db, int64_t run_id, struct db_hist **out,
		 size_t *n)
{
	sqlite3_stmt *st = db_stmt(db, ST_HIST_LIST, sql_hist_list);
	struct db_hist *v = NULL;
	size_t len = 0, alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, run_id);
	for (;;) {
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		DB_ALLOC_GROW(v, len, alloc);
		if (hist_column(st, 1, &v[len].h))
			continue;	/* not a histogram: skipped */
		v[len++].phase = db_col_str(st, 0);
	}
	db_stmt_done(st);
	if (rc != SQLITE_DONE) {
		db_hists_free(v, len);
		return DB_ERR;
	}
	*out = v;
	*n = len;
	return DB_OK;
}

void db_hists_free(struct db_hist *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].phase);
		lathist_release(&v[i].h);
	}
	free(v);
}

/* The phase of a raw output name "hist/<phase>.json" (its length in
 * *len), or NULL when name is not one. */
static const char *hist_phase_of(const char *name, size_t *len)
{
	size_t pl = strlen(HIST_PREFIX), sl = strlen(HIST_SUFFIX);
	size_t n = strlen(name);

	if (n <= pl + sl || strncmp(name, HIST_PREFIX, pl) ||
	    strcmp(name + n - sl, HIST_SUFFIX))
		return NULL;
	*len = n - pl - sl;
	return name + pl;
}

int db_hist_raw(struct db *db, int64_t run_id, const char *name, char **data,
		size_t *len)
{
	sqlite3_stmt *st;
	struct lathist h;
	const char *phase;
	char *ph;
	size_t pl;
	int rc;

	*data = NULL;
	*len = 0;
	phase = hist_phase_of(name, &pl);
	if (!phase)
		return DB_NOTFOUND;
	st = db_stmt(db, ST_HIST_GET, sql_hist_get);
	if (!st)
		return DB_ERR;
	ph = db_xrealloc(NULL, pl + 1);
	memcpy(ph, phase, pl);
	ph[pl] = '\0';
	sqlite3_bind_int64(st, 1, run_id);
	db_bind_str(st, 2, ph);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && hist_column(st, 0, &h) == 0) {
		*data = lathist_dump(&h);
		*len = strlen(*data);
		lathist_release(&h);
	}
	db_stmt_done(st);
	free(ph);
	if (*data)
		return DB_OK;
	return rc == SQLITE_DONE ? DB_NOTFOUND : DB_ERR;
}

/*
 * Migration 20: every raw output "hist/<phase>.json" that lathist reads
 * (what the compare page merged) becomes a row of run_hists.  The raw
 * output goes, and its blob with it when nothing else links to it, when
 * the row gives back its very bytes (always, for what klabd stored: the
 * compact JSON of lathist_dump); any other text stays a raw output
 * beside the row, so GET .../raw/NAME answers what it always did.
 */
static const char sql_mig_scan[] =
	"SELECT r.id, r.run_id, r.name, coalesce(b.content, r.content),"
	"  r.blob_id"
	" FROM raw_outputs r LEFT JOIN raw_blobs b ON b.id = r.blob_id"
	" WHERE substr(r.name, 1, 5) = '" HIST_PREFIX "'"
	" AND substr(r.name, -5) = '" HIST_SUFFIX "' AND length(r.name) > 10";
static const char sql_mig_moved[] =
	"INSERT INTO temp.hist_moved (id, blob_id) VALUES (?1, ?2)";

/* The histogram of the scanned row into run_hists; *moved when its text
 * is lathist_dump's of it. */
static int mig_row(struct db *db, sqlite3_stmt *st, int *moved)
{
	const char *name = (const char *)sqlite3_column_text(st, 2);
	const char *text = sqlite3_column_blob(st, 3);
	size_t len = (size_t)sqlite3_column_bytes(st, 3), pl;
	const char *phase = name ? hist_phase_of(name, &pl) : NULL;
	struct lathist h;
	char err[160], *ph, *dump;
	int rc = DB_OK;

	*moved = 0;
	lathist_init(&h);
	if (!phase || lathist_parse(&h, text ? text : "", text ? len : 0, err,
				    sizeof(err)))
		return DB_OK;	/* the page skipped it: it stays as it is */
	ph = db_xrealloc(NULL, pl + 1);
	memcpy(ph, phase, pl);
	ph[pl] = '\0';
	rc = db_hist_put(db, sqlite3_column_int64(st, 1), ph, &h);
	dump = lathist_dump(&h);
	*moved = strlen(dump) == len && !memcmp(dump, text, len);
	free(dump);
	free(ph);
	lathist_release(&h);
	return rc;
}

static int mig_exec(struct db *db, const char *sql)
{
	return sqlite3_exec(db->h, sql, NULL, NULL, NULL) == SQLITE_OK
		? DB_OK : DB_ERR;
}

static int mig_scan(struct db *db)
{
	sqlite3_stmt *st = db_prepare(db, sql_mig_scan);
	sqlite3_stmt *mv = db_prepare(db, sql_mig_moved);
	int rc = st && mv ? SQLITE_ROW : SQLITE_ERROR, moved;

	while (rc == SQLITE_ROW) {
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		if (mig_row(db, st, &moved) != DB_OK) {
			rc = SQLITE_ERROR;
			break;
		}
		if (!moved)
			continue;
		sqlite3_bind_int64(mv, 1, sqlite3_column_int64(st, 0));
		if (sqlite3_column_type(st, 4) == SQLITE_NULL)
			sqlite3_bind_null(mv, 2);
		else
			sqlite3_bind_int64(mv, 2, sqlite3_column_int64(st, 4));
		if (db_exec_stmt(mv) != 0)
			rc = SQLITE_ERROR;
	}
	sqlite3_finalize(st);
	sqlite3_finalize(mv);
	return rc == SQLITE_DONE ? DB_OK : DB_ERR;
}

int db_hist_migrate(struct db *db)
{
	int rc = mig_exec(db, "CREATE TEMP TABLE hist_moved ("
			  "  id INTEGER PRIMARY KEY, blob_id INTEGER)");

	if (rc == DB_OK)
		rc = mig_scan(db);
	/* on a failure the rollback takes the temporary table too */
	if (rc == DB_OK)
		rc = mig_exec(db, "DELETE FROM raw_outputs WHERE id IN"
			      " (SELECT id FROM temp.hist_moved);"
			      "DELETE FROM raw_blobs WHERE id IN"
			      " (SELECT blob_id FROM temp.hist_moved)"
			      " AND id NOT IN (SELECT blob_id FROM raw_outputs"
			      "   WHERE blob_id IS NOT NULL);"
			      "DROP TABLE temp.hist_moved");
	return rc;
}
