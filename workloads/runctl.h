/* SPDX-License-Identifier: MIT */
/*
 * runctl: how a workload program stops.  One process-wide stop flag, set by
 * SIGTERM/SIGINT, by a worker that hit an error (the first error wins and is
 * kept as the run's error message) or by the run's timeout.  Worker threads
 * test wl_stopping() between requests; the main thread sleeps in short
 * slices so it notices within 20 ms.
 */
#ifndef KLAB_RUNCTL_H
#define KLAB_RUNCTL_H

#include <signal.h>
#include <stdint.h>

enum wl_stop_reason {
	WL_RUNNING = 0,
	WL_STOP_DONE,		/* measured time is over: normal end */
	WL_STOP_SIGNAL,		/* SIGTERM / SIGINT: results incomplete */
	WL_STOP_ERROR,		/* a worker failed: see wl_error() */
	WL_STOP_TIMEOUT,	/* --timeout expired */
};

extern volatile sig_atomic_t wl_stop;

/* SIGTERM and SIGINT set wl_stop; SIGPIPE is ignored. */
void wl_signals_install(void);
static inline int wl_stopping(void) { return wl_stop != WL_RUNNING; }
/* Set the reason unless one is set already. */
void wl_stop_set(enum wl_stop_reason r);
/* Record the first error (printf-style) and stop everything. */
void wl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The first recorded error, or NULL.  Owned by runctl. */
const char *wl_error(void);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t wl_now_ns(void);
/*
 * Sleep up to secs, returning early when wl_stop is set.  A deadline
 * (wl_now_ns() value, 0 for none) passed first turns into WL_STOP_TIMEOUT
 * with the error "timeout after N s".  Returns 0 when the time ran out, -1
 * when stopped.
 */
int wl_sleep(double secs, uint64_t deadline, double timeout_secs);

/* Process exit status for a run: 0 complete, 1 error, 2 interrupted. */
int wl_exit_code(void);

#endif
