// SPDX-License-Identifier: MIT
/*
 * child: fork/exec with a close-on-exec pipe that reports exec failures
 * back to the parent, process groups, and stopping with a grace period
 * (see child.h).
 */
#include "workloads/child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workloads/runctl.h"

static void child_exec(char *const argv[], const char *cwd, int out_fd,
		       int err_fd, int report)
{
	struct sigaction sa;
	sigset_t none;
	int e, nul;

	setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	nul = open("/dev/null", O_RDONLY);
	if (nul >= 0 && nul != 0) {
		dup2(nul, 0);
		close(nul);
	}
	if (out_fd >= 0 && out_fd != 1)
		dup2(out_fd, 1);
	if (err_fd >= 0 && err_fd != 2)
		dup2(err_fd, 2);
	if (cwd && chdir(cwd)) {
		e = errno;
		goto out_report;
	}
	execvp(argv[0], argv);
	e = errno;
out_report:
	if (write(report, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int child_start(struct child *c, char *const argv[], const char *cwd,
		int out_fd, int err_fd, char *err, size_t errlen)
{
	int p[2], e = 0;
	ssize_t n;

	c->pid = 0;
	c->status = 0;
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0],
			 strerror(errno));
		return -1;
	}
	c->start_ns = wl_now_ns();
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0],
			 strerror(errno));
		c->pid = 0;
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (c->pid == 0)
		child_exec(argv, cwd, out_fd, err_fd, p[1]);
	setpgid(c->pid, c->pid);
	close(p[1]);
	do {
		n = read(p[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(c->pid, &c->status, 0);
		c->pid = 0;
		snprintf(err, errlen, "cannot run '%s'%s%s: %s", argv[0],
			 cwd ? " in " : "", cwd ? cwd : "", strerror(e));
		return -1;
	}
	return 0;
}

int child_poll(struct child *c)
{
	pid_t r;

	if (!c->pid)
		return 1;
	r = waitpid(c->pid, &c->status, WNOHANG);
	if (r == c->pid || (r < 0 && errno == ECHILD)) {
		c->pid = 0;
		return 1;
	}
	return 0;
}

void child_stop(struct child *c, double grace)
{
	struct timespec slice = { 0, 10 * 1000 * 1000 };
	uint64_t end = wl_now_ns() + (uint64_t)(grace * 1e9);
	pid_t pgid = c->pid;

	if (!c->pid)
		return;
	kill(-pgid, SIGTERM);
	kill(pgid, SIGTERM);
	while (!child_poll(c) && wl_now_ns() < end)
		nanosleep(&slice, NULL);
	if (c->pid) {
		kill(pgid, SIGKILL);
		waitpid(c->pid, &c->status, 0);
		c->pid = 0;
	}
	/* whatever the leader started and left behind goes too; wait (a
	 * little) until it is gone so that its files stop changing */
	kill(-pgid, SIGKILL);
	end = wl_now_ns() + 2000000000ull;
	while (kill(-pgid, 0) == 0 && wl_now_ns() < end)
		nanosleep(&slice, NULL);
}

void child_status_str(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "status 0x%x", status);
}

int child_ok(int status)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
