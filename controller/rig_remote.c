// SPDX-License-Identifier: MIT
/*
 * Remote rigs: real machines whose own init starts klab-agent pointed at
 * klabd.  klabd cannot see them die; it power-cycles them with the
 * configured command (IPMI, a PDU) to cold-boot the base kernel, and runs
 * the configured console command (conserver, ipmitool sol) with its output
 * going to the boot's console log, which the manager scans as for QEMU.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "klabd.h"
#include "rig.h"

static pid_t spawn(const char *cmd, const char *log)
{
	pid_t pid = fork();
	int fd;

	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void remote_halt(struct rig *g)
{
	if (g->pid > 0) {
		kill(-g->pid, SIGTERM);
		waitpid(g->pid, NULL, 0);
	}
	g->pid = 0;
}

static int remote_cold_boot(struct rig *g, char *err, size_t errlen)
{
	pid_t p;
	int status;

	remote_halt(g);
	if (*g->console_cmd)
		g->pid = spawn(g->console_cmd, g->console);
	if (!*g->power_cmd)
		return 0;	/* no power control: wait for the agent */
	p = spawn(g->power_cmd, g->console);
	if (p < 0 || waitpid(p, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		snprintf(err, errlen, "power-cycle command of rig '%s' failed",
			 g->name);
		return -1;
	}
	return 0;
}

static int remote_alive(struct rig *g)
{
	int status;

	/* a console command that ended is restarted; the machine itself is
	 * judged by its check-ins and the watchdog */
	if (g->pid > 0 && waitpid(g->pid, &status, WNOHANG) == g->pid)
		g->pid = *g->console_cmd ? spawn(g->console_cmd, g->console) :
			0;
	return 0;
}

const struct rig_ops rig_remote_ops = {
	.kind = "remote",
	.cold_boot = remote_cold_boot,
	.halt = remote_halt,
	.alive = remote_alive,
};
