// SPDX-License-Identifier: MIT
/*
 * Long polls parked without a thread (see http_poll.h).  A parked poll is
 * in one of three places: queued with the rig manager (its waiter, under
 * the manager's lock), on the park's list of suspended connections (under
 * the park's lock), or running in a pool thread.  Resuming happens once,
 * under the park's lock, by whichever comes first: the manager's wake,
 * the timer at the deadline, or the stop at shutdown.  Lock order: the
 * manager's lock, then the park's, then libmicrohttpd's own.
 */
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http_poll.h"
#include "lib/list.h"
#include "lib/proc.h"

struct http_park {
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* a poll was suspended, or stop */
	struct http_poll *head;		/* suspended polls */
	int stopping;
	int timer_running;
	pthread_t timer;
};

static void now_mono(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
}

static int ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
		(a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Resume a suspended poll; park lock held. */
static void park_resume(struct http_park *pk, struct http_poll *p)
{
	LIST_UNLINK(pk->head, p);
	p->suspended = 0;
	p->woken = 1;
	MHD_resume_connection(p->conn);
}

/* The manager's wake (its lock held): resume, or mark for the suspend. */
static void poll_wake(struct rig_waiter *w)
{
	struct http_poll *p = (struct http_poll *)w;
	struct http_park *pk = p->d->park;

	pthread_mutex_lock(&pk->lock);
	p->woken = 1;
	if (p->suspended)
		park_resume(pk, p);
	pthread_mutex_unlock(&pk->lock);
}

/* Resume the polls past their deadline; wait for the next deadline. */
static void *park_timer(void *arg)
{
	struct http_park *pk = arg;
	struct http_poll *p, *next;
	struct timespec now, wake;

	pthread_mutex_lock(&pk->lock);
	while (!pk->stopping) {
		now_mono(&now);
		wake = now;
		wake.tv_sec += 60;
		for (p = pk->head; p; p = next) {
			next = p->next;
			if (!ts_before(&now, &p->deadline))
				park_resume(pk, p);
			else if (ts_before(&p->deadline, &wake))
				wake = p->deadline;
		}
		pthread_cond_timedwait(&pk->cond, &pk->lock, &wake);
	}
	pthread_mutex_unlock(&pk->lock);
	return NULL;
}

int http_park_start(struct klabd *d, char *err, size_t errlen)
{
	struct http_park *pk = calloc(1, sizeof(*pk));

	if (!pk) {
		snprintf(err, errlen, "cannot allocate the long-poll park");
		return -1;
	}
	pthread_mutex_init(&pk->lock, NULL);
	proc_cond_init(&pk->cond);
	d->park = pk;
	if (proc_thread_start(&pk->timer, park_timer, pk, "long-poll timer",
			      err, errlen))
		return -1;
	pk->timer_running = 1;
	return 0;
}

void http_park_stop(struct klabd *d)
{
	struct http_park *pk = d->park;

	if (!pk)
		return;
	pthread_mutex_lock(&pk->lock);
	pk->stopping = 1;
	while (pk->head)
		park_resume(pk, pk->head);
	pthread_cond_signal(&pk->cond);
	pthread_mutex_unlock(&pk->lock);
	if (pk->timer_running)
		pthread_join(pk->timer, NULL);
	pk->timer_running = 0;
}

void http_park_free(struct klabd *d)
{
	struct http_park *pk = d->park;

	if (!pk)
		return;
	pthread_cond_destroy(&pk->cond);
	pthread_mutex_destroy(&pk->lock);
	free(pk);
	d->park = NULL;
}

void http_poll_init(struct http_poll *p, struct klabd *d, void *conn)
{
	memset(p, 0, sizeof(*p));
	p->w.wake = poll_wake;
	p->d = d;
	p->conn = conn;
}

long http_poll_left(struct req *rq, long wait_s)
{
	struct http_poll *p = rq->poll;
	struct http_park *pk = rq->d->park;
	struct timespec now;
	long ms;
	int stopping;

	if (!p || !pk)
		return 0;
	now_mono(&now);
	if (!p->started) {
		p->deadline = now;
		p->deadline.tv_sec += wait_s;
		p->started = 1;
	}
	pthread_mutex_lock(&pk->lock);
	stopping = pk->stopping;
	pthread_mutex_unlock(&pk->lock);
	if (stopping || !ts_before(&now, &p->deadline))
		return 0;
	ms = (long)(p->deadline.tv_sec - now.tv_sec) * 1000 +
		(p->deadline.tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? ms : 1;
}

struct rig_waiter *http_poll_waiter(struct req *rq)
{
	struct http_poll *p = rq->poll;
	struct http_park *pk = rq->d->park;

	if (!p || !pk)
		return NULL;
	/* neither queued nor suspended now: nobody else looks at it */
	pthread_mutex_lock(&pk->lock);
	p->woken = 0;
	pthread_mutex_unlock(&pk->lock);
	return &p->w;
}

int http_poll_park(struct req *rq)
{
	rq->poll->parked = 1;
	return 0;
}

int http_poll_park_more(struct req *rq, long ms)
{
	struct http_poll *p = rq->poll;
	struct timespec now;

	/* neither queued with the timer nor suspended: the handler's */
	now_mono(&now);
	if (!ts_before(&now, &p->deadline)) {
		p->deadline = now;
		p->deadline.tv_sec += ms / 1000;
		p->deadline.tv_nsec += (ms % 1000) * 1000000L;
		if (p->deadline.tv_nsec >= 1000000000L) {
			p->deadline.tv_sec++;
			p->deadline.tv_nsec -= 1000000000L;
		}
	}
	return http_poll_park(rq);
}

void http_poll_suspend(struct http_poll *p)
{
	struct http_park *pk = p->d->park;

	pthread_mutex_lock(&pk->lock);
	MHD_suspend_connection(p->conn);
	if (p->woken || pk->stopping) {
		/* the wake came first: run again at once */
		MHD_resume_connection(p->conn);
	} else {
		p->suspended = 1;
		LIST_PUSH(pk->head, p);
		pthread_cond_signal(&pk->cond);
	}
	pthread_mutex_unlock(&pk->lock);
}

void http_poll_resumed(struct http_poll *p)
{
	if (!p->parked)
		return;
	p->parked = 0;
	rigmgr_wait_cancel(p->d, &p->w);
}
