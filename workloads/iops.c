// SPDX-License-Identifier: MIT
/*
 * iops: small-I/O, high-IOPS load across many disks.  Threads per CPU, each
 * pinned to its CPU, issue 4 KiB (--block) O_DIRECT random reads or writes
 * over every disk named (block devices, files, or directories where a test
 * file is created and filled first), through io_uring at queue depth --qd
 * when available, else psync.  After --ramp seconds the run is measured for
 * --time seconds: total IOPS, the whole machine's busy CPU% from /proc/stat
 * (iops.sys_cpu), IOPS per CPU%, the machine's CPU per I/O and the kernel
 * threads' part of it (iops.sys_cpu_per_op, iops.kthread_share; syscpu.h),
 * IOPS per disk and latency percentiles.
 *
 * Output: klab-results/1 JSON on stdout or --out.  Exit 0 complete, 1 error,
 * 2 interrupted.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workloads/cpuusage.h"
#include "workloads/iofile.h"
#include "workloads/iopseng.h"
#include "workloads/syscpu.h"
#include "workloads/runctl.h"
#include "workloads/wlcli.h"

enum engine { ENG_AUTO, ENG_URING, ENG_PSYNC };

struct opts {
	struct wl_common cm;
	char *disks;	/* comma-separated, owned */
	unsigned tpc, qd;
	uint64_t bs, size_mb;
	int write, buffered;
	enum engine engine;
	double ramp, time;
};

struct run {
	struct iops_shared sh;
	struct ioplan *plan;	/* one per disk */
	struct iops_worker *w;
	unsigned nw;
	struct syscpu c0, c1;	/* the machine, over the measured time */
	uint64_t t0, t1;
	int uring;
};

/* A metric-safe name for disk: its base name, [A-Za-z0-9_-] kept. */
static char *disk_name(const char *path, unsigned idx,
		       const struct iops_disk *prev, unsigned nprev)
{
	char copy[4096], name[128];
	unsigned i;
	char *b;

	snprintf(copy, sizeof(copy), "%s", path);
	b = basename(copy);
	snprintf(name, sizeof(name), "%s", *b && strcmp(b, "/") ? b : "root");
	for (i = 0; name[i]; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '-'))
			name[i] = '_';
	for (i = 0; i < nprev; i++)
		if (strcmp(prev[i].name, name) == 0) {
			size_t n = strlen(name);

			snprintf(name + n, sizeof(name) - n, "-%u", idx);
			break;
		}
	b = strdup(name);
	if (!b)
		abort();
	return b;
}

static int open_disk(struct run *r, unsigned i, const char *path,
		     const struct opts *o)
{
	struct iops_disk *d = &r->sh.disk[i];
	struct ioregion *reg;
	char err[512];
	void *buf;
	struct stat st;
	uint64_t len = o->size_mb << 20, have;

	if (stat(path, &st) == 0 && S_ISBLK(st.st_mode))
		len = o->bs;	/* the whole device, sized below */
	if (iofile_plan(&r->plan[i], path, "iops", 1, len, 0, err,
				sizeof(err))) {
		wl_fail("%s", err);
		return -1;
	}
	reg = &r->plan[i].r[0];
	d->file = strdup(reg->file);
	d->name = disk_name(path, i, r->sh.disk, i);
	d->fd = iofile_open(reg, o->buffered ? 0 : O_DIRECT, err, sizeof(err));
	if (d->fd < 0) {
		wl_fail("%s", err);
		return -1;
	}
	if (reg->bdev && iofile_size(d->fd, &reg->len) == 0)
		reg->len = reg->len / o->bs * o->bs;	/* the whole device */
	d->nblk = reg->len / o->bs;
	if (reg->bdev || d->nblk == 0)
		return d->nblk ? 0 : (wl_fail("disk '%s' is smaller than one "
					      "block", path), -1);
	/* a file: give reads real blocks to read, not holes; a file that
	 * was there before and is long enough is used as it is */
	if (!reg->created && iofile_size(d->fd, &have) == 0 &&
	    have >= reg->off + reg->len)
		return 0;
	buf = iofile_buffer(1 << 20);
	iofile_fill(d->fd, d->file, 0, reg->len, 1 << 20, buf);
	free(buf);
	return wl_stopping() ? -1 : 0;
}

static int open_disks(struct run *r, const struct opts *o)
{
	const char *p = o->disks;
	char path[4096];
	unsigned n = 1, i;

	for (i = 0; p[i]; i++)
		n += p[i] == ',';
	r->sh.disk = calloc(n, sizeof(*r->sh.disk));
	r->plan = calloc(n, sizeof(*r->plan));
	if (!r->sh.disk || !r->plan)
		abort();
	for (i = 0; i < n; i++) {
		size_t len = strcspn(p, ",");

		snprintf(path, sizeof(path), "%.*s", (int)len, p);
		p += len + (p[len] == ',');
		r->sh.disk[i].fd = -1;
		r->sh.ndisk = i + 1;
		if (open_disk(r, i, path, o))
			return -1;
	}
	return 0;
}

static int start_workers(struct run *r, const struct opts *o)
{
	unsigned ncpu = cpu_count(), i;

	r->nw = ncpu * o->tpc;
	r->w = calloc(r->nw, sizeof(*r->w));
	if (!r->w)
		abort();
	for (i = 0; i < r->nw; i++) {
		struct iops_worker *w = &r->w[i];

		w->sh = &r->sh;
		w->cpu = (int)(i % ncpu);
		w->uring = r->uring;
		w->rng = wl_worker_seed(o->cm.seed, i);
		w->dev_ops = calloc(r->sh.ndisk, sizeof(*w->dev_ops));
		if (!w->dev_ops)
			abort();
		hist_init(&w->h);
		if (pthread_create(&w->tid, NULL, iopseng_run, w)) {
			wl_fail("cannot start thread %u", i);
			r->nw = i;
			return -1;
		}
	}
	return 0;
}

static void measure(struct run *r, const struct opts *o)
{
	uint64_t deadline = o->cm.timeout > 0 ?
		wl_now_ns() + (uint64_t)(o->cm.timeout * 1e9) : 0;
	unsigned i;

	if (start_workers(r, o) == 0 &&
	    wl_sleep(o->ramp, deadline, o->cm.timeout) == 0) {
		syscpu_read(&r->c0, NULL);
		r->t0 = wl_now_ns();
		r->sh.measuring = 1;
		if (wl_sleep(o->time, deadline, o->cm.timeout) == 0)
			wl_stop_set(WL_STOP_DONE);
		r->sh.measuring = 0;
		r->t1 = wl_now_ns();
		syscpu_read(&r->c1, NULL);
	}
	r->sh.stop = 1;
	for (i = 0; i < r->nw; i++)
		pthread_join(r->w[i].tid, NULL);
}

static void report(struct result_set *rs, const struct run *r,
		   const struct opts *o)
{
	double secs = (double)(r->t1 - r->t0) / 1e9, total, cpu;
	struct hist *h = malloc(sizeof(*h));
	struct syscpu_delta sc;
	uint64_t ops = 0, dev;
	unsigned i, d;

	if (!h)
		abort();
	hist_init(h);
	for (i = 0; i < r->nw; i++) {
		hist_merge(h, &r->w[i].h);
		ops += r->w[i].ops;
	}
	if (!ops || secs <= 0)
		goto out_free;
	total = (double)ops / secs;
	syscpu_delta(&r->c0, &r->c1, &sc);
	cpu = syscpu_busy_pct(&sc);
	wl_result(rs, "iops", "total", "IOPS", total, DIR_HIGHER);
	if (r->c0.ok && r->c1.ok) {
		wl_result(rs, "iops", "sys_cpu", "%", cpu, DIR_LOWER);
		wl_result(rs, "iops", "per_cpu", "IOPS/%",
			  cpu > 0 ? total / cpu : 0, DIR_HIGHER);
		syscpu_report(rs, "iops", &sc, ops, 0);
	} else {
		fprintf(stderr, "iops: cannot read /proc/stat (is /proc "
			"mounted?): no CPU numbers\n");
	}
	for (d = 0; d < r->sh.ndisk; d++) {
		char name[160];

		for (dev = 0, i = 0; i < r->nw; i++)
			dev += r->w[i].dev_ops[d];
		snprintf(name, sizeof(name), "dev.%s", r->sh.disk[d].name);
		wl_result(rs, "iops", name, "IOPS", (double)dev / secs,
			  DIR_HIGHER);
	}
	wl_result_pcts(rs, "iops", h, 1e3, "us", 0);
	wl_result(rs, "iops", "lat_avg", "us", hist_mean(h) / 1e3, DIR_LOWER);
	wl_result(rs, "iops", "ops", "", (double)ops, DIR_NONE);
	wl_result(rs, "iops", "elapsed", "s", secs, DIR_NONE);
	wl_result(rs, "iops", "threads", "", r->nw, DIR_NONE);
	wl_result(rs, "iops", "qd", "", r->uring ? o->qd : 1, DIR_NONE);
out_free:
	free(h);
}

static void teardown(struct run *r)
{
	unsigned i;

	for (i = 0; i < r->nw; i++)
		free(r->w[i].dev_ops);
	free(r->w);
	for (i = 0; i < r->sh.ndisk; i++) {
		if (r->sh.disk[i].fd >= 0)
			close(r->sh.disk[i].fd);
		free(r->sh.disk[i].file);
		free(r->sh.disk[i].name);
		iofile_cleanup(&r->plan[i]);
	}
	free(r->sh.disk);
	free(r->plan);
	syscpu_release(&r->c0);
	syscpu_release(&r->c1);
}

/* Decide psync or io_uring; an explicit --engine uring must work. */
static int pick_engine(struct run *r, const struct opts *o)
{
	int rc;

	if (o->engine == ENG_PSYNC)
		return 0;
	rc = iopseng_uring_probe(o->qd);
	if (rc == 0) {
		r->uring = 1;
		return 0;
	}
	if (o->engine == ENG_URING) {
		fprintf(stderr, "io_uring is not available: %s\n",
			iopseng_have_uring() ? strerror(-rc)
					     : "built without liburing");
		return -1;
	}
	if (o->qd > 1)
		fprintf(stderr, "iops: io_uring not available (%s), using "
			"psync: queue depth 1 per thread\n",
			iopseng_have_uring() ? strerror(-rc)
					     : "built without liburing");
	return 0;
}

static const char usage_text[] =
	"usage: iops --disks D1,D2,... [options]\n"
	"  -d, --disks LIST       block devices, files or directories\n"
	"  -t, --threads-per-cpu N  worker threads per CPU (1)\n"
	"  -b, --block BYTES      request size (4096)\n"
	"      --rw read|write    random reads (default) or writes\n"
	"  -e, --engine E         auto, uring or psync (auto)\n"
	"  -q, --qd N             io_uring queue depth per thread (1)\n"
	"  -s, --size MB          MiB per file or directory disk (256)\n"
	"      --buffered         no O_DIRECT\n"
	"      --ramp SECS        unmeasured start (1)\n"
	"  -T, --time SECS        measured time (10)\n"
	"      --timeout SECS     stop with an error after SECS\n"
	"      --seed N           random offsets seed (1)\n"
	"      --id KERNEL        identifier (default: uname -r)\n"
	"  -o, --out FILE         write JSON to FILE\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

static int parse_opt(int c, void *ctx)
{
	struct opts *o = ctx;

	switch (c) {
	case 'd':
		free(o->disks);
		o->disks = strdup(optarg);
		return o->disks ? 0 : -1;
	case 't': return wl_parse_uint("threads-per-cpu", optarg, 1, 256,
				       &o->tpc);
	case 'b': return wl_parse_u64("block", optarg, 1, 512, 16 << 20,
				      &o->bs);
	case 'w':
		if (strcmp(optarg, "read") && strcmp(optarg, "write"))
			break;
		o->write = !strcmp(optarg, "write");
		return 0;
	case 'e':
		if (!strcmp(optarg, "auto") || !strcmp(optarg, "uring") ||
		    !strcmp(optarg, "psync")) {
			o->engine = optarg[0] == 'a' ? ENG_AUTO :
				    optarg[0] == 'u' ? ENG_URING : ENG_PSYNC;
			return 0;
		}
		break;
	case 'q': return wl_parse_uint("qd", optarg, 1, 4096, &o->qd);
	case 's': return wl_parse_u64("size", optarg, 0, 1, 1ull << 40,
				      &o->size_mb);
	case 'B':
		o->buffered = 1;
		return 0;
	case 'R': return wl_parse_double("ramp", optarg, 0, 1e6, &o->ramp);
	case 'T': return wl_parse_double("time", optarg, 0.01, 1e6, &o->time);
	default:
		usage(stderr);
		return -1;
	}
	fprintf(stderr, "invalid value '%s' for --%s\n", optarg,
		c == 'w' ? "rw" : "engine");
	return -1;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "disks", 1, NULL, 'd' }, { "disk", 1, NULL, 'd' },
		{ "threads-per-cpu", 1, NULL, 't' }, { "block", 1, NULL, 'b' },
		{ "rw", 1, NULL, 'w' }, { "engine", 1, NULL, 'e' },
		{ "qd", 1, NULL, 'q' }, { "size", 1, NULL, 's' },
		{ "buffered", 0, NULL, 'B' }, { "ramp", 1, NULL, 'R' },
		{ "time", 1, NULL, 'T' }, WL_COMMON_OPTIONS,
	};
	const char *why = NULL;

	if (wl_getopt(argc, argv, "d:t:b:e:q:s:T:o:h", lo, &o->cm, usage,
		      parse_opt, o))
		return -1;
	if (optind < argc)
		why = "unexpected argument";
	else if (!o->disks || !*o->disks || strstr(o->disks, ",,") ||
		 o->disks[0] == ',' || o->disks[strlen(o->disks) - 1] == ',')
		why = "missing or empty entry in --disks";
	else if (!o->buffered && o->bs % 512)
		why = "O_DIRECT needs a --block that is a multiple of 512";
	else if (o->engine == ENG_PSYNC && o->qd > 1)
		why = "--qd above 1 needs --engine uring or auto";
	else if (o->cm.id && (!*o->cm.id || strpbrk(o->cm.id, " \t\n")))
		why = "invalid --id: must be one word";
	if (why)
		fprintf(stderr, "%s\n", why);
	return why ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .tpc = 1, .qd = 1, .bs = 4096, .size_mb = 256,
			  .ramp = 1, .time = 10, .cm = WL_COMMON_INIT };
	struct result_set rs;
	struct run r;
	int rc = 1;

	memset(&r, 0, sizeof(r));
	if (parse_args(argc, argv, &o) || pick_engine(&r, &o))
		goto out_free;
	wl_run_begin(&rs, o.cm.id, "iops");
	r.sh.bs = o.bs;
	r.sh.qd = o.qd;
	r.sh.write = o.write;
	if (open_disks(&r, &o) == 0)
		measure(&r, &o);
	report(&rs, &r, &o);
	teardown(&r);
	rc = wl_output_json(&rs, o.cm.out);
	wl_run_end("iops", 1);
	result_set_release(&rs);
	rc = rc ? 1 : wl_exit_code();
out_free:
	free(o.disks);
	return rc;
}
