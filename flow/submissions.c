// SPDX-License-Identifier: MIT
/*
 * The driver of patch submissions (see submissions.h): one thread that,
 * about once a second and whenever it is kicked, walks the submissions
 * still running in the database and moves each one stage on when it
 * can.  build: the base and the patched tree are queued on the kernel
 * builder (its cache answers a base built before at once) and waited
 * for; cells: one comparison run per rig x suite, with the submission's
 * job configuration, is started through comparisons.h, the comparison
 * driver does the rest; verdict, report and alert follow in one step
 * once every comparison has ended.  Each stage is a row with its times
 * and log.  Also here: the view of one
 * submission, its text report and cancelling.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/alerts.h"
#include "lab/build.h"
#include "lab/catalog.h"
#include "flow/driver.h"
#include "lib/alloc.h"
#include "lib/strbuf.h"
#include "lab/rig.h"
#include "flow/submissions.h"
#include "web/format.h"
#include "web/report.h"

#define SUBRUN_PERIOD_S 1

static int cmp_active(const char *state)
{
	return !strcmp(state, "queued") || !strcmp(state, "running");
}

/* ---- the view ------------------------------------------------------ */

int sub_view_load(struct db *db, int64_t id, struct sub_view *v, char *err,
		  size_t errlen)
{
	size_t i;
	int rc, s;

	memset(v, 0, sizeof(*v));
	rc = db_submission_get(db, id, &v->s);
	if (rc) {
		snprintf(err, errlen, "%s submission %lld", rc == DB_NOTFOUND ?
			 "unknown" : "cannot read", (long long)id);
		return rc;
	}
	if (db_submission_patches(db, id, &v->patches, &v->npatches) ||
	    db_submission_stages(db, id, &v->stages, &v->nstages) ||
	    db_submission_cells(db, id, &v->cells, &v->ncells)) {
		snprintf(err, errlen, "cannot read submission %lld",
			 (long long)id);
		return DB_ERR;
	}
	v->views = calloc(v->ncells + 1, sizeof(*v->views));
	v->judged = calloc(v->ncells + 1, sizeof(*v->judged));
	if (!v->views || !v->judged)
		abort();
	for (i = 0; i < v->ncells; i++) {
		char e[700];

		v->judged[i] = !cmprun_view_load(db, v->cells[i].comparison,
						 &v->views[i], e, sizeof(e));
	}
	for (s = 0; s < 2; s++)
		if (v->s.build[s] && db_build_get(db, v->s.build[s],
						  &v->build[s]))
			memset(&v->build[s], 0, sizeof(v->build[s]));
	if (db_submission_jobs(db, id, &v->jobs, &v->njobs))
		v->njobs = 0;
	if (!strcmp(v->s.state, "running"))
		v->ahead = db_submission_ahead(db, id);
	return DB_OK;
}

void sub_view_release(struct sub_view *v)
{
	size_t i;
	int s;

	for (i = 0; v->views && i < v->ncells; i++)
		cmprun_view_release(&v->views[i]);
	free(v->views);
	free(v->judged);
	for (s = 0; s < 2; s++)
		if (v->build[s].id)
			db_build_release(&v->build[s]);
	db_sub_patches_free(v->patches, v->npatches);
	db_sub_stages_free(v->stages, v->nstages);
	db_sub_cells_free(v->cells, v->ncells);
	db_queue_jobs_free(v->jobs, v->njobs);
	db_submission_release(&v->s);
	memset(v, 0, sizeof(*v));
}

void sub_report(const struct sub_view *v, struct strbuf *sb)
{
	const struct db_submission *s = &v->s;
	char cfg[400];
	size_t i;

	sb_addf(sb, "klab submission %lld: %s\n", (long long)s->id,
		*s->verdict ? s->verdict : s->state);
	sb_addf(sb, "submitter: %s\nbase:      %s\n", s->who, s->base);
	sb_addf(sb, "patches:   %zu\n", v->npatches);
	for (i = 0; i < v->npatches; i++)
		sb_addf(sb, "  [%d/%zu] %s (%s)\n", v->patches[i].seq,
			v->npatches, v->patches[i].subject,
			v->patches[i].name);
	sb_addf(sb, "rigs:      %s\nsuites:    %s\n", s->rigs, s->suites);
	/* the default configuration goes unsaid, as it always went */
	if (!fmt_job_config_is_default(s->scale, s->scheduler, s->cmdline)) {
		fmt_job_config(cfg, sizeof(cfg), s->scale, s->scheduler,
			       s->cmdline);
		sb_addf(sb, "config:    %s\n", cfg);
	}
	if (*s->note)
		sb_addf(sb, "note:      %s\n", s->note);
	if (*s->error)
		sb_addf(sb, "error:     %s\n", s->error);
	sb_addf(sb, "kernels:   %s (base), %s (patched)\n", s->kernel[0],
		s->kernel[1]);
	for (i = 0; i < v->ncells; i++)
		sb_addf(sb, "  rig %s, suite %s: %s\n", v->cells[i].rig,
			v->cells[i].suite, v->judged[i] ?
			v->views[i].summary : "not judged");
	for (i = 0; i < v->ncells; i++) {
		if (!v->judged[i] || !v->views[i].cmp.nk)
			continue;
		sb_addf(sb, "\n=== rig %s, suite %s (comparison %lld) ===\n",
			v->cells[i].rig, v->cells[i].suite,
			(long long)v->cells[i].comparison);
		report_text(sb, &v->views[i].cmp);
	}
}

/* ---- cancelling ---------------------------------------------------- */

/* The comparison runs of submission id still going end failed. */
static void sub_cells_stop(struct db *db, int64_t id, const char *why)
{
	struct db_sub_cell *c = NULL;
	struct db_comparison cmp;
	size_t n = 0, i;

	if (db_submission_cells(db, id, &c, &n))
		return;
	for (i = 0; i < n; i++) {
		if (db_comparison_get(db, c[i].comparison, &cmp))
			continue;
		if (cmp_active(cmp.state)) {
			db_comparison_update(db, cmp.id, "failed", cmp.planned,
					     cmp.open, why);
			db_comparison_cancel(db, cmp.id);
		}
		db_comparison_release(&cmp);
	}
	db_sub_cells_free(c, n);
}

enum outcome submission_cancel(struct klabd *d, struct db *db,
			       const struct caller *c, int64_t id, char *err,
			       size_t errlen)
{
	struct db_submission s;
	enum outcome o = OUT_OK;
	char why[300];
	int rc = db_submission_get(db, id, &s);

	if (rc) {
		snprintf(err, errlen, "%s submission %lld", rc == DB_NOTFOUND ?
			 "unknown" : "cannot read", (long long)id);
		return outcome_of_db(rc);
	}
	if (strcmp(s.who, c->who) && !c->operator) {
		snprintf(err, errlen, "submission %lld is '%.100s''s: only "
			 "its submitter or an operator may cancel it",
			 (long long)id, s.who);
		o = OUT_FORBIDDEN;
	} else if (strcmp(s.state, "running")) {
		snprintf(err, errlen, "submission %lld has already ended (%s)",
			 (long long)id, s.state);
		o = OUT_CONFLICT;
	} else {
		snprintf(why, sizeof(why), "cancelled by %.200s", c->who);
		rc = db_submission_update(db, id, "cancelled", NULL, NULL,
					  why, NULL);
		if (rc) {	/* it ended in the meantime */
			snprintf(err, errlen, "submission %lld has already "
				 "ended", (long long)id);
			o = rc == DB_NOTFOUND ? OUT_CONFLICT : OUT_ERROR;
			goto out;
		}
		db_submission_stage_end(db, id, s.stage, "cancelled", why);
		sub_cells_stop(db, id, why);
		caller_audit(db, c, "submission cancel", s.who,
			     "submission %lld", (long long)id);
		rigmgr_kick(d);
	}
out:
	db_submission_release(&s);
	return o;
}

/* ---- the stages ------------------------------------------------------ */

/* Store the alert of kind about v: 0, or -1 logged. */
static int sub_alert(struct db *db, const struct sub_view *v,
		     const char *kind, const char *text)
{
	char title[300], link[64], key[64], err[300];
	struct alert_event ev;

	snprintf(title, sizeof(title), "submission %lld by %s: %s (%s + %zu "
		 "patches)", (long long)v->s.id, v->s.who, *v->s.verdict ?
		 v->s.verdict : v->s.state, v->s.base, v->npatches);
	snprintf(link, sizeof(link), "/submissions/%lld", (long long)v->s.id);
	snprintf(key, sizeof(key), "submission:%lld", (long long)v->s.id);
	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.submitter = v->s.who;
	ev.title = title;
	ev.text = text;
	ev.link = link;
	ev.dedup = key;
	if (alerts_emit(db, &ev, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "klabd: submission %lld: alert: %s\n",
		(long long)v->s.id, err);
	return -1;
}

/* The verdict of the cells, rolled up from each comparison's
 * (judge/decision.h): a failed cell, or one that ended undecided, is
 * open.  *ok: how many cells did not fail. */
static enum cmp_verdict sub_verdict(const struct sub_view *v, size_t *ok)
{
	struct vd_tally t = VD_TALLY_INIT;
	enum cmp_verdict cv;
	size_t i;

	*ok = 0;
	for (i = 0; i < v->ncells; i++) {
		const struct cmprun_view *c = &v->views[i];

		if (!v->judged[i] || !strcmp(c->c.state, "failed")) {
			vd_tally_add(&t, V_UNDECIDED);
			continue;
		}
		(*ok)++;
		cv = c->verdict;
		if (!strcmp(c->c.state, "undecided") && cv != V_WORSE)
			cv = V_UNDECIDED;
		vd_tally_add(&t, cv);
	}
	return vd_tally_verdict(&t);
}

/* Every cell has ended: verdict, report and alert, then finished. */
static void sub_finish(struct db *db, int64_t id)
{
	struct strbuf rep = STRBUF_INIT, log = STRBUF_INIT;
	struct sub_view v;
	enum cmp_verdict cv;
	char err[700];
	const char *vd;
	int failed, worse;
	size_t ok;

	sb_init(&rep);
	sb_init(&log);
	if (sub_view_load(db, id, &v, err, sizeof(err)))
		goto out;
	cv = sub_verdict(&v, &ok);
	failed = !ok;
	worse = cv == V_WORSE;
	vd = failed ? "" : cmp_verdict_name(cv);
	free(v.s.verdict);
	v.s.verdict = xstrdup(vd);
	sb_addf(&log, "%s\n", failed ? "every cell failed" : vd);
	db_submission_stage_end(db, id, "verdict", failed ? "failed" : "done",
				log.buf);
	db_submission_update(db, id, NULL, "report", vd, failed ?
			     "every cell failed" : NULL, NULL);
	db_submission_stage_begin(db, id, "report");
	sub_report(&v, &rep);
	db_submission_update(db, id, NULL, "alert", NULL, NULL, rep.buf);
	sb_reset(&log);
	sb_addf(&log, "%zu bytes, %zu cell reports\n", rep.len, v.ncells);
	db_submission_stage_end(db, id, "report", "done", log.buf);
	db_submission_stage_begin(db, id, "alert");
	/* not stored: the submission stays at its alert stage, and the
	 * next pass comes back here (the alerts' keys store each once) */
	if (sub_alert(db, &v, ALERT_SUBMISSION_FINISHED, rep.buf) ||
	    (worse && sub_alert(db, &v, ALERT_WORSE_FOUND, rep.buf))) {
		fprintf(stderr, "klabd: submission %lld: its alerts again "
			"on the next pass\n", (long long)id);
		goto out;
	}
	db_submission_stage_end(db, id, "alert", "done", worse ?
				"submission_finished worse_found\n" :
				"submission_finished\n");
	db_submission_update(db, id, failed ? "failed" : "finished", NULL,
			     NULL, NULL, NULL);
	fprintf(stderr, "klabd: submission %lld: %s\n", (long long)id,
		failed ? "failed" : vd);
out:
	sub_view_release(&v);
	sb_release(&rep);
	sb_release(&log);
}

/* The submission failed at stage: recorded, alerted. */
static void sub_fail(struct db *db, int64_t id, const char *stage,
		     const char *why)
{
	struct sub_view v;
	char err[700];

	fprintf(stderr, "klabd: submission %lld failed: %s\n", (long long)id,
		why);
	db_submission_stage_end(db, id, stage, "failed", why);
	db_submission_update(db, id, "failed", NULL, NULL, why, NULL);
	if (!sub_view_load(db, id, &v, err, sizeof(err))) {
		struct strbuf rep = STRBUF_INIT;

		sb_init(&rep);
		sub_report(&v, &rep);
		db_submission_update(db, id, NULL, NULL, NULL, NULL, rep.buf);
		sub_alert(db, &v, ALERT_SUBMISSION_FINISHED, rep.buf);
		if (!strcmp(stage, "build"))
			sub_alert(db, &v, ALERT_BUILD_FAILED, rep.buf);
		sb_release(&rep);
	}
	sub_view_release(&v);
}

/* One comparison run of s on rig x suite, its first look queued, its
 * cells with s's job configuration, inside the caller's transaction. */
static int sub_cell_add(struct db *db, const struct db_submission *s,
			const char *rig, const char *suite, char *err,
			size_t errlen)
{
	struct db_comparison c;
	struct vd_plan plan;
	int rc;

	memset(&c, 0, sizeof(c));
	vd_plan_default(&plan);
	if (s->max_cells > 0 && vd_plan_set_cap(&plan, (size_t)s->max_cells)) {
		snprintf(err, errlen, "max_cells %d: below the first look",
			 s->max_cells);
		return DB_INVALID;
	}
	c.base = s->kernel[0];
	c.candidate = s->kernel[1];
	c.rig = (char *)rig;
	c.suite = (char *)suite;
	c.scale = s->scale;
	c.scheduler = s->scheduler;
	c.cmdline = s->cmdline;
	c.floors = "";
	c.max_cells = (int)plan.looks[plan.nlooks - 1];
	c.max_seconds = plan.max_seconds;
	c.planned = (int)plan.looks[0];
	c.who = s->who;
	/* a headline worse is final at its look: the submission's verdict
	 * is known, the rigs go to the next submitter (docs/VERDICTS.md) */
	c.stop_on_worse = 1;
	rc = db_comparison_add(db, &c, &c.id, err, errlen);
	if (!rc)
		rc = cmprun_queue(db, &c, c.planned, err, errlen);
	if (!rc && db_submission_cell_add(db, s->id, c.id, rig, suite)) {
		snprintf(err, errlen, "cannot record the cell");
		rc = DB_ERR;
	}
	return rc;
}

/* Next item of a ',' list into buf; the rest, NULL at the end. */
static const char *list_next(const char *p, char *buf, size_t len)
{
	size_t n;

	if (!p || !*p)
		return NULL;
	n = strcspn(p, ",");
	snprintf(buf, len, "%.*s", (int)n, p);
	return p + n + (p[n] == ',');
}

/* Both kernels built: every rig x suite cell queued, stage cells. */
static int sub_cells_start(struct klabd *d, struct db *db,
			   const struct db_submission *s, char *err,
			   size_t errlen)
{
	char rig[128], suite[128];
	const char *pr = s->rigs, *ps;
	struct db_submission now;
	int rc = db_begin(db) ? DB_ERR : DB_OK, ended = 0;

	/* a cancel in the meantime wins */
	if (!rc) {
		rc = db_submission_get(db, s->id, &now);
		if (!rc) {
			ended = strcmp(now.state, "running") != 0;
			db_submission_release(&now);
		}
	}
	if (!rc && ended) {
		db_rollback(db);
		return DB_OK;
	}
	for (pr = list_next(pr, rig, sizeof(rig)); !rc && pr;
	     pr = list_next(pr, rig, sizeof(rig))) {
		for (ps = list_next(s->suites, suite, sizeof(suite));
		     !rc && ps; ps = list_next(ps, suite, sizeof(suite)))
			rc = sub_cell_add(db, s, rig, suite, err, errlen);
	}
	if (!rc && (db_submission_update(db, s->id, NULL, "cells", NULL, NULL,
					 NULL) ||
		    db_submission_stage_begin(db, s->id, "cells")))
		rc = DB_ERR;
	return cmprun_commit(d, db, rc);
}

/* Queue the build of side (0 base, 1 patched) of s. */
static int sub_build_queue(struct klabd *d, struct db *db,
			   const struct db_submission *s, int side)
{
	char ident[64];
	int64_t id;

	snprintf(ident, sizeof(ident), "sub%lld-%s", (long long)s->id,
		 side ? "patched" : "base");
	/* the lab's own name (no request may take one, ident_lab_owned),
	 * its kernel found through the build's id, never by that name */
	if (db_build_add(db, ident, s->base, side ? s->files : "", s->who, 1,
			 &id) ||
	    db_submission_set_build(db, s->id, side, id, NULL))
		return -1;
	build_kick(d);
	return 0;
}

static void build_log_line(struct strbuf *sb, const struct db_build *b,
			   const char *what)
{
	char *cache = catalog_record_get(b->record, "cache");

	sb_addf(sb, "build %lld (%s): %s %s%s%s\n", (long long)b->id, what,
		b->state, b->ident, *cache ? ", cache " : "", cache);
	free(cache);
}

/* Stage build: both builds queued (once), then waited for. */
static void sub_build_step(struct klabd *d, struct db *db,
			   struct db_submission *s)
{
	struct strbuf log = STRBUF_INIT;
	struct db_build b[2];
	char err[700] = "";
	int side, got = 0, done = 0, rc;

	for (side = 0; side < 2; side++) {
		if (s->build[side])
			continue;
		if (sub_build_queue(d, db, s, side)) {
			sub_fail(db, s->id, "build", "cannot queue the build");
			return;
		}
		got = -1;
	}
	if (got < 0)	/* just queued: the next pass looks */
		return;
	sb_init(&log);
	for (side = 0; side < 2; side++) {
		if (db_build_get(db, s->build[side], &b[side]))
			break;
		got++;
		done += !strcmp(b[side].state, "done");
		build_log_line(&log, &b[side], side ? "patched" : "base");
		if (!strcmp(b[side].state, "failed"))
			snprintf(err, sizeof(err), "build %lld (%s) failed: "
				 "%.500s", (long long)b[side].id, side ?
				 "patched" : "base", b[side].error);
	}
	if (got == 2 && err[0]) {
		sb_addf(&log, "%s\n", err);
		sub_fail(db, s->id, "build", log.buf);
	} else if (got == 2 && done == 2) {
		db_submission_set_build(db, s->id, 0, b[0].id, b[0].ident);
		db_submission_set_build(db, s->id, 1, b[1].id, b[1].ident);
		db_submission_stage_end(db, s->id, "build", "done", log.buf);
		for (side = 0; side < 2; side++) {
			free(s->kernel[side]);
			s->kernel[side] = xstrdup(b[side].ident);
		}
		rc = sub_cells_start(d, db, s, err, sizeof(err));
		if (rc == DB_INVALID || rc == DB_NOTFOUND) {
			/* a rig or suite gone from the configuration */
			db_submission_stage_begin(db, s->id, "cells");
			sub_fail(db, s->id, "cells", err);
		} else if (rc) {	/* the next pass tries again */
			fprintf(stderr, "klabd: submission %lld: cannot start "
				"its cells: %s\n", (long long)s->id, err);
		}
	}
	for (side = 0; side < got; side++)
		db_build_release(&b[side]);
	sb_release(&log);
}

/* Stage cells: once every comparison has ended, on to the verdict. */
static void sub_cells_step(struct db *db, const struct db_submission *s)
{
	struct strbuf log = STRBUF_INIT;
	struct db_sub_cell *c = NULL;
	struct db_comparison cmp;
	size_t n = 0, i;
	int active = 0;

	if (db_submission_cells(db, s->id, &c, &n))
		return;
	sb_init(&log);
	for (i = 0; i < n && !active; i++) {
		if (db_comparison_get(db, c[i].comparison, &cmp)) {
			active = 1;
			break;
		}
		active = cmp_active(cmp.state);
		sb_addf(&log, "rig %s, suite %s: comparison %lld %s%s%s\n",
			c[i].rig, c[i].suite, (long long)cmp.id, cmp.state,
			*cmp.error ? ": " : "", cmp.error);
		db_comparison_release(&cmp);
	}
	if (!active) {
		db_submission_stage_end(db, s->id, "cells", "done", log.buf);
		db_submission_update(db, s->id, NULL, "verdict", NULL, NULL,
				     NULL);
		db_submission_stage_begin(db, s->id, "verdict");
		sub_finish(db, s->id);
	}
	sb_release(&log);
	db_sub_cells_free(c, n);
}

/* One walk of the submissions; the seconds until the next. */
long subrun_pass(void *arg)
{
	struct klabd *d = arg;
	struct db_submission *v = NULL;
	struct db *db;
	size_t n = 0, i;

	db = klabd_db_get_logged(d, "submissions");
	if (!db)
		return SUBRUN_PERIOD_S;
	if (db_submission_list(db, 1, 0, &v, &n))
		fprintf(stderr, "klabd: cannot list the submissions\n");
	for (i = 0; i < n; i++) {
		if (!strcmp(v[i].stage, "build"))
			sub_build_step(d, db, &v[i]);
		else if (!strcmp(v[i].stage, "cells"))
			sub_cells_step(db, &v[i]);
		else	/* a restart between verdict and alert: again */
			sub_finish(db, v[i].id);
	}
	db_submissions_free(v, n);
	klabd_db_put(d, db);
	return SUBRUN_PERIOD_S;
}
