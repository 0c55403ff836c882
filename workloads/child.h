/* SPDX-License-Identifier: MIT */
/*
 * child: background processes of a workload run (dbench as rio's load, fio
 * and our own programs under klab-run).  Each child runs in its own
 * process group so that stopping it stops everything it started; stdin is
 * /dev/null; stdout and stderr go where the caller says.  Programs are
 * found through PATH (no shell involved: an initramfs may have none).
 */
#ifndef KLAB_CHILD_H
#define KLAB_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct child {
	pid_t pid;	/* 0 when not running */
	int status;	/* waitpid status once reaped */
	uint64_t start_ns;
};

/*
 * Start argv (argv[0] searched in PATH) with cwd (NULL: ours), stdout to
 * out_fd and stderr to err_fd (-1: inherit).  Returns 0, or -1 with
 * "cannot run 'x': ..." in err when fork or exec failed.
 */
int child_start(struct child *c, char *const argv[], const char *cwd,
		int out_fd, int err_fd, char *err, size_t errlen);
/* 1 when the child has exited (status filled in, pid 0), else 0. */
int child_poll(struct child *c);
/*
 * Stop the child's process group: SIGTERM, up to grace seconds, then
 * SIGKILL; always reaps.  No-op when not running.
 */
void child_stop(struct child *c, double grace);
/* "exit 3", "killed by signal 9 (Killed)". */
void child_status_str(int status, char *buf, size_t len);
/* 1 when exited with status 0. */
int child_ok(int status);

#endif
