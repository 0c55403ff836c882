// SPDX-License-Identifier: MIT
/*
 * driver: the loop of every driver thread of klabd (see driver.h).  The
 * sleep is a wait on a CLOCK_MONOTONIC condition variable, so a clock
 * step neither stalls nor hurries it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "flow/driver.h"
#include "lib/proc.h"

struct driver {
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* on CLOCK_MONOTONIC */
	int running, kicked;		/* under lock */
	long (*pass)(void *arg);	/* the seconds until the next pass */
	void *arg;
	struct driver *next;		/* on the stopped list */
};

/*
 * Stopped drivers are joined but kept until driver_release_all(): one
 * driver's pass may kick another (a comparison kicks the submission that
 * waits on it), and during shutdown that kick may come after the other
 * driver was stopped.  A kick of a stopped driver is then harmless.
 */
static pthread_mutex_t stopped_lock = PTHREAD_MUTEX_INITIALIZER;
static struct driver *stopped;

static void *driver_main(void *p)
{
	struct driver *dr = p;
	struct timespec ts;
	long wait;

	pthread_mutex_lock(&dr->lock);
	while (dr->running) {
		dr->kicked = 0;
		pthread_mutex_unlock(&dr->lock);
		wait = dr->pass(dr->arg);
		pthread_mutex_lock(&dr->lock);
		if (!dr->running || dr->kicked || wait <= 0)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += wait;
		pthread_cond_timedwait(&dr->cond, &dr->lock, &ts);
	}
	pthread_mutex_unlock(&dr->lock);
	return NULL;
}

static void driver_free(struct driver *dr)
{
	pthread_cond_destroy(&dr->cond);
	pthread_mutex_destroy(&dr->lock);
	free(dr);
}

/* Set *flag (running or kicked) to v and wake the thread. */
static void driver_wake(struct driver *dr, int *flag, int v)
{
	pthread_mutex_lock(&dr->lock);
	*flag = v;
	pthread_cond_broadcast(&dr->cond);
	pthread_mutex_unlock(&dr->lock);
}

int driver_start(struct driver **dp, const char *what,
		 long (*pass)(void *arg), void *arg, char *err,
		 size_t errlen)
{
	struct driver *dr = calloc(1, sizeof(*dr));

	if (!dr)
		abort();
	pthread_mutex_init(&dr->lock, NULL);
	proc_cond_init(&dr->cond);
	dr->running = 1;
	dr->pass = pass;
	dr->arg = arg;
	*dp = dr;
	if (proc_thread_start(&dr->th, driver_main, dr, what, err, errlen)) {
		*dp = NULL;
		driver_free(dr);
		return -1;
	}
	return 0;
}

void driver_stop(struct driver **dp)
{
	struct driver *dr = *dp;

	if (!dr)
		return;
	pthread_mutex_lock(&dr->lock);
	if (!dr->running) {		/* stopped already */
		pthread_mutex_unlock(&dr->lock);
		return;
	}
	dr->running = 0;
	pthread_cond_broadcast(&dr->cond);
	pthread_mutex_unlock(&dr->lock);
	pthread_join(dr->th, NULL);
	*dp = NULL;
	pthread_mutex_lock(&stopped_lock);
	dr->next = stopped;
	stopped = dr;
	pthread_mutex_unlock(&stopped_lock);
}

void driver_release_all(void)
{
	struct driver *dr;

	pthread_mutex_lock(&stopped_lock);
	for (dr = stopped; dr; dr = stopped) {
		stopped = dr->next;
		driver_free(dr);
	}
	pthread_mutex_unlock(&stopped_lock);
}

void driver_kick(struct driver *dr)
{
	if (dr)
		driver_wake(dr, &dr->kicked, 1);
}
