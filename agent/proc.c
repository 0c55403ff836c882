// SPDX-License-Identifier: MIT
/*
 * Child processes of the agent: running a program (kexec, klab-run) in
 * its own process group with its output in a file and a timeout that
 * takes the whole group down, and the PID 1 duty of reaping every
 * orphan, done by a small supervisor that keeps the agent itself in a
 * child process and restarts it if it dies.  See agent.h.
 */
#include "agent/agent.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROC_GRACE_MS 30000L	/* SIGTERM to SIGKILL */
#define PROC_TICK_MS 50L
#define PROC_RESTART_S 5

static void proc_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* In the child: redirect, exec; report errno on the pipe if exec fails. */
static void proc_child(char *const argv[], const char *out, int report)
{
	int fd, e;

	setpgid(0, 0);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0 && fd != 0) {
		dup2(fd, 0);
		close(fd);
	}
	if (out) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			goto out_fail;
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
out_fail:
	e = errno;
	if (write(report, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Wait for pid; after timeout_ms (<= 0: never) stop its group. */
static int proc_wait(pid_t pid, long timeout_ms, int *timed_out)
{
	long waited = 0, limit = timeout_ms;
	int st, sent = 0;
	pid_t w;

	*timed_out = 0;
	for (;;) {
		w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		if (limit > 0 && waited >= limit && sent < 2) {
			kill(-pid, sent ? SIGKILL : SIGTERM);
			*timed_out = 1;
			limit += PROC_GRACE_MS;
			sent++;
		}
		proc_sleep_ms(PROC_TICK_MS);
		waited += PROC_TICK_MS;
	}
	kill(-pid, SIGKILL);	/* whatever it left behind */
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

int proc_run(char *const argv[], const char *out, long timeout, char *err,
	     size_t errlen)
{
	int pfd[2], e = 0, status, timed_out;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0],
			 strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0)
		proc_child(argv, out, pfd[1]);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		snprintf(err, errlen, "cannot fork for '%s': %s", argv[0],
			 strerror(errno));
		return -1;
	}
	setpgid(pid, pid);
	if (read(pfd[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
		e = 0;
	close(pfd[0]);
	status = proc_wait(pid, timeout > 0 ? timeout * 1000 : 0, &timed_out);
	if (e) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0],
			 strerror(e));
		return -1;
	}
	if (timed_out) {
		snprintf(err, errlen, "'%s' timed out after %ld s", argv[0],
			 timeout);
		return -1;
	}
	if (status < 0)
		snprintf(err, errlen, "cannot wait for '%s': %s", argv[0],
			 strerror(errno));
	return status;
}

/* Reap until child exits; its exit code. */
static int proc_reap(pid_t child)
{
	int st;
	pid_t w;

	for (;;) {
		w = wait(&st);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return 255;
		if (w != child)
			continue;
		if (WIFSIGNALED(st))
			return 128 + WTERMSIG(st);
		return WEXITSTATUS(st);
	}
}

int proc_supervise(int forever, int *code)
{
	int pid1 = getpid() == 1;
	pid_t pid;

	if (!pid1 && prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L))
		agent_log("cannot become a subreaper: %s", strerror(errno));
	for (;;) {
		pid = fork();
		if (pid == 0) {
			/* without a PID 1 to outlive, die with the supervisor */
			if (!pid1)
				prctl(PR_SET_PDEATHSIG, SIGTERM, 0L, 0L, 0L);
			return 1;
		}
		if (pid < 0) {
			agent_log("cannot fork the agent: %s", strerror(errno));
			sleep(PROC_RESTART_S);
			continue;
		}
		*code = proc_reap(pid);
		if (!forever)
			return 0;
		agent_log("agent exited with status %d, restarting in %d s",
			  *code, PROC_RESTART_S);
		sleep(PROC_RESTART_S);
	}
}
