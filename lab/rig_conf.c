// SPDX-License-Identifier: MIT
/*
 * rig_conf: a rig's configuration, in one place: read from klabd's
 * configuration file ([rig NAME], rig_from_config), recorded in the
 * database at start (rig_register), and the configuration a rig's runs
 * are stored under.  klabd reads the QEMU version once at start; each
 * upload's configuration is made from the rig as configured, the -drive
 * options of the boot that ran the job (QEMU) and the machine facts of
 * the upload (remote).  See rig_conf.h.
 */
#include "lab/rig_conf.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/jobs.h"
#include "klabd/klabd.h"
#include "lib/alloc.h"
#include "lib/config.h"
#include "lib/ident.h"
#include "lib/rand.h"
#include "lib/proc.h"
#include "lib/rigconf.h"
#include "lib/sha256.h"
#include "lib/strbuf.h"
#include "lab/rig.h"

/* Written once by rig_conf_init before the threads start. */
static char qemu_version[256];

void rig_conf_init(struct klabd *d)
{
	char *argv[] = { "qemu-system-x86_64", "--version", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_opts o;
	char err[256];
	size_t i;

	for (i = 0; i < rigmgr_count(d); i++)
		if (!strcmp(rigmgr_rig(d, i)->kind, "qemu"))
			break;
	if (i == rigmgr_count(d))
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

/*
 * Whether a QEMU argument (the line after -blockdev, -object or -device)
 * describes the first test disk or the disk controller: node names f0,
 * r0, n0, q0, t0, throttle group g0 (qemu-rig.sh's disk_blockdevs).
 */
static int first_disk_arg(const char *a, size_t n)
{
	static const char *const keys[] = { "node-name=", "id=g0,",
					    "virtio-scsi-pci,", "drive=" };
	const char *k;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		k = memmem(a, n, keys[i], strlen(keys[i]));
		if (!k)
			continue;
		if (i == 1 || i == 2)
			return 1;
		k += strlen(keys[i]);
		if ((size_t)(k - a) + 2 <= n && k[1] == '0' &&
		    (k + 2 == a + n || k[2] == ','))
			return 1;
	}
	return 0;
}

/*
 * The block graph of the boot's first test disk (its -blockdev, -object
 * and -device arguments, without file names and SCSI addresses) and the
 * controller's options, from qemu-rig.sh's qemu.args (one argument a
 * line): the disk model as QEMU was told it.
 */
static void drive_opts(const struct rig *g, struct strbuf *lines)
{
	struct strbuf args = STRBUF_INIT, opts = STRBUF_INIT;
	char path[1024];
	const char *p, *o, *next;

	sb_init(&args);
	sb_init(&opts);
	snprintf(path, sizeof(path), "%s/qemu.args", g->dir);
	if (sb_read_file(&args, path) || !args.len)
		goto out;
	for (p = args.buf; *p; p = next) {
		size_t n = strcspn(p, "\n");

		next = p + n + (p[n] == '\n');
		if (strncmp(p, "-blockdev\n", 10) &&
		    strncmp(p, "-object\n", 8) && strncmp(p, "-device\n", 8))
			continue;
		n = strcspn(next, "\n");
		if (!first_disk_arg(next, n))
			continue;
		sb_addf(&opts, "%s", opts.len ? " " : "");
		for (o = next; o < next + n; o += strcspn(o, ",\n"),
		     o += *o == ',') {
			size_t m = strcspn(o, ",\n");

			if (!strncmp(o, "filename=", 9) ||
			    !strncmp(o, "scsi-id=", 8) ||
			    !strncmp(o, "lun=", 4))
				continue;
			sb_addf(&opts, "%s%.*s", o == next ? "" : ",", (int)m,
				o);
		}
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

/* The configuration of g as text; boot: with the -drive options of
 * its last boot (what a run is stored under), else without (what the
 * rigs of a class must share, rig_class_check). */
static char *conf_text(const struct klabd *d, const struct rig *g,
		       const json_t *machine, int boot)
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
		rigconf_add(&lines, "disk_model", g->disk_model);
		/* only when set: an unpinned rig keeps its configuration */
		if (g->pin && *g->pin)
			rigconf_add(&lines, "pin", g->pin);
		if (boot)
			drive_opts(g, &lines);
	}
	canon = rigconf_canonical(lines.buf);
	sb_release(&lines);
	return canon;
}

char *rig_conf_text(const struct klabd *d, const struct rig *g,
		    const json_t *machine)
{
	return conf_text(d, g, machine, 1);
}

char *rig_conf_class_text(const struct klabd *d, const struct rig *g)
{
	return conf_text(d, g, NULL, 0);
}

char *rig_conf_with_suite(char *conf, const char *sha256)
{
	struct strbuf lines = STRBUF_INIT;
	char hash[13], *canon;

	if (!sha256_hex_ok(sha256))
		return conf;
	snprintf(hash, sizeof(hash), "%.12s", sha256);
	sb_init(&lines);
	sb_adds(&lines, conf ? conf : "");
	sb_addc(&lines, '\n');
	rigconf_add(&lines, "suite_sha", hash);
	canon = rigconf_canonical(lines.buf);
	sb_release(&lines);
	free(conf);
	return canon;
}

static int cfg_int(struct klabd *d, const char *sec, const char *key,
		   long def, long min, long max, long *out, char *err,
		   size_t errlen)
{
	const char *v = config_get(&d->cfg, sec, key);

	*out = def;
	if (v && parse_long(v, min, max, out)) {
		snprintf(err, errlen, "%s: [%s] %s: expected a number in "
			 "%ld..%ld, got '%s'", d->cfg.path, sec, key, min, max,
			 v);
		return -1;
	}
	return 0;
}

static const char *cfg_str(struct klabd *d, const char *sec, const char *key,
			   const char *def)
{
	const char *v = config_get(&d->cfg, sec, key);

	return v ? v : def;
}

/* A CPU list as taskset -c takes it: N or N-M, joined by commas. */
static int cpulist_valid(const char *s, const char *end)
{
	int range = 0;

	if (s == end)
		return 0;
	while (s < end) {
		if (!isdigit((unsigned char)*s))
			return 0;
		while (s < end && isdigit((unsigned char)*s))
			s++;
		if (s == end)
			break;
		if (*s == '-' && !range)
			range = 1;
		else if (*s == ',')
			range = 0;
		else
			return 0;
		if (++s == end)
			return 0;
	}
	return 1;
}

/* A rig's pin value: VCPUS/OTHERS (docs/RIGS.md, "Pinning"). */
static int pin_valid(const char *v)
{
	const char *slash = strchr(v, '/');

	return slash && cpulist_valid(v, slash) &&
	       cpulist_valid(slash + 1, slash + strlen(slash));
}

struct rig *rig_from_config(struct klabd *d, const char *sec, char *err,
			    size_t errlen)
{
	struct rig *g = calloc(1, sizeof(*g));
	int manydisk;
	long v[6];
	char tok[40];

	if (!g)
		abort();
	g->d = d;
	pthread_mutex_init(&g->pub_lock, NULL);
	pthread_cond_init(&g->pub_cond, NULL);
	g->name = strdup(sec + 4);
	g->kind = strdup(cfg_str(d, sec, "kind", "qemu"));
	g->profile = strdup(cfg_str(d, sec, "profile", "scsi"));
	manydisk = !strcmp(g->profile, "manydisk");
	if (cfg_int(d, sec, "cpus", manydisk ? 4 : 1, 1, 64, &v[0], err,
		    errlen) ||
	    cfg_int(d, sec, "memory_mb", 1024, 128, 65536, &v[1], err,
		    errlen) ||
	    cfg_int(d, sec, "disk_mb", manydisk ? 32 : 512, 8, 1 << 20, &v[2],
		    err, errlen) ||
	    cfg_int(d, sec, "boot_timeout", 120, 5, 3600, &v[3], err, errlen) ||
	    cfg_int(d, sec, "job_timeout", 1800, 10, 86400, &v[4], err,
		    errlen) ||
	    cfg_int(d, sec, "power_timeout", 60, 1, 3600, &v[5], err, errlen))
		return g;	/* err set: caller frees */
	g->cpus = (int)v[0];
	g->memory_mb = (int)v[1];
	g->disk_mb = (int)v[2];
	g->boot_timeout = (int)v[3];
	g->job_timeout = (int)v[4];
	g->power_timeout = (int)v[5];
	g->disks = manydisk ? 64 : 1;
	if (rand_hex(tok, 16)) {
		snprintf(err, errlen, "cannot make a token for rig '%s': %s",
			 g->name, strerror(errno));
		return g;
	}
	g->token = strdup(cfg_str(d, sec, "token", tok));
	secret_hash_hex(g->token, g->token_hash);
	g->base_kernel = strdup(cfg_str(d, sec, "base_kernel", ""));
	g->power_cmd = strdup(cfg_str(d, sec, "power_cycle", ""));
	g->console_cmd = strdup(cfg_str(d, sec, "console", ""));
	g->disk_model = strdup(cfg_str(d, sec, "disk_model", "hdd"));
	g->pin = strdup(cfg_str(d, sec, "pin", ""));
	g->klass = strdup(cfg_str(d, sec, "class", g->name));
	g->ops = !strcmp(g->kind, "remote") ? &rig_remote_ops : &rig_qemu_ops;
	if (strcmp(g->kind, "qemu") && strcmp(g->kind, "remote"))
		snprintf(err, errlen, "%s: [%s] kind: expected 'qemu' or "
			 "'remote', got '%s'", d->cfg.path, sec, g->kind);
	else if (strcmp(g->profile, "scsi") && strcmp(g->profile, "ide") &&
		 !manydisk)
		snprintf(err, errlen, "%s: [%s] profile: expected 'scsi', "
			 "'ide' or 'manydisk', got '%s'", d->cfg.path, sec,
			 g->profile);
	else if (strcmp(g->disk_model, "hdd") && strcmp(g->disk_model, "ssd") &&
		 strcmp(g->disk_model, "host"))
		snprintf(err, errlen, "%s: [%s] disk_model: expected 'hdd', "
			 "'ssd' or 'host', got '%s'", d->cfg.path, sec,
			 g->disk_model);
	else if (ident_checks(IDENT_RIG, g->klass, NULL, 0))
		snprintf(err, errlen, "%s: [%s] class: expected a name like a "
			 "rig's (letters, digits, '._+-:@~'), got '%.100s'",
			 d->cfg.path, sec, g->klass);
	else if (*g->pin && !pin_valid(g->pin))
		snprintf(err, errlen, "%s: [%s] pin: expected VCPUS/OTHERS, "
			 "two host CPU lists such as '1/0' or '2-3/0-1', got "
			 "'%s'",
			 d->cfg.path, sec, g->pin);
	g->state = strcmp(cfg_str(d, sec, "autostart", "yes"), "no") ?
		RIG_COLD : RIG_OFFLINE;
	return g;
}

static void rig_strs_free(struct rig *g)
{
	char **const fields[] = { &g->name, &g->kind, &g->profile, &g->token,
				  &g->base_kernel, &g->dir, &g->power_cmd,
				  &g->console_cmd, &g->job_release,
				  &g->disk_model, &g->pin, &g->klass };

	alloc_strs_free(fields, ALLOC_ARRAY_SIZE(fields));
}

void rig_destroy(struct rig *g)
{
	if (!g)
		return;
	rig_strs_free(g);
	pthread_mutex_destroy(&g->pub_lock);
	pthread_cond_destroy(&g->pub_cond);
	free(g);
}

int rig_register(struct klabd *d, struct db *db, struct rig *g, char *err,
		 size_t errlen)
{
	struct db_rig r;
	struct strbuf sb = STRBUF_INIT;

	sb_init(&sb);
	sb_addf(&sb, "%s/rigs/%s", d->data_dir, g->name);
	g->dir = sb_detach(&sb, NULL);
	if (mkdir(d->data_dir, 0755) && errno != EEXIST)
		goto out_errno;
	sb_addf(&sb, "%s/rigs", d->data_dir);
	if (mkdir(sb.buf, 0755) && errno != EEXIST)
		goto out_errno;
	if (mkdir(g->dir, 0755) && errno != EEXIST)
		goto out_errno;
	sb_release(&sb);
	memset(&r, 0, sizeof(r));
	r.name = g->name;
	r.kind = g->kind;
	r.profile = g->profile;
	r.disks = g->disks;
	r.cpus = g->cpus;
	r.memory_mb = g->memory_mb;
	r.state = (char *)rig_state_name(g->state);
	if (db_rig_put(db, &r, err, errlen) ||
	    db_rig_set_token(db, g->name, g->token_hash) ||
	    db_rig_set_class(db, g->name, g->klass)) {
		if (!err[0])
			snprintf(err, errlen, "cannot record rig '%s'",
				 g->name);
		return -1;
	}
	return 0;
out_errno:
	snprintf(err, errlen, "cannot create '%s': %s", sb.len ? sb.buf :
		 g->dir, strerror(errno));
	sb_release(&sb);
	return -1;
}
