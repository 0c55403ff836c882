// SPDX-License-Identifier: MIT
/*
 * A bisection as the API, its page and its report show it (bisect.h):
 * the row, its candidates and steps, the range still open with an
 * estimate of the steps left (judge/bisect_pick.h), and the mail-ready text
 * report: the culprit (subject and author of a patch, version of a
 * package, hash and subject of a commit), the job configuration, the
 * evidence table (each step: kernel, cells, delta with its confidence
 * interval on the named metrics, mark or the reason for a skip) and how
 * sure it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/bisect.h"
#include "lib/strbuf.h"
#include "judge/bisect_pick.h"
#include "web/format.h"

/* git: the range is the last good and the last bad commit tested (git
 * tests inside the range only); the steps left are git's estimate. */
static void git_range(struct bis_view *v)
{
	size_t i;
	int h = v->b.steps_hint > 0 ? v->b.steps_hint : 1;

	v->good = 0;
	v->bad = 1;
	for (i = 0; i < v->nsteps; i++) {
		const struct db_bis_step *s = &v->steps[i];

		if (strcmp(s->purpose, "step") || s->idx < 0 ||
		    (size_t)s->idx >= v->ncands)
			continue;
		if (!strcmp(s->mark, "good"))
			v->good = (size_t)s->idx;
		else if (!strcmp(s->mark, "bad"))
			v->bad = (size_t)s->idx;
	}
	if (!strcmp(v->b.phase, "verify"))
		v->steps_left = (size_t)h + 2;
	else if (!strcmp(v->b.phase, "step"))
		v->steps_left = (size_t)h + 1;
	else if (!strcmp(v->b.phase, "confirm"))
		v->steps_left = 1;
	if (strcmp(v->b.state, "running"))
		v->steps_left = 0;
}

int bis_view_load(struct db *db, int64_t id, struct bis_view *v, char *err,
		  size_t errlen)
{
	struct bis_next nx;
	enum bis_mark *marks;
	size_t i, n;
	int rc, m;

	memset(v, 0, sizeof(*v));
	rc = db_bisection_get(db, id, &v->b);
	if (rc) {
		snprintf(err, errlen, "%s bisection %lld", rc == DB_NOTFOUND ?
			 "unknown" : "cannot read", (long long)id);
		return rc;
	}
	if (db_bisection_candidates(db, id, &v->cands, &v->ncands) ||
	    db_bisection_steps(db, id, &v->steps, &v->nsteps)) {
		snprintf(err, errlen, "cannot read bisection %lld",
			 (long long)id);
		return DB_ERR;
	}
	if (v->ncands < 2)
		return DB_OK;
	if (!strcmp(v->b.kind, "git")) {
		git_range(v);
		return DB_OK;
	}
	n = v->ncands - 1;
	marks = calloc(n + 1, sizeof(*marks));
	if (!marks)
		abort();
	for (i = 0; i < v->nsteps; i++) {
		m = bisect_mark_parse(v->steps[i].mark);
		if (!strcmp(v->steps[i].purpose, "step") && m > 0 &&
		    (size_t)v->steps[i].idx <= n)
			marks[v->steps[i].idx] = (enum bis_mark)m;
	}
	bisect_next(marks, n, &nx);
	free(marks);
	v->good = nx.good;
	v->bad = nx.bad;
	v->steps_left = nx.state == BIS_TEST ? nx.steps_left + 1 : 0;
	if (!strcmp(v->b.phase, "verify"))
		v->steps_left = bisect_ideal_steps(n) + 2;
	else if (!strcmp(v->b.phase, "step"))
		v->steps_left += 1;	/* the confirmation */
	else if (!strcmp(v->b.phase, "confirm"))
		v->steps_left = 1;
	if (strcmp(v->b.state, "running"))
		v->steps_left = 0;
	return DB_OK;
}

void bis_view_release(struct bis_view *v)
{
	db_bisection_release(&v->b);
	db_bis_cands_free(v->cands, v->ncands);
	db_bis_steps_free(v->steps, v->nsteps);
	memset(v, 0, sizeof(*v));
}

/* How sure: from the confirmation and the skips. */
static const char *bis_sureness(const struct bis_view *v, size_t *skips)
{
	const struct db_bis_step *conf = NULL;
	size_t i;

	*skips = 0;
	for (i = 0; i < v->nsteps; i++) {
		*skips += !strcmp(v->steps[i].mark, "skip");
		if (!strcmp(v->steps[i].purpose, "confirm"))
			conf = &v->steps[i];
	}
	if (v->b.answer < 0)
		return "no culprit named";
	if (conf && !strcmp(conf->mark, "bad"))
		return "sure: the first bad step is worse than its parent "
		       "on a fresh, larger sample";
	return "not sure: the fresh, larger sample against its parent did "
	       "not show it worse; treat the culprit as a lead";
}

void bis_report(const struct bis_view *v, struct strbuf *sb)
{
	const struct db_bisection *b = &v->b;
	const struct db_bis_cand *c;
	size_t i, skips;
	const char *sure = bis_sureness(v, &skips);
	char cfg[400];

	sb_addf(sb, "klab bisection %lld: %s\n", (long long)b->id,
		*b->outcome ? b->outcome : b->state);
	sb_addf(sb, "kind:      %s\n", b->kind);
	if (*b->base)
		sb_addf(sb, "base:      %s\n", b->base);
	if (!strcmp(b->kind, "git"))
		sb_addf(sb, "range:     %s (good) .. %s (bad), commits chosen "
			"by git bisect\n", v->cands[0].label,
			v->cands[1].label);
	else
		sb_addf(sb, "range:     %s (good) .. %s (bad), %zu "
			"candidates\n", v->cands[0].label,
			v->cands[v->ncands - 1].label, v->ncands - 1);
	fmt_job_config(cfg, sizeof(cfg), b->scale, b->scheduler, b->cmdline);
	sb_addf(sb, "rig:       %s\nsuite:     %s\nmetrics:   %s\n"
		"config:    %s\n", b->rig, b->suite, b->metrics, cfg);
	sb_addf(sb, "requested: %s\n", b->who);
	if (b->answer >= 0 && (size_t)b->answer < v->ncands) {
		c = &v->cands[b->answer];
		sb_addf(sb, "culprit:   %s\n", c->label);
		if (*c->subject)
			sb_addf(sb, "subject:   %s\n", c->subject);
		if (*c->author)
			sb_addf(sb, "author:    %s\n", c->author);
	}
	if (!strcmp(b->kind, "git"))
		sb_addf(sb, "how sure:  %s (%zu steps, %zu skipped)\n", sure,
			v->nsteps, skips);
	else
		sb_addf(sb, "how sure:  %s (%zu steps, %zu skipped; ideal "
			"%zu)\n", sure, v->nsteps, skips,
			bisect_ideal_steps(v->ncands - 1));
	sb_addf(sb, "\n%-8s %-5s %-30s %-6s %-6s %s\n", "purpose", "index",
		"kernel", "cells", "mark", "delta / reason");
	for (i = 0; i < v->nsteps; i++) {
		const struct db_bis_step *s = &v->steps[i];

		sb_addf(sb, "%-8s %-5d %-30s %-6d %-6s %s%s%s\n", s->purpose,
			s->idx, *s->kernel ? s->kernel : "-", s->cells,
			*s->mark ? s->mark : "open", s->delta,
			*s->delta && !strcmp(s->mark, "skip") ? ": " : "",
			!strcmp(s->mark, "skip") ? s->reason : "");
	}
}
