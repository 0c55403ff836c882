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
#include <time.h>

struct klabd;
struct rig;

enum rig_state {
	RIG_OFFLINE = 0,	/* operator must bring it back */
	RIG_COLD,		/* needs a cold boot of its base kernel */
	RIG_BOOTING,		/* waiting for the agent's check-in */
	RIG_IDLE,		/* agent polling for work */
	RIG_ASSIGNED,		/* job handed out, kexec not yet announced */
	RIG_RUNNING,		/* agent checked in on the job's kernel */
	RIG_RECOVERING,		/* cold boot after a failure */
};

struct rig_ops {
	const char *kind;
	/* Start (or power-cycle into) the base kernel; console to
	 * rig->console.  0, -1 on failure, 1 when not possible yet. */
	int (*cold_boot)(struct rig *g, char *err, size_t errlen);
	/* Stop the machine (QEMU: kill; remote: nothing). */
	void (*halt)(struct rig *g);
	/* 0 while the machine is (as far as we know) running. */
	int (*alive)(struct rig *g);
};

struct rig {
	struct klabd *d;
	char *name, *kind, *profile;
	char *token;
	char token_hash[65];	/* hex SHA-256: what is stored, compared */
	char *base_kernel;	/* catalog ident booted cold */
	char *dir;		/* data_dir/rigs/NAME */
	char console[512];	/* console log of the current boot */
	int cpus, memory_mb, disk_mb, disks;
	int boot_timeout, job_timeout;	/* seconds */
	char *power_cmd, *console_cmd;	/* remote rigs */
	const struct rig_ops *ops;
	pid_t pid;		/* QEMU, or the console command */

	/* state machine, under mgr lock */
	enum rig_state state;
	int64_t job;		/* job in hand, 0 when none */
	char *job_release;	/* uname -r the job's kernel reports */
	time_t deadline;	/* watchdog for BOOTING / RUNNING */
	int banners_allowed;	/* "Linux version" lines expected so far */
	long console_off;	/* how far the console has been scanned */
	int banners_seen;
	int health_fails;
	time_t booted_at;	/* for the kexec-vs-cold-boot figures */
	double last_boot_secs;
	int cold_boots, kexecs;
	int waiting;		/* cold boot deferred (no base kernel yet) */
	char why[256];		/* the console line that failed the boot */
};

extern const struct rig_ops rig_qemu_ops;
extern const struct rig_ops rig_remote_ops;

const char *rig_state_name(enum rig_state s);

/*
 * rigmgr.c: start/stop the manager thread over the configured rigs.  Stop
 * halts the rigs and wakes every long poll; free the rigs only after the
 * HTTP server has stopped (request threads use them).
 */
int rigmgr_start(struct klabd *d, char *err, size_t errlen);
void rigmgr_stop(struct klabd *d);
void rigmgr_free(struct klabd *d);
/* Find a rig by name (the pointer lives as long as klabd). */
struct rig *rigmgr_find(struct klabd *d, const char *name);
struct rig *rigmgr_by_token(struct klabd *d, const char *token);

/*
 * Events from the agent API.  Each returns 0, or an HTTP status with err
 * set.  They take the manager lock themselves.
 */
int rigmgr_checkin(struct rig *g, int64_t job, const char *release,
		   char *err, size_t errlen);
/*
 * A long poll parked without a thread (http_poll.c).  The manager calls
 * wake(w), with its lock held, once after w was queued, when a job may
 * have come for some rig (or the manager stops); wake must not block.
 */
struct rig_waiter {
	struct rig_waiter *prev, *next;	/* d->waiters, under the lock */
	int queued;
	void (*wake)(struct rig_waiter *w);
};
/*
 * Is there a job for g now?  Never blocks: *job is the job in hand or a
 * queued one handed out now, 0 when none; then, if w is not NULL and the
 * manager runs, w is queued to be woken.  Returns 1 when w is queued, 0
 * otherwise.
 */
int rigmgr_next_job(struct rig *g, int64_t *job, struct rig_waiter *w);
/* Take w off the queue if it is on it. */
void rigmgr_wait_cancel(struct klabd *d, struct rig_waiter *w);
int rigmgr_kexec(struct rig *g, int64_t job, char *err, size_t errlen);
/* 1 when job is the job g holds now (handed out and not yet ended:
 * assigned, booting or running), 0 otherwise.  Takes the lock. */
int rigmgr_holds(struct rig *g, int64_t job);
/* Results stored for job: the rig is idle again. */
void rigmgr_job_done(struct rig *g, int64_t job);
/* The agent reports a failure of class "infra"/"kernel"/"benchmark". */
int rigmgr_job_fail(struct rig *g, int64_t job, const char *klass,
		    const char *error, const char *output, char *err,
		    size_t errlen);
/* Operator: bring an offline rig back (cold boot). */
int rigmgr_online(struct rig *g);
/* Wake pollers after new jobs were queued. */
void rigmgr_kick(struct klabd *d);

/* Copy the last max bytes of a file into a heap string ("" on error). */
char *rig_read_tail(const char *path, size_t max);

#endif
