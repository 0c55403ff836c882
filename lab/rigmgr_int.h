/* SPDX-License-Identifier: MIT */
/*
 * rigmgr_int: what the rig manager's two files share and nobody else
 * sees: its state, and the transitions both take under mgr_lock.
 * rigmgr.c is the manager thread (boots, watchdogs, consoles) and the
 * lifetime of the rigs; rigmgr_agent.c what agents and operators ask of
 * it (check-ins, hand-outs, kexecs, results, failures, bring online).
 * The locking rules are rigmgr.c's opening comment.
 */
#ifndef KLAB_RIGMGR_INT_H
#define KLAB_RIGMGR_INT_H

#include <pthread.h>
#include <stddef.h>

#include "lab/rig.h"

#define MAX_INFRA_ATTEMPTS 3	/* an infra failure's requeues */

/* The manager's state: d->rigmgr, and each rig's g->mgr. */
struct rigmgr {
	struct rig **rigs;		/* every configured rig, for good */
	size_t nrigs;
	pthread_t thread;
	int running;		/* 0: long polls end, the manager stops */
	int started;		/* the thread runs, to be joined */
	pthread_mutex_t mgr_lock;
	pthread_cond_t mgr_cond;	/* new jobs / state changes */
	struct rig_waiter *waiters;	/* parked long polls, woken with it */
};

/* Under the lock: g's state becomes s (logged); the manager and the
 * parked polls are woken. */
void rigmgr_set_state(struct rig *g, enum rig_state s);
/* Under the lock: a kernel failure of the job in hand, recorded in fx;
 * the rig is cold-booted after. */
void rigmgr_fail_kernel(struct rig *g, const char *why, struct rig_fx *fx);
/* Under the lock: the job in hand was lost to the infrastructure (fx),
 * back to the queue; the rig boots cold when cold, else stays idle. */
void rigmgr_fail_infra(struct rig *g, const char *why, int cold,
		       struct rig_fx *fx);

#endif
