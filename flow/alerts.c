// SPDX-License-Identifier: MIT
/*
 * alerts: the lab's bell (flow/alerts.h).  alerts_emit matches an
 * event against every subscription and stores it with one delivery per
 * match in the outbox (db/alerts.h), in one transaction; the same kind and
 * dedup key is stored once.  One delivery thread of klabd works the
 * outbox: each due delivery is attempted, and recorded delivered or
 * failed with its error and the time of its next attempt (exponential
 * backoff, up to alert_max_attempts).  The outbox is the state: a klabd
 * restarted resumes where the last one stopped, and a delivery that was
 * sent but not yet recorded when klabd died is sent again (at least
 * once).  Request threads only write rows: no network under them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flow/alerts_int.h"
#include "flow/driver.h"
#include "klabd/klabd.h"
#include "lib/alloc.h"
#include "lib/config.h"

#define DUE_BATCH 50
#define POLL_S 1

struct alerts_run {
	struct klabd *d;
	struct driver *drv;	/* under run_lock */
	int cancel;		/* atomics: aborts a transfer at stop */
	struct alerts_conf conf;
	char *public_url;
	long group_wait;	/* seconds a grouped alert's mail waits */
};

/* The one delivery thread of the process, for alerts_kick(). */
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;
static struct alerts_run run;

/* ---- emitting ----------------------------------------------------- */

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* The subscriptions ev goes to: only when only > 0, else every match. */
static int pick_subs(struct db *db, const struct alert_event *ev,
		     int64_t only, int64_t **ids, const char ***chans,
		     size_t *n, struct db_alert_sub **subs, size_t *nsubs)
{
	size_t i, alloc = 0;

	*ids = NULL;
	*chans = NULL;
	*n = 0;
	if (db_alert_sub_list(db, NULL, subs, nsubs))
		return -1;
	for (i = 0; i < *nsubs; i++) {
		const struct db_alert_sub *s = &(*subs)[i];
		struct alert_filter f = { s->rig, s->suite, s->metric,
					  s->submitter, s->events };

		if (only ? s->id != only : !alerts_match(&f, ev))
			continue;
		ALLOC_GROW(*ids, *n, alloc);
		*chans = xrealloc(*chans, alloc * sizeof(**chans));
		(*ids)[*n] = s->id;
		(*chans)[(*n)++] = s->channel;
	}
	return 0;
}

int alerts_emit_to(struct db *db, const struct alert_event *ev, int64_t only,
		   int64_t *event, size_t *ndeliv, char *err, size_t errlen)
{
	struct db_alert_event e = {
		.kind = (char *)ev->kind, .rig = (char *)nz(ev->rig),
		.suite = (char *)nz(ev->suite),
		.metric = (char *)nz(ev->metric),
		.submitter = (char *)nz(ev->submitter),
		.title = (char *)nz(ev->title), .text = (char *)nz(ev->text),
		.link = (char *)nz(ev->link), .dedup = (char *)ev->dedup,
		.line = (char *)nz(ev->line),
		.kernel_before = (char *)nz(ev->before),
		.kernel_after = (char *)nz(ev->after),
		.group_key = (char *)nz(ev->group),
		.state = (char *)nz(ev->state), .about = ev->about,
	};
	struct db_alert_sub *subs = NULL;
	const char **chans;
	size_t n, nsubs = 0;
	int64_t *ids, id = 0;
	int rc = DB_ERR;
	long wait;

	if (pick_subs(db, ev, only, &ids, &chans, &n, &subs, &nsubs) == 0)
		rc = db_alert_event_add(db, &e, ids, chans, n, &id);
	/* a change's first mail waits for the rest of its group */
	wait = __atomic_load_n(&run.group_wait, __ATOMIC_RELAXED);
	if (rc == DB_OK && n && ev->group && *ev->group && wait)
		db_alert_event_hold(db, id, wait);
	if (rc == DB_ERR)
		snprintf(err, errlen, "cannot store alert '%s': %s", ev->kind,
			 db_busy_take(db) ? "the database stayed busy" :
			 "database error");
	else if (rc == DB_OK && n)
		alerts_kick();
	if (event)
		*event = id;
	if (ndeliv)
		*ndeliv = rc == DB_OK ? n : 0;
	free(ids);
	free(chans);
	db_alert_subs_free(subs, nsubs);
	return rc;
}

int alerts_emit(struct db *db, const struct alert_event *ev, char *err,
		size_t errlen)
{
	int rc = alerts_emit_to(db, ev, 0, NULL, NULL, err, errlen);

	if (rc == DB_ERR)
		return -1;
	fprintf(stderr, "klabd: alert %s%s: %s\n", ev->kind, rc == DB_REPEATED ?
		" (seen before)" : "", nz(ev->title));
	return 0;
}

static void emit_logged(struct db *db, const struct alert_event *ev)
{
	char err[256];

	if (alerts_emit(db, ev, err, sizeof(err)))
		fprintf(stderr, "klabd: %s\n", err);
}

void alerts_rig_offline(struct db *db, const char *rig)
{
	struct alert_event ev = { .kind = ALERT_RIG_OFFLINE, .rig = rig };
	char title[300], text[600], dedup[320];

	snprintf(title, sizeof(title), "rig %s is offline", rig);
	snprintf(text, sizeof(text), "Rig %s failed its health check twice "
		 "and is offline; its jobs wait.\nBring it back with: klab "
		 "rig online %s\n", rig, rig);
	snprintf(dedup, sizeof(dedup), "%s@%lld", rig, (long long)time(NULL));
	ev.title = title;
	ev.text = text;
	ev.link = "/rigs";
	ev.dedup = dedup;
	emit_logged(db, &ev);
}

void alerts_build_failed(struct db *db, long long id, const char *base,
			 const char *why)
{
	struct alert_event ev = { .kind = ALERT_BUILD_FAILED };
	char title[300], text[1200], dedup[32], link[48];

	snprintf(title, sizeof(title), "build %lld of %.200s failed", id, base);
	snprintf(text, sizeof(text), "Kernel build %lld (base %.200s) "
		 "failed:\n%.800s\n", id, base, why);
	snprintf(dedup, sizeof(dedup), "build-%lld", id);
	snprintf(link, sizeof(link), "/api/builds/%lld/log", id);
	ev.title = title;
	ev.text = text;
	ev.link = link;
	ev.dedup = dedup;
	emit_logged(db, &ev);
}

/* ---- delivering --------------------------------------------------- */

static int cancelled(const struct alerts_conf *c)
{
	return c->cancel && __atomic_load_n(c->cancel, __ATOMIC_RELAXED);
}

/*
 * Send e to s over delivery d.  A mail of a grouped alert takes along
 * the other pending deliveries of its group to s (*gv, *gn: delivered
 * with d), so one change is one mail.
 */
static int send_one(struct db *db, const struct alerts_conf *c,
		    const struct db_alert_sub *s,
		    const struct db_alert_event *e,
		    const struct db_alert_delivery *d,
		    struct db_alert_delivery **gv, size_t *gn, char *err,
		    size_t errlen)
{
	struct db_alert_event *ev;
	size_t i, n = 1, k = 0;
	int rc;

	*gv = NULL;
	*gn = 0;
	if (strcmp(s->channel, "email") || !*e->group_key ||
	    db_alert_delivery_group(db, d->id, s->id, e->group_id, gv, gn) ||
	    !*gn)
		return alerts_send(c, s, e, d->id, err, errlen);
	ev = xcalloc(*gn + 1, sizeof(*ev));
	ev[0] = *e;
	for (i = 0; i < *gn; i++) {
		if (db_alert_event_get(db, (*gv)[i].event_id, &ev[n])) {
			/* sent on its own later */
			db_alert_delivery_release(&(*gv)[i]);
			continue;
		}
		n++;
		(*gv)[k++] = (*gv)[i];
	}
	*gn = k;
	rc = alerts_send_group(c, s, ev, n, d->id, err, errlen);
	for (i = 1; i < n; i++)
		db_alert_event_release(&ev[i]);
	free(ev);
	return rc;
}

/* The deliveries a pass has sent along with another (a group's mail). */
struct folded {
	int64_t *id;
	size_t n, alloc;
};

static int was_folded(const struct folded *f, int64_t id)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->id[i] == id)
			return 1;
	return 0;
}

/* One attempt of d; its outcome recorded unless klabd is stopping. */
static void deliver_one(struct db *db, const struct alerts_conf *c,
			const struct db_alert_delivery *d, struct folded *f)
{
	struct db_alert_delivery *gv = NULL;
	struct db_alert_event e;
	struct db_alert_sub s;
	char err[512] = "";
	size_t gn = 0, i;
	int64_t now;
	int rc, tries = d->attempts + 1;

	memset(&e, 0, sizeof(e));
	memset(&s, 0, sizeof(s));
	if (db_alert_event_get(db, d->event_id, &e) ||
	    db_alert_sub_get(db, d->subscription_id, &s)) {
		snprintf(err, sizeof(err), "subscription or event gone");
		tries = c->max_attempts;
		rc = -1;
	} else {
		rc = send_one(db, c, &s, &e, d, &gv, &gn, err, sizeof(err));
	}
	now = (int64_t)time(NULL);
	for (i = 0; rc == 0 && i < gn; i++) {
		db_alert_delivery_done(db, gv[i].id, now);
		ALLOC_GROW(f->id, f->n, f->alloc);
		f->id[f->n++] = gv[i].id;
	}
	db_alert_deliveries_free(gv, gn);
	if (rc && cancelled(c))
		;	/* interrupted by shutdown: not an attempt */
	else if (rc == 0)
		db_alert_delivery_done(db, d->id, now);
	else
		db_alert_delivery_fail(db, d->id, err, now + alerts_backoff(
				       tries, c->retry_base, c->retry_max),
				       tries >= c->max_attempts);
	if (rc && !cancelled(c))
		fprintf(stderr, "klabd: alert delivery %lld (attempt %d): %s\n",
			(long long)d->id, tries, err);
	db_alert_event_release(&e);
	db_alert_sub_release(&s);
}

int alerts_deliver_due(struct db *db, const struct alerts_conf *c,
		       int limit)
{
	struct db_alert_delivery *v = NULL;
	struct folded f = { NULL, 0, 0 };
	size_t n = 0, i;

	if (db_alert_delivery_due(db, (int64_t)time(NULL), limit, &v, &n))
		return -1;
	for (i = 0; i < n && !cancelled(c); i++)
		if (!was_folded(&f, v[i].id))
			deliver_one(db, c, &v[i], &f);
	db_alert_deliveries_free(v, n);
	free(f.id);
	return (int)i;
}

void alerts_kick(void)
{
	pthread_mutex_lock(&run_lock);
	driver_kick(run.drv);
	pthread_mutex_unlock(&run_lock);
}

/* One batch of due deliveries; the seconds until the next. */
static long alerts_pass(void *arg)
{
	struct alerts_run *ar = arg;
	struct db *db = klabd_db_get_logged(ar->d, "alerts");
	int n;

	n = db ? alerts_deliver_due(db, &ar->conf, DUE_BATCH) : -1;
	klabd_db_put(ar->d, db);
	return n == DUE_BATCH ? 0 : POLL_S;	/* a full batch: more due */
}

/* ---- klabd's side ------------------------------------------------- */

/* The integer key (default dflt) in [min, max]: 0, or -1 with err. */
static int conf_long(struct klabd *d, const char *key, long dflt, long min,
		     long max, long *out, char *err, size_t errlen)
{
	const char *v = config_get(&d->cfg, "", key);

	*out = dflt;
	if (v && parse_long(v, min, max, out)) {
		snprintf(err, errlen, "%s: %s: expected a number from %ld to "
			 "%ld, got '%s'", d->cfg.path, key, min, max, v);
		return -1;
	}
	return 0;
}

static int conf_smtp(struct klabd *d, struct alerts_conf *c, char *err,
		     size_t errlen)
{
	const char *tls = config_get(&d->cfg, "", "alert_smtp_starttls");
	char why[256];

	c->smtp_url = config_get(&d->cfg, "", "alert_smtp_url");
	c->smtp_from = config_get(&d->cfg, "", "alert_smtp_from");
	c->smtp_user = config_get(&d->cfg, "", "alert_smtp_user");
	c->smtp_password = config_get(&d->cfg, "", "alert_smtp_password");
	if (c->smtp_url && strncmp(c->smtp_url, "smtp://", 7) &&
	    strncmp(c->smtp_url, "smtps://", 8)) {
		snprintf(err, errlen, "%s: alert_smtp_url: expected smtp:// or "
			 "smtps://, got '%s'", d->cfg.path, c->smtp_url);
		return -1;
	}
	if (c->smtp_url && !c->smtp_from) {
		snprintf(err, errlen, "%s: alert_smtp_url needs "
			 "alert_smtp_from (the sender's address)", d->cfg.path);
		return -1;
	}
	if (c->smtp_from && alerts_email_check(c->smtp_from, why,
					       sizeof(why))) {
		snprintf(err, errlen, "%s: alert_smtp_from: %s", d->cfg.path,
			 why);
		return -1;
	}
	if (tls && strcmp(tls, "yes") && strcmp(tls, "no")) {
		snprintf(err, errlen, "%s: alert_smtp_starttls: expected 'yes' "
			 "or 'no', got '%s'", d->cfg.path, tls);
		return -1;
	}
	c->smtp_starttls = tls && !strcmp(tls, "yes");
	return 0;
}

static int conf_read(struct klabd *d, struct alerts_conf *c, char *err,
		     size_t errlen)
{
	long attempts, wait;

	if (conf_long(d, "alert_group_wait", 30, 0, 3600, &wait, err,
		      errlen))
		return -1;
	__atomic_store_n(&run.group_wait, wait, __ATOMIC_RELAXED);
	if (conf_smtp(d, c, err, errlen) ||
	    conf_long(d, "alert_timeout", 20, 1, 300, &c->timeout, err,
		      errlen) ||
	    conf_long(d, "alert_retry_base", 30, 1, 86400, &c->retry_base,
		      err, errlen) ||
	    conf_long(d, "alert_retry_max", 3600, 1, 7 * 86400,
		      &c->retry_max, err, errlen) ||
	    conf_long(d, "alert_max_attempts", 8, 1, 100, &attempts, err,
		      errlen))
		return -1;
	c->max_attempts = (int)attempts;
	return 0;
}

int alerts_start(struct klabd *d, char *err, size_t errlen)
{
	struct strbuf url = STRBUF_INIT;
	struct driver *dr;

	memset(&run, 0, sizeof(run));
	if (conf_read(d, &run.conf, err, errlen))
		return -1;
	sb_init(&url);
	if (d->public_url)
		sb_adds(&url, d->public_url);
	else
		sb_addf(&url, "http://%s:%d", d->host ? d->host : "127.0.0.1",
			d->port);
	while (url.len && url.buf[url.len - 1] == '/')
		url.buf[--url.len] = '\0';
	run.public_url = sb_detach(&url, NULL);
	run.conf.public_url = run.public_url;
	run.conf.cancel = &run.cancel;
	run.d = d;
	if (driver_start(&dr, "alert delivery thread", alerts_pass, &run, err,
			 errlen))
		return -1;
	pthread_mutex_lock(&run_lock);
	run.drv = dr;
	pthread_mutex_unlock(&run_lock);
	return 0;
}

void alerts_stop(struct klabd *d)
{
	struct driver *dr;

	(void)d;
	pthread_mutex_lock(&run_lock);
	dr = run.drv;
	run.drv = NULL;		/* kicks from now on are no-ops */
	pthread_mutex_unlock(&run_lock);
	if (dr) {
		__atomic_store_n(&run.cancel, 1, __ATOMIC_RELAXED);
		driver_stop(&dr);
	}
	free(run.public_url);
	run.public_url = NULL;
}
