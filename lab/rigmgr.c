// SPDX-License-Identifier: MIT
/*
 * The rig manager: one thread that boots rigs, watches their consoles and
 * watchdogs, and turns what agents report into job states (that side,
 * what agents and operators ask of it, is rigmgr_agent.c).  See rig.h
 * for the state machine.
 *
 * Locking rules:
 *  - mgr_lock (struct rigmgr, d->rigmgr, each rig's g->mgr) guards every
 *    rig's state machine fields (rig.h: "under the manager's mgr_lock")
 *    and is held only to decide: never across a fork, an exec, a wait for
 *    a child, a network call, an image build, a file hash or a database
 *    write.  mgr_cond runs on CLOCK_MONOTONIC like every deadline here
 *    (proc_now_ms()).
 *  - Agents' long polls are parked connections (http_poll.c) queued on
 *    the manager's waiters and woken wherever mgr_cond is broadcast.
 *  - Slow machine work (halt, power-cycle, starting QEMU, restarting a
 *    console command) is done by the rig's worker thread while the rig
 *    is RIG_STARTING; the manager thread starts it, and joins it when it
 *    reports worker_done, then publishes its result under the lock.  One
 *    worker per rig at a time; while it runs it owns g->proc,
 *    g->console_proc and g->console's file.
 *  - Console scanning (file reads) is done by the manager thread without
 *    the lock; g->scan belongs to that thread alone.
 *  - Database writes that follow a decision (rig state, job running /
 *    done / failed) are collected in a struct rig_fx under the lock with
 *    a ticket, and written after unlocking in ticket order per rig
 *    (rig_pub.c), so the database sees the decisions in the order they
 *    were taken.  The rig manager is the only writer of a job's state
 *    after it was handed out: api_agent.c only calls rigmgr_*.
 *  - No other lock is taken while mgr_lock is held (a rig's pub_lock
 *    and the database pool's are taken without it), but for waking the
 *    parked polls: mgr_lock, then http_poll's park lock, then
 *    libmicrohttpd's resume (a flag and a wake-up write, never blocking).
 *    take_job (the long poll's hand-out) drops mgr_lock around its
 *    database work and its look at the catalog's boot files (image_lock,
 *    a table read: the files are prepared by the catalog's thread).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/jobs.h"
#include "klabd/klabd.h"
#include "lib/alloc.h"
#include "lib/list.h"
#include "lib/sha256.h"
#include "lab/catalog.h"
#include "lab/rig.h"
#include "lab/rig_conf.h"
#include "lab/rigmgr_int.h"

#define CONSOLE_SCAN_MAX (1 << 20)	/* console bytes scanned per tick */
#define SCAN_PERIOD_MS 500		/* ms between two reads of a console */
#define WAIT_RETRY_MS 2000		/* base kernel not fetched yet */

const char *rig_state_name(enum rig_state s)
{
	static const char *const names[] = {
		"offline", "cold", "booting", "idle", "assigned", "running",
		"recovering", "starting",
	};

	return s <= RIG_STARTING ? names[s] : "unknown";
}

/* A job may have come: wake every parked long poll; lock held. */
static void waiters_wake(struct rigmgr *m)
{
	struct rig_waiter *w;

	while (m->waiters) {
		w = m->waiters;
		LIST_UNLINK(m->waiters, w);
		w->queued = 0;
		w->wake(w);
	}
}

void rigmgr_set_state(struct rig *g, enum rig_state s)
{
	if (g->state == s)
		return;
	fprintf(stderr, "klabd: rig %s: %s -> %s%s\n", g->name,
		rig_state_name(g->state), rig_state_name(s),
		g->job ? " (job in hand)" : "");
	g->state = s;
	pthread_cond_broadcast(&g->mgr->mgr_cond);
	waiters_wake(g->mgr);
}

/* A kernel failure of the job in hand; the rig is cold-booted after. */
void rigmgr_fail_kernel(struct rig *g, const char *why, struct rig_fx *fx)
{
	fprintf(stderr, "klabd: rig %s: job %lld: kernel failure: %s\n",
		g->name, (long long)g->job, why);
	if (g->job) {
		fx->job = g->job;
		fx->klass = "kernel";
		snprintf(fx->why, sizeof(fx->why), "%s", why);
		snprintf(fx->console, sizeof(fx->console), "%s", g->console);
		fx->attempts = 1;
	}
	g->job = 0;
	g->halt_wanted = 1;
	rigmgr_set_state(g, RIG_RECOVERING);
}

/* The job was lost to the infrastructure: the machine was taken away
 * under it (QEMU killed: cold, the rig boots cold) or its agent started
 * again without it (the rig is idle, its agent polls).  The job goes
 * back to the queue (infra, up to MAX_INFRA_ATTEMPTS). */
void rigmgr_fail_infra(struct rig *g, const char *why, int cold,
		       struct rig_fx *fx)
{
	fprintf(stderr, "klabd: rig %s: job %lld: infrastructure failure: "
		"%s\n", g->name, (long long)g->job, why);
	fx->job = g->job;
	fx->klass = "infra";
	snprintf(fx->why, sizeof(fx->why), "%s", why);
	snprintf(fx->console, sizeof(fx->console), "%s", g->console);
	fx->attempts = MAX_INFRA_ATTEMPTS;
	g->job = 0;
	g->halt_wanted = cold;
	rigmgr_set_state(g, cold ? RIG_RECOVERING : RIG_IDLE);
}

/* The rig itself failed (its base kernel did not come up, its power
 * command failed): infrastructure, never the kernel of a job. */
static void fail_health(struct rig *g, const char *why)
{
	g->health_fails++;
	snprintf(g->why, sizeof(g->why), "%s", why);
	fprintf(stderr, "klabd: rig %s: health check %d failed (infra): %s\n",
		g->name, g->health_fails, why);
	g->halt_wanted = 1;
	rigmgr_set_state(g, g->health_fails >= 2 ? RIG_OFFLINE :
			 RIG_RECOVERING);
}

/* The worker: machine operations, without the lock. */
static void *rig_worker(void *arg)
{
	struct rig *g = arg;

	if (g->work_halt)
		g->ops->halt(g);
	if (g->work_console && g->ops->console_restart)
		g->ops->console_restart(g);
	if (g->work_boot)
		g->boot_rc = g->ops->cold_boot(g, g->boot_err,
					       sizeof(g->boot_err));
	pthread_mutex_lock(&g->mgr->mgr_lock);
	g->worker_done = 1;
	pthread_cond_broadcast(&g->mgr->mgr_cond);
	pthread_mutex_unlock(&g->mgr->mgr_lock);
	return NULL;
}

/* Under the lock: hand the machine to a worker (state STARTING for a
 * boot; other states keep theirs). */
static void worker_start(struct rig *g, int halt, int boot, int console)
{
	g->work_halt = halt;
	g->work_boot = boot;
	g->work_console = console;
	g->boot_rc = 0;
	g->boot_err[0] = '\0';
	g->worker_done = 0;
	if (halt)
		g->halt_wanted = 0;
	if (console)
		g->console_dead = 0;
	if (pthread_create(&g->worker, NULL, rig_worker, g)) {
		fprintf(stderr, "klabd: rig %s: cannot start its worker\n",
			g->name);
		return;
	}
	g->worker_on = 1;
}

/* Under the lock: start a cold boot (the worker halts, then boots). */
static void boot_start(struct rig *g, long long now)
{
	if (g->waiting && now < g->deadline)
		return;
	snprintf(g->console, sizeof(g->console), "%s/console-%lld-%d.log",
		 g->dir, (long long)time(NULL), g->cold_boots);
	rig_scan_reset(&g->scan);
	g->banners_allowed = 1;
	g->booted_at = now;
	g->why[0] = '\0';
	g->boot_from = g->state;
	g->early_checkin = 0;
	rigmgr_set_state(g, RIG_STARTING);
	worker_start(g, 1, 1, 0);
	if (!g->worker_on)
		fail_health(g, "cannot start the rig's worker thread");
}

/* Under the lock, the worker joined: publish the boot's result. */
static void boot_done(struct rig *g, long long now)
{
	if (g->boot_rc > 0) {
		/* not ready to boot yet (base kernel not fetched): stay */
		if (!g->waiting)
			fprintf(stderr, "klabd: rig %s: %s\n", g->name,
				g->boot_err);
		g->waiting = 1;
		g->deadline = now + WAIT_RETRY_MS;
		rigmgr_set_state(g, g->boot_from);
		return;
	}
	g->waiting = 0;
	g->cold_boots++;
	if (g->boot_rc) {
		fprintf(stderr, "klabd: rig %s: cannot boot: %s\n", g->name,
			g->boot_err);
		fail_health(g, g->boot_err);
		return;
	}
	g->deadline = now + g->boot_timeout * 1000LL;
	if (g->early_checkin && !*g->power_cmd &&
	    g->ops == &rig_remote_ops) {
		/* nothing rebooted it: its agent already checked in */
		g->health_fails = 0;
		rigmgr_set_state(g, RIG_IDLE);
		return;
	}
	rigmgr_set_state(g, RIG_BOOTING);
}

/* Under the lock: what the last scan, the machine and the watchdog say. */
static void rig_judge(struct rig *g, long long now, struct rig_fx *fx)
{
	const char *why = NULL;
	char msg[256];
	int alive;

	if (g->scan.why[0]) {
		snprintf(msg, sizeof(msg), "%s", g->scan.why);
		g->scan.why[0] = '\0';
		why = msg;
	} else if (g->scan.banners > g->banners_allowed) {
		why = "a second 'Linux version' banner (silent reboot)";
	}
	alive = g->ops->alive(g);
	if (!why && alive == -2) {
		why = "the machine was killed from outside (signal)";
		if (g->job)
			rigmgr_fail_infra(g, why, 1, fx);
		else
			fail_health(g, why);
		return;
	}
	if (!why && alive < 0)
		why = "the machine stopped (reboot or power-off)";
	if (!why)
		why = rig_watchdog(g, now, msg, sizeof(msg));
	if (!why) {
		if (alive > 0)
			g->console_dead = 1;
		return;
	}
	if (g->job)
		rigmgr_fail_kernel(g, why, fx);
	else
		fail_health(g, why);
}

/* One tick of one rig's state machine, under the lock. */
static void rig_tick(struct rig *g, long long now, struct rig_fx *fx)
{
	g->scan_wanted = 0;
	if (g->worker_on) {
		if (!g->worker_done)
			return;
		pthread_join(g->worker, NULL);	/* it has finished */
		g->worker_on = 0;
		if (g->work_boot)
			boot_done(g, now);
	}
	switch (g->state) {
	case RIG_COLD:
	case RIG_RECOVERING:
		boot_start(g, now);
		return;
	case RIG_BOOTING:
	case RIG_ASSIGNED:
	case RIG_RUNNING:
	case RIG_IDLE:
		rig_judge(g, now, fx);
		break;
	default:
		break;
	}
	if (g->halt_wanted || g->console_dead)
		worker_start(g, g->halt_wanted, 0, g->console_dead &&
			     g->state != RIG_OFFLINE);
	g->scan_wanted = g->state == RIG_BOOTING || g->state == RIG_IDLE ||
		g->state == RIG_ASSIGNED || g->state == RIG_RUNNING;
}

static void *mgr_main(void *arg)
{
	struct rigmgr *m = arg;
	struct rig_fx *fx = calloc(m->nrigs ? m->nrigs : 1, sizeof(*fx));
	struct timespec ts;
	long long now;
	size_t i;

	if (!fx)
		abort();
	pthread_mutex_lock(&m->mgr_lock);
	while (m->running) {
		for (i = 0; i < m->nrigs; i++) {
			memset(&fx[i], 0, sizeof(fx[i]));
			rig_tick(m->rigs[i], proc_now_ms(), &fx[i]);
			rig_fx_take(m->rigs[i], &fx[i]);
		}
		pthread_mutex_unlock(&m->mgr_lock);
		now = proc_now_ms();
		for (i = 0; i < m->nrigs; i++) {
			struct rig *g = m->rigs[i];

			rig_fx_publish(&fx[i]);
			/* a pass runs on every kick: the consoles are read
			 * at most every SCAN_PERIOD_MS, not on each of them
			 * (1,000 rigs and tens of kicks a second were tens
			 * of thousands of opens a second) */
			if (g->scan_wanted && now - g->scan_ms >=
			    SCAN_PERIOD_MS) {
				g->scan_ms = now;
				rig_scan_file(&g->scan, g->console,
					      CONSOLE_SCAN_MAX);
			}
		}
		pthread_mutex_lock(&m->mgr_lock);
		if (!m->running)
			break;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&m->mgr_cond, &m->mgr_lock, &ts);
	}
	pthread_mutex_unlock(&m->mgr_lock);
	free(fx);
	return NULL;
}

void rigmgr_kick(struct klabd *d)
{
	struct rigmgr *m = d->rigmgr;

	if (!m)
		return;
	pthread_mutex_lock(&m->mgr_lock);
	pthread_cond_broadcast(&m->mgr_cond);
	waiters_wake(m);
	pthread_mutex_unlock(&m->mgr_lock);
}

size_t rigmgr_count(struct klabd *d)
{
	return d->rigmgr ? d->rigmgr->nrigs : 0;
}

struct rig *rigmgr_rig(struct klabd *d, size_t i)
{
	return i < rigmgr_count(d) ? d->rigmgr->rigs[i] : NULL;
}

void rigmgr_console(struct rig *g, char *buf, size_t len)
{
	pthread_mutex_lock(&g->mgr->mgr_lock);
	snprintf(buf, len, "%s", g->console);
	pthread_mutex_unlock(&g->mgr->mgr_lock);
}

struct rig *rigmgr_find(struct klabd *d, const char *name)
{
	struct rig *g;
	size_t i;

	for (i = 0; name && i < rigmgr_count(d); i++) {
		g = d->rigmgr->rigs[i];
		if (!strcmp(g->name, name))
			return g;
	}
	return NULL;
}

/* Every rig's hash is compared, in constant time (secret_equal). */
struct rig *rigmgr_by_token(struct klabd *d, const char *token)
{
	struct rig *found = NULL, *g;
	char h[65];
	size_t i;

	if (!token || !*token)
		return NULL;
	secret_hash_hex(token, h);
	for (i = 0; i < rigmgr_count(d); i++) {
		g = d->rigmgr->rigs[i];
		if (secret_equal(g->token_hash, h) && !found)
			found = g;
	}
	return found;
}

/* The manager's state, its lock and its condition; mgr_cond and every
 * deadline run on the monotonic clock. */
static struct rigmgr *mgr_create(void)
{
	struct rigmgr *m = xcalloc(1, sizeof(*m));

	pthread_mutex_init(&m->mgr_lock, NULL);
	proc_cond_init(&m->mgr_cond);
	return m;
}

/*
 * A remote machine keeps running its job while klabd restarts: a job
 * the database shows handed out (assigned) or running on a remote rig
 * stays that rig's job (its kexec and results are accepted, its watchdog
 * starts again).  Everything else that was under way goes back to the
 * queue: those rigs boot cold.
 */
static void rig_adopt(struct rig *g, struct db *db)
{
	static const char *const states[] = { "running", "assigned" };
	struct db_job *v = NULL;
	size_t n = 0, i;

	if (g->ops != &rig_remote_ops)
		return;
	for (i = 0; i < 2 && !g->job; i++) {
		if (!db_job_list(db, g->name, states[i], 1, &v, &n) && n) {
			g->job = v[0].id;
			g->state = i ? RIG_ASSIGNED : RIG_RUNNING;
		}
		db_jobs_free(v, n);
		v = NULL;
		n = 0;
	}
	if (!g->job)
		return;
	g->deadline = proc_now_ms() + g->job_timeout * 1000LL;
	g->job_db_state = g->state == RIG_RUNNING ? "running" : "assigned";
	fprintf(stderr, "klabd: rig %s: job %lld still %s on the machine: "
		"kept\n", g->name, (long long)g->job, g->job_db_state);
}

int rigmgr_init(struct klabd *d, char *err, size_t errlen)
{
	struct rigmgr *m = mgr_create();
	struct db *db;
	size_t i;
	int n;

	d->rigmgr = m;
	db = klabd_db_get(d, err, errlen);
	if (!db)
		return -1;
	for (i = 0; i < d->cfg.nsec; i++) {
		const char *sec = d->cfg.sec[i].section;
		struct rig *g;

		if (strncmp(sec, "rig ", 4) || rigmgr_find(d, sec + 4))
			continue;
		err[0] = '\0';
		g = rig_from_config(d, sec, err, errlen);
		g->mgr = m;
		if (!err[0])
			rig_adopt(g, db);
		if (err[0] || rig_register(d, db, g, err, errlen)) {
			rig_destroy(g);
			klabd_db_put(d, db);
			return -1;
		}
		g->db_state = g->state;
		m->rigs = xrealloc(m->rigs, (m->nrigs + 1) * sizeof(*m->rigs));
		m->rigs[m->nrigs++] = g;
	}
	n = db_job_requeue_stale(db);
	for (i = 0; i < m->nrigs; i++)
		if (m->rigs[i]->job &&
		    !db_job_set_state(db, m->rigs[i]->job,
				      m->rigs[i]->job_db_state))
			n--;
	if (n > 0)
		fprintf(stderr, "klabd: %d unfinished jobs back in the queue\n",
			n);
	klabd_db_put(d, db);
	/* agents may poll as soon as HTTP serves */
	m->running = 1;
	return 0;
}

int rigmgr_start(struct klabd *d, char *err, size_t errlen)
{
	struct rigmgr *m = d->rigmgr;

	if (proc_thread_start(&m->thread, mgr_main, m, "rig manager", err,
			      errlen))
		return -1;
	m->started = 1;
	return 0;
}

void rigmgr_quiesce(struct klabd *d)
{
	struct rigmgr *m = d->rigmgr;

	if (!m)
		return;
	pthread_mutex_lock(&m->mgr_lock);
	m->running = 0;
	pthread_cond_broadcast(&m->mgr_cond);
	waiters_wake(m);
	pthread_mutex_unlock(&m->mgr_lock);
}

void rigmgr_stop(struct klabd *d)
{
	struct rigmgr *m = d->rigmgr;
	size_t i;

	rigmgr_quiesce(d);
	/* the catalog's thread kicks the manager, and a worker's cold boot
	 * may wait for it: it stops first (its waiters return) */
	catalog_stop(d);
	if (!m)
		return;
	if (m->started)
		pthread_join(m->thread, NULL);
	m->started = 0;
	/* no other thread touches the rigs now */
	for (i = 0; i < m->nrigs; i++) {
		struct rig *g = m->rigs[i];

		if (g->worker_on)
			pthread_join(g->worker, NULL);
		g->worker_on = 0;
		g->ops->halt(g);
	}
}

void rigmgr_free(struct klabd *d)
{
	struct rigmgr *m = d->rigmgr;
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nrigs; i++)
		rig_destroy(m->rigs[i]);
	free(m->rigs);
	pthread_cond_destroy(&m->mgr_cond);
	pthread_mutex_destroy(&m->mgr_lock);
	free(m);
	d->rigmgr = NULL;
}
