// SPDX-License-Identifier: MIT
/*
 * One job on the rig, the two ways it goes: job_switch downloads the
 * job's kernel and initramfs and kexecs into them (the new boot picks the
 * job up again); job_run runs the suite on the running kernel: I/O
 * scheduler on every test disk, the suite text into a file, klab-run
 * with a timeout, then results.json plus the raw outputs uploaded until
 * klabd acknowledges them (upload.c).  Outcomes klabd must hear about
 * that are not results go to /api/agent/jobs/ID/fail with their class
 * (job_fail, upload.c).  See agent.h and docs/AGENT.md.
 */
#include "agent/agent.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/alloc.h"
#include "lib/proc.h"
#include "workloads/suite.h"

#define JOB_OUTPUT_CAP (64L << 10)	/* tail of klab-run's output on fail */
#define JOB_DOWNLOAD_ATTEMPTS 5
#define JOB_ANNOUNCE_ATTEMPTS 5
#define JOB_SUITE_EXT ".suite"

/* mkdir -p for the agent's own directories. */
static int job_mkdirs(const char *path, char *err, size_t errlen)
{
	char buf[1024];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- kexec into the job's kernel ---- */

static int job_fetch(const struct agent_config *cfg, const struct job *job,
		     const char *what, const char *url, const char *sha,
		     struct strbuf *dest, unsigned long long *bytes,
		     char *err, size_t errlen)
{
	const char *keep[] = { job->kernel_sha256, job->initrd_sha256, NULL };

	return http_download_cached(cfg, what, url, sha, keep,
				    JOB_DOWNLOAD_ATTEMPTS, dest, bytes, err,
				    errlen);
}

/* The command line for the next kernel: the job's, else this boot's. */
static void job_append(const struct agent_config *cfg, const struct job *job,
		       struct strbuf *out)
{
	struct strbuf cur = STRBUF_INIT;

	sb_init(&cur);
	if (!job->cmdline && sb_read_file(&cur, cfg->cmdline_file))
		agent_log("cannot read '%s': %s", cfg->cmdline_file,
			  strerror(errno));
	agent_cmdline_for_job(out, job->cmdline ? job->cmdline : cur.buf, cfg,
			      job->id, job->release);
	sb_release(&cur);
}

/* POST /api/agent/jobs/ID/kexec; 0 once klabd acknowledged it. */
static int job_announce(const struct agent_config *cfg, long id, char *err,
			size_t errlen)
{
	json_t *reply = NULL;
	char path[64];
	long status = 0;
	int rc;

	snprintf(path, sizeof(path), "/api/agent/jobs/%ld/kexec", id);
	rc = http_json_retry(cfg, "POST", path, NULL, 30,
			     JOB_ANNOUNCE_ATTEMPTS, &status, &reply, err,
			     errlen);
	if (rc == 0 && (status < 200 || status > 299)) {
		http_reply_error(status, reply, err, errlen);
		rc = -1;
	}
	json_decref(reply);
	return rc;
}

int job_fetch_boot(const struct agent_config *cfg, const struct job *job,
		   struct strbuf *kernel, struct strbuf *initrd, char *err,
		   size_t errlen)
{
	unsigned long long bytes = 0;

	if (job_mkdirs(cfg->workdir, err, errlen) ||
	    job_fetch(cfg, job, "kernel", job->kernel_url, job->kernel_sha256,
		      kernel, &bytes, err, errlen))
		return -1;
	if (job->initrd_url &&
	    job_fetch(cfg, job, "initrd", job->initrd_url, job->initrd_sha256,
		      initrd, &bytes, err, errlen))
		return -1;
	agent_log("job %ld: kernel and initramfs ready, sha256 checked, "
		  "downloaded %llu bytes", job->id, bytes);
	return 0;
}

int job_switch(const struct agent_config *cfg, const struct job *job)
{
	struct strbuf kernel = STRBUF_INIT, initrd = STRBUF_INIT;
	struct strbuf append = STRBUF_INIT;
	char err[1024];

	sb_init(&kernel);
	sb_init(&initrd);
	sb_init(&append);
	agent_log("job %ld: kexec into %s (%s)", job->id, job->kernel,
		  job->release);
	if (job_fetch_boot(cfg, job, &kernel, &initrd, err, sizeof(err)))
		goto out_fail;
	job_append(cfg, job, &append);
	agent_log("job %ld: kexec -l %s, command line: %s", job->id,
		  kernel.buf, append.buf);
	if (kexec_load(cfg, kernel.buf, job->initrd_url ? initrd.buf : NULL,
		       append.buf, err, sizeof(err)) ||
	    job_announce(cfg, job->id, err, sizeof(err)))
		goto out_fail;
	agent_log("job %ld: kexec -e", job->id);
	kexec_exec(cfg, err, sizeof(err));
out_fail:
	job_fail(cfg, job->id, "infra", err, NULL);
	sb_release(&kernel);
	sb_release(&initrd);
	sb_release(&append);
	return -1;
}

/* ---- run the suite here ---- */

/* The sysfs scheduler file of /dev/NAME (or of a partition's disk). */
static int job_sched_path(const struct agent_config *cfg, const char *name,
			  struct strbuf *path)
{
	struct stat st;

	sb_addf(path, "%s/sys/block/%s/queue/scheduler", cfg->sysroot, name);
	if (stat(path->buf, &st) == 0)
		return 0;
	sb_reset(path);
	sb_addf(path, "%s/sys/class/block/%s/../queue/scheduler",
		cfg->sysroot, name);
	return stat(path->buf, &st);
}

static int job_write_file(const char *path, const char *text, char *err,
			  size_t errlen)
{
	FILE *f = fopen(path, "we");
	int bad;

	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	bad = fputs(text, f) == EOF;
	bad |= fclose(f) != 0;
	if (bad)
		snprintf(err, errlen, "cannot write '%s': %s", path,
			 strerror(errno));
	return bad ? -1 : 0;
}

/* Set sched on one disk and check it took. */
static int job_set_sched(const struct agent_config *cfg, long id,
			 const char *disk, const char *sched, char *err,
			 size_t errlen)
{
	struct strbuf path = STRBUF_INIT, now = STRBUF_INIT;
	const char *name = strrchr(disk, '/') ? strrchr(disk, '/') + 1 : disk;
	struct disk_info d;
	int rc = -1;

	sb_init(&path);
	sb_init(&now);
	if (strncmp(disk, "/dev/", 5)) {
		agent_log("job %ld: disk '%s' is a file: no scheduler", id,
			  disk);
		rc = 0;
	} else if (job_sched_path(cfg, name, &path)) {
		snprintf(err, errlen, "disk '%s' has no I/O scheduler", disk);
	} else if (job_write_file(path.buf, sched, err, errlen) == 0 &&
		   sb_read_file(&now, path.buf) == 0 &&
		   sysinfo_parse_scheduler(now.buf, &d) == 0) {
		rc = strcmp(d.sched, sched) ? -1 : 0;
		if (rc)
			snprintf(err, errlen, "cannot set scheduler '%s' on "
				 "'%s': it has %s", sched, disk, now.buf);
		else
			agent_log("job %ld: scheduler %s on %s", id, sched,
				  disk);
	} else if (!err[0]) {
		snprintf(err, errlen, "cannot read '%s'", path.buf);
	}
	sb_release(&path);
	sb_release(&now);
	return rc;
}

/* The test disks: --disks, else the job's, else every disk found. */
static int job_disk_list(const struct agent_config *cfg,
			 const struct job *job, struct strbuf *list,
			 char *err, size_t errlen)
{
	struct sysinfo si;
	size_t i;

	if (cfg->disks && *cfg->disks) {
		sb_adds(list, cfg->disks);
		return 0;
	}
	for (i = 0; job->disks[i]; i++)
		sb_addf(list, "%s%s", i ? "," : "", job->disks[i]);
	if (i)
		return 0;
	if (sysinfo_collect(cfg->sysroot, NULL, &si, err, errlen))
		return -1;
	for (i = 0; i < si.ndisks; i++)
		sb_addf(list, "%s/dev/%s", i ? "," : "", si.disks[i].name);
	sysinfo_release(&si);
	if (list->len)
		return 0;
	snprintf(err, errlen, "no disks to test");
	return -1;
}

/* Scheduler on every disk of the comma list. */
static int job_set_scheds(const struct agent_config *cfg,
			  const struct job *job, const char *list, char *err,
			  size_t errlen)
{
	char disk[512];
	const char *p = list;
	size_t n;

	while (job->scheduler && *p) {
		n = strcspn(p, ",");
		snprintf(disk, sizeof(disk), "%.*s", (int)n, p);
		err[0] = '\0';
		if (n && job_set_sched(cfg, job->id, disk, job->scheduler, err,
				       errlen))
			return -1;
		p += n;
		p += *p == ',';
	}
	return 0;
}

struct job_paths {
	char *dir, *suites, *suite, *out, *results, *runlog, *mnt, *fslog;
};

static char *job_path(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static char *job_path(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	sb_init(&sb);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	return sb_detach(&sb, NULL);
}

static void job_paths_init(struct job_paths *p, const struct agent_config *cfg,
			   const struct job *job)
{
	p->dir = job_path("%s/job-%ld", cfg->workdir, job->id);
	p->suites = job_path("%s/suites", p->dir);
	p->suite = job_path("%s/%s%s", p->suites, job->suite, JOB_SUITE_EXT);
	p->out = job_path("%s/out", p->dir);
	p->results = job_path("%s/results.json", p->out);
	p->runlog = job_path("%s/%s", p->dir, JOB_RUN_LOG);
	p->mnt = job_path("%s/mnt", p->dir);
	p->fslog = job_path("%s/mkfs.log", p->dir);
}

static void job_paths_release(struct job_paths *p)
{
	char **const fields[] = { &p->dir, &p->suites, &p->suite, &p->out,
				  &p->results, &p->runlog, &p->mnt,
				  &p->fslog };

	alloc_strs_free(fields, ALLOC_ARRAY_SIZE(fields));
}

/* Remove what an earlier attempt of this job left in dir (not dir). */
static void job_clean_dir(const char *dir, int depth)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);

	sb_init(&path);
	for (e = d ? readdir(d) : NULL; e; e = readdir(d)) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sb_reset(&path);
		sb_addf(&path, "%s/%s", dir, e->d_name);
		if (lstat(path.buf, &st) == 0 && S_ISDIR(st.st_mode) &&
		    depth > 1) {
			job_clean_dir(path.buf, depth - 1);
			rmdir(path.buf);
		} else {
			unlink(path.buf);
		}
	}
	if (d)
		closedir(d);
	sb_release(&path);
}

/* Directories, suite file, schedulers; the disk list into disks. */
static int job_prepare(const struct agent_config *cfg, const struct job *job,
		       const struct job_paths *p, struct strbuf *disks,
		       char *err, size_t errlen)
{
	if (job_mkdirs(p->suites, err, errlen) ||
	    job_mkdirs(p->out, err, errlen))
		return -1;
	job_clean_dir(p->out, JOB_RAW_DEPTH);
	unlink(p->runlog);
	if (job_disk_list(cfg, job, disks, err, errlen) ||
	    job_set_scheds(cfg, job, disks->buf, err, errlen))
		return -1;
	return job_write_file(p->suite, job->suite_text, err, errlen);
}

/* klab-run SUITE ...; its exit status, or -1 with err. */
static int job_klab_run(const struct agent_config *cfg, const struct job *job,
			const struct job_paths *p, const char *disks,
			char *err, size_t errlen)
{
	char scale[32];
	char *argv[] = {
		cfg->klab_run, job->suite, "--suites-dir", p->suites,
		"--disks", (char *)disks, "--out", p->out, "--scale", scale,
		"--id", job->kernel, NULL,
	};
	time_t t0 = time(NULL);
	int rc;

	snprintf(scale, sizeof(scale), "%g", job->scale);
	agent_log("job %ld: running suite %s on %s (scale %s, timeout %ld s)",
		  job->id, job->suite, disks, scale, job->timeout);
	rc = agent_run(argv, p->runlog, job->timeout, err, errlen);
	agent_log("job %ld: klab-run ended after %ld s: %s", job->id,
		  (long)(time(NULL) - t0), rc < 0 ? err : rc ? "failed" : "ok");
	if (rc > 0)
		snprintf(err, errlen, "klab-run %s exited with status %d",
			 job->suite, rc);
	return rc;
}

/* The last JOB_OUTPUT_CAP bytes of the run log, to go with a failure. */
static char *job_log_tail(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	sb_init(&sb);
	if (sb_read_file(&sb, path))
		return NULL;
	s = strdup(sb.len > (size_t)JOB_OUTPUT_CAP ?
		   sb.buf + sb.len - JOB_OUTPUT_CAP : sb.buf);
	sb_release(&sb);
	if (!s)
		abort();
	return s;
}

/* ---- a file system for the suites that need one ---- */

static const char *job_mke2fs(void)
{
	static const char *const where[] = {
		"/sbin/mke2fs", "/usr/sbin/mke2fs", "/bin/mke2fs",
		"/usr/bin/mke2fs",
	};
	size_t i;

	for (i = 0; i < ALLOC_ARRAY_SIZE(where); i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return "mke2fs";
}

/* mke2fs -t FS -F -q DISK; 0, or -1 with err and mke2fs's last words. */
static int job_mkfs(const struct job *job, const struct job_paths *p,
		    const char *fs, const char *disk, char *err,
		    size_t errlen)
{
	char *argv[] = { (char *)job_mke2fs(), "-t", (char *)fs, "-F", "-q",
			 (char *)disk, NULL };
	char why[512] = "", *tail;
	int rc;

	agent_log("job %ld: formatting %s as %s", job->id, disk, fs);
	rc = agent_run(argv, p->fslog, 600, why, sizeof(why));
	if (!rc)
		return 0;
	tail = job_log_tail(p->fslog);
	snprintf(err, errlen, "cannot format disk '%s' as %s: %s%s%.300s",
		 disk, fs, rc < 0 ? why : "mke2fs failed", tail && *tail ?
		 ": " : "", tail ? tail : "");
	free(tail);
	return -1;
}

/*
 * A suite with "filesystem = ext4" gets its first disk, when that is a
 * block device, formatted and mounted on p->mnt, and the mount point
 * first in disks (a directory or file is used as it is: klab-run says
 * what it lacks).  *mounted: unmount with job_fs_release.  0, or -1 with
 * err filled.
 */
static int job_fs_prepare(const struct job *job, const struct job_paths *p,
			  struct strbuf *disks, int *mounted, char *err,
			  size_t errlen)
{
	size_t n = strcspn(disks->buf, ",");
	char first[512], *rest;
	struct suite s;
	struct stat st;
	int rc = -1;

	*mounted = 0;
	if (suite_load(&s, p->suite, err, errlen))
		goto out;
	snprintf(first, sizeof(first), "%.*s", (int)n, disks->buf);
	if (!s.filesystem || stat(first, &st) || !S_ISBLK(st.st_mode)) {
		rc = 0;
		goto out;
	}
	if (job_mkfs(job, p, s.filesystem, first, err, errlen) ||
	    job_mkdirs(p->mnt, err, errlen))
		goto out;
	if (mount(first, p->mnt, s.filesystem, 0, NULL)) {
		snprintf(err, errlen, "cannot mount disk '%s' (%s) on '%s': %s",
			 first, s.filesystem, p->mnt, strerror(errno));
		goto out;
	}
	*mounted = 1;
	agent_log("job %ld: %s mounted on %s (%s)", job->id, first, p->mnt,
		  s.filesystem);
	rest = strdup(disks->buf + n);
	if (!rest)
		abort();
	sb_reset(disks);
	sb_addf(disks, "%s%s", p->mnt, rest);
	free(rest);
	rc = 0;
out:
	suite_release(&s);
	return rc;
}

static void job_fs_release(const struct job *job, const struct job_paths *p,
			   int mounted)
{
	if (!mounted)
		return;
	if (umount2(p->mnt, 0) && umount2(p->mnt, MNT_DETACH))
		agent_log("job %ld: cannot unmount '%s': %s", job->id, p->mnt,
			  strerror(errno));
}

/* Seconds since t0 (proc_now_ms), and t0 moved to now. */
static double job_lap(long long *t0)
{
	long long now = proc_now_ms();
	double secs = (double)(now - *t0) / 1000;

	*t0 = now;
	return secs;
}

int job_run(const struct agent_config *cfg, const struct job *job)
{
	struct strbuf disks = STRBUF_INIT;
	struct job_times times = { 0, 0, 0, 0, 0 };
	struct job_paths p;
	json_error_t jerr;
	json_t *doc = NULL;
	char err[1024] = "", *tail;
	long long t = proc_now_ms();
	int rc, mounted = 0;

	sb_init(&disks);
	job_paths_init(&p, cfg, job);
	if (cfg->boot_job == job->id && cfg->uptime_checkin > 0) {
		/* this boot was the job's kexec */
		times.kernel = cfg->uptime_start;
		times.agent = cfg->uptime_checkin - cfg->uptime_start;
	}
	if (job_prepare(cfg, job, &p, &disks, err, sizeof(err)) ||
	    job_fs_prepare(job, &p, &disks, &mounted, err, sizeof(err))) {
		job_fs_release(job, &p, mounted);
		rc = job_fail(cfg, job->id, "benchmark", err, NULL);
		goto out;
	}
	times.prepare = job_lap(&t);
	rc = job_klab_run(cfg, job, &p, disks.buf, err, sizeof(err));
	times.run = job_lap(&t);
	job_fs_release(job, &p, mounted);
	times.finish = job_lap(&t);
	doc = json_load_file(p.results, 0, &jerr);
	if (json_is_object(doc)) {
		/* klabd marks the job failed when the run did not complete */
		rc = job_upload_results(cfg, job, doc, p.out, p.runlog,
					&times);
		goto out;
	}
	if (rc == 0)
		snprintf(err, sizeof(err), "suite %s wrote no results: %s",
			 job->suite, doc ? "results.json is not an object" :
			 jerr.text);
	tail = job_log_tail(p.runlog);
	rc = job_fail(cfg, job->id, "benchmark", err, tail);
	free(tail);
out:
	json_decref(doc);
	job_paths_release(&p);
	sb_release(&disks);
	return rc;
}
