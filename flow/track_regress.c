// SPDX-License-Identifier: MIT
/*
 * track_regress: from a regression on a tracked git line to its culprit,
 * with nobody acting (issue 32).  A head that came out worse than the
 * head tested before it starts one bisection (flow/bisect.h, kind git)
 * over that range, on the rig, suite and metric of its worse cell (the
 * metric worse most clearly: track_git.c worse_cell), at most one per
 * range (the head keeps its id).  The bisection
 * ends here instead of in a bisection_done alert: a culprit confirmed
 * against its parent is ONE ALERT_REGRESSION naming the commit (subject,
 * author, the metric, the %change +- stddev table of the confirmation,
 * the rig and the klab commands that reproduce it), to the subscribers
 * and, with alert_mail_author = yes, to the commit's author; a range that
 * does not reproduce, or a culprit not confirmed, raises nothing and
 * stays on the bisection's page and the line's heads.  A change point
 * for worse between two consecutive tested heads of the line whose
 * comparison ended undecided starts the same bisection, on its metric,
 * whichever came first: the change point (track_changepoints_check) or
 * the verdict (track_head_undecided).  Such a change point raises no
 * alert by itself (flow/changepoints.c): the robot's bisection settles
 * it, so a range that does not reproduce leaves nothing open.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/alerts.h"
#include "db/changepoints.h"
#include "flow/alerts.h"
#include "flow/bisect.h"
#include "flow/track.h"
#include "flow/track_int.h"
#include "lab/rig.h"
#include "lib/alloc.h"
#include "lib/config.h"
#include "lib/ident.h"

int track_bisect_start(struct klabd *d, struct db *db,
		       const struct db_track *tr, struct db_track_head *h,
		       const struct db_track_head *prev, int64_t worse_cmp,
		       char *err, size_t errlen)
{
	const struct caller by = { .who = ALERT_BY_KLAB, .operator = 1 };
	char *w = xstrdup(h->worse), *sp, *ms, *m, *next;
	struct bis_input in;
	enum outcome o;
	int64_t id = 0;
	int rc = -1;

	if (h->bisection) {
		free(w);
		return 0;	/* at most one per range */
	}
	memset(&in, 0, sizeof(in));
	in.kind = "git";
	in.base = tr->base;
	in.good = prev->hash;
	in.bad = h->hash;
	/* the heads' kernels are the ends': not built again, and the
	 * change's alerts (its kernels) find the bisection */
	if (*prev->kernel && *h->kernel) {
		in.kernel_good = prev->kernel;
		in.kernel_bad = h->kernel;
		in.ends_cmp = worse_cmp;
	}
	in.max_cells = tr->max_cells;
	in.scale = tr->scale;
	/* "RIG SUITE M1,M2" */
	sp = strchr(w, ' ');
	ms = sp ? strchr(sp + 1, ' ') : NULL;
	if (!ms) {
		snprintf(err, errlen, "no worse cell to bisect on");
		goto out;
	}
	*sp = *ms = '\0';
	in.rig = w;
	in.suite = sp + 1;
	for (m = ms + 1; m && *m && in.nmetrics < BIS_MAX_METRICS; m = next) {
		next = strchr(m, ',');
		if (next)
			*next++ = '\0';
		in.metric[in.nmetrics++] = m;
	}
	o = bisection_create(d, db, &by, &in, &id, err, errlen);
	if (o != OUT_OK)
		goto out;
	h->bisection = id;
	if (db_track_head_set(db, h)) {
		snprintf(err, errlen, "cannot record bisection %lld",
			 (long long)id);
		goto out;
	}
	fprintf(stderr, "klabd: track %lld: head %.12s worse than %.12s: "
		"bisection %lld\n", (long long)tr->id, h->hash, prev->hash,
		(long long)id);
	rc = 0;
out:
	free(w);
	return rc;
}

/* 1 when change point c of a metric with direction dir is for worse. */
static int cp_worse(const struct db_changepoint *c, enum metric_dir dir)
{
	return (dir == DIR_HIGHER && c->size_pct < 0) ||
	       (dir == DIR_LOWER && c->size_pct > 0);
}

/* The direction of metric among v[0..n). */
static enum metric_dir metric_dir_of(const struct db_metric *v, size_t n,
				     const char *metric)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, metric))
			return v[i].dir;
	return DIR_NONE;
}

/* The name tr's rig list gives rig: the rig itself, or its class (a
 * class's bisection goes to whichever of its rigs is free); NULL when tr
 * does not run on rig. */
static const char *track_rig_name(struct klabd *d, const struct db_track *tr,
				  const char *rig)
{
	struct rig *g;

	if (ident_list_has(tr->rigs, rig))
		return rig;
	g = rigmgr_find(d, rig);
	return g && ident_list_has(tr->rigs, g->klass) ? g->klass : NULL;
}

/* 1 when head h is one a change point may bisect: tested, its own
 * comparison undecided, no bisection yet, a head before it. */
static int head_cp_due(const struct db_track_head *h)
{
	return h->prev && !h->bisection && !strcmp(h->state, "tested") &&
	       !strcmp(h->verdict, "undecided");
}

/*
 * Head h of git line tr (head_cp_due), prev the head it was compared
 * against: the first change point of cps[0..ncp) for worse from prev's
 * kernel to h's, on a rig x suite of tr, starts the bisection of their
 * range on its metric (the line's history is the evidence the head's
 * own cells lacked).  A head its comparison decided same or better is
 * not bisected on a change point: the segments' means move as the
 * history grows (a later head's values pull them), its own cells do not.
 */
static void head_cp_bisect(struct klabd *d, struct db *db,
			   const struct db_track *tr, struct db_track_head *h,
			   const struct db_track_head *prev,
			   const struct db_changepoint *cps, size_t ncp,
			   const struct db_metric *mv, size_t nm)
{
	struct strbuf w = STRBUF_INIT;
	const char *rig;
	char err[600];
	size_t i;

	for (i = 0; i < ncp; i++) {
		const struct db_changepoint *c = &cps[i];

		if (strcmp(c->kernel_before, prev->kernel) ||
		    strcmp(c->kernel_after, h->kernel) ||
		    !ident_list_has(tr->suite, c->suite) ||
		    !cp_worse(c, metric_dir_of(mv, nm, c->metric)))
			continue;
		rig = track_rig_name(d, tr, c->rig);
		if (!rig)
			continue;
		sb_init(&w);
		sb_addf(&w, "%s %s %s", rig, c->suite, c->metric);
		alloc_str_set(&h->worse, w.buf);
		sb_release(&w);
		if (track_bisect_start(d, db, tr, h, prev, 0, err,
				       sizeof(err)))
			fprintf(stderr, "klabd: track %lld: change point: "
				"%s\n", (long long)tr->id, err);
		return;
	}
}

/* Every head of git line tr that a change point of cps may bisect. */
static void cp_line_check(struct klabd *d, struct db *db,
			  const struct db_track *tr,
			  const struct db_changepoint *cps, size_t ncp,
			  const struct db_metric *mv, size_t nm)
{
	struct db_track_head *h = NULL;
	size_t n = 0, j, k;

	if (db_track_heads(db, tr->id, 0, &h, &n))
		return;
	for (j = 1; j < n; j++) {
		if (!head_cp_due(&h[j]))
			continue;
		for (k = 0; k < j && h[k].id != h[j].prev; k++)
			;
		if (k < j && *h[k].kernel)
			head_cp_bisect(d, db, tr, &h[j], &h[k], cps, ncp, mv,
				       nm);
	}
	db_track_heads_free(h, n);
}

void track_changepoints_check(struct klabd *d, struct db *db,
			      const char *rig, const char *suite)
{
	struct db_changepoint *cps = NULL;
	struct db_track *v = NULL;
	struct db_metric *mv = NULL;
	size_t n = 0, ncp = 0, nm = 0, i;
	char err[300];

	if (db_track_list(db, &v, &n))
		return;
	for (i = 0; i < n; i++) {
		if (strcmp(v[i].distro, "git") ||
		    !track_rig_name(d, &v[i], rig) ||
		    !ident_list_has(v[i].suite, suite))
			continue;
		if (!cps && (db_changepoint_list(db, rig, suite, NULL, &cps,
						 &ncp, err, sizeof(err)) ||
			     db_metric_list(db, &mv, &nm)))
			break;
		cp_line_check(d, db, &v[i], cps, ncp, mv, nm);
	}
	db_changepoints_free(cps, ncp);
	db_metrics_free(mv, nm);
	db_tracks_free(v, n);
}

void track_head_undecided(struct klabd *d, struct db *db,
			  const struct db_track *tr, struct db_track_head *h,
			  const struct db_track_head *prev)
{
	struct db_changepoint *cps = NULL;
	struct db_metric *mv = NULL;
	size_t ncp = 0, nm = 0;
	char err[300];

	if (!head_cp_due(h) || !*prev->kernel)
		return;
	if (!db_changepoint_list(db, NULL, NULL, NULL, &cps, &ncp, err,
				 sizeof(err)) &&
	    !db_metric_list(db, &mv, &nm))
		head_cp_bisect(d, db, tr, h, prev, cps, ncp, mv, nm);
	db_changepoints_free(cps, ncp);
	db_metrics_free(mv, nm);
}

/* The address of "Name <addr>", into out (""): none when it is not one
 * an SMTP envelope takes. */
static void author_addr(const char *author, char *out, size_t len)
{
	const char *lt = strrchr(author, '<'), *gt;
	char why[200];

	out[0] = '\0';
	gt = lt ? strchr(lt, '>') : NULL;
	if (!gt || (size_t)(gt - lt) >= len)
		return;
	snprintf(out, len, "%.*s", (int)(gt - lt - 1), lt + 1);
	if (alerts_email_check(out, why, sizeof(why)))
		out[0] = '\0';
}

/*
 * alert_mail_author = yes: the author's address has a subscription of
 * its own (made once, by klab): its regressions only, as the alert's
 * submitter is the commit's author.
 */
static void author_subscribe(struct klabd *d, struct db *db,
			     const char *addr)
{
	const char *on = config_get(&d->cfg, "", "alert_mail_author");
	struct db_alert_sub *v = NULL, s;
	size_t n = 0, i;
	int64_t id;

	if (!on || strcmp(on, "yes") || !*addr ||
	    db_alert_sub_list(db, ALERT_BY_KLAB, &v, &n))
		return;
	for (i = 0; i < n; i++)
		if (!strcmp(v[i].target, addr) &&
		    !strcmp(v[i].submitter, addr) &&
		    !strcmp(v[i].events, ALERT_REGRESSION))
			break;
	if (i == n) {
		memset(&s, 0, sizeof(s));
		s.channel = "email";
		s.target = s.submitter = (char *)addr;
		s.events = ALERT_REGRESSION;
		s.secret = s.rig = s.suite = s.metric = "";
		s.owner = ALERT_BY_KLAB;
		if (db_alert_sub_add(db, &s, &id))
			fprintf(stderr, "klabd: cannot subscribe the author "
				"'%s'\n", addr);
	}
	db_alert_subs_free(v, n);
}

/* The confirmation of v (the culprit against its parent): its step. */
static const struct db_bis_step *confirm_step(const struct bis_view *v)
{
	size_t i;

	for (i = v->nsteps; i-- > 0;)
		if (!strcmp(v->steps[i].purpose, "confirm"))
			return &v->steps[i];
	return NULL;
}

/* The %change +- stddev table of the named metrics of comparison cid,
 * into sb; the first metric's change into *pct (NAN when none). */
static void change_table(struct db *db, const struct bis_view *v,
			 int64_t cid, struct strbuf *sb, double *pct)
{
	struct cmprun_view cv;
	char err[300];
	size_t i;

	*pct = NAN;
	if (cmprun_view_load(db, cid, &cv, err, sizeof(err))) {
		cmprun_view_release(&cv);
		return;
	}
	sb_addf(sb, "%22s %22s %9s  %s\n", "parent (good)", "commit (bad)",
		"%change", "metric");
	for (i = 0; cv.cmp.nk == 2 && i < cv.cmp.nm; i++) {
		const struct cmp_metric *m = &cv.cmp.m[i];
		const struct summary *a = &m->cells[0].s, *b = &m->cells[1].s;

		if (!ident_list_has(v->b.metrics, m->name) ||
		    !m->cells[0].present || !m->cells[1].present)
			continue;
		if (isnan(*pct))
			*pct = m->cells[1].delta_pct;
		sb_addf(sb, "%12.6g +- %-7.3g %12.6g +- %-7.3g %+8.1f%%  %s "
			"(%s, %zu+%zu cells)\n", a->mean, a->stddev, b->mean,
			b->stddev, m->cells[1].delta_pct, m->name, m->unit,
			a->n, b->n);
	}
	cmprun_view_release(&cv);
}

/* The web page of commit hash of git base base ([base NAME] commit_url,
 * its "%s" the full hash, else the hash appended) into sb: nothing when
 * the base has none. */
static void commit_link(struct klabd *d, const char *base, const char *hash,
			struct strbuf *sb)
{
	char sec[96];
	const char *u, *at;

	snprintf(sec, sizeof(sec), "base %.64s", base);
	u = config_get(&d->cfg, sec, "commit_url");
	if (!u)
		return;
	at = strstr(u, "%s");
	if (at)
		sb_addf(sb, "link    %.*s%s%s\n", (int)(at - u), u, hash,
			at + 2);
	else
		sb_addf(sb, "link    %s%s\n", u, hash);
}

/* The exact commands that reproduce the culprit c (parent p) of v. */
static void repro(const struct bis_view *v, const struct db_bis_cand *p,
		  const struct db_bis_cand *c, struct strbuf *sb)
{
	const struct db_bisection *b = &v->b;

	sb_addf(sb, "To reproduce:\n"
		"  klab build %s@%s --ident %.12s-good --wait\n"
		"  klab build %s@%s --ident %.12s-bad --wait\n"
		"  klab compare-run %.12s-good %.12s-bad --rig %s --suite %s "
		"--wait\n"
		"or bisect again:\n"
		"  klab bisect --git %s %s %s --rig %s --suite %s --metric %s "
		"--wait\n", b->base, p->file, p->file, b->base, c->file,
		c->file, p->file, c->file, b->rig, b->suite, b->base, b->good,
		b->bad, b->rig, b->suite, b->metrics);
}

/* The one alert of a confirmed culprit on line tr, of the change
 * between heads prev and h: grouped with the change points of that pair
 * (flow/changepoints.c keys them "cp/RIG/BEFORE/AFTER"), one change. */
static void regress_alert(struct klabd *d, struct db *db,
			  const struct db_track *tr,
			  const struct db_track_head *prev,
			  const struct db_track_head *h,
			  const struct bis_view *v, int64_t cid)
{
	const struct db_bis_cand *c = &v->cands[v->b.answer];
	const struct db_bis_cand *p = &v->cands[v->b.answer - 1];
	struct strbuf title = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf tab = STRBUF_INIT;
	char *line = track_line_name(tr), addr[256], link[64], key[128];
	char group[300], err[300], first[128];
	struct alert_event ev;
	double pct;

	sb_init(&title);
	sb_init(&text);
	sb_init(&tab);
	change_table(db, v, cid, &tab, &pct);
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(v->b.metrics,
							    ","),
		 v->b.metrics);
	sb_addf(&title, "%+.1f%% regression of %s due to commit %.12s "
		"(%s) on %s", pct, first, c->file, c->subject, line);
	sb_addf(&text, "FYI, klab noticed a %+.1f%% regression of %s due to "
		"commit\n\ncommit  %s\nsubject %s\nauthor  %s\n", pct, first,
		c->file, c->subject, c->author);
	commit_link(d, v->b.base, c->file, &text);
	sb_addf(&text, "line    %s (track %lld)\nrig     %s\nsuite   %s\n"
		"parent  %s\n\n%s\n", line, (long long)tr->id, v->b.rig,
		v->b.suite, p->file, tab.buf);
	repro(v, p, c, &text);
	sb_addf(&text, "\nThe bisection: /bisections/%lld\n",
		(long long)v->b.id);
	author_addr(c->author, addr, sizeof(addr));
	author_subscribe(d, db, addr);
	snprintf(link, sizeof(link), "/bisections/%lld", (long long)v->b.id);
	snprintf(key, sizeof(key), "%s/%s", line, c->file);
	if (prev && *prev->kernel && *h->kernel)
		snprintf(group, sizeof(group), "cp/%s/%s/%s", v->b.rig,
			 prev->kernel, h->kernel);
	else
		snprintf(group, sizeof(group), "regress/%s", c->file);
	memset(&ev, 0, sizeof(ev));
	ev.kind = ALERT_REGRESSION;
	ev.rig = v->b.rig;
	ev.suite = v->b.suite;
	ev.metric = first;
	ev.submitter = *addr ? addr : c->author;
	ev.title = title.buf;
	ev.text = text.buf;
	ev.link = link;
	ev.dedup = key;
	ev.line = line;
	ev.before = p->kernel;
	ev.after = c->kernel;
	ev.group = group;
	if (alerts_emit(db, &ev, err, sizeof(err)))
		fprintf(stderr, "klabd: track %lld: alert: %s\n",
			(long long)tr->id, err);
	sb_release(&title);
	sb_release(&text);
	sb_release(&tab);
	free(line);
}

int track_bisection_done(struct klabd *d, struct db *db,
			 const struct bis_view *v)
{
	const struct db_bis_step *s = confirm_step(v);
	struct db_track_head h, prev;
	struct db_track tr;
	int rc, gotp;

	if (db_track_head_of_bisection(db, v->b.id, &h))
		return 0;
	rc = db_track_get(db, h.track_id, &tr);
	gotp = !db_track_head_get(db, h.prev, &prev);
	if (!rc && v->b.answer > 0 && (size_t)v->b.answer < v->ncands && s &&
	    s->idx == v->b.answer && !strcmp(s->mark, "bad"))
		regress_alert(d, db, &tr, gotp ? &prev : NULL, &h, v,
			      s->comparison);
	else
		fprintf(stderr, "klabd: track %lld: bisection %lld of head "
			"%.12s raised nothing: %s\n", (long long)h.track_id,
			(long long)v->b.id, h.hash, v->b.outcome);
	if (!rc)
		db_track_release(&tr);
	if (gotp)
		db_track_head_release(&prev);
	db_track_head_release(&h);
	return 1;
}
