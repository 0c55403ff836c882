// SPDX-License-Identifier: MIT
/*
 * QEMU rigs: klabd starts the virtual machine itself (kernels/qemu-rig.sh
 * builds the command line and the fully written disk images), cold-boots
 * the rig's base kernel with the rig image, and kills the machine to
 * recover it.  A reboot ends QEMU (-no-reboot), which the manager sees.
 * These run in the rig's worker thread, outside the manager's lock.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab/catalog.h"
#include "klabd/klabd.h"
#include "lib/alloc.h"
#include "lab/rig.h"

/* A QEMU left running by a klabd that died: stop it before a cold boot,
 * so two machines never share the rig's disks. */
static void qemu_kill_stale(struct rig *g)
{
	char path[1100], cmd[64];
	struct strbuf sb = STRBUF_INIT;
	long pid;

	snprintf(path, sizeof(path), "%s/qemu.pid", g->dir);
	sb_init(&sb);
	if (sb_read_file(&sb, path) == 0) {
		sb.buf[strcspn(sb.buf, "\n")] = '\0';
		if (!parse_long(sb.buf, 2, 1 << 22, &pid)) {
			snprintf(cmd, sizeof(cmd), "/proc/%ld/cmdline", pid);
			sb_reset(&sb);
			if (sb_read_file(&sb, cmd) == 0 &&
			    strstr(sb.buf, "qemu-system")) {
				fprintf(stderr, "klabd: rig %s: stopping stale "
					"QEMU %ld\n", g->name, pid);
				kill((pid_t)pid, SIGKILL);
			}
		}
		unlink(path);
	}
	sb_release(&sb);
}

static int qemu_cold_boot(struct rig *g, char *err, size_t errlen)
{
	char *release = NULL, *image = NULL, *initrd = NULL;
	char script[1024], port[16], cpus[16], mem[16], size[16], out[1024];
	struct db_kernel_boot b;
	struct db *db;
	int rc;

	db = klabd_db_get(g->d, err, errlen);
	if (!db)
		return -1;
	if (!*g->base_kernel) {
		snprintf(err, errlen, "rig '%s' has no base_kernel", g->name);
		klabd_db_put(g->d, db);
		return -1;
	}
	if (db_kernel_get_boot(db, g->base_kernel, &b) == DB_NOTFOUND) {
		/* not fetched yet: wait for it, this is no failure */
		klabd_db_put(g->d, db);
		snprintf(err, errlen, "waiting for base kernel '%s' in the "
			 "catalog", g->base_kernel);
		return 1;
	}
	db_kernel_boot_release(&b);
	rc = catalog_boot(g->d, db, g->base_kernel, &release, &image, &initrd,
			  err, errlen);
	klabd_db_put(g->d, db);
	if (rc)
		goto out;
	qemu_kill_stale(g);
	snprintf(script, sizeof(script), "%s/kernels/qemu-rig.sh",
		 g->d->top_dir);
	snprintf(port, sizeof(port), "%d", g->d->port);
	snprintf(cpus, sizeof(cpus), "%d", g->cpus);
	snprintf(mem, sizeof(mem), "%d", g->memory_mb);
	snprintf(size, sizeof(size), "%d", g->disk_mb);
	snprintf(out, sizeof(out), "%s/qemu.out", g->dir);
	{
		char *argv[] = {
			"sh", script, "exec", "--profile", g->profile,
			"--dir", g->dir, "--name", g->name, "--kernel", image,
			"--initrd", initrd, "--port", port, "--token",
			g->token, "--console", g->console, "--cpus", cpus,
			"--memory", mem, "--disk-size", size,
			"--disk-model", g->disk_model, "--no-reboot",
			NULL, NULL, NULL,
		};
		struct proc_opts o = { .out_path = out, .out_append = 1 };
		size_t n = ALLOC_ARRAY_SIZE(argv) - 3;

		if (*g->pin) {
			argv[n] = "--pin";
			argv[n + 1] = g->pin;
		}

		rc = proc_start(&g->proc, argv, &o, err, errlen);
	}
out:
	free(release);
	free(image);
	free(initrd);
	return rc;
}

static void qemu_halt(struct rig *g)
{
	proc_stop(&g->proc, 0);
}

/* A guest that reboots or powers off ends QEMU with an exit status
 * (-no-reboot); a signal is someone else's doing (an operator, the OOM
 * killer): -2, infrastructure. */
static int qemu_alive(struct rig *g)
{
	if (g->proc.pid > 0 && !proc_poll(&g->proc))
		return 0;
	return WIFSIGNALED(g->proc.status) ? -2 : -1;
}

const struct rig_ops rig_qemu_ops = {
	.kind = "qemu",
	.cold_boot = qemu_cold_boot,
	.halt = qemu_halt,
	.alive = qemu_alive,
};
