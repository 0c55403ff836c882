/* SPDX-License-Identifier: MIT */
/*
 * proc: the one way klab spawns a child (like git's run-command.c).
 *
 * Every child is made with posix_spawn in a process group of its own,
 * with stdin on /dev/null, the signal mask cleared and SIGPIPE, SIGTERM
 * and SIGINT at their defaults (klabd blocks or ignores them), so the
 * whole group can be stopped.  Every descriptor klab opens is
 * close-on-exec (pipe2, open and mkostemp with O_CLOEXEC), and the
 * runner closes every descriptor above 2 in the child as well (libraries
 * may forget O_CLOEXEC): a child inherits only stdin, stdout and stderr.
 * Output goes to a file, is captured up to a cap (the rest is read and
 * dropped), or is thrown away.
 *
 * proc_run() waits, and after its timeout (or when *cancel becomes
 * non-zero) sends SIGTERM to the group and, after a grace period, SIGKILL.
 * proc_start() leaves the child running (QEMU, a console command) and
 * proc_stop() takes its group down the same way.
 */
#ifndef KLAB_PROC_H
#define KLAB_PROC_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/strbuf.h"

#define PROC_CAP_DEFAULT (4u << 20)	/* captured bytes per stream */

struct proc_opts {
	const char *out_path;	/* stdout and stderr into this file */
	int out_append;		/* 1: append to it, 0: truncate */
	struct strbuf *out;	/* or: capture stdout (up to cap) */
	struct strbuf *errout;	/* capture stderr (up to cap); else it
				 * goes where stdout goes, or /dev/null */
	size_t cap;		/* 0: PROC_CAP_DEFAULT */
	long timeout_ms;	/* proc_run: <= 0 waits for ever */
	long grace_ms;		/* SIGTERM to SIGKILL; 0: SIGKILL at once */
	const int *cancel;	/* proc_run: stop the child when non-zero */
};

struct proc {
	pid_t pid;		/* group leader; 0 when none */
	int status;		/* wait status once ended */
};

/*
 * Run argv[0] (searched in PATH) to completion.  Returns its exit status
 * (128 + signal when killed by one), or -1 with err set when it could not
 * start, timed out or was cancelled.  *timed_out (may be NULL) tells the
 * last two apart from a failure to start.
 */
int proc_run(char *const argv[], const struct proc_opts *o, int *timed_out,
	     char *err, size_t errlen);
/* Start argv in the background (out_path or /dev/null; no capture).
 * 0, or -1 with err set. */
int proc_start(struct proc *p, char *const argv[], const struct proc_opts *o,
	       char *err, size_t errlen);
/* Start argv in cwd (NULL: ours) with stdout on out_fd and stderr on
 * err_fd (PROC_FD_INHERIT: ours, PROC_FD_NULL: /dev/null).  0, or -1
 * with err "cannot run 'x' in DIR: ..." set. */
#define PROC_FD_NULL (-1)
#define PROC_FD_INHERIT (-2)
int proc_start_fds(struct proc *p, char *const argv[], const char *cwd,
		   int out_fd, int err_fd, char *err, size_t errlen);
/* 1 when the child has ended (reaped, p->pid 0), 0 while it runs. */
int proc_poll(struct proc *p);
/* SIGTERM the group, SIGKILL after grace_ms, reap the leader. */
void proc_stop(struct proc *p, long grace_ms);
/* Monotonic milliseconds, for every deadline and duration in klab. */
long long proc_now_ms(void);
/* Initialise c to time its waits on CLOCK_MONOTONIC (proc_now_ms's). */
void proc_cond_init(pthread_cond_t *c);
/* Start fn(arg) on *th: 0, or -1 with err "cannot start the WHAT". */
int proc_thread_start(pthread_t *th, void *(*fn)(void *), void *arg,
		      const char *what, char *err, size_t errlen);

#endif
