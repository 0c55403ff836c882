// SPDX-License-Identifier: MIT
/*
 * Remote rigs: real machines whose own init starts klab-agent pointed at
 * klabd.  klabd cannot see them die; it power-cycles them with the
 * configured command (IPMI, a PDU) to cold-boot the base kernel, and runs
 * the configured console command (conserver, ipmitool sol) with its output
 * going to the boot's console log, which the manager scans as for QEMU.
 *
 * Both run through lib/proc.c in process groups of their own: the
 * power-cycle command has power_timeout seconds (then its whole group is
 * killed and the cold boot fails: an infrastructure failure of the rig,
 * never of a kernel); the console command runs until the next cold boot
 * or halt stops its group, and is restarted if it ends.  All of this runs
 * in the rig's worker thread, outside the manager's lock.
 */
#include <stdio.h>
#include <string.h>

#include "klabd/klabd.h"
#include "lab/rig.h"

#define CONSOLE_GRACE_MS 2000

static void console_start(struct rig *g)
{
	char *argv[] = { "/bin/sh", "-c", g->console_cmd, NULL };
	struct proc_opts o = { .out_path = g->console, .out_append = 1 };
	char err[300];

	if (!*g->console_cmd)
		return;
	if (proc_start(&g->console_proc, argv, &o, err, sizeof(err)))
		fprintf(stderr, "klabd: rig %s: console command: %s\n",
			g->name, err);
}

static void remote_halt(struct rig *g)
{
	proc_stop(&g->console_proc, CONSOLE_GRACE_MS);
}

static int remote_cold_boot(struct rig *g, char *err, size_t errlen)
{
	char *argv[] = { "/bin/sh", "-c", g->power_cmd, NULL };
	struct proc_opts o = { .out_path = g->console, .out_append = 1,
			       .timeout_ms = g->power_timeout * 1000L,
			       .grace_ms = 0 };
	char why[300];
	int rc, timed_out;

	remote_halt(g);
	console_start(g);
	if (!*g->power_cmd)
		return 0;	/* no power control: wait for the agent */
	o.cancel = &g->d->stopping;
	rc = proc_run(argv, &o, &timed_out, why, sizeof(why));
	if (rc == 0)
		return 0;
	if (timed_out)
		snprintf(err, errlen, "power-cycle command of rig '%s' timed "
			 "out after %d s: killed", g->name, g->power_timeout);
	else if (rc < 0)
		snprintf(err, errlen, "power-cycle command of rig '%s': %s",
			 g->name, why);
	else
		snprintf(err, errlen, "power-cycle command of rig '%s' failed "
			 "(status %d)", g->name, rc);
	return -1;
}

static int remote_alive(struct rig *g)
{
	/* the machine itself is judged by its check-ins and the watchdog;
	 * a console command that ended is restarted by the worker */
	if (*g->console_cmd && g->console_proc.pid > 0 &&
	    proc_poll(&g->console_proc))
		return 1;
	return 0;
}

static void remote_console_restart(struct rig *g)
{
	if (g->console_proc.pid <= 0)
		console_start(g);
}

const struct rig_ops rig_remote_ops = {
	.kind = "remote",
	.cold_boot = remote_cold_boot,
	.halt = remote_halt,
	.alive = remote_alive,
	.console_restart = remote_console_restart,
};
