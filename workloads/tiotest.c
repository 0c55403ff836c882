// SPDX-License-Identifier: MIT
/*
 * tiotest: a tiobench-compatible threaded I/O tester.  N threads, each on its
 * own file (disk is a directory) or its own region of a block device or
 * file, run four phases in tiotest's order: sequential write, sequential
 * read, random write, random read.  Every request's latency goes into a
 * per-thread histogram; the phase reports rate (MiB/s, tiobench's MB),
 * CPU% as (user+sys)/wall from getrusage, latency average, maximum,
 * percentiles and share over 2 s and 10 s, and CPU efficiency (rate divided
 * by the CPU fraction); and the whole machine's CPU per request with the
 * kernel threads' part of it (syscpu.h: sys_cpu_per_op, kthread_share).
 * A write phase ends with fsync (--region-flush: its own region written
 * back), inside its time.
 *
 * Output: klab-results/1 JSON on stdout or --out FILE; --text prints the
 * tiobench sections instead.  Exit 0 complete, 1 error, 2 interrupted.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/strbuf.h"
#include "lib/rand.h"
#include "workloads/cpuusage.h"
#include "workloads/devstat.h"
#include "workloads/hist.h"
#include "workloads/iofile.h"
#include "workloads/runctl.h"
#include "workloads/syscpu.h"
#include "workloads/tiotext.h"
#include "workloads/wlcli.h"

enum { P_SEQ_READ, P_RAND_READ, P_SEQ_WRITE, P_RAND_WRITE };
enum { DROP_TRIES = 5 };	/* asks to drop a region's cache */
/* Run order: tiotest writes before it reads. */
static const int run_order[TIO_NPHASES] = {
	P_SEQ_WRITE, P_SEQ_READ, P_RAND_WRITE, P_RAND_READ,
};

struct opts {
	struct wl_common cm;
	const char *disk, *json;
	unsigned threads, phases;
	uint64_t size_mb, bs, rand_ops;
	double phase_time;	/* --time: a phase's bound in seconds, 0 none */
	int direct, sync, text, drop_cache;
	/* --region-flush: a write phase ends with its own region written
	 * back, not an fsync */
	int region_flush;
	struct devstat_set dev;	/* the disks behind --disk, maybe none */
};

struct worker {
	pthread_t tid;
	const struct opts *o;
	struct ioslot io;
	int phase;
	uint64_t rng, ops, t0, t1;
	uint64_t tio;		/* its last request done (before the fsync) */
	uint64_t distinct;	/* blocks the phase asked for, each once */
	uint64_t filled;	/* bytes of its region written from the start */
	struct hist h;
};

static volatile int workers_done;
/* wl_now_ns() at which the running phase stops asking (--time), or 0 */
static uint64_t phase_end;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;

static int do_io(struct worker *w, uint64_t off)
{
	uint64_t t = wl_now_ns();
	int rc;

	if (w->phase == P_SEQ_READ || w->phase == P_RAND_READ)
		rc = iofile_read(w->io.fd, w->io.r->file, w->io.buf, w->o->bs,
				 off);
	else
		rc = iofile_write(w->io.fd, w->io.r->file, w->io.buf, w->o->bs,
				  off);
	if (rc)
		return -1;
	hist_add(&w->h, wl_now_ns() - t);
	w->ops++;
	return 0;
}

/*
 * The end of a write phase: its data written back, by fsync, or with
 * --region-flush by writing back its own region alone
 * (iofile_region_sync): on a device that other writers share an fsync
 * writes back every dirty page on it, theirs too, and the phase's rate
 * carries whatever backlog they held at that moment.
 */
static int phase_flush(const struct worker *w)
{
	if (w->o->region_flush)
		return iofile_region_sync(w->io.r, w->io.fd);
	return fsync(w->io.fd) && errno != EINVAL ? -1 : 0;
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	uint64_t nblk = w->io.r->len / w->o->bs, i;
	int random = w->phase == P_RAND_READ || w->phase == P_RAND_WRITE;

	/*
	 * A random phase may draw a block twice; the second read of it is
	 * served by the page cache on any machine, so the device share is
	 * taken over the distinct blocks (one bit each).
	 */
	uint8_t *seen = random ? calloc(nblk / 8 + 1, 1) : NULL;

	if (random && !seen)
		abort();
	w->distinct = 0;
	w->t0 = wl_now_ns();
	for (i = 0; !wl_stopping(); i++) {
		uint64_t blk = random ? rand_xorshift64(&w->rng) % nblk : i;

		if (random ? i >= w->o->rand_ops : i >= nblk)
			break;
		if (phase_end && wl_now_ns() >= phase_end)
			break;
		if (do_io(w, w->io.r->off + blk * w->o->bs))
			break;
		if (!random) {
			w->distinct++;
		} else if (!(seen[blk / 8] & (1u << (blk % 8)))) {
			seen[blk / 8] |= (uint8_t)(1u << (blk % 8));
			w->distinct++;
		}
	}
	free(seen);
	w->tio = wl_now_ns();
	if ((w->phase == P_SEQ_WRITE || w->phase == P_RAND_WRITE) &&
	    !wl_stopping() && phase_flush(w))
		wl_fail("%s error on '%s': %s", w->o->region_flush ?
			"write-back" : "fsync", w->io.r->file, strerror(errno));
	w->t1 = wl_now_ns();
	pthread_mutex_lock(&done_lock);
	workers_done++;
	pthread_mutex_unlock(&done_lock);
	return NULL;
}

static int all_done(unsigned n)
{
	int d;

	pthread_mutex_lock(&done_lock);
	d = workers_done == (int)n;
	pthread_mutex_unlock(&done_lock);
	return d;
}

/*
 * One phase's results.  Besides tiobench's fields, how its threads
 * (started of them) shared it, no verdict on either: io_busy, the share
 * of their time (threads x the phase's time) spent inside requests
 * (avg_lat x ops over it); finish_spread (spread_ns), the time between
 * the first and the last thread's last request, as a share of the
 * phase's.  A phase whose threads finish one after another has a lower
 * mean latency for the same device time than one whose threads finish
 * together.
 */
static void report_phase(struct result_set *rs, const struct opts *o,
			 int phase, const struct hist *h, uint64_t wall_ns,
			 double cpu, unsigned started, uint64_t spread_ns)
{
	const char *name = tiobench_phases[phase].key;
	char prefix[64];
	double secs = (double)wall_ns / 1e9;
	double rate = secs > 0 ? (double)h->count * (double)o->bs /
			  (1024.0 * 1024.0) / secs : 0;
	double v[TIOBENCH_NFIELDS];
	int f;

	v[TF_FILE_SIZE] = (double)o->size_mb;
	v[TF_BLK_SIZE] = (double)o->bs;
	v[TF_THREADS] = o->threads;
	v[TF_RATE] = rate;
	v[TF_CPU] = cpu;
	v[TF_AVG_LAT] = hist_mean(h) / 1e6;
	v[TF_MAX_LAT] = h->count ? (double)h->max / 1e6 : 0;
	v[TF_LAT_2S] = hist_share_over(h, HIST_SLOW1_NS);
	v[TF_LAT_10S] = hist_share_over(h, HIST_SLOW2_NS);
	v[TF_CPU_EFF] = cpu > 0 ? rate / (cpu / 100) : 0;
	snprintf(prefix, sizeof(prefix), "tiobench.%s", name);
	for (f = 0; f < TIOBENCH_NFIELDS; f++)
		wl_result(rs, prefix, tiobench_fields[f].key,
			  tiobench_fields[f].unit, v[f],
			  tiobench_fields[f].dir);
	wl_result_pcts(rs, prefix, h, 1e6, "ms", 1);
	wl_result(rs, prefix, "ops", "", (double)h->count, DIR_NONE);
	wl_result(rs, prefix, "elapsed", "s", secs, DIR_NONE);
	if (started && wall_ns) {
		wl_result(rs, prefix, "io_busy", "%", (double)(100.0L * h->sum /
			  ((long double)wall_ns * started)), DIR_NONE);
		wl_result(rs, prefix, "finish_spread", "%",
			  100.0 * (double)spread_ns / (double)wall_ns,
			  DIR_NONE);
	}
}

static void run_phase(struct worker *ws, const struct opts *o, int phase,
		      uint64_t deadline, struct result_set *rs)
{
	struct cpu_rusage c0, c1;
	struct syscpu sc0 = { 0 };
	struct devstat d0, d1;
	struct hist *all;
	char prefix[64];
	int dev_ok;
	uint64_t t0 = UINT64_MAX, t1 = 0, distinct = 0;
	uint64_t io0 = UINT64_MAX, io1 = 0, ops = 0;
	unsigned i, started = 0;

	workers_done = 0;
	phase_end = o->phase_time > 0 ?
		    wl_now_ns() + (uint64_t)(o->phase_time * 1e9) : 0;
	dev_ok = o->dev.n && devstat_set_read(&o->dev, &d0) == 0;
	syscpu_read(&sc0, NULL);
	cpu_rusage_now(&c0);
	for (i = 0; i < o->threads; i++) {
		ws[i].phase = phase;
		ws[i].ops = 0;
		ws[i].rng = wl_worker_seed(o->cm.seed, i);
		hist_init(&ws[i].h);
		if (pthread_create(&ws[i].tid, NULL, worker_run, &ws[i])) {
			wl_fail("cannot start thread %u", i);
			break;
		}
		started++;
	}
	while (!all_done(started) &&
	       wl_sleep(0.02, deadline, o->cm.timeout) == 0)
		;
	for (i = 0; i < started; i++)
		pthread_join(ws[i].tid, NULL);
	cpu_rusage_now(&c1);
	snprintf(prefix, sizeof(prefix), "tiobench.%s",
		 tiobench_phases[phase].key);
	dev_ok = dev_ok && devstat_set_read(&o->dev, &d1) == 0;
	all = malloc(sizeof(*all));
	if (!all)
		abort();
	hist_init(all);
	for (i = 0; i < started; i++) {
		hist_merge(all, &ws[i].h);
		distinct += ws[i].distinct;
		t0 = ws[i].t0 < t0 ? ws[i].t0 : t0;
		t1 = ws[i].t1 > t1 ? ws[i].t1 : t1;
		io0 = ws[i].tio < io0 ? ws[i].tio : io0;
		io1 = ws[i].tio > io1 ? ws[i].tio : io1;
		ops += ws[i].ops;
	}
	if (all->count)
		report_phase(rs, o, phase, all, t1 - t0,
			     cpu_rusage_pct(&c0, &c1, (double)(t1 - t0) / 1e9),
			     started, io1 - io0);
	syscpu_phase_end(rs, prefix, &sc0, ops);
	if (all->count && dev_ok) {
		devstat_delta(&d0, &d1, &d0);
		devstat_report(rs, prefix, &d0);
		if (phase == P_SEQ_READ || phase == P_RAND_READ)
			devstat_report_cache(rs, prefix, &d0,
					     distinct * o->bs);
	}
	free(all);
}

/*
 * Write every region once so that read phases have data to read (not
 * holes): what the sequential write phase left (all of it, or the rest
 * after a phase cut by --time).  A block device, or a file that was
 * there before and is long enough, is read as it is.
 */
static int prefill(struct worker *ws, const struct opts *o)
{
	const struct ioregion *r;
	uint64_t have, from;
	unsigned i;

	for (i = 0; i < o->threads && !wl_stopping(); i++) {
		r = ws[i].io.r;
		from = ws[i].filled < r->len ? ws[i].filled : r->len;
		if (from == r->len || r->bdev ||
		    (!r->created && iofile_size(ws[i].io.fd, &have) == 0 &&
		     have >= r->off + r->len))
			continue;
		if (iofile_fill(ws[i].io.fd, r->file, r->off + from,
				r->len - from, (size_t)o->bs, ws[i].io.buf))
			return -1;
		ws[i].filled = r->len;
	}
	return wl_stopping() ? -1 : 0;
}

/* Write back and drop the page cache of every thread's region. */
static int drop_regions(struct worker *ws, const struct opts *o)
{
	const struct ioregion *r;
	unsigned i;
	int e;

	for (i = 0; i < o->threads; i++) {
		r = ws[i].io.r;
		if (iofile_region_sync(r, ws[i].io.fd)) {
			wl_fail("cannot write back '%s': %s", r->file,
				strerror(errno));
			return -1;
		}
		e = posix_fadvise(ws[i].io.fd, (off_t)r->off, (off_t)r->len,
				  POSIX_FADV_DONTNEED);
		if (e == ENOSYS && iofile_drop_root(r, ws[i].io.fd) == 0)
			e = 0;
		if (e) {
			wl_fail("cannot drop the cache of '%s': %s", r->file,
				strerror(e));
			return -1;
		}
	}
	return 0;
}

static uint64_t resident_all(struct worker *ws, const struct opts *o)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < o->threads; i++)
		n += iofile_resident(ws[i].io.r, ws[i].io.fd);
	return n;
}

/*
 * --drop-cache: before a read phase, write back and drop the page cache
 * of every thread's region (region_sync, then POSIX_FADV_DONTNEED), so
 * the phase reads from the device: what tiobench measured on machines whose
 * files were larger than memory.  The kernel skips a page it cannot drop
 * at that moment (locked, or being written back), which the phase would
 * then read from memory: on a disk with a block device behind it (not
 * tmpfs, whose pages are its storage) the regions are checked with
 * mincore and dropped again, up to DROP_TRIES times, then once more
 * widely (drop_cache_root, as root); pages left even then are reported.
 */
static int drop_cache(struct worker *ws, const struct opts *o)
{
	uint64_t left = 0;
	int tries;

	for (tries = 0; tries < DROP_TRIES; tries++) {
		if (tries)
			usleep(20000);
		if (drop_regions(ws, o))
			return -1;
		if (!o->dev.n)
			return 0;
		left = resident_all(ws, o);
		if (!left)
			return 0;
	}
	if (iofile_drop_root(ws[0].io.r, ws[0].io.fd) == 0)
		left = resident_all(ws, o);
	if (left)
		fprintf(stderr, "tiotest: warning: %" PRIu64 " pages of the "
			"read regions stayed in the page cache\n", left);
	return 0;
}

/* A step of the run ("steps", lib/results.h) from t0 to now; returns now. */
static uint64_t step_done(struct result_set *rs, const char *name,
			  const char *what, uint64_t t0)
{
	uint64_t now = wl_now_ns();
	char buf[64];

	snprintf(buf, sizeof(buf), "%s%s%s", name, what ? "." : "",
		 what ? what : "");
	result_set_step_add(rs, buf, 0, (double)(now - t0) / 1e9);
	return now;
}

static void run_all(struct worker *ws, const struct opts *o,
		    struct result_set *rs, uint64_t t)
{
	uint64_t deadline = o->cm.timeout > 0 ?
		wl_now_ns() + (uint64_t)(o->cm.timeout * 1e9) : 0;
	int written = 0, k;

	for (k = 0; k < TIO_NPHASES && !wl_stopping(); k++) {
		int p = run_order[k];
		const char *name = tiobench_phases[p].key;
		unsigned i;

		if (!(o->phases & (1u << p)))
			continue;
		if ((p == P_SEQ_READ || p == P_RAND_READ) && !written) {
			if (prefill(ws, o))
				break;
			written = 1;
			t = step_done(rs, name, "prefill", t);
		}
		if ((p == P_SEQ_READ || p == P_RAND_READ) && o->drop_cache &&
		    !o->direct && drop_cache(ws, o))
			break;
		if ((p == P_SEQ_READ || p == P_RAND_READ) && o->drop_cache &&
		    !o->direct)
			t = step_done(rs, name, "drop_cache", t);
		run_phase(ws, o, p, deadline, rs);
		t = step_done(rs, name, NULL, t);
		for (i = 0; p == P_SEQ_WRITE && i < o->threads; i++)
			ws[i].filled = ws[i].distinct * o->bs;
	}
}

static int setup_workers(struct worker *ws, const struct ioplan *plan,
			 const struct opts *o)
{
	int flags = (o->direct ? O_DIRECT : 0) | (o->sync ? O_SYNC : 0);
	unsigned i;

	for (i = 0; i < o->threads; i++) {
		ws[i].o = o;
		if (iofile_slot_open(&ws[i].io, &plan->r[i], (size_t)o->bs,
				     flags))
			return -1;
	}
	return 0;
}

static int parse_phases(const char *s, unsigned *out)
{
	char word[32];
	unsigned m = 0;
	int i;

	while (*s) {
		size_t n = strcspn(s, ",");

		if (n == 0 || n >= sizeof(word))
			goto out_bad;
		memcpy(word, s, n);
		word[n] = 0;
		for (i = 0; i < TIO_NPHASES; i++)
			if (strcmp(word, tiobench_phases[i].key) == 0)
				break;
		if (i == TIO_NPHASES)
			goto out_bad;
		m |= 1u << i;
		s += n + (s[n] == ',');
	}
	if (!m)
		goto out_bad;
	*out = m;
	return 0;
out_bad:
	fprintf(stderr, "invalid value for --phases: expected a list of "
		"seq_write,seq_read,rand_write,rand_read\n");
	return -1;
}

static const char usage_text[] =
	"usage: tiotest --disk PATH [options]\n"
	"  -d, --disk PATH     block device, file or directory (--dir)\n"
	"  -t, --threads N     threads (default 8)\n"
	"  -s, --size MB       total size in MiB, split over threads (64)\n"
	"  -b, --block BYTES   block size, k/m suffixes (4096)\n"
	"  -r, --random N      random requests per thread (4000)\n"
	"  -T, --time SECS     end a phase after SECS, done or not\n"
	"      --phases LIST   seq_write,seq_read,rand_write,rand_read\n"
	"      --direct        O_DIRECT\n"
	"      --sync          O_SYNC\n"
	"      --drop-cache    drop the regions' page cache before each\n"
	"                      read phase (reads reach the device)\n"
	"      --region-flush  end a write phase by writing back its own\n"
	"                      region only (sync_file_range), not fsync\n"
	"      --timeout SECS  stop with an error after SECS\n"
	"      --seed N        random offsets seed (1)\n"
	"      --id KERNEL     identifier (default: uname -r)\n"
	"      --text          tiobench text sections instead of JSON\n"
	"      --json FILE     also write the JSON to FILE (with --text)\n"
	"  -o, --out FILE      write the output to FILE\n";

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
	case 't': return wl_parse_uint("threads", optarg, 1, 4096,
				       &o->threads);
	case 's': return wl_parse_u64("size", optarg, 0, 1, 1ull << 40,
				      &o->size_mb);
	case 'b': return wl_parse_u64("block", optarg, 1, 512, 64 << 20,
				      &o->bs);
	case 'r': return wl_parse_u64("random", optarg, 0, 0, 1ull << 40,
				      &o->rand_ops);
	case 'T': return wl_parse_double("time", optarg, 0.01, 1e6,
					 &o->phase_time);
	case 'P': return parse_phases(optarg, &o->phases);
	case 'D':
		o->direct = 1;
		return 0;
	case 'S':
		o->sync = 1;
		return 0;
	case 'x':
		o->text = 1;
		return 0;
	case 'C':
		o->drop_cache = 1;
		return 0;
	case 'F':
		o->region_flush = 1;
		return 0;
	case 'j':
		o->json = optarg;
		return 0;
	default:
		usage(stderr);
		return -1;
	}
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "disk", 1, NULL, 'd' }, { "dir", 1, NULL, 'd' },
		{ "threads", 1, NULL, 't' }, { "size", 1, NULL, 's' },
		{ "block", 1, NULL, 'b' }, { "random", 1, NULL, 'r' },
		{ "phases", 1, NULL, 'P' }, { "direct", 0, NULL, 'D' },
		{ "time", 1, NULL, 'T' },
		{ "sync", 0, NULL, 'S' }, { "text", 0, NULL, 'x' },
		{ "json", 1, NULL, 'j' }, { "drop-cache", 0, NULL, 'C' },
		{ "region-flush", 0, NULL, 'F' },
		WL_COMMON_OPTIONS,
	};

	return wl_getopt(argc, argv, "d:t:s:b:r:T:o:h", lo, &o->cm, usage,
			 parse_opt, o);
}

static int validate(struct opts *o, int argc, char **argv)
{
	uint64_t per;

	if (optind < argc) {
		fprintf(stderr, "unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!o->disk) {
		fprintf(stderr, "missing --disk (a block device, file or "
			"directory)\n");
		return -1;
	}
	if (o->cm.id && (!*o->cm.id || strpbrk(o->cm.id, " \t\n"))) {
		fprintf(stderr, "invalid --id '%s': must be one word\n",
			o->cm.id);
		return -1;
	}
	if (o->direct && o->bs % 512) {
		fprintf(stderr, "invalid value '%llu' for --block: --direct "
			"needs a multiple of 512\n", (unsigned long long)o->bs);
		return -1;
	}
	per = (o->size_mb << 20) / o->threads / o->bs * o->bs;
	if (per < o->bs) {
		fprintf(stderr, "invalid value '%llu' for --size: less than "
			"one block per thread\n",
			(unsigned long long)o->size_mb);
		return -1;
	}
	return 0;
}

static int emit(struct result_set *rs, const struct opts *o)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *f = stdout;
	int rc = 0;

	if (!o->text)
		return wl_output_json(rs, o->cm.out);
	if (o->json && wl_output_json(rs, o->json))
		rc = -1;
	sb_init(&sb);
	tiotext_format(&sb, rs, rs->kernel);
	if (o->cm.out && strcmp(o->cm.out, "-") != 0)
		f = fopen(o->cm.out, "w");
	if (!f || fwrite(sb.buf, 1, sb.len, f) != sb.len ||
	    (f == stdout ? fflush(f) != 0 : fclose(f) != 0)) {
		fprintf(stderr, "cannot write '%s'\n",
			o->cm.out ? o->cm.out : "-");
		rc = -1;
	}
	sb_release(&sb);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = { .threads = 8, .size_mb = 64, .bs = 4096,
			  .rand_ops = 4000, .phases = 0xf,
			  .cm = WL_COMMON_INIT };
	struct result_set rs;
	struct ioplan plan = { NULL, 0 };
	struct worker *ws;
	char err[512];
	unsigned i;
	uint64_t t0 = wl_now_ns();
	int rc;

	if (parse_args(argc, argv, &o) || validate(&o, argc, argv))
		return 1;
	wl_run_begin(&rs, o.cm.id, "tiotest");
	if (!devstat_set_init(&o.dev, o.disk))
		fprintf(stderr, "tiotest: no block device behind '%s': "
			"no device counters\n", o.disk);
	ws = calloc(o.threads, sizeof(*ws));
	if (!ws)
		abort();
	if (iofile_plan(&plan, o.disk, "tiotest", o.threads,
			(o.size_mb << 20) / o.threads / o.bs * o.bs, 0,
			err, sizeof(err)))
		wl_fail("%s", err);
	else if (setup_workers(ws, &plan, &o) == 0)
		run_all(ws, &o, &rs, step_done(&rs, "setup", NULL, t0));
	t0 = wl_now_ns();
	for (i = 0; i < o.threads; i++)
		iofile_slot_close(&ws[i].io);
	free(ws);
	iofile_cleanup(&plan);
	step_done(&rs, "cleanup", NULL, t0);
	rc = emit(&rs, &o);
	wl_run_end("tiotest", 1);
	result_set_release(&rs);
	return rc ? 1 : wl_exit_code();
}
