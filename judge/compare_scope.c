// SPDX-License-Identifier: MIT
/*
 * Which runs enter a comparison: the kernels' runs that are done, on one
 * rig and one suite (named, or the only ones they have), of one job
 * configuration and one rig configuration (picked, or the only ones
 * there are); a mix is refused naming the choices, never pooled.  The
 * samples and the judging are compare.c's.
 */
#include "judge/compare_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/cells.h"
#include "lib/alloc.h"
#include "lib/rigconf.h"
#include "lib/strbuf.h"

struct names {
	char **v;
	size_t n;
};

static void names_add(struct names *ns, const char *s)
{
	size_t i;

	for (i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i], s))
			return;
	ns->v = xrealloc(ns->v, (ns->n + 1) * sizeof(*ns->v));
	ns->v[ns->n] = xstrdup(s);
	ns->n++;
}

static void names_free(struct names *ns)
{
	size_t i;

	for (i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DB_INVALID: "results from 2 rigs (a; b): ... name one with rig=", the
 * names sorted. */
static int refuse_mix(struct names *ns, const char *what, const char *hint,
		      char *err, size_t errlen)
{
	size_t i, off;

	qsort(ns->v, ns->n, sizeof(*ns->v), str_cmp);
	off = (size_t)snprintf(err, errlen, "results from %zu %s (", ns->n,
			       what);
	for (i = 0; i < ns->n && off < errlen; i++)
		off += (size_t)snprintf(err + off, errlen - off, "%s%s",
					i ? "; " : "", ns->v[i]);
	if (off < errlen)
		snprintf(err + off, errlen - off, "): will not pool them, "
			 "name one with %s", hint);
	return DB_INVALID;
}

/* The configuration a run was made with, and whether it is the one the
 * caller picked (any, when none was). */
static void run_config(const struct db_cell_run *r, const struct cmp_opts *o,
		       char *buf, size_t len, int *match)
{
	int pick = o->scale >= 0 || o->scheduler || o->cmdline;

	if (!r->job_id) {
		snprintf(buf, len, "imported");
		*match = !pick;
		return;
	}
	snprintf(buf, len, "scale=%g scheduler=%s cmdline=%s", r->scale,
		 r->scheduler, r->cmdline);
	*match = (o->scale < 0 || fabs(o->scale - r->scale) < 1e-9) &&
		 (!o->scheduler || !strcmp(o->scheduler, r->scheduler)) &&
		 (!o->cmdline || !strcmp(o->cmdline, r->cmdline));
}

/* Is r made under the rig configuration the caller picked (any, when
 * none was)? */
static int rigconf_match(const struct db_cell_run *r, const char *pick)
{
	size_t n = pick ? strlen(pick) : 0;

	if (!pick)
		return 1;
	if (!strcmp(pick, "none"))
		return !*r->rigconf_hash;
	return n >= 4 && !strncmp(r->rigconf_hash, pick, n);
}

int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* With rig (suite) not named, the only one the runs have. */
static int scope_derive(struct scope *sc, int field, const char *other,
			char **out, char *err, size_t errlen)
{
	struct names ns = { NULL, 0 };
	size_t i;
	int rc = DB_OK;

	for (i = 0; i < sc->nruns; i++) {
		const struct db_cell_run *r = &sc->runs[i];

		/* a rig named: db_cell_runs chose its runs (a class's) */
		if (strcmp(r->status, "done") ||
		    (field == 1 && other && !sc->rig_named &&
		     strcmp(r->rig, other)))
			continue;
		names_add(&ns, field ? r->suite : r->rig);
	}
	if (ns.n > 1)
		rc = refuse_mix(&ns, field ? "suites" : "rigs",
				field ? "suite=" : "rig=", err, errlen);
	else if (ns.n == 1)
		*out = xstrdup(ns.v[0]);
	names_free(&ns);
	return rc;
}

/* The canonical text of the runs with rig configuration hash h. */
static const char *scope_rigconf_text(const struct scope *sc, const char *h)
{
	size_t i;

	for (i = 0; i < sc->nruns; i++)
		if (!strcmp(sc->runs[i].rigconf_hash, h))
			return sc->runs[i].rigconf;
	return "";
}

/* DB_INVALID: "results from 2 rig configurations (HASH: KEY=V ...;
 * HASH: KEY=W ...): will not pool them, name one with rigconf=", the
 * hashes sorted, each with the keys in which the configurations differ. */
static int refuse_rigconfs(const struct scope *sc, struct names *hs,
			   char *err, size_t errlen)
{
	struct strbuf msg = STRBUF_INIT, diff = STRBUF_INIT;
	const char **texts;
	size_t i;

	qsort(hs->v, hs->n, sizeof(*hs->v), str_cmp);
	texts = calloc(hs->n, sizeof(*texts));
	if (!texts)
		abort();
	for (i = 0; i < hs->n; i++)
		texts[i] = scope_rigconf_text(sc, hs->v[i]);
	sb_init(&msg);
	sb_init(&diff);
	sb_addf(&msg, "results from %zu rig configurations (", hs->n);
	for (i = 0; i < hs->n; i++) {
		sb_reset(&diff);
		rigconf_diff(texts, hs->n, i, &diff);
		sb_addf(&msg, "%s%s: %s", i ? "; " : "",
			*hs->v[i] ? hs->v[i] : "none",
			diff.len ? diff.buf : "(not recorded)");
	}
	sb_adds(&msg, "): will not pool them, name one with rigconf=");
	snprintf(err, errlen, "%s", msg.buf);
	sb_release(&msg);
	sb_release(&diff);
	free(texts);
	return DB_INVALID;
}

/*
 * Runs stored before rig configurations were recorded (hash "") beside
 * runs of exactly one recorded configuration, none picked: the recorded
 * one is used and the unrecorded runs are left out (counted in
 * out->rigconf_left_out; rigconf=none shows them).  Never pooled.
 */
static void drop_unrecorded(struct scope *sc, const char **hh,
			    struct names *hs, struct comparison *out)
{
	size_t i, j = 0, keep;

	if (hs->n != 2 || (*hs->v[0] && *hs->v[1]))
		return;
	keep = !*hs->v[0] ? 1 : 0;
	for (i = 0; i < sc->nids; i++) {
		if (!*hh[i]) {
			out->rigconf_left_out++;
			continue;
		}
		sc->ids[j] = sc->ids[i];
		hh[j++] = hh[i];
	}
	sc->nids = j;
	free(hs->v[1 - keep]);
	hs->v[0] = hs->v[keep];
	hs->n = 1;
}

/* The one rig configuration of the runs that enter, or a refusal. */
static int scope_rigconf(const struct scope *sc, struct names *hs,
			 struct comparison *out, char *err, size_t errlen)
{
	if (hs->n > 1)
		return refuse_rigconfs(sc, hs, err, errlen);
	if (hs->n == 1) {
		out->rigconf_hash = strdup(hs->v[0]);
		out->rigconf = strdup(scope_rigconf_text(sc, hs->v[0]));
		if (!out->rigconf_hash || !out->rigconf)
			abort();
	}
	return DB_OK;
}

static int scope_configs(struct scope *sc,
			 const struct cmp_opts *o, struct comparison *out,
			 char *err, size_t errlen)
{
	struct names ns = { NULL, 0 }, hs = { NULL, 0 };
	char key[600];
	size_t i;
	int match, rc = DB_OK;

	const char **hh = malloc((sc->nruns + 1) * sizeof(*hh));

	sc->ids = malloc((sc->nruns + 1) * sizeof(*sc->ids));
	if (!sc->ids || !hh)
		abort();
	for (i = 0; i < sc->nruns; i++) {
		const struct db_cell_run *r = &sc->runs[i];

		if (strcmp(r->status, "done") ||
		    (out->rig && !sc->rig_named &&
		     strcmp(r->rig, out->rig)) ||
		    (out->suite && strcmp(r->suite, out->suite)))
			continue;
		run_config(r, o, key, sizeof(key), &match);
		if (!match || !rigconf_match(r, o->rigconf) ||
		    (o->jobs && !bsearch(&r->job_id, o->jobs,
						      o->njobs,
						      sizeof(*o->jobs),
						      cmp_i64)))
			continue;
		names_add(&ns, key);
		names_add(&hs, r->rigconf_hash);
		hh[sc->nids] = r->rigconf_hash;
		sc->ids[sc->nids++] = r->id;
	}
	if (!o->rigconf)
		drop_unrecorded(sc, hh, &hs, out);
	free(hh);
	if (ns.n > 1)
		rc = refuse_mix(&ns, "job configurations",
				"scale=, scheduler= and cmdline=", err,
				errlen);
	else if (ns.n == 1)
		out->config = xstrdup(ns.v[0]);
	if (!rc)
		rc = scope_rigconf(sc, &hs, out, err, errlen);
	names_free(&ns);
	names_free(&hs);
	qsort(sc->ids, sc->nids, sizeof(*sc->ids), cmp_i64);
	return rc;
}

void scope_release(struct scope *sc)
{
	db_cell_runs_free(sc->runs, sc->nruns);
	free(sc->ids);
}

int scope_build(struct db *db, const char *const *kernels, size_t nk,
		const char *rig, const char *suite, const struct cmp_opts *o,
		struct comparison *out, struct scope *sc, char *err,
		size_t errlen)
{
	int rc = db_cell_runs(db, kernels, nk, rig, suite, &sc->runs,
			      &sc->nruns);

	if (rc) {
		snprintf(err, errlen, "cannot list the kernels' runs");
		return rc;
	}
	sc->rig_named = rig != NULL;
	if (rig)
		out->rig = xstrdup(rig);
	if (suite)
		out->suite = xstrdup(suite);
	if (!rig)
		rc = scope_derive(sc, 0, NULL, &out->rig, err, errlen);
	if (!rc && !suite)
		rc = scope_derive(sc, 1, out->rig, &out->suite, err, errlen);
	if (!rc)
		rc = scope_configs(sc, o, out, err, errlen);
	return rc;
}

