// SPDX-License-Identifier: MIT
/*
 * db_cells: the runs of the kernels of a comparison with their rig,
 * suite, status, job configuration and rig configuration (see cells.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cells.h"
#include "db_int.h"

static const char sql_cell_runs[] =
	"SELECT r.id, g.name, s.name, r.status, coalesce(r.job_id, 0),"
	"  coalesce(j.scale, 0), coalesce(j.scheduler, ''),"
	"  coalesce(j.cmdline, ''), r.rigconf, r.rigconf_hash"
	" FROM kernels k JOIN runs r ON r.kernel_id = k.id"
	" JOIN rigs g ON g.id = r.rig_id JOIN suites s ON s.id = r.suite_id"
	" LEFT JOIN jobs j ON j.id = r.job_id"
	" WHERE k.ident = ?1 AND (?2 IS NULL OR g.id IN "
	DB_RIGS_NAMED("?2") ")"
	" AND (?3 IS NULL OR s.name = ?3)";

static void cell_run_row(sqlite3_stmt *st, struct db_cell_run *c)
{
	c->id = sqlite3_column_int64(st, 0);
	c->rig = db_col_str(st, 1);
	c->suite = db_col_str(st, 2);
	c->status = db_col_str(st, 3);
	c->job_id = sqlite3_column_int64(st, 4);
	c->scale = sqlite3_column_double(st, 5);
	c->scheduler = db_col_str(st, 6);
	c->cmdline = db_col_str(st, 7);
	c->rigconf = db_col_str(st, 8);
	c->rigconf_hash = db_col_str(st, 9);
}

int db_cell_runs(struct db *db, const char *const *kernels, size_t nk,
		 const char *rig, const char *suite,
		 struct db_cell_run **out, size_t *n)
{
	sqlite3_stmt *st = db_prepare(db, sql_cell_runs);
	struct db_cell_run *v = NULL;
	size_t cnt = 0, alloc = 0, k;
	int rc = SQLITE_DONE;

	*out = NULL;
	*n = 0;
	if (!st)
		return DB_ERR;
	for (k = 0; k < nk && rc == SQLITE_DONE; k++) {
		if (!kernels[k])
			continue;
		sqlite3_reset(st);
		db_bind_str(st, 1, kernels[k]);
		db_bind_str(st, 2, rig);
		db_bind_str(st, 3, suite);
		for (rc = sqlite3_step(st); rc == SQLITE_ROW;
		     rc = sqlite3_step(st)) {
			if (cnt == alloc) {
				alloc = alloc ? 2 * alloc : 16;
				v = db_xrealloc(v, alloc * sizeof(*v));
			}
			cell_run_row(st, &v[cnt++]);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		db_cell_runs_free(v, cnt);
		return DB_ERR;
	}
	*out = v;
	*n = cnt;
	return DB_OK;
}

void db_cell_runs_free(struct db_cell_run *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].rig);
		free(v[i].suite);
		free(v[i].status);
		free(v[i].scheduler);
		free(v[i].cmdline);
		free(v[i].rigconf);
		free(v[i].rigconf_hash);
	}
	free(v);
}
