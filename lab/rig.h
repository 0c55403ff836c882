/* SPDX-License-Identifier: MIT */
/*
 * rig: lab machines and the manager that drives them.
 *
 * A rig is declared in klabd's config file ([rig NAME] sections).  Two
 * kinds sit behind one small ops table (like curl's vtls backends):
 * "qemu" rigs that klabd starts and watches itself (rig_qemu.c), and
 * "remote" rigs, real machines whose own init starts klab-agent, with a
 * power-cycle command and a console command (rig_remote.c).
 *
 * The rig manager (rigmgr.c) runs one thread that moves every rig through
 *
 *   offline -> booting -> idle -> assigned -> booting(job) -> running -> idle
 *                 |                               |             |
 *                 +------- recovering <-----------+-------------+
 *
 * with a boot watchdog, console scanning for panics, oopses and silent
 * reboots, and failure classes kept apart (infra / kernel / benchmark).
 * The agent API (api_agent.c) reports what the agent says into it.
 */
#ifndef KLAB_RIG_H
#define KLAB_RIG_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "klabd/outcome.h"
#include "lib/proc.h"

struct klabd;
struct rig;
struct rigmgr;

enum rig_state {
	RIG_OFFLINE = 0,	/* operator must bring it back */
	RIG_COLD,		/* needs a cold boot of its base kernel */
	RIG_BOOTING,		/* waiting for the agent's check-in */
	RIG_IDLE,		/* agent polling for work */
	RIG_ASSIGNED,		/* job handed out, kexec not yet announced */
	RIG_RUNNING,		/* agent checked in on the job's kernel */
	RIG_RECOVERING,		/* cold boot after a failure */
	RIG_STARTING,		/* its worker halts, power-cycles, starts it */
};

/*
 * The machine operations.  They run in the rig's worker thread, never
 * under the manager's lock, and own g->proc, g->console_proc and the
 * files of g->dir while they run.
 */
struct rig_ops {
	const char *kind;
	/* Start (or power-cycle into) the base kernel; console to
	 * g->console.  0, -1 on failure, 1 when not possible yet. */
	int (*cold_boot)(struct rig *g, char *err, size_t errlen);
	/* Stop the machine (QEMU: kill; remote: stop the console). */
	void (*halt)(struct rig *g);
	/* Called under the lock, must not block: 0 while the machine is
	 * (as far as we know) running, -1 when it stopped, 1 when it runs
	 * but its console command ended (the worker restarts it), -2 when
	 * it was stopped from outside (QEMU killed by a signal: not the
	 * kernel's doing). */
	int (*alive)(struct rig *g);
	/* Restart the console command (remote rigs); may be NULL. */
	void (*console_restart)(struct rig *g);
};

#define RIG_LINE_MAX 8192	/* console bytes matched per line */

/* The console scanner: fed the console log as it grows, line by line;
 * a line longer than RIG_LINE_MAX is matched on its first RIG_LINE_MAX
 * bytes and the rest is skipped up to its newline. */
struct rig_scan {
	char line[RIG_LINE_MAX];
	size_t len;
	int overlong;		/* skipping the rest of a long line */
	long off;		/* bytes of the file consumed */
	int banners;		/* "Linux version " seen */
	char why[256];		/* the first bad line, "" if none */
};

struct rig {
	struct klabd *d;
	struct rigmgr *mgr;	/* its manager (rigmgr.c): the lock */
	char *name, *kind, *profile;
	char *token;
	char token_hash[65];	/* hex SHA-256: what is stored, compared */
	char *base_kernel;	/* catalog ident booted cold */
	char *disk_model;	/* QEMU: hdd, ssd or host (qemu-rig.sh) */
	char *pin;		/* QEMU: "VCPUS/OTHERS" host CPU lists or "" */
	char *klass;		/* its class: [rig NAME] class, or NAME */
	char *dir;		/* data_dir/rigs/NAME */
	char console[512];	/* console log of the current boot */
	int cpus, memory_mb, disk_mb, disks;
	int boot_timeout, job_timeout;	/* seconds */
	int power_timeout;		/* seconds for power_cycle */
	char *power_cmd, *console_cmd;	/* remote rigs */
	const struct rig_ops *ops;
	struct proc proc;		/* QEMU */
	struct proc console_proc;	/* the console command */

	/* state machine, under the manager's mgr_lock */
	enum rig_state state;
	int64_t job;		/* job in hand, 0 when none */
	char *job_release;	/* uname -r the job's kernel reports */
	const char *job_db_state;	/* of a job kept over a restart */
	long long deadline;	/* monotonic ms: watchdog of BOOTING etc. */
	int banners_allowed;	/* "Linux version" lines expected so far */
	int health_fails;
	long long booted_at;	/* monotonic ms, for the boot figures */
	/* monotonic ms of the job in hand's hand-out, kexec announced and
	 * check-in (0: not yet): klabd's steps of it (rigmgr_job_times) */
	long long job_assigned, job_kexec, job_checkin;
	double last_boot_secs;
	int cold_boots, kexecs;
	int waiting;		/* cold boot deferred (no base kernel yet) */
	enum rig_state boot_from;	/* state before RIG_STARTING */
	int halt_wanted;	/* the worker must stop the machine */
	int console_dead;	/* the worker must restart the console */
	int taking;		/* a poller is taking a job from the queue */
	int early_checkin;	/* the agent checked in while STARTING */
	char why[300];		/* what failed the boot */

	/* the worker (rigmgr.c): one at a time, started and joined by the
	 * manager thread; its result fields are read once worker_done */
	pthread_t worker;
	int worker_on, worker_done;
	int work_halt, work_boot, work_console;
	int boot_rc;
	char boot_err[512];

	/* console scanning: the manager thread only, without the lock */
	struct rig_scan scan;
	int scan_wanted;	/* set under the lock for the next scan */
	long long scan_ms;	/* when the console was last read */

	/* publishing (rigmgr.c): database writes leave the lock in the
	 * order their decisions were taken, by ticket */
	enum rig_state db_state;
	unsigned long pub_next, pub_serving;
	pthread_mutex_t pub_lock;
	pthread_cond_t pub_cond;
};

extern const struct rig_ops rig_qemu_ops;
extern const struct rig_ops rig_remote_ops;

const char *rig_state_name(enum rig_state s);

/*
 * rigmgr.c, in klabd's start-up order: rigmgr_init reads the [rig NAME]
 * sections and records the rigs (before HTTP serves: request threads
 * use them); rigmgr_start starts the manager thread (after HTTP has
 * bound its port, which QEMU rigs are given).  At shutdown:
 * rigmgr_quiesce wakes every long poll and ends the manager's loop
 * (before HTTP stops), rigmgr_stop stops the catalog's thread (which
 * kicks the manager), joins the manager and the workers and halts the
 * rigs (after HTTP and the builders stopped), rigmgr_free
 * frees them.  Each is safe after a partial start.
 */
int rigmgr_init(struct klabd *d, char *err, size_t errlen);
int rigmgr_start(struct klabd *d, char *err, size_t errlen);
void rigmgr_quiesce(struct klabd *d);
void rigmgr_stop(struct klabd *d);
void rigmgr_free(struct klabd *d);
/* Find a rig by name (the pointer lives as long as klabd). */
struct rig *rigmgr_find(struct klabd *d, const char *name);
/*
 * rig_class.c: rig pools (issue 31).  The rigs a name means, in the
 * configuration's order: the rigs of class name, or, when no rig has
 * that class, the rig of that name (a rig is its own class unless its
 * section says class = CLASS).  Fills up to max pointers into out (NULL
 * when max is 0; they live as long as klabd) and returns how many rigs
 * the name means: 0 for an unknown name.  The same rule as the
 * database's DB_RIGS_NAMED, which the queue and the comparisons apply.
 */
size_t rig_class_resolve(struct klabd *d, const char *name, struct rig **out,
			 size_t max);
/* At start, after rig_conf_init: every class's rigs share one
 * configuration (rig_conf_class_text), and no class is named like a rig
 * outside it.  0, or -1 with err naming the rig and the fields. */
int rig_class_check(struct klabd *d, char *err, size_t errlen);
struct rig *rigmgr_by_token(struct klabd *d, const char *token);
/* How many rigs are configured, and the i-th (NULL past the last), in
 * the configuration's order; both fixed once rigmgr_init returned. */
size_t rigmgr_count(struct klabd *d);
struct rig *rigmgr_rig(struct klabd *d, size_t i);
/* The path of g's console log of the current boot into buf (len bytes),
 * read under the lock: a cold boot starts a new one. */
void rigmgr_console(struct rig *g, char *buf, size_t len);

/*
 * rigmgr_agent.c: events from the agent API (api_agent.c) and an
 * operator's.  Each answers an outcome (klabd/outcome.h), with err set
 * when it is not OUT_OK, and takes the manager lock itself.  A check-in
 * is never refused (OUT_OK): one during a boot is noted for the boot's
 * end, one from a rig an operator must bring back is ignored.
 */
enum outcome rigmgr_checkin(struct rig *g, int64_t job, const char *release,
			    char *err, size_t errlen);
/*
 * A long poll parked without a thread (http_poll.c).  The manager calls
 * wake(w), with its lock held, once after w was queued, when a job may
 * have come for some rig (or the manager stops); wake must not block.
 */
struct rig_waiter {
	struct rig_waiter *prev, *next;	/* the manager's, under its lock */
	int queued;
	void (*wake)(struct rig_waiter *w);
};
/*
 * Is there a job for g now?  Never blocks: *job is the job in hand or a
 * queued one handed out now, 0 when none; then, if w is not NULL and the
 * manager runs, w is queued to be woken (it was queued before the queue
 * was read, so it may have been woken already).  A queued job is handed
 * out only once its boot files are ready (catalog_boot_want): until then
 * *job is 0, *preparing 1, and w is woken when they are.  Returns 1 when
 * w is queued (or was woken meanwhile), 0 otherwise.
 */
int rigmgr_next_job(struct rig *g, int64_t *job, int *preparing,
		    struct rig_waiter *w);
/* Queue w to be woken (a job in hand whose boot files are not ready):
 * 1 when queued, 0 when the manager stopped. */
int rigmgr_wait(struct klabd *d, struct rig_waiter *w);
/* Take w off the queue if it is on it. */
void rigmgr_wait_cancel(struct klabd *d, struct rig_waiter *w);
/* The agent announces the kexec into job's kernel: OUT_FORBIDDEN when
 * job is not the job g holds. */
enum outcome rigmgr_kexec(struct rig *g, int64_t job, char *err,
			  size_t errlen);
/* 1 when job is the job g holds now (handed out and not yet ended:
 * assigned, booting or running), 0 otherwise.  Takes the lock. */
int rigmgr_holds(struct rig *g, int64_t job);
/* When klabd saw the job g holds reach each stage, monotonic ms (0:
 * not reached), and now. */
struct rig_job_times {
	long long assigned, kexec, checkin, now;
};

/* The times of job into t: 0, or -1 when g does not hold job. */
int rigmgr_job_times(struct rig *g, int64_t job, struct rig_job_times *t);
/* Results stored for job: the rig is idle again. */
void rigmgr_job_done(struct rig *g, int64_t job);
/* The agent reports a failure of class "infra"/"kernel"/"benchmark":
 * OUT_FORBIDDEN when job is not the job g holds. */
enum outcome rigmgr_job_fail(struct rig *g, int64_t job, const char *klass,
			     const char *error, const char *output, char *err,
			     size_t errlen);
/* Operator: bring an offline rig back (cold boot). */
int rigmgr_online(struct rig *g);
/*
 * Bring rig name back for c (rigmgr_online) and record it in the audit
 * log ("rig online", via saying how it was asked): OUT_OK with *out the
 * rig, or OUT_NOTFOUND with err naming it.
 */
struct caller;
struct db;
enum outcome rigmgr_bring_online(struct klabd *d, struct db *db,
				 const struct caller *c, const char *name,
				 const char *via, struct rig **out, char *err,
				 size_t errlen);
/* Wake pollers after new jobs were queued. */
void rigmgr_kick(struct klabd *d);

/* Copy the last max bytes of a file into a heap string ("" on error). */
char *rig_read_tail(const char *path, size_t max);

/*
 * rig_pub.c: what a decision writes to the database once the manager's
 * lock is released.  rig_fx_take (under the lock, always last) takes a
 * ticket when there is anything to write, including the rig's state if
 * it changed since it was last written; rig_fx_publish (after the lock,
 * always, before the fx goes out of scope) writes it in ticket order.
 */
struct rig_fx {
	struct rig *g;
	unsigned long ticket;
	int ticketed;
	int rig_state_set;
	enum rig_state rig_state;
	int64_t job;
	const char *job_state;		/* "running", "done", or NULL */
	const char *klass;		/* a failure of job, or NULL */
	char why[512];
	const char *output;		/* the caller's, valid until publish */
	int attempts;
	char console[512];		/* its tail joins a kernel failure */
};

void rig_fx_take(struct rig *g, struct rig_fx *fx);
void rig_fx_publish(struct rig_fx *fx);

/* rig_watch.c: pure parts of the manager, unit-tested. */
void rig_scan_reset(struct rig_scan *s);
/* Feed n console bytes: s->why set on a panic, oops or BUG line. */
void rig_scan_feed(struct rig_scan *s, const char *buf, size_t n);
/* Feed what path gained since s->off (at most max bytes). */
void rig_scan_file(struct rig_scan *s, const char *path, size_t max);
/* The watchdog of g at monotonic time now (ms): why it fires (into msg),
 * or NULL.  Reads state, deadline and the timeouts. */
const char *rig_watchdog(const struct rig *g, long long now, char *msg,
			 size_t len);

#endif
