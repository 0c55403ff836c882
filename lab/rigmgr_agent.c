// SPDX-License-Identifier: MIT
/*
 * What agents and operators ask of the rig manager (rig.h): an agent's
 * check-in, the long poll's hand-out of the next job (take_job, which
 * drops mgr_lock around its database work and its look at the catalog's
 * boot files), the kexec announced, results stored, a failure reported,
 * and an operator's bringing a rig back online.  Each decides under
 * mgr_lock and writes the database after it, in ticket order (rig_pub.c),
 * as the manager thread does (rigmgr.c, whose opening comment has the
 * locking rules).  The rig manager is the only writer of a job's state
 * after it was handed out: api_agent.c only calls these.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/jobs.h"
#include "klabd/klabd.h"
#include "lab/catalog.h"
#include "lab/rig.h"
#include "lab/rigmgr_int.h"
#include "lib/list.h"
#include "lib/proc.h"

enum outcome rigmgr_checkin(struct rig *g, int64_t job, const char *release,
			    char *err, size_t errlen)
{
	struct rig_fx fx;
	char msg[300];

	memset(&fx, 0, sizeof(fx));
	pthread_mutex_lock(&g->mgr->mgr_lock);
	if (g->state == RIG_STARTING ||
	    (g->state == RIG_OFFLINE && g->health_fails >= 2)) {
		/* a boot is under way (a machine that is not power-cycled
		 * counts as up once it ends), or it failed its health check
		 * twice and waits for an operator (a rig offline only
		 * because of autostart = no comes up when its agent checks
		 * in): otherwise it checks in again once it is up */
		fprintf(stderr, "klabd: rig %s: check-in on %s while %s%s\n",
			g->name, release, rig_state_name(g->state),
			g->state == RIG_STARTING ? "" : ": ignored");
		g->early_checkin = g->state == RIG_STARTING;
		goto out_unlock;
	}
	g->last_boot_secs = (double)(proc_now_ms() - g->booted_at) / 1000;
	fprintf(stderr, "klabd: rig %s: check-in on %s (job %lld) after "
		"%.0f s\n", g->name, release, (long long)job,
		g->last_boot_secs);
	if (g->job && job != g->job && g->state == RIG_BOOTING) {
		snprintf(msg, sizeof(msg), "the rig came back on '%s' without "
			 "the job's kernel (reboot)", release);
		rigmgr_fail_kernel(g, msg, &fx);
	} else if (g->job && job == g->job) {
		g->job_checkin = proc_now_ms();
		g->deadline = proc_now_ms() + g->job_timeout * 1000LL;
		rigmgr_set_state(g, RIG_RUNNING);
		fx.job = job;
		fx.job_state = "running";
	} else if (g->job) {
		/* its agent started again and forgot the job in hand */
		snprintf(msg, sizeof(msg), "the agent checked in on '%s' "
			 "without job %lld (it restarted)", release,
			 (long long)g->job);
		g->health_fails = 0;
		rigmgr_fail_infra(g, msg, 0, &fx);
	} else {
		g->health_fails = 0;
		rigmgr_set_state(g, RIG_IDLE);
	}
out_unlock:
	rig_fx_take(g, &fx);
	pthread_mutex_unlock(&g->mgr->mgr_lock);
	rig_fx_publish(&fx);
	return OUT_OK;
}

/* Under the lock, after the database work: the job goes back to the
 * queue when the rig changed meanwhile (a failure, a second poller). */
static void job_unclaim(struct rig *g, int64_t id)
{
	struct db *db;
	char err[256];

	pthread_mutex_unlock(&g->mgr->mgr_lock);
	db = klabd_db_get(g->d, err, sizeof(err));
	if (!db || db_job_set_state(db, id, "queued"))
		fprintf(stderr, "klabd: rig %s: cannot put job %lld back in "
			"the queue\n", g->name, (long long)id);
	klabd_db_put(g->d, db);
	pthread_mutex_lock(&g->mgr->mgr_lock);
}

/*
 * A hand-out that cannot get a database handle says so at most once a
 * minute: every poll of every rig tries one.
 */
static int hand_out_log_due(void)
{
	static long long last;
	long long now = proc_now_ms(), was = __atomic_load_n(&last,
							     __ATOMIC_RELAXED);

	return (!was || now - was >= 60000) &&
	       __atomic_compare_exchange_n(&last, &was, now, 0,
					   __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/*
 * Hand out the next queued job of g: called with the lock held, which it
 * drops around the database work (g->taking keeps a second poller of the
 * rig out meanwhile).  0 when none.  A job goes out once its boot files
 * are ready (else it stays queued and *preparing is set: the catalog's
 * thread prepares them, then kicks the manager), or cannot be made (its
 * hand-out fails it, infra).
 */
static int64_t take_job(struct rig *g, int *preparing)
{
	struct db_job j;
	struct db *db;
	char err[256];
	int64_t id = 0;
	int tries;

	if (g->taking)
		return 0;
	g->taking = 1;
	pthread_mutex_unlock(&g->mgr->mgr_lock);
	db = klabd_db_get(g->d, err, sizeof(err));
	if (!db && hand_out_log_due())
		fprintf(stderr, "klabd: hand-out: %s\n", err);
	/* another rig of a class may take the job first: then the next */
	for (tries = 0; db && !id && !*preparing && tries < 4 &&
	     db_job_next(db, g->name, &j) == DB_OK; tries++) {
		if (catalog_boot_want(g->d, db, j.kernel, err,
				      sizeof(err)) == 1)
			*preparing = 1;
		else if (!db_job_assign(db, j.id, g->name))
			id = j.id;
		db_job_release(&j);
	}
	klabd_db_put(g->d, db);
	pthread_mutex_lock(&g->mgr->mgr_lock);
	g->taking = 0;
	pthread_cond_broadcast(&g->mgr->mgr_cond);
	if (id && (g->state != RIG_IDLE || g->job || !g->mgr->running)) {
		job_unclaim(g, id);
		id = 0;
	}
	if (id) {
		g->job = id;
		g->job_assigned = proc_now_ms();
		g->job_kexec = 0;
		g->job_checkin = 0;
		/* the agent downloads and loads the kernel before it
		 * announces the kexec: the job's time limit covers that */
		g->deadline = proc_now_ms() + g->job_timeout * 1000LL;
		rigmgr_set_state(g, RIG_ASSIGNED);
	}
	return id;
}

/* Queue w to be woken unless the manager stopped; lock held.  1 when w
 * is queued. */
static int waiter_queue(struct rigmgr *m, struct rig_waiter *w)
{
	if (w && !w->queued && m->running) {
		LIST_PUSH(m->waiters, w);
		w->queued = 1;
	}
	return w && w->queued;
}

int rigmgr_next_job(struct rig *g, int64_t *job, int *preparing,
		    struct rig_waiter *w)
{
	struct rigmgr *m = g->mgr;
	int queued;

	*job = 0;
	*preparing = 0;
	pthread_mutex_lock(&m->mgr_lock);
	/* queued before the queue is read: a wake while take_job has the
	 * lock dropped (a job queued, boot files ready) is not lost, the
	 * poll runs again at once (http_poll_suspend) */
	queued = waiter_queue(m, w);
	if ((g->state == RIG_RUNNING || g->state == RIG_ASSIGNED) && g->job)
		*job = g->job;
	else if (g->state == RIG_IDLE)
		*job = take_job(g, preparing);
	if (*job && queued && w->queued) {
		LIST_UNLINK(m->waiters, w);
		w->queued = 0;
	}
	pthread_mutex_unlock(&m->mgr_lock);
	return queued && !*job;
}

int rigmgr_wait(struct klabd *d, struct rig_waiter *w)
{
	struct rigmgr *m = d->rigmgr;
	int queued;

	pthread_mutex_lock(&m->mgr_lock);
	queued = waiter_queue(m, w);
	pthread_mutex_unlock(&m->mgr_lock);
	return queued;
}

void rigmgr_wait_cancel(struct klabd *d, struct rig_waiter *w)
{
	struct rigmgr *m = d->rigmgr;

	pthread_mutex_lock(&m->mgr_lock);
	if (w->queued) {
		LIST_UNLINK(m->waiters, w);
		w->queued = 0;
	}
	pthread_mutex_unlock(&m->mgr_lock);
}

enum outcome rigmgr_kexec(struct rig *g, int64_t job, char *err,
			  size_t errlen)
{
	enum outcome o = OUT_OK;

	pthread_mutex_lock(&g->mgr->mgr_lock);
	if (job != g->job) {
		snprintf(err, errlen, "job %lld is not the job of rig '%s'",
			 (long long)job, g->name);
		o = OUT_FORBIDDEN;
	} else {
		g->banners_allowed++;
		g->kexecs++;
		g->booted_at = proc_now_ms();
		g->job_kexec = g->booted_at;
		g->deadline = g->booted_at + g->boot_timeout * 1000LL;
		rigmgr_set_state(g, RIG_BOOTING);
	}
	pthread_mutex_unlock(&g->mgr->mgr_lock);
	return o;
}

int rigmgr_holds(struct rig *g, int64_t job)
{
	int held;

	pthread_mutex_lock(&g->mgr->mgr_lock);
	held = job && g->job == job && (g->state == RIG_ASSIGNED ||
					g->state == RIG_BOOTING ||
					g->state == RIG_RUNNING);
	pthread_mutex_unlock(&g->mgr->mgr_lock);
	return held;
}

int rigmgr_job_times(struct rig *g, int64_t job, struct rig_job_times *t)
{
	int rc = -1;

	memset(t, 0, sizeof(*t));
	pthread_mutex_lock(&g->mgr->mgr_lock);
	if (job && g->job == job) {
		t->assigned = g->job_assigned;
		t->kexec = g->job_kexec;
		t->checkin = g->job_checkin;
		rc = 0;
	}
	pthread_mutex_unlock(&g->mgr->mgr_lock);
	t->now = proc_now_ms();
	return rc;
}

void rigmgr_job_done(struct rig *g, int64_t job)
{
	struct rig_fx fx;

	memset(&fx, 0, sizeof(fx));
	pthread_mutex_lock(&g->mgr->mgr_lock);
	if (g->job == job) {
		g->job = 0;
		fx.job = job;
		fx.job_state = "done";
		rigmgr_set_state(g, RIG_IDLE);
	}
	rig_fx_take(g, &fx);
	pthread_mutex_unlock(&g->mgr->mgr_lock);
	rig_fx_publish(&fx);
}

enum outcome rigmgr_job_fail(struct rig *g, int64_t job, const char *klass,
			     const char *error, const char *output, char *err,
			     size_t errlen)
{
	enum outcome o = OUT_OK;
	struct rig_fx fx;

	memset(&fx, 0, sizeof(fx));
	pthread_mutex_lock(&g->mgr->mgr_lock);
	if (job != g->job) {
		snprintf(err, errlen, "job %lld is not the job of rig '%s'",
			 (long long)job, g->name);
		o = OUT_FORBIDDEN;
	} else if (!strcmp(klass, "kernel")) {
		rigmgr_fail_kernel(g, error, &fx);
	} else {
		fx.job = job;
		fx.klass = klass;
		snprintf(fx.why, sizeof(fx.why), "%s", error);
		fx.output = output;
		fx.attempts = MAX_INFRA_ATTEMPTS;
		g->job = 0;
		rigmgr_set_state(g, RIG_IDLE);
	}
	rig_fx_take(g, &fx);
	pthread_mutex_unlock(&g->mgr->mgr_lock);
	rig_fx_publish(&fx);
	return o;
}

int rigmgr_online(struct rig *g)
{
	pthread_mutex_lock(&g->mgr->mgr_lock);
	g->health_fails = 0;
	if (g->state == RIG_OFFLINE)
		rigmgr_set_state(g, RIG_COLD);
	pthread_mutex_unlock(&g->mgr->mgr_lock);
	return 0;
}

enum outcome rigmgr_bring_online(struct klabd *d, struct db *db,
				 const struct caller *c, const char *name,
				 const char *via, struct rig **out, char *err,
				 size_t errlen)
{
	struct rig *g = rigmgr_find(d, name);

	*out = g;
	if (!g) {
		snprintf(err, errlen, "unknown rig '%s'", name);
		return OUT_NOTFOUND;
	}
	rigmgr_online(g);
	caller_audit(db, c, "rig online", g->name, "%s", via);
	return OUT_OK;
}
