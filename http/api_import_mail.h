/* SPDX-License-Identifier: MIT */
/*
 * api_import_mail: how POST /api/import stores an upload that mixes kinds
 * of results (lib/import.h, struct import_report) and how its answer
 * lists what each kind contributed.  A mail of tiobench tables, dbench
 * lines and read latency lines goes, kind by kind, into the suite of the
 * kind's name (tiobench, dbench, readlat), all in one transaction.
 */
#ifndef KLAB_API_IMPORT_MAIL_H
#define KLAB_API_IMPORT_MAIL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "lib/import.h"

/* Where one kind of an import went: its suite and its runs. */
struct import_kind_runs {
	const char *suite;
	size_t first, n;	/* run ids[first .. first + n) */
};

/*
 * Store rs.  With per_kind set and several kinds in rep, each kind goes
 * into the suite named like its format, in one transaction: all or
 * nothing, max_kernels and max_results counted over the whole set, the
 * idempotency key of o for the first kind and "KEY#SUITE" for the others.
 * Else one db_import into o->suite.  kr[i] tells kind i's suite and runs.
 * Returns DB_OK, DB_REPEATED (every kind was imported before: nothing
 * stored) or a negative DB_E* with err filled.  *ids (malloc'd, may be
 * NULL) and *nids as db_import gives them.
 */
int import_store_kinds(struct db *db, const struct result_set *rs,
		       const struct import_report *rep,
		       const struct db_import_opts *o, int per_kind,
		       struct import_kind_runs kr[IMPORT_MAX_PARTS],
		       int64_t **ids, size_t *nids, char *err, size_t errlen);

/* The kinds' suites, comma-separated, into buf; returns buf. */
const char *import_kinds_suites(const struct import_report *rep,
				const struct import_kind_runs *kr, char *buf,
				size_t len);

/* The answer's "kinds": import_report_json with each kind's suite and
 * runs added.  A new reference. */
json_t *import_kinds_json(const struct result_set *rs,
			  const struct import_report *rep,
			  const struct import_kind_runs *kr,
			  const int64_t *ids);

#endif
