// SPDX-License-Identifier: MIT
/*
 * track_regress: from a regression on a tracked git line to its culprit,
 * with nobody acting (issue 32).  A head that came out worse than the
 * head tested before it starts one bisection (flow/bisect.h, kind git)
 * over that range, on the rig, suite and metrics of its first worse
 * cell, at most one per range (the head keeps its id).  The bisection
 * ends here instead of in a bisection_done alert: a culprit confirmed
 * against its parent is ONE ALERT_REGRESSION naming the commit (subject,
 * author, the metric, the %change +- stddev table of the confirmation,
 * the rig and the klab commands that reproduce it), to the subscribers
 * and, with alert_mail_author = yes, to the commit's author; a range that
 * does not reproduce, or a culprit not confirmed, raises nothing and
 * stays on the bisection's page and the line's heads.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/alerts.h"
#include "flow/alerts.h"
#include "flow/bisect.h"
#include "flow/track.h"
#include "flow/track_int.h"
#include "lib/alloc.h"
#include "lib/config.h"

int track_bisect_start(struct klabd *d, struct db *db,
		       const struct db_track *tr, struct db_track_head *h,
		       const struct db_track_head *prev, char *err,
		       size_t errlen)
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
	in.max_cells = tr->max_cells;
	in.scale = 1;
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

/* 1 when name is an item of the ',' list. */
static int metric_in(const char *list, const char *name)
{
	size_t n, k = strlen(name);

	for (; *list; list += n + (list[n] == ',')) {
		n = strcspn(list, ",");
		if (n == k && !strncmp(list, name, k))
			return 1;
	}
	return 0;
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

		if (!metric_in(v->b.metrics, m->name) || !m->cells[0].present ||
		    !m->cells[1].present)
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

/* The one alert of a confirmed culprit on line tr. */
static void regress_alert(struct klabd *d, struct db *db,
			  const struct db_track *tr,
			  const struct bis_view *v, int64_t cid)
{
	const struct db_bis_cand *c = &v->cands[v->b.answer];
	const struct db_bis_cand *p = &v->cands[v->b.answer - 1];
	struct strbuf title = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf tab = STRBUF_INIT;
	char *line = track_line_name(tr), addr[256], link[64], key[128];
	char group[128], err[300], first[128];
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
		"commit\n\ncommit  %s\nsubject %s\nauthor  %s\nline    %s "
		"(track %lld)\nrig     %s\nsuite   %s\nparent  %s\n\n%s\n",
		pct, first, c->file, c->subject, c->author, line,
		(long long)tr->id, v->b.rig, v->b.suite, p->file, tab.buf);
	repro(v, p, c, &text);
	sb_addf(&text, "\nThe bisection: /bisections/%lld\n",
		(long long)v->b.id);
	author_addr(c->author, addr, sizeof(addr));
	author_subscribe(d, db, addr);
	snprintf(link, sizeof(link), "/bisections/%lld", (long long)v->b.id);
	snprintf(key, sizeof(key), "%s/%s", line, c->file);
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
	struct db_track_head h;
	struct db_track tr;
	int rc;

	if (db_track_head_of_bisection(db, v->b.id, &h))
		return 0;
	rc = db_track_get(db, h.track_id, &tr);
	if (!rc && v->b.answer > 0 && (size_t)v->b.answer < v->ncands && s &&
	    s->idx == v->b.answer && !strcmp(s->mark, "bad"))
		regress_alert(d, db, &tr, v, s->comparison);
	else
		fprintf(stderr, "klabd: track %lld: bisection %lld of head "
			"%.12s raised nothing: %s\n", (long long)h.track_id,
			(long long)v->b.id, h.hash, v->b.outcome);
	if (!rc)
		db_track_release(&tr);
	db_track_head_release(&h);
	return 1;
}
