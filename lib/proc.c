// SPDX-License-Identifier: MIT
/*
 * The process runner: posix_spawn into a new process group, close-on-exec
 * descriptors, capture with a cap, timeouts that stop the whole group.
 * See proc.h.
 */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROC_TICK_MS 50
#define PROC_DRAIN_MS 1000	/* reading pipes after the leader ended */

extern char **environ;

long long proc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void proc_cond_init(pthread_cond_t *c)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(c, &ca);
	pthread_condattr_destroy(&ca);
}

int proc_thread_start(pthread_t *th, void *(*fn)(void *), void *arg,
		      const char *what, char *err, size_t errlen)
{
	if (!pthread_create(th, NULL, fn, arg))
		return 0;
	snprintf(err, errlen, "cannot start the %s", what);
	return -1;
}

/* posix_spawn argv in cwd (NULL: ours) with fd 0 on /dev/null and fds
 * 1 and 2 on outfd/errfd (PROC_FD_NULL: /dev/null, PROC_FD_INHERIT:
 * ours), nothing else open, in its own group with default signals. */
static int proc_spawn(pid_t *pid, char *const argv[], const char *cwd,
		      int outfd, int errfd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, def;
	int rc, i, fds[2] = { outfd, errfd };

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	for (i = 0; i < 2; i++) {
		if (fds[i] >= 0)
			posix_spawn_file_actions_adddup2(&fa, fds[i], i + 1);
		else if (fds[i] == PROC_FD_NULL)
			posix_spawn_file_actions_addopen(&fa, i + 1,
							 "/dev/null",
							 O_WRONLY, 0);
	}
	/* and nothing else, whoever opened it without O_CLOEXEC */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGHUP);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
				 POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawnp(pid, argv[0], &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

static int proc_open_out(const struct proc_opts *o)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC;

	flags |= o->out_append ? O_APPEND : O_TRUNC;
	return open(o->out_path, flags, 0644);
}

int proc_start_fds(struct proc *p, char *const argv[], const char *cwd,
		   int out_fd, int err_fd, char *err, size_t errlen)
{
	int rc;

	p->pid = 0;
	p->status = 0;
	rc = proc_spawn(&p->pid, argv, cwd, out_fd, err_fd);
	if (rc) {
		p->pid = 0;
		snprintf(err, errlen, "cannot run '%s'%s%s: %s", argv[0],
			 cwd ? " in " : "", cwd ? cwd : "", strerror(rc));
		return -1;
	}
	return 0;
}

int proc_start(struct proc *p, char *const argv[], const struct proc_opts *o,
	       char *err, size_t errlen)
{
	int fd = PROC_FD_NULL, rc;

	if (o && o->out_path) {
		fd = proc_open_out(o);
		if (fd < 0) {
			snprintf(err, errlen, "cannot open '%s': %s",
				 o->out_path, strerror(errno));
			return -1;
		}
	}
	rc = proc_start_fds(p, argv, NULL, fd, fd, err, errlen);
	if (fd >= 0)
		close(fd);
	return rc;
}

int proc_poll(struct proc *p)
{
	pid_t w;

	if (p->pid <= 0)
		return 1;
	w = waitpid(p->pid, &p->status, WNOHANG);
	if (w == p->pid || (w < 0 && errno == ECHILD)) {
		p->pid = 0;
		return 1;
	}
	return 0;
}

void proc_stop(struct proc *p, long grace_ms)
{
	long long end = proc_now_ms() + grace_ms;
	struct timespec tick = { 0, PROC_TICK_MS * 1000000L };
	pid_t pgid = p->pid;

	if (pgid <= 0)
		return;
	kill(-pgid, grace_ms > 0 ? SIGTERM : SIGKILL);
	while (grace_ms > 0 && !proc_poll(p) && proc_now_ms() < end)
		nanosleep(&tick, NULL);
	if (p->pid > 0) {
		kill(-pgid, SIGKILL);
		while (waitpid(pgid, &p->status, 0) < 0 && errno == EINTR)
			;
	}
	/* whatever the leader left behind in its group */
	kill(-pgid, SIGKILL);
	p->pid = 0;
}

/* One capture stream: a pipe read into sb up to cap bytes. */
struct proc_pipe {
	int fd;
	struct strbuf *sb;
};

static void proc_read(struct proc_pipe *pp, size_t cap)
{
	char buf[4096];
	ssize_t n = read(pp->fd, buf, sizeof(buf));
	size_t room;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(pp->fd);
		pp->fd = -1;
		return;
	}
	room = pp->sb->len < cap ? cap - pp->sb->len : 0;
	sb_add(pp->sb, buf, (size_t)n < room ? (size_t)n : room);
}

/* Wait up to ms for output, reading what comes.  Number of open pipes. */
static int proc_pump(struct proc_pipe *pp, int n, size_t cap, int ms)
{
	struct pollfd pfd[2];
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (pp[i].fd >= 0) {
			pfd[k].fd = pp[i].fd;
			pfd[k].events = POLLIN;
			k++;
		}
	if (!k) {
		poll(NULL, 0, ms);
		return 0;
	}
	if (poll(pfd, (nfds_t)k, ms) <= 0)
		return k;
	for (i = 0, k = 0; i < n; i++) {
		if (pp[i].fd < 0)
			continue;
		if (pfd[k++].revents)
			proc_read(&pp[i], cap);
	}
	for (i = 0, k = 0; i < n; i++)
		k += pp[i].fd >= 0;
	return k;
}

struct proc_wait {
	long long deadline, kill_at, drain_until;
	int stopping;		/* 1: SIGTERM sent, 2: SIGKILL sent */
	int timed_out;
};

/* Timeout or cancel: stop the group, SIGTERM first if there is grace. */
static void proc_watch(struct proc *p, const struct proc_opts *o,
		       struct proc_wait *w, long long now)
{
	int cancel = o->cancel && __atomic_load_n(o->cancel, __ATOMIC_RELAXED);

	if (!w->stopping && (cancel || (w->deadline && now >= w->deadline))) {
		w->timed_out = 1;
		w->stopping = o->grace_ms > 0 ? 1 : 2;
		w->kill_at = now + o->grace_ms;
		kill(-p->pid, w->stopping == 1 ? SIGTERM : SIGKILL);
	} else if (w->stopping == 1 && now >= w->kill_at) {
		w->stopping = 2;
		kill(-p->pid, SIGKILL);
	}
}

/* Pump output and reap until the child ended and the pipes closed. */
static void proc_loop(struct proc *p, const struct proc_opts *o,
		      struct proc_pipe *pp, int npipes, struct proc_wait *w)
{
	pid_t leader = p->pid;
	size_t cap = o->cap ? o->cap : PROC_CAP_DEFAULT;
	int open_pipes = npipes;
	long long now;

	while (p->pid > 0 || open_pipes) {
		open_pipes = proc_pump(pp, npipes, cap, PROC_TICK_MS);
		now = proc_now_ms();
		if (p->pid > 0) {
			proc_watch(p, o, w, now);
			if (proc_poll(p)) {
				/* the leader is gone: so is its group */
				kill(-leader, SIGKILL);
				w->drain_until = now + PROC_DRAIN_MS;
			}
		} else if (now >= w->drain_until) {
			break;
		}
	}
}

/* The child runs: pump its pipes until it ended, then its status. */
static int proc_finish(struct proc *p, char *const argv[],
		       const struct proc_opts *o, struct proc_pipe *pp,
		       int *timed_out, char *err, size_t errlen)
{
	pid_t leader = p->pid;
	struct proc_wait w;
	int i;

	memset(&w, 0, sizeof(w));
	if (o->timeout_ms > 0)
		w.deadline = proc_now_ms() + o->timeout_ms;
	proc_loop(p, o, pp, 2, &w);
	kill(-leader, SIGKILL);	/* whatever the leader left behind */
	for (i = 0; i < 2; i++)
		if (pp[i].fd >= 0)
			close(pp[i].fd);
	if (timed_out)
		*timed_out = w.timed_out;
	if (w.timed_out) {
		snprintf(err, errlen, "'%s' %s after %ld ms: stopped", argv[0],
			 o->cancel && __atomic_load_n(o->cancel,
						      __ATOMIC_RELAXED) ?
			 "cancelled" : "timed out", o->timeout_ms);
		return -1;
	}
	if (WIFSIGNALED(p->status))
		return 128 + WTERMSIG(p->status);
	return WEXITSTATUS(p->status);
}

int proc_run(char *const argv[], const struct proc_opts *o, int *timed_out,
	     char *err, size_t errlen)
{
	static const struct proc_opts none;
	struct proc_pipe pp[2] = { { -1, NULL }, { -1, NULL } };
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, outfd = PROC_FD_NULL;
	int rc, i;
	struct proc p = { 0, 0 };

	o = o ? o : &none;
	if (timed_out)
		*timed_out = 0;
	if (o->out_path && !o->out) {
		outfd = proc_open_out(o);
		if (outfd < 0) {
			snprintf(err, errlen, "cannot open '%s': %s",
				 o->out_path, strerror(errno));
			return -1;
		}
	}
	if ((o->out && pipe2(outp, O_CLOEXEC)) ||
	    (o->errout && pipe2(errp, O_CLOEXEC))) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0],
			 strerror(errno));
		rc = -1;
		goto out_close;
	}
	rc = proc_spawn(&p.pid, argv, NULL, o->out ? outp[1] : outfd,
			o->errout ? errp[1] : o->out ? outp[1] : outfd);
	if (rc) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0],
			 strerror(rc));
		rc = -1;
		goto out_close;
	}
	pp[0].fd = outp[0];
	pp[0].sb = o->out;
	pp[1].fd = errp[0];
	pp[1].sb = o->errout;
	outp[0] = errp[0] = -1;		/* pp owns them now */
	/* the child's ends: EOF once the child and its group end */
	if (outp[1] >= 0)
		close(outp[1]);
	if (errp[1] >= 0)
		close(errp[1]);
	outp[1] = errp[1] = -1;
	rc = proc_finish(&p, argv, o, pp, timed_out, err, errlen);
out_close:
	for (i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (outfd >= 0)
		close(outfd);
	return rc;
}
