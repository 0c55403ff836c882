// SPDX-License-Identifier: MIT
/*
 * api_import_mail: storing an import kind by kind (see api_import_mail.h).
 * The parsing is lib/import_mail.c's; this file only decides suites, keeps
 * the import one transaction and counts the limits over the whole upload,
 * with the messages db_import gives for one kind.
 */
#include "http/api_import_mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Distinct kernels of rs. */
static size_t count_kernels(const struct result_set *rs)
{
	json_t *seen = json_object();
	const char *k;
	size_t i, n;

	for (i = 0; i < rs->n; i++) {
		k = rs->v[i].kernel ? rs->v[i].kernel : rs->kernel;
		if (k)
			json_object_set_new(seen, k, json_true());
	}
	n = json_object_size(seen);
	json_decref(seen);
	return n;
}

static int check_limits(const struct result_set *rs,
			const struct db_import_opts *o, char *err,
			size_t errlen)
{
	size_t nk;

	if (o->max_results && rs->n > o->max_results) {
		snprintf(err, errlen, "import has %zu results, more than "
			 "max_import_results (%zu)", rs->n, o->max_results);
		return DB_TOOBIG;
	}
	nk = o->max_kernels ? count_kernels(rs) : 0;
	if (o->max_kernels && nk > o->max_kernels) {
		snprintf(err, errlen, "import has %zu kernels, more than "
			 "max_import_kernels (%zu)", nk, o->max_kernels);
		return DB_TOOBIG;
	}
	return DB_OK;
}

/* Kind i of rep into its suite; its runs appended to *ids. */
static int store_kind(struct db *db, const struct result_set *rs,
		      const struct import_part *p,
		      const struct db_import_opts *base,
		      int first, struct import_kind_runs *kr, int64_t **ids,
		      size_t *nids, char *err, size_t errlen)
{
	struct db_import_opts o = *base;
	struct result_set sub = *rs;
	char key[300];
	int64_t *pids = NULL;
	size_t np = 0;
	int rc;

	sub.v = rs->v + p->first;
	sub.n = p->n;
	sub.alloc = p->n;
	sub.hist = NULL;
	sub.nhist = 0;
	o.suite = import_format_name(p->fmt);
	if (!first && base->idem_key) {
		snprintf(key, sizeof(key), "%s#%s", base->idem_key, o.suite);
		o.idem_key = key;
	}
	rc = db_import(db, &sub, &o, &pids, &np, err, errlen);
	if (rc != DB_OK && rc != DB_REPEATED)
		goto out_free;
	kr->suite = o.suite;
	kr->first = *nids;
	kr->n = np;
	if (np) {
		*ids = realloc(*ids, (*nids + np) * sizeof(**ids));
		if (!*ids)
			abort();
		memcpy(*ids + *nids, pids, np * sizeof(*pids));
		*nids += np;
	}
out_free:
	free(pids);
	return rc;
}

static int store_each(struct db *db, const struct result_set *rs,
		      const struct import_report *rep,
		      const struct db_import_opts *o,
		      struct import_kind_runs kr[IMPORT_MAX_PARTS],
		      int64_t **ids, size_t *nids, char *err, size_t errlen)
{
	size_t i, repeated = 0;
	int rc = check_limits(rs, o, err, errlen);

	if (rc != DB_OK)
		return rc;
	if (db_begin(db) != DB_OK) {
		snprintf(err, errlen, "cannot begin the import's transaction");
		return DB_ERR;
	}
	for (i = 0; i < rep->nparts; i++) {
		rc = store_kind(db, rs, &rep->part[i], o, i == 0, &kr[i], ids,
				nids, err, errlen);
		if (rc != DB_OK && rc != DB_REPEATED)
			goto out_rollback;
		repeated += rc == DB_REPEATED;
	}
	if (db_commit(db) != DB_OK) {
		snprintf(err, errlen, "cannot commit the import");
		rc = DB_ERR;
		goto out_free;
	}
	return repeated == rep->nparts ? DB_REPEATED : DB_OK;

out_rollback:
	db_rollback(db);
out_free:
	free(*ids);
	*ids = NULL;
	*nids = 0;
	return rc;
}

int import_store_kinds(struct db *db, const struct result_set *rs,
		       const struct import_report *rep,
		       const struct db_import_opts *o, int per_kind,
		       struct import_kind_runs kr[IMPORT_MAX_PARTS],
		       int64_t **ids, size_t *nids, char *err, size_t errlen)
{
	size_t i;
	int rc;

	*ids = NULL;
	*nids = 0;
	if (per_kind && rep->nparts > 1)
		return store_each(db, rs, rep, o, kr, ids, nids, err, errlen);
	rc = db_import(db, rs, o, ids, nids, err, errlen);
	for (i = 0; i < rep->nparts; i++) {
		kr[i].suite = o->suite;
		kr[i].first = 0;
		kr[i].n = *nids;
	}
	return rc;
}

const char *import_kinds_suites(const struct import_report *rep,
				const struct import_kind_runs *kr, char *buf,
				size_t len)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < rep->nparts && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "",
				      kr[i].suite);
	return buf;
}

json_t *import_kinds_json(const struct result_set *rs,
			  const struct import_report *rep,
			  const struct import_kind_runs *kr,
			  const int64_t *ids)
{
	json_t *kinds = import_report_json(rep, rs), *runs;
	size_t i, j;

	for (i = 0; i < rep->nparts && i < json_array_size(kinds); i++) {
		runs = json_array();
		for (j = 0; j < kr[i].n; j++)
			json_array_append_new(runs, json_integer(
				ids[kr[i].first + j]));
		json_object_set_new(json_array_get(kinds, i), "suite",
				    json_string(kr[i].suite));
		json_object_set_new(json_array_get(kinds, i), "runs", runs);
	}
	return kinds;
}
