/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by test_report.c and test_web.c: a temporary database
 * with one rig and suite, tiobench / dbench / read-latency result sets
 * built in code and imported, and a comparison built from them.  Static
 * inline so a test that uses only some of them still builds with -Werror.
 */
#ifndef KLAB_WEB_TESTLIB_H
#define KLAB_WEB_TESTLIB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db_testlib.h"	/* testdb_remove */
#include "judge/compare.h"
#include "db/db.h"
#include "lib/ident.h"
#include "lib/results.h"

struct wfix {
	char dir[64], path[128];
	struct db *db;
	char err[256];
};

static inline int wfix_setup(void **state)
{
	struct wfix *f = calloc(1, sizeof(*f));
	struct db_rig rig = { 0 };

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/klab-web-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/klab.db", f->dir);
	f->db = db_open(f->path, f->err, sizeof(f->err));
	assert_non_null(f->db);
	rig.name = "scsi";
	rig.kind = "manual";
	rig.profile = "scsi";
	rig.state = "idle";
	rig.disks = 1;
	rig.cpus = 2;
	rig.memory_mb = 512;
	assert_int_equal(db_rig_put(f->db, &rig, f->err, sizeof(f->err)), 0);
	assert_int_equal(db_suite_put(f->db, "tio", "tiobench", f->err,
				      sizeof(f->err)), 0);
	*state = f;
	return 0;
}

static inline int wfix_teardown(void **state)
{
	struct wfix *f = *state;

	testdb_remove(f->db, f->dir, f->path);
	free(f);
	return 0;
}

/* One tiobench row: the fields of tiobench.<phase>.* for kernel k. */
struct tio_row {
	double file_size, blk_size, threads, rate, cpu, avg_lat, max_lat;
	double lat_2s, lat_10s, cpu_eff;
};

static inline void wfix_tio(struct result_set *rs, const char *k,
			    const char *phase, const struct tio_row *r)
{
	static const struct {
		const char *field, *unit;
		enum metric_dir dir;
	} f[] = {
		{ "file_size", "MB", DIR_NONE }, { "blk_size", "B", DIR_NONE },
		{ "threads", "", DIR_NONE }, { "rate", "MB/s", DIR_HIGHER },
		{ "cpu", "%", DIR_LOWER }, { "avg_lat", "ms", DIR_LOWER },
		{ "max_lat", "ms", DIR_LOWER }, { "lat_2s", "%", DIR_LOWER },
		{ "lat_10s", "%", DIR_LOWER }, { "cpu_eff", "", DIR_HIGHER },
	};
	const double v[] = { r->file_size, r->blk_size, r->threads, r->rate,
		r->cpu, r->avg_lat, r->max_lat, r->lat_2s, r->lat_10s,
		r->cpu_eff };
	char name[96];
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(*f); i++) {
		snprintf(name, sizeof(name), "tiobench.%s.%s", phase,
			 f[i].field);
		result_set_add(rs, k, name, f[i].unit, v[i], f[i].dir);
	}
}

/*
 * Kernel names the identifier rule refuses today may still sit in a
 * database written before it (schema 3 and older): the pages must escape
 * them.  Such a name is imported under a stand-in and then renamed behind
 * the data layer's back, as an old database would hold it.
 */
static inline void wfix_legacy_rename(struct wfix *f, const char *from,
				      const char *to)
{
	sqlite3 *h;
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_open(f->path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "UPDATE kernels SET ident = ?2"
					    " WHERE ident = ?1", -1, &st,
					    NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, from, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, to, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(h);
}

static inline void wfix_import(struct wfix *f, struct result_set *rs,
			       const char *raw)
{
	struct db_import_opts o = { 0 };
	char *legacy = NULL;
	size_t i;

	for (i = 0; i < rs->n; i++) {
		if (ident_checks(IDENT_KERNEL, rs->v[i].kernel, NULL, 0) == 0)
			continue;
		assert_true(!legacy || !strcmp(legacy, rs->v[i].kernel));
		if (!legacy)
			legacy = strdup(rs->v[i].kernel);
		free(rs->v[i].kernel);
		rs->v[i].kernel = strdup("legacy-name");
	}

	o.rig = "scsi";
	o.suite = "tio";
	if (raw) {
		o.raw_name = "output.txt";
		o.raw = raw;
		o.raw_len = strlen(raw);
	}
	/* a later cell of the same legacy kernel: back under its stand-in */
	if (legacy)
		wfix_legacy_rename(f, legacy, "legacy-name");
	if (db_import(f->db, rs, &o, NULL, NULL, f->err, sizeof(f->err)))
		fail_msg("import: %s", f->err);
	result_set_release(rs);
	if (legacy)
		wfix_legacy_rename(f, "legacy-name", legacy);
	free(legacy);
}

static inline void wfix_compare(struct wfix *f, const char *const *k,
				size_t nk, struct comparison *c)
{
	if (compare_build(f->db, k, nk, 0, "scsi", "tio", NULL, c, f->err,
			  sizeof(f->err)))
		fail_msg("compare: %s", f->err);
}

/*
 * SQL that takes a migrated database back to before migration 21 (the
 * alerts' triage): for a test that rolls user_version back to make an
 * older schema, so that reopening runs 21 again on what 21 did not see.
 * A later migration that adds to the schema adds its undo here, newest
 * first.
 */
#define UNDO_MIGRATIONS_FROM_21 \
	"ALTER TABLE tracks DROP COLUMN scale;" \
	"DROP TABLE track_heads;" \
	"ALTER TABLE tracks DROP COLUMN max_cells;" \
	"ALTER TABLE tracks DROP COLUMN backlog;" \
	"ALTER TABLE tracks DROP COLUMN state;" \
	"ALTER TABLE tracks DROP COLUMN branch;" \
	"ALTER TABLE tracks DROP COLUMN base;" \
	"DROP INDEX jobs_class_state; DROP INDEX rigs_class;" \
	"ALTER TABLE jobs DROP COLUMN class;" \
	"ALTER TABLE rigs DROP COLUMN class;" \
	"DROP TABLE job_steps;" \
	"DROP INDEX alert_log_event; DROP TABLE alert_log;" \
	"DROP INDEX alert_events_state; DROP INDEX alert_events_gid;" \
	"DROP INDEX alert_events_group;" \
	"ALTER TABLE alert_events DROP COLUMN updated;" \
	"ALTER TABLE alert_events DROP COLUMN about;" \
	"ALTER TABLE alert_events DROP COLUMN group_id;" \
	"ALTER TABLE alert_events DROP COLUMN group_key;" \
	"ALTER TABLE alert_events DROP COLUMN kernel_after;" \
	"ALTER TABLE alert_events DROP COLUMN kernel_before;" \
	"ALTER TABLE alert_events DROP COLUMN line;" \
	"ALTER TABLE alert_events DROP COLUMN duplicate_of;" \
	"ALTER TABLE alert_events DROP COLUMN fixed_kernel;" \
	"ALTER TABLE alert_events DROP COLUMN fixed_commit;" \
	"ALTER TABLE alert_events DROP COLUMN assignee;" \
	"ALTER TABLE alert_events DROP COLUMN state;"

#endif
