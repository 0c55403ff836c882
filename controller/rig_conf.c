// SPDX-License-Identifier: MIT
/*
 * rig_conf: the configuration a rig's runs are stored under.  klabd
 * reads the QEMU version once at start; each upload's configuration is
 * made from the rig as configured, the -drive options of the boot that
 * ran the job (QEMU) and the machine facts of the upload (remote).
 * See rig_conf.h.
 */
#include "rig_conf.h"

#include <stdio.h>
#include <string.h>

#include "klabd.h"
#include "lib/proc.h"
#include "lib/rigconf.h"
#include "lib/strbuf.h"
#include "rig.h"

/* Written once by rig_conf_init before the threads start. */
static char qemu_version[256];

void rig_conf_init(struct klabd *d)
{
	char *argv[] = { "qemu-system-x86_64", "--version", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_opts o;
	char err[256];
	size_t i;

	for (i = 0; i < d->nrigs; i++)
		if (!strcmp(d->rigs[i]->kind, "qemu"))
			break;
	if (i == d->nrigs)
		return;
	sb_init(&out);
	memset(&o, 0, sizeof(o));
	o.out = &out;
	o.cap = 4096;
	o.timeout_ms = 10000;
	if (proc_run(argv, &o, NULL, err, sizeof(err)) == 0 && out.len)
		snprintf(qemu_version, sizeof(qemu_version), "%.*s",
			 (int)strcspn(out.buf, "\n"), out.buf);
	sb_release(&out);
}

/* The options of the boot's first -drive without its file, id and index
 * (the same for every disk of a profile), from qemu-rig.sh's qemu.args
 * (one argument a line). */
static void drive_opts(const struct rig *g, struct strbuf *lines)
{
	struct strbuf args = STRBUF_INIT, opts = STRBUF_INIT;
	char path[1024];
	const char *p, *o;

	sb_init(&args);
	sb_init(&opts);
	snprintf(path, sizeof(path), "%s/qemu.args", g->dir);
	if (sb_read_file(&args, path) || !args.len)
		goto out;
	p = strstr(args.buf, "\n-drive\n");
	if (!p)
		goto out;
	p += strlen("\n-drive\n");
	for (o = p; *o && *o != '\n'; o += strcspn(o, ",\n"), o += *o == ',') {
		size_t n = strcspn(o, ",\n");

		if (!strncmp(o, "file=", 5) || !strncmp(o, "id=", 3) ||
		    !strncmp(o, "index=", 6))
			continue;
		sb_addf(&opts, "%s%.*s", opts.len ? "," : "", (int)n, o);
	}
	rigconf_add(lines, "drive", opts.buf ? opts.buf : "");
out:
	sb_release(&args);
	sb_release(&opts);
}

static void add_int(struct strbuf *lines, const char *key, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	rigconf_add(lines, key, buf);
}

/* Keys a remote rig's config section sets, and the upload's machine:
 * its CPUs and each disk's model and size (not its memory: MemTotal
 * moves with the kernel booted, and kernels are what is compared). */
static void remote_conf(const struct klabd *d, const struct rig *g,
			const json_t *machine, struct strbuf *lines)
{
	static const char *const keys[] = { "profile", "cpus", "memory_mb",
					    "disk_mb" };
	char sec[300], key[300];
	const json_t *disk;
	const char *v;
	size_t i;

	snprintf(sec, sizeof(sec), "rig %s", g->name);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = config_get(&d->cfg, sec, keys[i]);
		if (v)
			rigconf_add(lines, keys[i], v);
	}
	if (!json_is_object(machine))
		return;
	if (json_is_integer(json_object_get(machine, "cpus")))
		add_int(lines, "machine.cpus", json_integer_value(
				json_object_get(machine, "cpus")));
	json_array_foreach(json_object_get(machine, "disks"), i, disk) {
		v = json_string_value(json_object_get(disk, "name"));
		if (!v || strlen(v) > 64 || strpbrk(v, "=\n"))
			continue;
		snprintf(key, sizeof(key), "machine.disk.%s", v);
		v = json_string_value(json_object_get(disk, "model"));
		snprintf(sec, sizeof(sec), "%.200s %lld", v ? v : "",
			 (long long)json_integer_value(
				 json_object_get(disk, "size_bytes")));
		rigconf_add(lines, key, sec);
	}
}

char *rig_conf_text(const struct klabd *d, const struct rig *g,
		    const json_t *machine)
{
	struct strbuf lines = STRBUF_INIT;
	char *canon;

	sb_init(&lines);
	rigconf_add(&lines, "kind", g->kind);
	if (!strcmp(g->kind, "remote")) {
		remote_conf(d, g, machine, &lines);
	} else {
		rigconf_add(&lines, "profile", g->profile);
		add_int(&lines, "cpus", g->cpus);
		add_int(&lines, "memory_mb", g->memory_mb);
		add_int(&lines, "disk_mb", g->disk_mb);
		add_int(&lines, "disks", g->disks);
		rigconf_add(&lines, "qemu", qemu_version);
		drive_opts(g, &lines);
	}
	canon = rigconf_canonical(lines.buf);
	sb_release(&lines);
	return canon;
}
