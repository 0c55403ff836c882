// SPDX-License-Identifier: MIT
/*
 * track_git: a tracked git branch (track.h, distro "git").  The
 * repository is the git = PATH of the track's [base NAME], a local mirror
 * the operator updates: klabd reads it and never fetches.  A line has at
 * most one head under way; each of its heads (db/track.h) goes
 *
 *   building   its kernel built as NAME@COMMIT (the builder of every git
 *              base), named trkT-COMMIT12;
 *   comparing  one comparison run (flow/comparisons.h: adaptive, ended at
 *              the first worse headline metric) per rig x suite, the last
 *              tested head against it; the line's first head has nothing
 *              to be compared with, and is queued as plain jobs instead;
 *   tested     its verdict rolled up over the comparisons (one worse cell
 *              makes it worse, which starts a bisection of the range,
 *              track_regress.c), the line's last tested head now;
 *   failed     its build failed: the line waits for a newer head, and its
 *              range will be compared from the last tested head.
 *
 * When the branch moved by several commits, only its newest head is
 * tested (first-parent history: a merge is one step of the line); the
 * commits in between are counted as the head's skipped ones, the line's
 * backlog, and tested only when a bisection needs them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flow/bisect.h"
#include "flow/comparisons.h"
#include "flow/track.h"
#include "flow/track_int.h"
#include "lab/build.h"
#include "lab/rig.h"
#include "lib/alloc.h"
#include "lib/git.h"

/* The heads a pass reads, newest: the open one, the last tested, and
 * the backlog's count (of these). */
#define TRACK_GIT_HEADS 200

/* One pass over a line: its track, repository and heads, oldest first. */
struct gline {
	struct klabd *d;
	struct db *db;
	const struct db_track *tr;
	const char *repo;
	struct db_track_head *h;
	size_t n;
	struct db_track_head far;	/* a head older than those read */
};

static void head_log(const struct gline *g, const struct db_track_head *h,
		     const char *what)
{
	fprintf(stderr, "klabd: track %lld: head %.12s: %s\n",
		(long long)g->tr->id, h->hash, what);
}

/* The newest head of g that is tested, or NULL. */
static const struct db_track_head *last_tested(const struct gline *g)
{
	size_t i;

	for (i = g->n; i-- > 0;)
		if (!strcmp(g->h[i].state, "tested"))
			return &g->h[i];
	return NULL;
}

/* Head id (0: none) among those read, else read into g->far; NULL when
 * there is none. */
static const struct db_track_head *head_by_id(struct gline *g, int64_t id)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->h[i].id == id)
			return &g->h[i];
	db_track_head_release(&g->far);
	if (!id || db_track_head_get(g->db, id, &g->far))
		return NULL;
	return &g->far;
}

/* Commits of from..to on to's first-parent line; -1 when git fails (to
 * not a descendant of from counts what from lacks). */
static long fp_count(const char *repo, const char *from, const char *to)
{
	const char *args[] = { "rev-list", "--first-parent", "--count", NULL,
			       NULL };
	struct strbuf out = STRBUF_INIT, r = STRBUF_INIT;
	char err[300];
	long n = -1;

	sb_init(&out);
	sb_init(&r);
	sb_addf(&r, "%s..%s", from, to);
	args[3] = r.buf;
	if (!git_run(repo, args, &out, err, sizeof(err)))
		n = strtol(out.buf, NULL, 10);
	sb_release(&out);
	sb_release(&r);
	return n;
}

/* The branch's head now (full hash, subject, author into c), or -1. */
static int branch_head(const struct gline *g, struct db_bis_cand *c,
		       char *err, size_t errlen)
{
	struct strbuf ref = STRBUF_INIT;
	int rc;

	sb_init(&ref);
	sb_addf(&ref, "refs/heads/%s", g->tr->branch);
	rc = bis_git_commit(g->repo, "branch", ref.buf, g->tr->base, c, err,
			    errlen);
	sb_release(&ref);
	return rc;
}

/* The branch moved to c: its build queued, the head recorded. */
static int head_new(struct gline *g, const struct db_bis_cand *c, char *err,
		    size_t errlen)
{
	const struct db_track_head *prev = last_tested(g);
	struct db_track_head h;
	char ident[64], base[200];
	long k;

	memset(&h, 0, sizeof(h));
	h.track_id = g->tr->id;
	h.hash = c->file;
	h.subject = c->subject;
	h.author = c->author;
	h.prev = prev ? prev->id : 0;
	k = prev ? fp_count(g->repo, prev->hash, c->file) : 0;
	h.skipped = k > 1 ? k - 1 : 0;
	snprintf(ident, sizeof(ident), "trk%lld-%.12s", (long long)g->tr->id,
		 c->file);
	snprintf(base, sizeof(base), "%s@%s", g->tr->base, c->file);
	if (db_build_add(g->db, ident, base, "", g->tr->who, 1, &h.build) ||
	    db_track_head_add(g->db, &h, NULL)) {
		snprintf(err, errlen, "cannot record head %.12s", c->file);
		return -1;
	}
	build_kick(g->d);
	head_log(g, &h, "new, building");
	return 0;
}

/* One comparison run of prev's kernel against h's on rig x suite, its
 * first look queued, in the caller's transaction. */
static int cmp_add(struct gline *g, const char *base, const char *cand,
		   const char *rig, const char *suite, struct strbuf *ids,
		   char *err, size_t errlen)
{
	struct db_comparison c;
	struct vd_plan plan;
	int rc;

	memset(&c, 0, sizeof(c));
	vd_plan_default(&plan);
	if (g->tr->max_cells > 0)
		vd_plan_set_cap(&plan, (size_t)g->tr->max_cells);
	c.base = (char *)base;
	c.candidate = (char *)cand;
	c.rig = (char *)rig;
	c.suite = (char *)suite;
	c.scale = g->tr->scale;
	c.scheduler = c.cmdline = c.floors = "";
	c.max_cells = (int)plan.looks[plan.nlooks - 1];
	c.max_seconds = plan.max_seconds;
	c.stop_on_worse = 1;
	c.planned = (int)plan.looks[0];
	c.who = g->tr->who;
	rc = db_comparison_add(g->db, &c, &c.id, err, errlen);
	if (!rc)
		rc = cmprun_queue(g->db, &c, c.planned, err, errlen);
	if (!rc)
		sb_addf(ids, "%s%lld", ids->len ? "," : "", (long long)c.id);
	return rc;
}

/* Every rig x suite of the line: prev's kernel against h's. */
static int cmp_start(struct gline *g, const struct db_track_head *prev,
		     struct db_track_head *h, char *err, size_t errlen)
{
	struct strbuf rigs = STRBUF_INIT, ids = STRBUF_INIT;
	char *rl, *sl, *rig, *rn, *suite, *sn;
	int rc;

	sb_init(&rigs);
	sb_init(&ids);
	if (track_rigs_resolve(g->d, g->db, g->tr->rigs, &rigs, err,
			       errlen)) {
		sb_release(&rigs);
		return DB_NOTFOUND;
	}
	rl = sb_detach(&rigs, NULL);
	sl = xstrdup(g->tr->suite);
	rc = db_begin(g->db) ? DB_ERR : DB_OK;
	for (rig = rl; !rc && rig; rig = rn) {
		rn = strchr(rig, ',');
		if (rn)
			*rn++ = '\0';
		for (suite = sl; !rc && suite; suite = sn) {
			sn = strchr(suite, ',');
			if (sn)
				*sn = '\0';
			rc = cmp_add(g, prev->kernel, h->kernel, rig, suite,
				     &ids, err, errlen);
			if (sn)
				*sn++ = ',';
		}
	}
	alloc_str_set(&h->comparisons, ids.buf);
	alloc_str_set(&h->state, "comparing");
	if (!rc && db_track_head_set(g->db, h))
		rc = DB_ERR;
	rc = cmprun_commit(g->d, g->db, rc);
	free(rl);
	free(sl);
	sb_release(&ids);
	return rc;
}

/* h ends tested with verdict (jobs more plain jobs queued): the line's
 * last tested head. */
static void head_tested(struct gline *g, struct db_track_head *h,
			const char *verdict, int64_t jobs)
{
	alloc_str_set(&h->state, "tested");
	alloc_str_set(&h->verdict, verdict);
	if (db_track_head_set(g->db, h) ||
	    db_track_advance(g->db, g->tr->id, h->hash, h->kernel, jobs))
		head_log(g, h, "cannot record its verdict");
	head_log(g, h, verdict);
}

/* h failed with why: the line waits for a newer head. */
static void head_failed(struct gline *g, struct db_track_head *h,
			const char *why)
{
	alloc_str_set(&h->state, "failed");
	alloc_str_set(&h->verdict, "failed");
	alloc_str_set(&h->error, why);
	db_track_head_set(g->db, h);
	head_log(g, h, why);
}

/* A building head: its kernel, then its comparisons (or, the line's
 * first, its plain jobs). */
static void head_build_step(struct gline *g, struct db_track_head *h)
{
	const struct db_track_head *prev = head_by_id(g, h->prev);
	struct db_build b;
	char err[600] = "";
	int64_t jobs;
	int rc;

	if (db_build_get(g->db, h->build, &b))
		return;
	if (!strcmp(b.state, "failed")) {
		snprintf(err, sizeof(err), "build %lld failed: %.500s",
			 (long long)b.id, b.error);
		head_failed(g, h, err);
	} else if (!strcmp(b.state, "done")) {
		alloc_str_set(&h->kernel, b.ident);
		if (!prev || !*prev->kernel) {
			jobs = track_queue(g->d, g->db, g->tr, h->kernel);
			head_tested(g, h, "first", jobs);
			rigmgr_kick(g->d);
		} else {
			rc = cmp_start(g, prev, h, err, sizeof(err));
			/* a rig or suite gone: failed; else again next pass */
			if (rc == DB_NOTFOUND || rc == DB_INVALID)
				head_failed(g, h, err);
			else if (rc)
				head_log(g, h, err);
		}
	}
	db_build_release(&b);
}

/* How clearly metric cell c is worse: its log ratio over the test's
 * standard error, for a headline metric decided worse or, undecided,
 * whose 90% CI lies wholly past its threshold on the worse side; 0
 * when it is neither. */
static double worse_signal(const struct cmp_metric *m,
			   const struct cmp_cell *c)
{
	const struct vd_result *r = &c->vd;

	if (!cmprun_headline(m) || !(r->se > 0) || isnan(r->delta_pct) ||
	    r->delta_pct <= -100)
		return 0;
	if (c->verdict != V_WORSE && !vd_leans_worse(r))
		return 0;
	return fabs(log1p(r->delta_pct / 100)) / r->se;
}

/* The worse cell of view v into sb: "RIG SUITE METRIC", the headline
 * metric that is worse most clearly (worse_signal), the one the
 * bisection of the range judges its steps on: a harmless step is good
 * once every named metric is on the good end's side, so one metric,
 * the clearest, decides it soonest. */
static void worse_cell(const struct cmprun_view *v, struct strbuf *sb)
{
	const char *best = NULL;
	double top = 0, t;
	size_t i;

	for (i = 0; v->cmp.nk == 2 && i < v->cmp.nm; i++) {
		t = worse_signal(&v->cmp.m[i], &v->cmp.m[i].cells[1]);
		if (t > top) {
			top = t;
			best = v->cmp.m[i].name;
		}
	}
	sb_addf(sb, "%s %s %s", v->c.rig, v->c.suite, best ? best : "");
}

/* A comparing head: once every comparison has ended, its verdict; a
 * worse one starts the bisection of its range, an undecided one too when
 * a change point for worse between the two heads is already known. */
static void head_judge(struct gline *g, struct db_track_head *h)
{
	const struct db_track_head *prev = head_by_id(g, h->prev);
	struct vd_tally t = VD_TALLY_INIT;
	struct strbuf worse = STRBUF_INIT;
	struct cmprun_view v;
	const char *p = h->comparisons;
	enum cmp_verdict cv;
	char err[600];
	int active = 0;
	int64_t worse_cmp = 0;

	sb_init(&worse);
	while (*p && !active) {
		int64_t id = strtoll(p, NULL, 10);

		p += strcspn(p, ",");
		p += *p == ',';
		if (cmprun_view_load(g->db, id, &v, err, sizeof(err))) {
			cmprun_view_release(&v);
			active = 1;	/* asked again next pass */
			break;
		}
		active = !strcmp(v.c.state, "queued") ||
			 !strcmp(v.c.state, "running");
		cv = !strcmp(v.c.state, "failed") ? V_UNDECIDED : v.verdict;
		/* undecided, and the head says why: a rig's disk too small
		 * for the suite is the operator's to fix */
		if (cv == V_UNDECIDED && !strcmp(v.c.state, "failed") &&
		    !*h->error) {
			snprintf(err, sizeof(err), "comparison %lld failed: "
				 "%.500s", (long long)id, v.c.error);
			alloc_str_set(&h->error, err);
		}
		if (!strcmp(v.c.state, "undecided") && cv != V_WORSE)
			cv = V_UNDECIDED;
		vd_tally_add(&t, cv);
		if (cv == V_WORSE && !worse.len) {
			worse_cell(&v, &worse);
			worse_cmp = id;
		}
		cmprun_view_release(&v);
	}
	if (!active) {
		alloc_str_set(&h->worse, worse.buf);
		head_tested(g, h, cmp_verdict_name(vd_tally_verdict(&t)), 0);
		if (prev && !worse.len)
			track_head_undecided(g->d, g->db, g->tr, h, prev);
		else if (prev && track_bisect_start(g->d, g->db, g->tr, h,
						    prev, worse_cmp, err,
						    sizeof(err)))
			head_log(g, h, err);
	}
	sb_release(&worse);
}

/* The line's backlog: commits skipped between tested heads whose range
 * no bisection filled in, and those after the newest head. */
static int64_t backlog(const struct gline *g, const char *tip)
{
	int64_t n = 0;
	long k;
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!g->h[i].bisection)
			n += g->h[i].skipped;
	if (g->n && tip && strcmp(g->h[g->n - 1].hash, tip)) {
		k = fp_count(g->repo, g->h[g->n - 1].hash, tip);
		n += k > 0 ? k : 0;
	}
	return n;
}

/* 1 when commit hash is one of g's heads (of those read). */
static int head_known(const struct gline *g, const char *hash)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->h[i].hash, hash))
			return 1;
	return 0;
}

/* 1 when a head of g is being built or compared. */
static int head_open(const struct gline *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->h[i].state, "building") ||
		    !strcmp(g->h[i].state, "comparing"))
			return 1;
	return 0;
}

/* What the line does now: building, comparing, bisecting or idle. */
static const char *line_state(struct gline *g)
{
	struct db_bisection b;
	const char *s = "idle";
	size_t i;

	for (i = 0; i < g->n; i++) {
		if (!strcmp(g->h[i].state, "building") ||
		    !strcmp(g->h[i].state, "comparing"))
			return g->h[i].state;
		if (g->h[i].bisection &&
		    !db_bisection_get(g->db, g->h[i].bisection, &b)) {
			if (!strcmp(b.state, "running"))
				s = "bisecting";
			db_bisection_release(&b);
		}
	}
	return s;
}

int track_git_pass(struct klabd *d, struct db *db, const struct db_track *tr,
		   int due)
{
	struct gline g = { .d = d, .db = db, .tr = tr };
	struct db_bis_cand c;
	char err[600] = "";
	const char *state;
	int busy = 0, got = 0;
	size_t i;

	g.repo = bis_git_repo(d, tr->base);
	if (!g.repo) {
		snprintf(err, sizeof(err), "base '%.64s' is no longer a git "
			 "base of the configuration", tr->base);
	} else if (db_track_heads(db, tr->id, TRACK_GIT_HEADS, &g.h, &g.n)) {
		snprintf(err, sizeof(err), "cannot read the line's heads");
	} else {
		for (i = 0; i < g.n; i++) {
			if (!strcmp(g.h[i].state, "building"))
				head_build_step(&g, &g.h[i]);
			else if (!strcmp(g.h[i].state, "comparing"))
				head_judge(&g, &g.h[i]);
		}
		memset(&c, 0, sizeof(c));
		if (due && !branch_head(&g, &c, err, sizeof(err))) {
			got = 1;
			/* a branch moved back to a head it had stays as it
			 * is: the line waits for a new commit */
			if (!head_known(&g, c.file) && !head_open(&g) &&
			    !head_new(&g, &c, err, sizeof(err))) {
				db_track_heads_free(g.h, g.n);
				g.h = NULL;
				if (db_track_heads(db, tr->id, TRACK_GIT_HEADS,
						   &g.h, &g.n))
					g.n = 0;
			}
		}
		state = line_state(&g);
		busy = strcmp(state, "idle") != 0;
		if (got || strcmp(state, tr->state))
			db_track_set_state(db, tr->id, state, got ?
					   backlog(&g, c.file) : tr->backlog);
		if (got)
			db_bis_cand_release(&c);
	}
	if (due || err[0])
		db_track_checked(db, tr->id, (int64_t)time(NULL), err);
	if (err[0])
		fprintf(stderr, "klabd: track %lld: %s\n", (long long)tr->id,
			err);
	db_track_heads_free(g.h, g.n);
	db_track_head_release(&g.far);
	return busy;
}
