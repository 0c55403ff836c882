// SPDX-License-Identifier: MIT
/*
 * runctl: the stop flag, the first error and the clock of a workload run
 * (see runctl.h).
 */
#include "workloads/runctl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

volatile sig_atomic_t wl_stop = WL_RUNNING;

static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static char err_msg[512];
static int err_set;

static void on_signal(int sig)
{
	if (wl_stop == WL_RUNNING)
		wl_stop = WL_STOP_SIGNAL;
}

void wl_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

void wl_stop_set(enum wl_stop_reason r)
{
	pthread_mutex_lock(&err_lock);
	if (wl_stop == WL_RUNNING)
		wl_stop = r;
	pthread_mutex_unlock(&err_lock);
}

void wl_fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&err_lock);
	if (!err_set) {
		va_start(ap, fmt);
		vsnprintf(err_msg, sizeof(err_msg), fmt, ap);
		va_end(ap);
		err_set = 1;
	}
	if (wl_stop == WL_RUNNING || wl_stop == WL_STOP_DONE)
		wl_stop = WL_STOP_ERROR;
	pthread_mutex_unlock(&err_lock);
}

const char *wl_error(void)
{
	const char *e;

	pthread_mutex_lock(&err_lock);
	e = err_set ? err_msg : NULL;
	pthread_mutex_unlock(&err_lock);
	return e;
}

uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int wl_sleep(double secs, uint64_t deadline, double timeout_secs)
{
	uint64_t end = wl_now_ns() + (uint64_t)(secs * 1e9);
	struct timespec slice = { 0, 20 * 1000 * 1000 };

	while (!wl_stopping()) {
		uint64_t now = wl_now_ns();

		if (deadline && now >= deadline) {
			wl_fail("timeout after %g s", timeout_secs);
			wl_stop = WL_STOP_TIMEOUT;
			return -1;
		}
		if (now >= end)
			return 0;
		if (end - now < 20000000ull)
			slice.tv_nsec = (long)(end - now);
		nanosleep(&slice, NULL);
	}
	return -1;
}

int wl_exit_code(void)
{
	switch (wl_stop) {
	case WL_RUNNING:
	case WL_STOP_DONE:
		return wl_error() ? 1 : 0;
	case WL_STOP_SIGNAL:
		return 2;
	default:
		return 1;
	}
}
