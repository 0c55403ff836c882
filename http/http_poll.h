/* SPDX-License-Identifier: MIT */
/*
 * http_poll: long polls (GET /api/agent/next?wait=S) parked without a
 * thread.  The handler asks the rig manager for a job; when there is none
 * it queues the poll's waiter with the manager and parks the request, and
 * http.c suspends the connection (libmicrohttpd's suspend/resume).  The
 * connection is resumed when the manager wakes the waiter (jobs queued, a
 * rig's state changed, the manager stops) or when the poll's deadline
 * passes (a timer thread here); the handler then runs again and answers
 * with the job, parks again, or answers 204 at the deadline.
 */
#ifndef KLAB_HTTP_POLL_H
#define KLAB_HTTP_POLL_H

#include <time.h>

#include "http/req.h"
#include "klabd/klabd.h"
#include "lab/rig.h"

struct http_poll {
	struct rig_waiter w;		/* first: the wake callback's key */
	struct klabd *d;
	void *conn;			/* struct MHD_Connection */
	struct timespec deadline;	/* CLOCK_MONOTONIC */
	int started;			/* deadline set by the first call */
	int parked;			/* suspended, or about to be */
	int suspended, woken;		/* under the park's lock */
	struct http_poll *prev, *next;	/* the suspended polls */
};

/* For the handler (api_agent.c). */
/* Milliseconds left of the poll, whose clock starts at wait_s on the
 * first call; 0 past the deadline, when klabd stops or rq has no poll. */
long http_poll_left(struct req *rq, long wait_s);
/* The waiter to hand to rigmgr_next_job(), armed afresh; NULL when rq
 * has no poll (it never parks). */
struct rig_waiter *http_poll_waiter(struct req *rq);
/* Answer nothing now: the connection is suspended and the handler runs
 * again on a wake or at the deadline.  Returns 0. */
int http_poll_park(struct req *rq);
/* The same past the poll's wait (a job whose boot files are being
 * prepared): a poll whose deadline has passed gets ms more.  Returns 0. */
int http_poll_park_more(struct req *rq, long ms);

/* For http.c. */
void http_poll_init(struct http_poll *p, struct klabd *d, void *conn);
/* The timer thread; 0, or -1 with err filled. */
int http_park_start(struct klabd *d, char *err, size_t errlen);
/* Resume every suspended poll and suspend no more (call it before
 * MHD_stop_daemon()), then join the timer.  Accepts a park not started. */
void http_park_stop(struct klabd *d);
/* After http_park_stop() and MHD_stop_daemon(); accepts NULL d->park. */
void http_park_free(struct klabd *d);
/* Suspend the connection of a parked poll (from the access handler). */
void http_poll_suspend(struct http_poll *p);
/* The poll's connection runs again, or ends: off the manager's queue. */
void http_poll_resumed(struct http_poll *p);

#endif
