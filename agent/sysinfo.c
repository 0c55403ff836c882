// SPDX-License-Identifier: MIT
/*
 * What a rig tells klabd when it registers: kernel release, CPUs, memory
 * (MemTotal of /proc/meminfo) and its disks from /sys/block with size,
 * model and I/O schedulers.  Every path is read below a root prefix so
 * the unit tests can run it on a fake tree.  See agent.h.
 */
#include "agent/agent.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Copy the name [s, s+n) into dst; -1 when empty or too long. */
static int sched_copy(char *dst, const char *s, size_t n)
{
	if (!n || n >= SYSINFO_NAME_LEN)
		return -1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* One word of a scheduler line, "[name]" or "name", into d. */
static int sched_word(const char *w, size_t n, struct disk_info *d)
{
	int cur = w[0] == '[';

	if (cur != (w[n - 1] == ']'))
		return -1;
	if (cur) {
		w++;
		n -= 2;
		if (d->sched[0] || sched_copy(d->sched, w, n))
			return -1;
	}
	if (memchr(w, '[', n) || memchr(w, ']', n))
		return -1;
	if (d->nsched == SYSINFO_MAX_SCHED)
		return -1;
	return sched_copy(d->scheds[d->nsched++], w, n);
}

int sysinfo_parse_scheduler(const char *line, struct disk_info *d)
{
	const char *p = line;
	size_t n;

	d->sched[0] = '\0';
	d->nsched = 0;
	for (;;) {
		p += strspn(p, " \t\n");
		if (!*p)
			break;
		n = strcspn(p, " \t\n");
		if (sched_word(p, n, d))
			goto out_bad;
		p += n;
	}
	if (d->nsched)
		return 0;
out_bad:
	d->sched[0] = '\0';
	d->nsched = 0;
	return -1;
}

/* Read the first line of root/path into buf, trailing blanks cut. */
static int read_line(const char *root, const char *path, char *buf,
		     size_t len)
{
	char full[512];
	FILE *f;
	size_t n;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "re");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static long meminfo_mb(const char *root)
{
	char path[512], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *end;

		if (strncmp(line, "MemTotal:", 9))
			continue;
		errno = 0;
		kb = strtol(line + 9, &end, 10);
		if (errno || end == line + 9 || kb < 0)
			kb = -1;
		break;
	}
	fclose(f);
	return kb < 0 ? -1 : kb / 1024;
}

/* Fill d from root/sys/block/NAME; -1 if there is no such disk. */
static int disk_from_sysfs(const char *root, const char *name,
			   struct disk_info *d)
{
	char path[512], buf[512], *end;
	unsigned long long sectors;

	snprintf(path, sizeof(path), "/sys/block/%s/size", name);
	if (read_line(root, path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	sectors = strtoull(buf, &end, 10);
	if (errno || end == buf || *end)
		return -1;
	d->size_bytes = sectors * 512;
	snprintf(path, sizeof(path), "/sys/block/%s/device/model", name);
	if (read_line(root, path, d->model, sizeof(d->model)))
		d->model[0] = '\0';
	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", name);
	if (!read_line(root, path, buf, sizeof(buf)))
		sysinfo_parse_scheduler(buf, d);
	return 0;
}

int sysinfo_disk(const char *root, const char *spec, struct disk_info *d,
		 char *err, size_t errlen)
{
	const char *name = spec;
	struct stat st;

	memset(d, 0, sizeof(*d));
	if (!strncmp(spec, "/dev/", 5))
		name = spec + 5;
	if (!strchr(name, '/') && !disk_from_sysfs(root, name, d)) {
		snprintf(d->name, sizeof(d->name), "%s", name);
		return 0;
	}
	/* a file, or a directory on a mounted file system (dbench) */
	if (stat(spec, &st) || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
		snprintf(err, errlen, "unknown disk '%s'", spec);
		return -1;
	}
	snprintf(d->name, sizeof(d->name), "%s", spec);
	d->size_bytes = S_ISREG(st.st_mode) ?
			(unsigned long long)st.st_size : 0;
	return 0;
}

/* The rig's boot-file cache disk (serial klab-cache) is no test disk. */
static int disk_is_cache(const char *root, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char path[512];
	int rc;

	sb_init(&sb);
	snprintf(path, sizeof(path), "%s/sys/block/%s/serial", root, name);
	rc = sb_read_file(&sb, path) == 0 &&
	     !strncmp(sb.buf, SYSINFO_CACHE_SERIAL,
		      strlen(SYSINFO_CACHE_SERIAL)) &&
	     (sb.buf[strlen(SYSINFO_CACHE_SERIAL)] == '\0' ||
	      sb.buf[strlen(SYSINFO_CACHE_SERIAL)] == '\n');
	sb_release(&sb);
	return rc;
}

/* A disk worth testing has a device (not loop, ram, zram, dm or the
 * cache disk). */
static int disk_is_real(const char *root, const char *name)
{
	char path[512];
	struct stat st;

	if (name[0] == '.' || !strncmp(name, "loop", 4) ||
	    !strncmp(name, "ram", 3) || !strncmp(name, "zram", 4))
		return 0;
	snprintf(path, sizeof(path), "%s/sys/block/%s/device", root, name);
	return stat(path, &st) == 0 && !disk_is_cache(root, name);
}

static void sysinfo_add_disk(struct sysinfo *si, const struct disk_info *d)
{
	struct disk_info *v;

	v = realloc(si->disks, (si->ndisks + 1) * sizeof(*v));
	if (!v)
		abort();
	si->disks = v;
	si->disks[si->ndisks++] = *d;
}

static int disk_cmp(const void *a, const void *b)
{
	const struct disk_info *x = a, *y = b;

	if (strlen(x->name) != strlen(y->name))
		return strlen(x->name) < strlen(y->name) ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Every real disk of root/sys/block, sorted sda..sdz, sdaa.. */
static int disks_discover(const char *root, struct sysinfo *si, char *err,
			  size_t errlen)
{
	struct disk_info d;
	struct dirent *e;
	char path[512];
	DIR *dir;

	snprintf(path, sizeof(path), "%s/sys/block", root);
	dir = opendir(path);
	if (!dir) {
		snprintf(err, errlen, "cannot list '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	for (e = readdir(dir); e; e = readdir(dir)) {
		if (!disk_is_real(root, e->d_name))
			continue;
		if (sysinfo_disk(root, e->d_name, &d, err, errlen) == 0)
			sysinfo_add_disk(si, &d);
	}
	closedir(dir);
	if (si->ndisks)
		qsort(si->disks, si->ndisks, sizeof(*si->disks), disk_cmp);
	return 0;
}

/* Every disk of the comma list override. */
static int disks_override(const char *root, const char *list,
			  struct sysinfo *si, char *err, size_t errlen)
{
	struct disk_info d;
	char spec[512];
	const char *p = list;
	size_t n;

	while (*p) {
		n = strcspn(p, ",");
		if (n && n < sizeof(spec)) {
			memcpy(spec, p, n);
			spec[n] = '\0';
			if (sysinfo_disk(root, spec, &d, err, errlen))
				return -1;
			sysinfo_add_disk(si, &d);
		}
		p += n;
		p += *p == ',';
	}
	if (si->ndisks)
		return 0;
	snprintf(err, errlen, "no disks in '%s'", list);
	return -1;
}

int sysinfo_collect(const char *root, const char *override,
		    struct sysinfo *si, char *err, size_t errlen)
{
	struct utsname u;
	int rc;

	memset(si, 0, sizeof(*si));
	if (uname(&u) == 0)
		snprintf(si->release, sizeof(si->release), "%s", u.release);
	si->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	si->memory_mb = meminfo_mb(root);
	if (override && *override)
		rc = disks_override(root, override, si, err, errlen);
	else
		rc = disks_discover(root, si, err, errlen);
	if (rc)
		sysinfo_release(si);
	return rc;
}

void sysinfo_release(struct sysinfo *si)
{
	if (!si)
		return;
	free(si->disks);
	memset(si, 0, sizeof(*si));
}

static json_t *disk_to_json(const struct disk_info *d)
{
	json_t *o = json_object(), *list = json_array();
	size_t i;

	for (i = 0; i < d->nsched; i++)
		json_array_append_new(list, json_string(d->scheds[i]));
	json_object_set_new(o, "name", json_string(d->name));
	json_object_set_new(o, "size_bytes",
			    json_integer((json_int_t)d->size_bytes));
	json_object_set_new(o, "scheduler",
			    d->sched[0] ? json_string(d->sched) : json_null());
	json_object_set_new(o, "schedulers", list);
	json_object_set_new(o, "model", json_string(d->model));
	return o;
}

json_t *sysinfo_to_json(const struct sysinfo *si, const char *rig, long job)
{
	json_t *o = json_object(), *disks = json_array();
	size_t i;

	for (i = 0; i < si->ndisks; i++)
		json_array_append_new(disks, disk_to_json(&si->disks[i]));
	json_object_set_new(o, "rig", json_string(rig));
	json_object_set_new(o, "kernel_release", json_string(si->release));
	json_object_set_new(o, "cpus", json_integer(si->cpus));
	json_object_set_new(o, "memory_mb", json_integer(si->memory_mb));
	json_object_set_new(o, "job", json_integer(job));
	json_object_set_new(o, "disks", disks);
	return o;
}
