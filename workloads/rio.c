// SPDX-License-Identifier: MIT
/*
 * rio: read latency under load.  M reader threads (sequential or random)
 * time every read while a background load runs: W writer threads streaming
 * large writes, an external command (for example "dbench -t 600 50"), or
 * both.  The load starts first; after the warm-up the readers are measured
 * for the set time; then the load is stopped and reaped.  Reader files are
 * written before the load starts and dropped from the page cache
 * (POSIX_FADV_DONTNEED), so reads come from the disk; a sequential reader
 * that reaches the end of its file drops it again before it starts over.
 *
 * Reports MB read (MiB), MB/s, latency min/avg/max/percentiles in ms, the
 * share of reads over 2 s and 10 s, and the whole machine's CPU per read
 * over the timed reads, load included (syscpu.h), as klab-results/1 JSON
 * or, with
 * --text, as the two lines
 *   reads: X MB, Y MB/s
 *   read latency min A avg B max C > 2s P% > 10s Q%
 * With --readers 0 and --time 0, rio is a pure load that runs until
 * SIGTERM (klab-run's background writers).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/rand.h"
#include "workloads/child.h"
#include "workloads/devstat.h"
#include "workloads/driver.h"
#include "workloads/hist.h"
#include "workloads/iofile.h"
#include "workloads/runctl.h"
#include "workloads/syscpu.h"
#include "workloads/wlcli.h"

struct opts {
	struct wl_common cm;
	const char *disk, *load_cmd;
	unsigned readers, writers;
	uint64_t rsize_mb, wsize_mb, bs, wbs;
	int random, direct, text;
	unsigned plan_flags;	/* IOPLAN_AT_END with --at-end */
	double warmup, time;
};

struct worker {
	pthread_t tid;
	const struct opts *o;
	struct ioslot io;
	int started;
	uint64_t rng, bytes;
	struct hist h;
};

static volatile int readers_stop, writers_stop;
/* The load command's working directory, removed afterwards. */
static char load_dir[4096];
static FILE *load_out;		/* the load's stdout and stderr, unlinked */

static void *reader_run(void *arg)
{
	struct worker *w = arg;
	uint64_t nblk = w->io.r->len / w->o->bs, i = 0;

	while (!readers_stop && !wl_stopping()) {
		uint64_t blk = w->o->random ? rand_xorshift64(&w->rng) % nblk
					    : i++ % nblk;
		uint64_t t;

		/* a sequential reader that comes round to its start again
		 * drops its file first, so it goes on reading the disk */
		if (!w->o->random && blk == 0 && i > 1)
			posix_fadvise(w->io.fd, (off_t)w->io.r->off,
				      (off_t)w->io.r->len, POSIX_FADV_DONTNEED);
		t = wl_now_ns();

		if (iofile_read(w->io.fd, w->io.r->file, w->io.buf,
				(size_t)w->o->bs,
				w->io.r->off + blk * w->o->bs))
			break;
		hist_add(&w->h, wl_now_ns() - t);
		w->bytes += w->o->bs;
	}
	return NULL;
}

static void *writer_run(void *arg)
{
	struct worker *w = arg;
	uint64_t nblk = w->io.r->len / w->o->wbs, i = 0;

	while (!writers_stop && !wl_stopping()) {
		if (iofile_write(w->io.fd, w->io.r->file, w->io.buf,
				 (size_t)w->o->wbs,
				 w->io.r->off + (i % nblk) * w->o->wbs))
			break;
		w->bytes += w->o->wbs;
		if (++i % nblk == 0 && fsync(w->io.fd) && errno != EINVAL) {
			wl_fail("fsync error on '%s': %s", w->io.r->file,
				strerror(errno));
			break;
		}
	}
	return NULL;
}

static int start_workers(struct worker *ws, unsigned n, void *(*fn)(void *))
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (pthread_create(&ws[i].tid, NULL, fn, &ws[i])) {
			wl_fail("cannot start thread");
			return -1;
		}
		ws[i].started = 1;
	}
	return 0;
}

static void join_workers(struct worker *ws, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (ws[i].started) {
			pthread_join(ws[i].tid, NULL);
			ws[i].started = 0;
		}
}

static int open_workers(struct worker *ws, unsigned n, const struct ioplan *p,
			unsigned first, const struct opts *o, size_t bs,
			int flags)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		ws[i].o = o;
		ws[i].rng = wl_worker_seed(o->cm.seed, i);
		hist_init(&ws[i].h);
		if (iofile_slot_open(&ws[i].io, &p->r[first + i], bs, flags))
			return -1;
	}
	return 0;
}

static void close_workers(struct worker *ws, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		iofile_slot_close(&ws[i].io);
	free(ws);
}

/* Write the reader regions, then drop them from the page cache. */
static int prepare_readers(struct worker *rs, const struct opts *o)
{
	void *buf = iofile_buffer(1 << 20);
	char err[512];
	unsigned i;

	for (i = 0; i < o->readers && !wl_stopping(); i++) {
		const struct ioregion *r = rs[i].io.r;
		int fd = iofile_open(r, 0, err, sizeof(err));

		if (fd < 0) {
			wl_fail("%s", err);
			break;
		}
		if (iofile_fill(fd, r->file, r->off, r->len, 1 << 20, buf)) {
			close(fd);
			break;
		}
		posix_fadvise(fd, (off_t)r->off, (off_t)r->len,
			      POSIX_FADV_DONTNEED);
		close(fd);
	}
	free(buf);
	return wl_stopping() ? -1 : 0;
}

static int start_load(struct child *load, const struct opts *o)
{
	struct stat st;
	char err[512];
	char **argv;
	int nul, rc;

	if (!o->load_cmd)
		return 0;
	argv = wl_argv_split(o->load_cmd, err, sizeof(err));
	if (!argv) {
		wl_fail("invalid --load-cmd: %s", err);
		return -1;
	}
	if (stat(o->disk, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(load_dir, sizeof(load_dir), "%s/klab-rio-load-%ld",
			 o->disk, (long)getpid());
		if (mkdir(load_dir, 0755)) {
			wl_fail("cannot create '%s': %s", load_dir,
				strerror(errno));
			wl_argv_free(argv);
			load_dir[0] = 0;
			return -1;
		}
	}
	/* kept for the error report; /dev/null only when /tmp fails us */
	load_out = tmpfile();
	nul = load_out ? dup(fileno(load_out)) : open("/dev/null", O_WRONLY);
	rc = child_start(load, argv, load_dir[0] ? load_dir : NULL,
			 nul >= 0 ? nul : 2, nul >= 0 ? nul : 2,
			 err, sizeof(err));
	if (nul >= 0)
		close(nul);
	if (rc)
		wl_fail("background load: %s", err);
	wl_argv_free(argv);
	return rc;
}

/* The load ended on its own: why, with the end of its output (all of
 * it, up to DRIVER_TAIL_CAP, on stderr). */
static void load_ended(const struct child *load, const struct opts *o)
{
	char st[128], big[DRIVER_TAIL_CAP], tail[DRIVER_TAIL_MSG / 2];
	int fd = load_out ? fileno(load_out) : -1;

	child_status_str(load->status, st, sizeof(st));
	big[0] = tail[0] = 0;
	if (fd >= 0 && driver_tail_fd(fd, big, sizeof(big), 0))
		fprintf(stderr, "rio: background load '%s' failed, the end of "
			"its output:\n%s\n", o->load_cmd, big);
	if (fd >= 0)
		driver_tail_fd(fd, tail, sizeof(tail), 1);
	wl_fail("background load '%s' ended early (%s) after %.1f s%s%s",
		o->load_cmd, st, (double)(wl_now_ns() - load->start_ns) / 1e9,
		tail[0] ? ": " : "", tail);
}

/*
 * Sleep secs (forever: until stopped) while checking that the load still
 * runs.  Returns 0 when the time is over, -1 when the run stopped.
 */
static int wait_loaded(double secs, int forever, struct child *load,
		       const struct opts *o, uint64_t deadline)
{
	uint64_t end = wl_now_ns() + (uint64_t)(secs * 1e9);

	while (forever || wl_now_ns() < end) {
		if (wl_sleep(0.05, deadline, o->cm.timeout))
			return -1;
		if (o->load_cmd && child_poll(load)) {
			load_ended(load, o);
			return -1;
		}
	}
	return 0;
}

struct run {
	struct worker *rd, *wr;
	struct child load;
	uint64_t t0, t1, w0, w1;	/* readers' and writers' time */
	int dev;		/* the disk is a block device's */
	int io_ok;		/* io0 and io1 were read */
	uint64_t io0, io1;	/* this process's read_bytes at t0, t1 */
	struct syscpu sc0, sc1;	/* the machine at t0, t1 */
};

static void run_all(struct run *r, const struct opts *o)
{
	uint64_t deadline = o->cm.timeout > 0 ?
		wl_now_ns() + (uint64_t)(o->cm.timeout * 1e9) : 0;

	if (prepare_readers(r->rd, o))
		return;
	r->w0 = wl_now_ns();
	if (start_workers(r->wr, o->writers, writer_run) == 0 &&
	    start_load(&r->load, o) == 0 &&
	    wait_loaded(o->warmup, 0, &r->load, o, deadline) == 0) {
		r->io_ok = r->dev && !devstat_proc_read_bytes(NULL, &r->io0);
		if (o->readers)
			syscpu_read(&r->sc0, NULL);
		r->t0 = wl_now_ns();
		if (start_workers(r->rd, o->readers, reader_run) == 0 &&
		    wait_loaded(o->time, o->time == 0, &r->load, o,
				deadline) == 0)
			wl_stop_set(WL_STOP_DONE);
		readers_stop = 1;
		join_workers(r->rd, o->readers);
		r->t1 = wl_now_ns();
		if (o->readers)
			syscpu_read(&r->sc1, NULL);
		r->io_ok = r->io_ok &&
			   !devstat_proc_read_bytes(NULL, &r->io1);
	}
	writers_stop = 1;
	join_workers(r->wr, o->writers);
	r->w1 = wl_now_ns();
	child_stop(&r->load, 5);
}

static void report(struct result_set *rs, const struct run *r,
		   const struct opts *o, struct hist *h)
{
	double secs = (double)(r->t1 - r->t0) / 1e9, mb = 0, wmb = 0;
	struct devstat d = { 0 };
	struct syscpu_delta sc;
	uint64_t asked = 0;
	unsigned i;

	for (i = 0; i < o->readers; i++) {
		hist_merge(h, &r->rd[i].h);
		mb += (double)r->rd[i].bytes / (1024.0 * 1024.0);
		asked += r->rd[i].bytes;
	}
	for (i = 0; i < o->writers; i++)
		wmb += (double)r->wr[i].bytes / (1024.0 * 1024.0);
	if (o->writers && r->w1 > r->w0)
		wl_result(rs, "readlat", "write_rate", "MB/s",
			  wmb / ((double)(r->w1 - r->w0) / 1e9), DIR_NONE);
	if (!o->readers || !h->count)
		return;
	wl_result(rs, "readlat", "read_mb", "MB", mb, DIR_NONE);
	wl_result(rs, "readlat", "rate", "MB/s", secs > 0 ? mb / secs : 0,
		  DIR_HIGHER);
	wl_result(rs, "readlat", "lat_min", "ms", (double)h->min / 1e6,
		  DIR_LOWER);
	wl_result(rs, "readlat", "lat_avg", "ms", hist_mean(h) / 1e6,
		  DIR_LOWER);
	wl_result(rs, "readlat", "lat_max", "ms", (double)h->max / 1e6,
		  DIR_LOWER);
	wl_result(rs, "readlat", "lat_2s", "%",
		  hist_share_over(h, HIST_SLOW1_NS), DIR_LOWER);
	wl_result(rs, "readlat", "lat_10s", "%",
		  hist_share_over(h, HIST_SLOW2_NS), DIR_LOWER);
	wl_result_pcts(rs, "readlat", h, 1e6, "ms", 1);
	wl_result(rs, "readlat", "ops", "", (double)h->count, DIR_NONE);
	wl_result(rs, "readlat", "elapsed", "s", secs, DIR_NONE);
	if (r->sc0.ok && r->sc1.ok) {
		syscpu_delta(&r->sc0, &r->sc1, &sc);
		syscpu_report(rs, "readlat", &sc, h->count, 0);
	}
	/* the cache check on the readers' own reads: the disk's counters
	 * would count the load's too (O_DIRECT reads reach it anyway) */
	if (r->io_ok && !o->direct) {
		d.rd_sectors = (r->io1 - r->io0) / 512;
		devstat_report_cache(rs, "readlat", &d, asked);
	}
}

static int emit_text(const struct opts *o,
		     const struct hist *h, const struct run *r)
{
	double secs = (double)(r->t1 - r->t0) / 1e9, mb = 0;
	FILE *f = stdout;
	unsigned i;
	int rc = 0;

	for (i = 0; i < o->readers; i++)
		mb += (double)r->rd[i].bytes / (1024.0 * 1024.0);
	if (o->cm.out && strcmp(o->cm.out, "-") != 0)
		f = fopen(o->cm.out, "w");
	if (!f) {
		fprintf(stderr, "cannot write '%s': %s\n", o->cm.out,
			strerror(errno));
		return -1;
	}
	if (h->count) {
		fprintf(f, "reads: %.1f MB, %.2f MB/s\n", mb,
			secs > 0 ? mb / secs : 0);
		fprintf(f, "read latency min %.3f avg %.3f max %.3f > 2s "
			"%.2f%% > 10s %.2f%%\n", (double)h->min / 1e6,
			hist_mean(h) / 1e6, (double)h->max / 1e6,
			hist_share_over(h, HIST_SLOW1_NS),
			hist_share_over(h, HIST_SLOW2_NS));
	}
	if (f == stdout ? fflush(f) != 0 : fclose(f) != 0)
		rc = -1;
	return rc;
}

static const char usage_text[] =
	"usage: rio --disk PATH [options]\n"
	"  -d, --disk PATH       block device, file or directory\n"
	"  -r, --readers M       reader threads (default 1)\n"
	"      --random          random reads (default sequential)\n"
	"      --read-size MB    MiB per reader (64)\n"
	"  -b, --block BYTES     read size (4096)\n"
	"      --direct          readers use O_DIRECT\n"
	"      --at-end          regions at the end of a device (far into\n"
	"                        a file): never the blocks of a tiotest\n"
	"                        beside it\n"
	"  -w, --writers W       streaming writer threads (0)\n"
	"      --write-size MB   MiB per writer, rewritten in a loop (256)\n"
	"      --write-block B   write size (1m)\n"
	"  -c, --load-cmd CMD    background command, run in a fresh\n"
	"                        directory inside a directory disk,\n"
	"                        removed afterwards (\"dbench -t 600 50\")\n"
	"      --warmup SECS     load alone before measuring (2)\n"
	"  -T, --time SECS       measured time (10; 0: until SIGTERM)\n"
	"      --timeout SECS    stop with an error after SECS\n"
	"      --seed N          random offsets seed (1)\n"
	"      --id KERNEL       identifier (default: uname -r)\n"
	"      --text            the reads:/read latency lines\n"
	"  -o, --out FILE        write the output to FILE\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

static int parse_opt(int c, void *ctx)
{
	struct opts *o = ctx;

	switch (c) {
	case 'd':
		o->disk = optarg;
		return 0;
	case 'r': return wl_parse_uint("readers", optarg, 0, 4096, &o->readers);
	case 'R':
		o->random = 1;
		return 0;
	case 's': return wl_parse_u64("read-size", optarg, 0, 1, 1ull << 40,
				      &o->rsize_mb);
	case 'b': return wl_parse_u64("block", optarg, 1, 512, 64 << 20,
				      &o->bs);
	case 'D':
		o->direct = 1;
		return 0;
	case 'E':
		o->plan_flags |= IOPLAN_AT_END;
		return 0;
	case 'w': return wl_parse_uint("writers", optarg, 0, 4096, &o->writers);
	case 'S': return wl_parse_u64("write-size", optarg, 0, 1, 1ull << 40,
				      &o->wsize_mb);
	case 'B': return wl_parse_u64("write-block", optarg, 1, 512, 64 << 20,
				      &o->wbs);
	case 'c':
		o->load_cmd = optarg;
		return 0;
	case 'W': return wl_parse_double("warmup", optarg, 0, 1e6, &o->warmup);
	case 'T': return wl_parse_double("time", optarg, 0, 1e6, &o->time);
	case 'x':
		o->text = 1;
		return 0;
	default:
		usage(stderr);
		return -1;
	}
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "disk", 1, NULL, 'd' }, { "readers", 1, NULL, 'r' },
		{ "random", 0, NULL, 'R' }, { "read-size", 1, NULL, 's' },
		{ "block", 1, NULL, 'b' }, { "direct", 0, NULL, 'D' },
		{ "writers", 1, NULL, 'w' }, { "write-size", 1, NULL, 'S' },
		{ "write-block", 1, NULL, 'B' }, { "load-cmd", 1, NULL, 'c' },
		{ "warmup", 1, NULL, 'W' }, { "time", 1, NULL, 'T' },
		{ "text", 0, NULL, 'x' }, { "at-end", 0, NULL, 'E' },
		WL_COMMON_OPTIONS,
	};

	if (wl_getopt(argc, argv, "d:r:b:w:c:T:o:h", lo, &o->cm, usage,
		      parse_opt, o))
		return -1;
	if (optind < argc) {
		fprintf(stderr, "unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

static int validate(const struct opts *o)
{
	const char *why = NULL;

	if (!o->disk)
		why = "missing --disk (a block device, file or directory)";
	else if (o->cm.id && (!*o->cm.id || strpbrk(o->cm.id, " \t\n")))
		why = "invalid --id: must be one word";
	else if (!o->readers && !o->writers && !o->load_cmd)
		why = "nothing to run: no readers, writers or --load-cmd";
	else if (o->readers && o->time == 0)
		why = "--time 0 (until stopped) needs --readers 0";
	else if (o->direct && o->bs % 512)
		why = "--direct needs a --block that is a multiple of 512";
	else if ((o->rsize_mb << 20) < o->bs || (o->wsize_mb << 20) < o->wbs)
		why = "--read-size/--write-size smaller than one block";
	if (why)
		fprintf(stderr, "%s\n", why);
	return why ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .readers = 1, .rsize_mb = 64, .wsize_mb = 256,
			  .bs = 4096, .wbs = 1 << 20, .warmup = 2, .time = 10,
			  .cm = WL_COMMON_INIT };
	struct run r;
	struct devstat_set dev;
	struct ioplan plan = { NULL, 0 };
	struct result_set rs;
	struct hist *h;
	char err[512];
	uint64_t len;
	int rc;

	if (parse_args(argc, argv, &o) || validate(&o))
		return 1;
	wl_run_begin(&rs, o.cm.id, "rio");
	memset(&r, 0, sizeof(r));
	r.rd = calloc(o.readers + 1, sizeof(*r.rd));
	r.wr = calloc(o.writers + 1, sizeof(*r.wr));
	h = malloc(sizeof(*h));
	if (!r.rd || !r.wr || !h)
		abort();
	hist_init(h);
	r.dev = devstat_set_init(&dev, o.disk) > 0;
	/* one region length for both roles: the larger one in use (an
	 * unused --read-size must not spread the writers over the disk) */
	len = (o.readers ? o.rsize_mb : 0) > (o.writers ? o.wsize_mb : 0) ?
	      o.rsize_mb : o.wsize_mb;
	len <<= 20;
	if (iofile_plan(&plan, o.disk, "rio", o.readers + o.writers, len,
			o.plan_flags, err, sizeof(err)))
		wl_fail("%s", err);
	else if (!open_workers(r.rd, o.readers, &plan, 0, &o, (size_t)o.bs,
			       o.direct ? O_DIRECT : 0) &&
		 !open_workers(r.wr, o.writers, &plan, o.readers, &o,
			       (size_t)o.wbs, 0))
		run_all(&r, &o);
	report(&rs, &r, &o, h);
	rc = o.text ? emit_text(&o, h, &r) : wl_output_json(&rs, o.cm.out);
	wl_run_end("rio", o.time > 0);
	if (load_dir[0])
		iofile_rmtree(load_dir);
	close_workers(r.rd, o.readers);
	close_workers(r.wr, o.writers);
	syscpu_release(&r.sc0);
	syscpu_release(&r.sc1);
	iofile_cleanup(&plan);
	result_set_release(&rs);
	free(h);
	if (rc)
		return 1;
	return wl_stop == WL_STOP_SIGNAL && o.time == 0 && !wl_error() ?
	       0 : wl_exit_code();
}
