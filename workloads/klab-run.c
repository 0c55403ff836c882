// SPDX-License-Identifier: MIT
/*
 * klab-run: run one suite (workloads/suites/NAME.suite, docs/SUITES.md) on
 * the rig's disks and write DIR/results.json, one klab-results/1 document
 * with the suite's name, plus the raw outputs under DIR/raw/ and one
 * document per repetition (DIR/rep-N.json).  The warm-up runs first and is
 * discarded; each repetition starts the background load (if any), waits
 * its warm-up, runs the measured workload and stops the load.  results.json
 * holds, per metric, the mean over the completed repetitions (the partial
 * numbers of a stopped one when none completed).  A suite that needs a
 * file system, or more space than the first disk has (its filesystem and
 * disk_mb keys), is refused before anything runs.  A background load that
 * ends early fails the repetition with the end of its own output.
 *
 * SIGTERM/SIGINT stop the running step (it writes what it measured), then
 * results.json is written marked incomplete.  Exit 0 complete, 1 error,
 * 2 interrupted.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "lib/results.h"
#include "workloads/child.h"
#include "workloads/cpuusage.h"
#include "workloads/devstat.h"
#include "workloads/driver.h"
#include "workloads/iofile.h"
#include "workloads/qattr.h"
#include "workloads/runctl.h"
#include "workloads/suite.h"
#include "workloads/wlcli.h"

/* The lock and old values of a suite's vm settings, one per machine
 * (workloads/qattr.h): on /run, a tmpfs on Debian and in the rig. */
#define VM_JOURNAL "/run/klab-run.vm"

struct opts {
	const char *suite, *disks, *out, *suites_dir, *id;
	double scale;
	unsigned reps;
};

struct plan {
	struct suite s;
	char *workload, *warmup, *background;
	double bg_warmup, timeout, disk_mb;
	char bindir[4096], rawdir[4096], first[4096], id[256];
	int first_is_dir;
	struct devstat_set dev;	/* the disks behind --disks, maybe none */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: klab-run SUITE --disks D1[,D2...] --out DIR [options]\n"
		"  -d, --disks LIST      block devices, files or directories\n"
		"  -o, --out DIR         results.json and raw/ go here\n"
		"  -s, --scale F         multiply sizes and times (1.0)\n"
		"  -S, --suites-dir DIR  where SUITE.suite lives\n"
		"  -r, --repetitions N   override the suite's repetitions\n"
		"      --id KERNEL       identifier (default: uname -r)\n");
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "disks", 1, NULL, 'd' }, { "out", 1, NULL, 'o' },
		{ "scale", 1, NULL, 's' }, { "suites-dir", 1, NULL, 'S' },
		{ "repetitions", 1, NULL, 'r' }, { "id", 1, NULL, 'i' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c, rc = 0;

	while (!rc) {
		c = getopt_long(argc, argv, "d:o:s:S:r:h", lo, NULL);
		if (c == -1)
			break;
		switch (c) {
		case 'd':
			o->disks = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 's':
			rc = wl_parse_double("scale", optarg, SUITE_SCALE_MIN,
					     SUITE_SCALE_MAX, &o->scale);
			break;
		case 'S':
			o->suites_dir = optarg;
			break;
		case 'r':
			rc = wl_parse_uint("repetitions", optarg, 1, 1000,
					   &o->reps);
			break;
		case 'i':
			o->id = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (rc)
		return -1;
	if (optind + 1 != argc) {
		fprintf(stderr, optind < argc ? "one SUITE expected\n"
					      : "missing SUITE\n");
		return -1;
	}
	o->suite = argv[optind];
	if (!o->disks || !*o->disks || !o->out) {
		fprintf(stderr, "missing --%s\n", !o->out ? "out" : "disks");
		return -1;
	}
	return 0;
}

/* Every disk must exist, or be a file to create in an existing directory. */
static int check_disks(const char *disks, char *first, size_t len,
		       int *first_dir)
{
	char path[4096], dir[4096];
	struct stat st;
	int i;

	for (i = 0; *disks; i++) {
		size_t n = strcspn(disks, ",");

		snprintf(path, sizeof(path), "%.*s", (int)n, disks);
		disks += n + (disks[n] == ',');
		if (!n) {
			fprintf(stderr, "empty entry in --disks\n");
			return -1;
		}
		snprintf(dir, sizeof(dir), "%s", path);
		if (stat(path, &st) && stat(dirname(dir), &st)) {
			fprintf(stderr, "disk '%s' does not exist\n", path);
			return -1;
		}
		if (i == 0) {
			snprintf(first, len, "%s", path);
			*first_dir = stat(path, &st) == 0 &&
				     S_ISDIR(st.st_mode);
		}
	}
	return 0;
}

static void find_bindir(char *buf, size_t len, const char *argv0)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = 0;
	} else if (strchr(argv0, '/')) {
		snprintf(exe, sizeof(exe), "%s", argv0);
	} else {
		buf[0] = 0;
		return;
	}
	snprintf(buf, len, "%s", dirname(exe));
}

/* A number, or a sum "A + B" (disk_mb adds up what a suite writes). */
static double expand_num(const char *s, const struct suite_vars *v,
			 const char *key, char *err, size_t errlen)
{
	char *x = suite_expand(s, v, err, errlen), *p, *end;
	double d = 0, t;

	if (!x)
		return -1;
	for (p = x;; p = end + 1) {
		t = strtod(p, &end);
		while (*end == ' ')
			end++;
		if (end == p || t < 0 || (*end && *end != '+')) {
			snprintf(err, errlen, "invalid %s '%s' in suite", key,
				 s);
			d = -1;
			break;
		}
		d += t;
		if (!*end)
			break;
	}
	free(x);
	return d;
}

/* The vm key's values, {N} scaled, in place: plain integers. */
static int vm_expand(struct suite *s, const struct suite_vars *v, char *err,
		     size_t errlen)
{
	struct suite_qattr *a;
	unsigned i;
	char *x;

	for (i = 0; i < s->nvm; i++) {
		a = &s->vm[i];
		x = suite_expand(a->value, v, err, errlen);
		if (!x)
			return -1;
		if (strlen(x) >= sizeof(a->value)) {
			snprintf(err, errlen, "vm: %s=%s is too large at this "
				 "scale (%s)", a->name, a->value, x);
			free(x);
			return -1;
		}
		memcpy(a->value, x, strlen(x) + 1);
		free(x);
	}
	return 0;
}

static int plan_expand(struct plan *p, const struct opts *o, char *err,
		       size_t errlen)
{
	struct suite_vars v = { o->scale, p->first, o->disks, p->id,
				cpu_count() };

	p->workload = suite_expand(p->s.workload, &v, err, errlen);
	if (!p->workload)
		return -1;
	if (p->s.warmup) {
		p->warmup = suite_expand(p->s.warmup, &v, err, errlen);
		if (!p->warmup)
			return -1;
	}
	if (p->s.background) {
		p->background = suite_expand(p->s.background, &v, err, errlen);
		if (!p->background)
			return -1;
	}
	if (vm_expand(&p->s, &v, err, errlen))
		return -1;
	p->bg_warmup = expand_num(p->s.background_warmup, &v,
				  "background_warmup", err, errlen);
	p->timeout = expand_num(p->s.timeout, &v, "timeout", err, errlen);
	if (p->s.disk_mb && p->timeout >= 0)
		p->disk_mb = expand_num(p->s.disk_mb, &v, "disk_mb", err,
					errlen);
	return p->bg_warmup < 0 || p->timeout < 0 || p->disk_mb < 0 ? -1 : 0;
}

static int plan_init(struct plan *p, const struct opts *o, const char *argv0,
		     char *err, size_t errlen)
{
	char share[4096], tree[4096], *path;
	const char *dirs[6];
	int n = 0;

	find_bindir(p->bindir, sizeof(p->bindir), argv0);
	snprintf(share, sizeof(share), "%s/../share/klab/suites", p->bindir);
	snprintf(tree, sizeof(tree), "%s/../../workloads/suites", p->bindir);
	if (o->suites_dir)
		dirs[n++] = o->suites_dir;
	if (getenv("KLAB_SUITES"))
		dirs[n++] = getenv("KLAB_SUITES");
	if (p->bindir[0]) {
		dirs[n++] = share;
		dirs[n++] = tree;
	}
	dirs[n++] = "workloads/suites";
	dirs[n] = NULL;
	path = suite_find(o->suite, dirs, err, errlen);
	if (!path)
		return -1;
	n = suite_load(&p->s, path, err, errlen);
	free(path);
	if (n)
		return -1;
	if (o->reps)
		p->s.repetitions = o->reps;
	return plan_expand(p, o, err, errlen);
}

static void plan_release(struct plan *p)
{
	suite_release(&p->s);
	free(p->workload);
	free(p->warmup);
	free(p->background);
}

/*
 * The MiB a suite can use on path: a directory's free space, a block
 * device's size, a file's size plus the free space beside it; -1 when it
 * cannot be told.
 */
static double disk_space_mb(const char *path)
{
	char dir[4096];
	struct statvfs vs;
	struct stat st;
	uint64_t bytes = 0;
	int fd, have = stat(path, &st) == 0;

	if (have && S_ISBLK(st.st_mode)) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes)) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
		return (double)bytes / (1024.0 * 1024.0);
	}
	snprintf(dir, sizeof(dir), "%s", path);
	if (statvfs(have && S_ISDIR(st.st_mode) ? path : dirname(dir), &vs))
		return -1;
	bytes = (uint64_t)vs.f_bavail * vs.f_frsize;
	if (have && S_ISREG(st.st_mode))
		bytes += (uint64_t)st.st_size;
	return (double)bytes / (1024.0 * 1024.0);
}

/*
 * Refuse at once what cannot run: a suite that needs a file system on a
 * block device (the agent formats and mounts it), or a first disk
 * smaller than the suite's disk_mb.  0, or -1 with the reason in err.
 */
static int plan_check_disk(const struct plan *p, char *err, size_t errlen)
{
	double has = disk_space_mb(p->first);

	if (p->s.filesystem && !p->first_is_dir) {
		snprintf(err, errlen, "suite '%s' needs a file system (%s): "
			 "disk '%.300s' is not a directory (format and mount "
			 "it, give the mount point)", p->s.name,
			 p->s.filesystem, p->first);
		return -1;
	}
	if (p->disk_mb <= 0 || has < 0 || has >= p->disk_mb)
		return 0;
	snprintf(err, errlen, "disk '%.300s' too small for suite '%s' (%s): "
		 "needs %.0f MiB, has %.0f MiB", p->first, p->s.name,
		 p->s.description ? p->s.description : p->s.name, p->disk_mb,
		 has);
	return -1;
}

static int make_dirs(const char *out, char *rawdir, size_t len)
{
	if (mkdir(out, 0755) && errno != EEXIST) {
		fprintf(stderr, "cannot create '%s': %s\n", out,
			strerror(errno));
		return -1;
	}
	snprintf(rawdir, len, "%s/raw", out);
	if (mkdir(rawdir, 0755) && errno != EEXIST) {
		fprintf(stderr, "cannot create '%s': %s\n", rawdir,
			strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The device counters of the whole measured step, as "<family>.dev_*"
 * (family: the first part of its first metric), unless the workload
 * recorded its own per phase (tiotest does).
 */
static void dev_report(struct result_set *rs, const struct devstat *d0,
		       const struct devstat_set *dev)
{
	struct devstat d1;
	char family[64];
	size_t i, n;

	if (!rs->n || devstat_set_read(dev, &d1))
		return;
	for (i = 0; i < rs->n; i++)
		if (strstr(rs->v[i].metric, ".dev_reads"))
			return;
	n = strcspn(rs->v[0].metric, ".");
	snprintf(family, sizeof(family), "%.*s", (int)n, rs->v[0].metric);
	devstat_delta(d0, &d1, &d1);
	devstat_report(rs, family, &d1);
}

/*
 * The background load of repetition rep ended on its own: the reason with
 * the end of its output (all of it, up to DRIVER_TAIL_CAP, on stderr).
 */
static void bg_ended(const struct plan *p, const struct driver_env *env,
		     const struct child *bg, const char *tag, const char *when,
		     char *err, size_t errlen)
{
	char st[128], path[4096], big[DRIVER_TAIL_CAP], tail[DRIVER_TAIL_MSG];

	child_status_str(bg->status, st, sizeof(st));
	snprintf(path, sizeof(path), "%s/%s.err", env->rawdir, tag);
	if (driver_tail(path, big, sizeof(big), 0))
		fprintf(stderr, "klab-run: background load failed, the end "
			"of '%s':\n%s\n", path, big);
	driver_tail(path, tail, sizeof(tail), 1);
	snprintf(err, errlen, "background load '%s' ended %s (%s)%s%s",
		 p->background, when, st, tail[0] ? ": " : "", tail);
}

/* A step of klab-run's own from t0 to now (lib/results.h); now. */
static double step_done(struct result_set *rs, const char *name, double t0)
{
	double now = wl_now_ns() / 1e9;

	result_set_step_add(rs, name, 0, now - t0);
	return now;
}

/* The workload's step from t0: its own steps as they are, when it named
 * them, and what they leave of its time (start, exit, parsing). */
static void step_workload(struct result_set *rs, size_t first, double t0)
{
	double now = wl_now_ns() / 1e9, own = 0;
	size_t i;

	for (i = first; i < rs->nsteps; i++)
		own += rs->steps[i].secs;
	result_set_step_add(rs, first < rs->nsteps ? "workload.rest" :
			    "workload", 0, now - t0 - own);
}

static int run_rep(const struct plan *p, const struct driver_env *env,
		   unsigned rep, struct result_set *rs, char *err,
		   size_t errlen)
{
	struct child bg = { 0, 0, 0 };
	struct devstat d0;
	char tag[64], bgtag[64], cwd[4096];
	double t = wl_now_ns() / 1e9;
	size_t first;
	int rc = 0, dev_ok;

	if (p->background) {
		snprintf(bgtag, sizeof(bgtag), "background-%u", rep);
		if (driver_start_background(p->background, env, bgtag, &bg,
					    cwd, sizeof(cwd), err, errlen))
			return -1;
		if (wl_sleep(p->bg_warmup, 0, 0)) {
			snprintf(err, errlen, "interrupted");
			rc = -1;
		}
		t = step_done(rs, "bg_start", t);
	}
	if (!rc && p->background && child_poll(&bg)) {
		bg_ended(p, env, &bg, bgtag, "before the workload started",
			 err, errlen);
		rc = -1;
	}
	if (!rc) {
		snprintf(tag, sizeof(tag), "run-%u", rep);
		dev_ok = p->dev.n && devstat_set_read(&p->dev, &d0) == 0;
		first = rs->nsteps;
		rc = driver_run(p->workload, env, tag, rs, err, errlen);
		step_workload(rs, first, t);
		t = wl_now_ns() / 1e9;
		if (dev_ok)
			dev_report(rs, &d0, &p->dev);
		/* a workload measured without its load is no measurement */
		if (!rc && p->background && child_poll(&bg)) {
			bg_ended(p, env, &bg, bgtag, "during the workload", err,
				 errlen);
			rc = -1;
		}
	}
	if (p->background) {
		child_stop(&bg, 10);
		if (cwd[0])
			iofile_rmtree(cwd);
		step_done(rs, "bg_stop", t);
	}
	return rc;
}

/* What a repetition adds to a metric's sum: a rate its reciprocal (a rate
 * of 0 adds DBL_MAX, finite, so result_set_add keeps it: agg_mean then
 * makes the mean 0), anything else its value. */
static double agg_term(const struct result *r)
{
	if (!result_is_rate(r->unit, r->dir))
		return r->value;
	return r->value > 0 ? 1 / r->value : DBL_MAX;
}

/* sum += rep, counting how many repetitions gave each metric; a rate adds
 * its reciprocal (agg_mean makes the harmonic mean of it). */
static void agg_add(struct result_set *sum, unsigned **cnt,
		    const struct result_set *rep)
{
	size_t i, j;

	for (i = 0; i < rep->n; i++) {
		const struct result *r = &rep->v[i];

		for (j = 0; j < sum->n; j++)
			if (!strcmp(sum->v[j].metric, r->metric) &&
			    !strcmp(sum->v[j].kernel ? sum->v[j].kernel : "",
				    r->kernel ? r->kernel : ""))
				break;
		if (j < sum->n) {
			sum->v[j].value += agg_term(r);
			(*cnt)[j]++;
			continue;
		}
		result_set_add(sum, r->kernel, r->metric, r->unit,
			       agg_term(r), r->dir);
		*cnt = realloc(*cnt, sum->n * sizeof(**cnt));
		if (!*cnt)
			abort();
		(*cnt)[sum->n - 1] = 1;
	}
	/* latency histograms add up over the repetitions */
	result_set_hist_take(sum, rep);
}

/* The mean of each metric over the repetitions that gave it: harmonic
 * for rates (a stalled repetition, rate 0, makes it 0), else arithmetic. */
static void agg_mean(struct result_set *sum, const unsigned *cnt)
{
	size_t i;

	for (i = 0; i < sum->n; i++) {
		struct result *r = &sum->v[i];

		if (result_is_rate(r->unit, r->dir))
			r->value = r->value >= DBL_MAX ? 0 :
				   cnt[i] / r->value;
		else
			r->value /= cnt[i];
	}
}

static void write_rep(const struct plan *p, const char *out, unsigned rep,
		      struct result_set *rs)
{
	char path[4096];

	result_set_setstr(&rs->suite, p->s.name);
	if (!rs->kernel)
		result_set_setstr(&rs->kernel, p->id);
	snprintf(path, sizeof(path), "%s/rep-%u.json", out, rep);
	wl_output_json(rs, path);
}

/* Warm-up and repetitions; the first error ends the run, into err. */
static unsigned run_suite(const struct plan *p, const struct driver_env *env,
			  const char *out, struct result_set *sum,
			  unsigned **cnt, char *err, size_t errlen)
{
	struct result_set rs;
	char msg[1024];
	unsigned rep, done = 0;

	if (p->warmup) {
		double t = wl_now_ns() / 1e9;

		result_set_init(&rs);
		if (driver_run(p->warmup, env, "warmup", &rs, msg, sizeof(msg)))
			snprintf(err, errlen, "warm-up: %s", msg);
		result_set_release(&rs);
		step_done(sum, "warmup", t);
	}
	for (rep = 1; rep <= p->s.repetitions && !err[0] && !wl_stopping();
	     rep++) {
		result_set_init(&rs);
		if (run_rep(p, env, rep, &rs, msg, sizeof(msg))) {
			snprintf(err, errlen, "repetition %u of %u: %s", rep,
				 p->s.repetitions, msg);
			rs.incomplete = 1;	/* its rep-N.json says so */
			result_set_setstr(&rs.error, msg);
		} else {
			done++;
		}
		write_rep(p, out, rep, &rs);
		/* a failed repetition's partial numbers only when nothing
		 * better exists: they would bias the mean */
		if (!err[0] || !done)
			agg_add(sum, cnt, &rs);
		result_set_steps_take(sum, &rs, (int)rep);
		result_set_release(&rs);
		fprintf(stderr, "klab-run: %s: repetition %u of %u %s\n",
			p->s.name, rep, p->s.repetitions,
			err[0] ? "failed" : "done");
	}
	return done;
}

/*
 * The queue attributes and vm settings the run had, as results (queue.NAME,
 * iosched/X as queue.iosched.X, vm.NAME): the compare page shows the
 * configuration beside the numbers it produced.
 */
static void add_queue_results(struct result_set *rs, const struct suite *s)
{
	char name[sizeof(s->queue[0].name)], *c;
	unsigned i;

	for (i = 0; i < s->nqueue; i++) {
		snprintf(name, sizeof(name), "%s", s->queue[i].name);
		for (c = strchr(name, '/'); c; c = strchr(name, '/'))
			*c = '.';
		wl_result(rs, "queue", name, "",
			  strtod(s->queue[i].value, NULL), DIR_NONE);
	}
	for (i = 0; i < s->nvm; i++)
		wl_result(rs, "vm", s->vm[i].name, "",
			  strtod(s->vm[i].value, NULL), DIR_NONE);
}

int main(int argc, char **argv)
{
	struct opts o = { .scale = 1.0 };
	struct plan p;
	struct driver_env env;
	struct result_set sum;
	struct qattr_state qa;
	unsigned *cnt = NULL, done;
	char err[1200] = "", path[4096];
	double t0 = wl_now_ns() / 1e9;
	int rc;

	memset(&p, 0, sizeof(p));
	if (parse_args(argc, argv, &o) ||
	    check_disks(o.disks, p.first, sizeof(p.first), &p.first_is_dir))
		return 1;
	if (o.id)
		snprintf(p.id, sizeof(p.id), "%s", o.id);
	else
		wl_kernel_id(p.id, sizeof(p.id));
	if (plan_init(&p, &o, argv[0], err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		plan_release(&p);
		return 1;
	}
	if (make_dirs(o.out, p.rawdir, sizeof(p.rawdir))) {
		plan_release(&p);
		return 1;
	}
	if (!devstat_set_init(&p.dev, o.disks))
		fprintf(stderr, "klab-run: no block device behind '%s' "
			"(tmpfs, overlayfs?): no device counters\n", o.disks);
	wl_signals_install();
	env = (struct driver_env){ p.bindir[0] ? p.bindir : NULL, p.rawdir,
				   p.first_is_dir ? p.first : NULL, p.id,
				   p.timeout };
	result_set_init(&sum);
	done = 0;
	if (plan_check_disk(&p, err, sizeof(err)) == 0 &&
	    qattr_apply(&qa, &p.s, &p.dev, err, sizeof(err)) == 0 &&
	    qattr_apply_vm(&qa, &p.s, "/proc/sys/vm", VM_JOURNAL, err,
			   sizeof(err)) == 0) {
		step_done(&sum, "suite_setup", t0);
		done = run_suite(&p, &env, o.out, &sum, &cnt, err, sizeof(err));
		qattr_restore(&qa);
	}
	agg_mean(&sum, cnt);
	add_queue_results(&sum, &p.s);
	result_set_setstr(&sum.kernel, p.id);
	result_set_setstr(&sum.suite, p.s.name);
	result_set_setstr(&sum.format, "klab-run");
	sum.incomplete = done < p.s.repetitions;
	if (err[0])
		result_set_setstr(&sum.error, err);
	snprintf(path, sizeof(path), "%s/results.json", o.out);
	rc = wl_output_json(&sum, path);
	fprintf(stderr, "klab-run: %s: %u of %u repetitions, %zu metrics in "
		"%s%s%s\n", p.s.name, done, p.s.repetitions, sum.n, path,
		err[0] ? "; error: " : "", err);
	result_set_release(&sum);
	free(cnt);
	plan_release(&p);
	if (rc)
		return 1;
	return wl_stop == WL_STOP_SIGNAL ? 2 : err[0] ? 1 : 0;
}
