// SPDX-License-Identifier: MIT
/*
 * track: the tracker thread of track.h.  Its work list is the set of rig
 * x suite pairs with new results (deduplicated), then the tracks that are
 * due; between passes it sleeps until the next track falls due (at most
 * the interval), or until kicked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lab/catalog.h"
#include "flow/alerts.h"
#include "flow/changepoints.h"
#include "flow/driver.h"
#include "klabd/klabd.h"
#include "lab/rig.h"
#include "flow/track.h"
#include "flow/track_int.h"
#include "db/jobs.h"
#include "db/track.h"
#include "lib/alloc.h"
#include "lib/ident.h"

struct track_dirty {
	char *rig, *suite;
};

struct tracker {
	struct klabd *d;
	struct driver *drv;
	long interval;			/* seconds between checks of a track */
	long next;			/* seconds until one is due */
	pthread_mutex_t lock;		/* dirty */
	struct track_dirty *dirty;	/* rig x suite with new results */
	size_t ndirty, dirty_alloc;
};

void track_results_stored(struct klabd *d, const char *rig,
			  const char *suite)
{
	struct tracker *t = d->tracker;
	size_t i;

	if (!t || !rig || !suite)
		return;
	pthread_mutex_lock(&t->lock);
	for (i = 0; i < t->ndirty; i++)
		if (!strcmp(t->dirty[i].rig, rig) &&
		    !strcmp(t->dirty[i].suite, suite))
			break;
	if (i == t->ndirty) {
		ALLOC_GROW(t->dirty, t->ndirty, t->dirty_alloc);
		t->dirty[i].rig = xstrdup(rig);
		t->dirty[i].suite = xstrdup(suite);
		t->ndirty++;
	}
	pthread_mutex_unlock(&t->lock);
	driver_kick(t->drv);
}

/* Recompute the change points of every rig x suite with new results. */
static void track_refresh(struct tracker *t, struct db *db)
{
	struct track_dirty *v;
	size_t n, i;
	char err[512];
	int k;

	pthread_mutex_lock(&t->lock);
	v = t->dirty;
	n = t->ndirty;
	t->dirty = NULL;
	t->ndirty = t->dirty_alloc = 0;
	pthread_mutex_unlock(&t->lock);
	for (i = 0; i < n; i++) {
		err[0] = '\0';
		k = changepoints_refresh(db, v[i].rig, v[i].suite, NULL, err,
					 sizeof(err));
		if (k < 0)
			fprintf(stderr, "klabd: change points of rig '%s' "
				"suite '%s': %s\n", v[i].rig, v[i].suite, err);
		else
			track_changepoints_check(t->d, db, v[i].rig,
						 v[i].suite);
		free(v[i].rig);
		free(v[i].suite);
	}
	free(v);
}

int track_rigs_resolve(struct klabd *d, struct db *db, const char *spec,
		       struct strbuf *out, char *err, size_t errlen)
{
	const char *p = spec;
	struct db_rig g;
	size_t len;

	memset(&g, 0, sizeof(g));
	sb_reset(out);
	if (!*spec) {
		snprintf(err, errlen, "field 'rigs' names no rig");
		return -1;
	}
	/* a rig class (issue 31) stays a class: its jobs, comparisons and
	 * bisections go to whichever of its rigs is free */
	while (*p) {
		len = strcspn(p, ",");
		if (!len || len > IDENT_MAX) {
			snprintf(err, errlen, "invalid rig list '%.80s'", spec);
			return -1;
		}
		sb_addf(out, "%s%.*s", out->len ? "," : "", (int)len, p);
		if (!rig_class_resolve(d, out->buf + out->len - len, NULL,
				       0) &&
		    db_rig_get(db, out->buf + out->len - len, &g)) {
			snprintf(err, errlen, "unknown rig '%.*s' (nor a class "
				 "of that name)", (int)len, p);
			return -1;
		}
		if (g.name)
			db_rig_release(&g);
		p += len + (p[len] == ',');
	}
	return 0;
}

char *track_line_name(const struct db_track *tr)
{
	struct strbuf sb = STRBUF_INIT;

	sb_init(&sb);
	sb_addf(&sb, "%s/%s", tr->distro, tr->line);
	return sb_detach(&sb, NULL);
}

int64_t track_queue(struct klabd *d, struct db *db, const struct db_track *tr,
		    const char *kernel)
{
	struct strbuf rl = STRBUF_INIT;
	struct db_job_new jn;
	char err[300], *all, *suites, *rig, *next, *suite, *snext;
	int64_t n = 0;

	sb_init(&rl);
	if (track_rigs_resolve(d, db, tr->rigs, &rl, err, sizeof(err))) {
		fprintf(stderr, "klabd: track %lld: %s\n", (long long)tr->id,
			err);
		sb_release(&rl);
		return 0;
	}
	all = sb_detach(&rl, NULL);
	suites = xstrdup(tr->suite);
	memset(&jn, 0, sizeof(jn));
	jn.kernel = kernel;
	jn.scheduler = jn.cmdline = "";
	jn.scale = tr->scale;
	for (rig = all; rig && *rig; rig = next) {
		next = strchr(rig, ',');
		if (next)
			*next++ = '\0';
		jn.rig = rig;
		for (suite = suites; suite; suite = snext) {
			snext = strchr(suite, ',');
			jn.suite = suite;
			if (snext)
				*snext = '\0';
			if (!db_job_add(db, &jn, NULL, err, sizeof(err)))
				n++;
			else
				fprintf(stderr, "klabd: track %lld: %s\n",
					(long long)tr->id, err);
			if (snext)
				*snext++ = ',';
		}
	}
	free(suites);
	free(all);
	return n;
}

/* The newest package of tr's line, a heap string, or NULL with err. */
static char *track_newest(struct klabd *d, const struct db_track *tr,
			  char *err, size_t errlen)
{
	struct strbuf out = STRBUF_INIT;
	const char *args[3] = { "newest", tr->line + strlen("newest-"), NULL };
	char *pkg = NULL;

	sb_init(&out);
	if (!catalog_script(d, "debian-kernels.sh", args, &out, err, errlen))
		pkg = strndup(out.buf, strcspn(out.buf, "\n"));
	else if (!err[0])
		snprintf(err, errlen, "cannot ask the archive for '%s'",
			 tr->line);
	sb_release(&out);
	return pkg;
}

/*
 * Check one track: a new package is fetched into the catalog and queued,
 * the new kernel then the previous one, on each rig.
 */
static void track_check(struct klabd *d, struct db *db,
			const struct db_track *tr)
{
	char err[512] = "", *pkg, *ident = NULL;
	int64_t jobs = 0;

	pkg = track_newest(d, tr, err, sizeof(err));
	if (!pkg || !strcmp(pkg, tr->last_package))
		goto out_checked;
	if (catalog_add_debian(d, db, pkg, &ident, err, sizeof(err)))
		goto out_checked;
	jobs = track_queue(d, db, tr, ident);
	if (*tr->last_kernel && strcmp(tr->last_kernel, ident))
		jobs += track_queue(d, db, tr, tr->last_kernel);
	if (db_track_advance(db, tr->id, pkg, ident, jobs))
		snprintf(err, sizeof(err), "cannot record the track's new "
			 "kernel '%s'", ident);
	else
		err[0] = '\0';
	fprintf(stderr, "klabd: track %lld: %s %s is new: kernel '%s', %lld "
		"jobs queued\n", (long long)tr->id, tr->distro, pkg, ident,
		(long long)jobs);
	if (jobs)
		rigmgr_kick(d);
out_checked:
	if (err[0])
		fprintf(stderr, "klabd: track %lld: %s\n", (long long)tr->id,
			err);
	db_track_checked(db, tr->id, (int64_t)time(NULL), err);
	free(ident);
	free(pkg);
}

/* Check the tracks that are due; the seconds until the next one is. */
static long track_due(struct klabd *d, struct tracker *t, struct db *db)
{
	struct db_track *v = NULL;
	size_t n = 0, i;
	long next = t->interval, left;
	int64_t now = (int64_t)time(NULL);

	if (db_track_list(db, &v, &n)) {
		fprintf(stderr, "klabd: cannot list the tracks\n");
		return next;
	}
	for (i = 0; i < n && !__atomic_load_n(&d->stopping, __ATOMIC_SEQ_CST);
	     i++) {
		left = v[i].last_check ? (long)(v[i].last_check + t->interval -
						now) : 0;
		if (!strcmp(v[i].distro, "git")) {
			if (track_git_pass(d, db, &v[i], left <= 0))
				left = 1;	/* work under way */
			else if (left <= 0)
				left = t->interval;
		} else if (left <= 0) {
			track_check(d, db, &v[i]);
			left = t->interval;
		}
		if (left < next)
			next = left;
	}
	db_tracks_free(v, n);
	return next;
}

/* New results, then the tracks due; the seconds until the next pass. */
static long track_pass(void *arg)
{
	struct tracker *t = arg;
	struct db *db = klabd_db_get_logged(t->d, "tracker");

	if (db) {
		track_refresh(t, db);
		t->next = track_due(t->d, t, db);
		klabd_db_put(t->d, db);
	}
	return t->next > 0 ? t->next : 1;
}

static void track_free(struct tracker *t)
{
	size_t i;

	for (i = 0; i < t->ndirty; i++) {
		free(t->dirty[i].rig);
		free(t->dirty[i].suite);
	}
	free(t->dirty);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* Every [base NAME] commit_url is an http(s) URL: 0, or -1 with err
 * naming the file and line. */
static int track_conf_urls(struct klabd *d, char *err, size_t errlen)
{
	char why[200];
	size_t i;

	for (i = 0; i < d->cfg.n; i++) {
		if (strncmp(d->cfg.v[i].section, "base ", 5) ||
		    strcmp(d->cfg.v[i].key, "commit_url") ||
		    !alerts_url_check(d->cfg.v[i].value, why, sizeof(why)))
			continue;
		snprintf(err, errlen, "%s:%d: commit_url: %s", d->cfg.path,
			 d->cfg.v[i].line, why);
		return -1;
	}
	return 0;
}

int track_start(struct klabd *d, char *err, size_t errlen)
{
	const char *v = config_get(&d->cfg, "", "track_interval");
	const char *ma = config_get(&d->cfg, "", "alert_mail_author");
	struct tracker *t;
	long interval = TRACK_INTERVAL_DEFAULT;

	if (ma && strcmp(ma, "yes") && strcmp(ma, "no")) {
		snprintf(err, errlen, "%s: alert_mail_author: expected 'yes' "
			 "or 'no', got '%s'", d->cfg.path, ma);
		return -1;
	}
	if (track_conf_urls(d, err, errlen))
		return -1;
	if (v && parse_long(v, TRACK_INTERVAL_MIN, TRACK_INTERVAL_MAX,
			    &interval)) {
		snprintf(err, errlen, "%s: track_interval: expected %d..%d "
			 "seconds, got '%s'", d->cfg.path, TRACK_INTERVAL_MIN,
			 TRACK_INTERVAL_MAX, v);
		return -1;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		abort();
	pthread_mutex_init(&t->lock, NULL);
	t->d = d;
	t->interval = t->next = interval;
	if (driver_start(&t->drv, "tracker", track_pass, t, err, errlen)) {
		track_free(t);
		return -1;
	}
	d->tracker = t;
	return 0;
}

void track_stop(struct klabd *d)
{
	struct tracker *t = d->tracker;

	if (!t)
		return;
	driver_stop(&t->drv);
	d->tracker = NULL;
	track_free(t);
}

void track_kick(struct klabd *d)
{
	struct tracker *t = d->tracker;

	if (t)
		driver_kick(t->drv);
}
