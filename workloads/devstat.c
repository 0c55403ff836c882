// SPDX-License-Identifier: MIT
/*
 * devstat: read the block device's counters (/sys/block/DEV/stat) of the
 * disks behind a phase's paths and report their deltas as DIR_NONE
 * results.  See devstat.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "workloads/devstat.h"
#include "workloads/wlcli.h"

int devstat_parse(const char *line, struct devstat *out)
{
	uint64_t *f[] = {
		&out->rd_ios, &out->rd_merges, &out->rd_sectors,
		&out->rd_ticks, &out->wr_ios, &out->wr_merges,
		&out->wr_sectors, &out->wr_ticks, &out->in_flight,
		&out->io_ticks, &out->queue_ticks,
	};
	const char *p = line;
	char *end;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		*f[i] = strtoull(p, &end, 10);
		if (errno || (*end && *end != ' ' && *end != '\t' &&
			      *end != '\n'))
			return -1;
		p = end;
	}
	return 0;
}

/* The device number a path lives on: its own for a block device. */
static int path_devno(const char *path, dev_t *out)
{
	char copy[PATH_MAX];
	struct stat st;

	if (stat(path, &st)) {
		snprintf(copy, sizeof(copy), "%s", path);
		if (stat(dirname(copy), &st))
			return -1;
	}
	*out = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	return 0;
}

static int file_exists(const char *dir, const char *name)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, R_OK) == 0;
}

int devstat_disk_find(const char *sysroot, const char *path, char *dir,
		      size_t len)
{
	char link[PATH_MAX], real[PATH_MAX];
	dev_t dev;

	if (path_devno(path, &dev))
		return -1;
	snprintf(link, sizeof(link), "%s/sys/dev/block/%u:%u", sysroot,
		 major(dev), minor(dev));
	if (!realpath(link, real))
		return -1;
	/* a partition's directory sits inside its disk's */
	if (file_exists(real, "partition") && strrchr(real, '/'))
		*strrchr(real, '/') = 0;
	if (!file_exists(real, "stat"))
		return -1;
	if ((size_t)snprintf(dir, len, "%s", real) >= len)
		return -1;
	return 0;
}

static void set_add(struct devstat_set *s, const char *dir)
{
	unsigned i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->dir[i], dir))
			return;
	if (s->n < DEVSTAT_MAX_DISKS)
		snprintf(s->dir[s->n++], sizeof(s->dir[0]), "%s", dir);
}

unsigned devstat_set_init(struct devstat_set *s, const char *paths)
{
	const char *root = getenv("KLAB_SYSROOT");
	char path[PATH_MAX], dir[512];

	s->n = 0;
	while (paths && *paths) {
		size_t n = strcspn(paths, ",");

		snprintf(path, sizeof(path), "%.*s", (int)n, paths);
		paths += n + (paths[n] == ',');
		if (n && !devstat_disk_find(root ? root : "", path, dir,
					    sizeof(dir)))
			set_add(s, dir);
	}
	return s->n;
}

static int read_one(const char *dir, struct devstat *d)
{
	char path[sizeof(((struct devstat_set *)0)->dir[0]) + 8], line[512];
	FILE *f;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/stat", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		rc = devstat_parse(line, d);
	fclose(f);
	return rc;
}

int devstat_set_read(const struct devstat_set *s, struct devstat *sum)
{
	struct devstat d;
	unsigned i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < s->n; i++) {
		if (read_one(s->dir[i], &d))
			return -1;
		sum->rd_ios += d.rd_ios;
		sum->rd_merges += d.rd_merges;
		sum->rd_sectors += d.rd_sectors;
		sum->rd_ticks += d.rd_ticks;
		sum->wr_ios += d.wr_ios;
		sum->wr_merges += d.wr_merges;
		sum->wr_sectors += d.wr_sectors;
		sum->wr_ticks += d.wr_ticks;
		sum->in_flight += d.in_flight;
		sum->io_ticks += d.io_ticks;
		sum->queue_ticks += d.queue_ticks;
	}
	return 0;
}

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a >= b ? a - b : 0;
}

void devstat_delta(const struct devstat *b, const struct devstat *a,
		   struct devstat *d)
{
	d->rd_ios = sub(a->rd_ios, b->rd_ios);
	d->rd_merges = sub(a->rd_merges, b->rd_merges);
	d->rd_sectors = sub(a->rd_sectors, b->rd_sectors);
	d->rd_ticks = sub(a->rd_ticks, b->rd_ticks);
	d->wr_ios = sub(a->wr_ios, b->wr_ios);
	d->wr_merges = sub(a->wr_merges, b->wr_merges);
	d->wr_sectors = sub(a->wr_sectors, b->wr_sectors);
	d->wr_ticks = sub(a->wr_ticks, b->wr_ticks);
	d->in_flight = a->in_flight;	/* a gauge, not a counter */
	d->io_ticks = sub(a->io_ticks, b->io_ticks);
	d->queue_ticks = sub(a->queue_ticks, b->queue_ticks);
}

double devstat_kib_per_io(uint64_t sectors, uint64_t ios)
{
	return ios ? (double)sectors / 2.0 / (double)ios : -1;
}

void devstat_report(struct result_set *rs, const char *prefix,
		    const struct devstat *d)
{
	double k;

	wl_result(rs, prefix, "dev_reads", "", (double)d->rd_ios, DIR_NONE);
	wl_result(rs, prefix, "dev_read_merges", "", (double)d->rd_merges,
		  DIR_NONE);
	wl_result(rs, prefix, "dev_read_sectors", "", (double)d->rd_sectors,
		  DIR_NONE);
	wl_result(rs, prefix, "dev_writes", "", (double)d->wr_ios, DIR_NONE);
	wl_result(rs, prefix, "dev_write_merges", "", (double)d->wr_merges,
		  DIR_NONE);
	wl_result(rs, prefix, "dev_write_sectors", "", (double)d->wr_sectors,
		  DIR_NONE);
	wl_result(rs, prefix, "dev_io_ticks_ms", "ms", (double)d->io_ticks,
		  DIR_NONE);
	wl_result(rs, prefix, "dev_queue_ms", "ms", (double)d->queue_ticks,
		  DIR_NONE);
	k = devstat_kib_per_io(d->rd_sectors, d->rd_ios);
	if (k >= 0)
		wl_result(rs, prefix, "dev_read_kib_per_io", "KiB", k,
			  DIR_NONE);
	k = devstat_kib_per_io(d->wr_sectors, d->wr_ios);
	if (k >= 0)
		wl_result(rs, prefix, "dev_write_kib_per_io", "KiB", k,
			  DIR_NONE);
}

int devstat_report_cache(struct result_set *rs, const char *prefix,
			 const struct devstat *d, uint64_t asked)
{
	double share = asked ? (double)d->rd_sectors * 512.0 / (double)asked
			     : 1.0;
	int cached = share < DEVSTAT_DEVICE_SHARE;

	wl_result(rs, prefix, "dev_read_share", "", share, DIR_NONE);
	wl_result(rs, prefix, "cached", "", cached, DIR_NONE);
	return cached;
}

int devstat_proc_read_bytes(const char *path, uint64_t *out)
{
	char line[128];
	int rc = -1;
	FILE *f = fopen(path ? path : "/proc/self/io", "r");

	if (!f)
		return -1;
	while (rc && fgets(line, sizeof(line), f))
		if (sscanf(line, "read_bytes: %" SCNu64, out) == 1)
			rc = 0;
	fclose(f);
	return rc;
}
