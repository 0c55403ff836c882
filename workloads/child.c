// SPDX-License-Identifier: MIT
/*
 * child: a workload's background processes, through klab's one process
 * runner (lib/proc.c: posix_spawn, a process group of its own, only fds
 * 0-2) and stopping with a grace period (see child.h).
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

#include "lib/proc.h"
#include "workloads/runctl.h"

int child_start(struct child *c, char *const argv[], const char *cwd,
		int out_fd, int err_fd, char *err, size_t errlen)
{
	struct proc p;

	c->pid = 0;
	c->status = 0;
	c->start_ns = wl_now_ns();
	if (proc_start_fds(&p, argv, cwd,
			   out_fd >= 0 ? out_fd : PROC_FD_INHERIT,
			   err_fd >= 0 ? err_fd : PROC_FD_INHERIT, err,
			   errlen))
		return -1;
	c->pid = p.pid;
	return 0;
}

int child_poll(struct child *c)
{
	struct proc p = { c->pid, c->status };
	int done = proc_poll(&p);

	c->pid = p.pid;
	c->status = p.status;
	return done;
}

void child_stop(struct child *c, double grace)
{
	struct timespec slice = { 0, 10 * 1000 * 1000 };
	struct proc p = { c->pid, c->status };
	pid_t pgid = c->pid;
	uint64_t end;

	if (!pgid)
		return;
	proc_stop(&p, (long)(grace * 1000));
	c->pid = 0;
	c->status = p.status;
	/* wait (a little) until the whole group is gone so that its files
	 * stop changing */
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
