// SPDX-License-Identifier: MIT
/*
 * Child processes of the agent: running a program (kexec, klab-run)
 * through klab's one process runner (lib/proc.c: its own process group,
 * its output in a file, a timeout that takes the whole group down), and
 * the PID 1 duty of reaping every orphan, done by a small supervisor that
 * keeps the agent itself in a child process and restarts it if it dies.
 * See agent.h.
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

#include "lib/proc.h"

#define PROC_GRACE_MS 30000L	/* SIGTERM to SIGKILL */
#define PROC_RESTART_S 5

int agent_run(char *const argv[], const char *out, long timeout, char *err,
	      size_t errlen)
{
	struct proc_opts o;
	int timed_out, rc;

	memset(&o, 0, sizeof(o));
	o.out_path = out;
	o.timeout_ms = timeout > 0 ? timeout * 1000 : 0;
	o.grace_ms = PROC_GRACE_MS;
	rc = proc_run(argv, &o, &timed_out, err, errlen);
	if (timed_out)
		snprintf(err, errlen, "'%s' timed out after %ld s", argv[0],
			 timeout);
	return rc;
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
			/* no PID 1 to outlive: die with the supervisor */
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
