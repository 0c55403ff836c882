/* SPDX-License-Identifier: MIT */
/*
 * klab-agent: the program that runs as init on a rig.  It registers with
 * klabd, long-polls for jobs, kexecs into each job's kernel, runs the suite
 * with klab-run, and uploads the results (docs/AGENT.md is the protocol).
 *
 * This header is shared by the agent's files: the configuration (the only
 * mutable state the agent keeps), the pure parsers the unit tests exercise
 * (kernel command line, scheduler line, job document), and one function
 * group per file: sysinfo.c, http.c, proc.c, kexec.c, job.c, upload.c
 * (cache.c has its own header, cache.h).
 */
#ifndef KLAB_AGENT_H
#define KLAB_AGENT_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/strbuf.h"

struct json_t;

struct agent_config {
	char *url;		/* klabd's base URL, no trailing slash */
	char *rig;
	char *token;
	char *workdir;		/* downloads and job directories */
	char *klab_run;		/* the suite runner */
	char *kexec;		/* the kexec-tools binary */
	char *disks;		/* --disks: comma list replacing discovery */
	char *cmdline_file;	/* /proc/cmdline unless --cmdline-file */
	char *sysroot;		/* prefix for /sys and /proc ("" normally) */
	char *cache_dir;	/* boot-file cache (cache.h), NULL: none */
	unsigned long long cache_max;	/* its limit in bytes, 0: auto */
	int once;		/* handle one job, then exit */
	int no_kexec;		/* run every job on the running kernel */
	int init;		/* supervise and reap like PID 1 */
	int poll_wait;		/* seconds of one long poll */
	int backoff_max;	/* cap of the retry backoff, seconds */
	long boot_job;		/* klab.job of this boot, 0 on a cold boot */
	char *boot_release;	/* klab.release of this boot, or NULL */
	/* the kernel's uptime when the agent started and when klabd took
	 * its registration (0: not read): the steps of a job's kexec boot */
	double uptime_start, uptime_checkin;
};

/* Log one line to stderr: "2025-01-31T12:00:00.123Z klab-agent: ...". */
void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Sleep for the n-th retry (1, 2, 4, ... capped at cfg->backoff_max s). */
void agent_backoff(const struct agent_config *cfg, unsigned attempt);

/* ---- cmdline.c: the kernel command line (pure) ---- */

struct agent_cmdline {
	char *url, *rig, *token;	/* klab.url= klab.rig= klab.token= */
	long job;			/* klab.job=, 0 when absent */
	char *release;			/* klab.release=, or NULL */
};

/*
 * Parse a kernel command line (words split by blanks, "..." groups, as
 * the kernel does).  Fills out with copies (agent_cmdline_release frees
 * them).  Returns 0, or -1 with a message in err ("invalid klab.job
 * 'x'"), out left empty.
 */
int agent_cmdline_parse(const char *text, struct agent_cmdline *out,
			char *err, size_t errlen);
void agent_cmdline_release(struct agent_cmdline *c);
/*
 * Append to sb the command line for a job's kernel: base with every
 * klab.url/rig/token/job/release word removed, then those five set to
 * the given values.
 */
void agent_cmdline_for_job(struct strbuf *sb, const char *base,
			   const struct agent_config *cfg, long job,
			   const char *release);

/* ---- sysinfo.c: what the rig registers with ---- */

#define SYSINFO_NAME_LEN 64
#define SYSINFO_CACHE_SERIAL "klab-cache"	/* never a test disk */
#define SYSINFO_MAX_SCHED 8

struct disk_info {
	char name[256];		/* "sda", or the path of a file disk */
	unsigned long long size_bytes;
	char model[SYSINFO_NAME_LEN];
	char sched[SYSINFO_NAME_LEN];	/* current scheduler, "" if none */
	char scheds[SYSINFO_MAX_SCHED][SYSINFO_NAME_LEN];
	size_t nsched;
};

struct sysinfo {
	char release[65];	/* uname -r */
	long cpus;
	long memory_mb;
	struct disk_info *disks;
	size_t ndisks;
};

/*
 * Parse a /sys/block/DEV/queue/scheduler line ("[mq-deadline] kyber
 * none"): the bracketed name into d->sched, every name into d->scheds.
 * Returns 0, or -1 on a malformed line (two current entries, unbalanced
 * brackets, no names, too many or too long names).
 */
int sysinfo_parse_scheduler(const char *line, struct disk_info *d);
/*
 * Collect the rig's facts below root ("" for the real /proc and /sys):
 * disks from root/sys/block (devices only, not loop or ram, nor the
 * boot-file cache disk whose serial is "klab-cache"), or from the
 * comma list override (block devices "/dev/sdb" or plain files).
 * Returns 0, or -1 with err filled; release with sysinfo_release.
 */
int sysinfo_collect(const char *root, const char *override,
		    struct sysinfo *si, char *err, size_t errlen);
void sysinfo_release(struct sysinfo *si);
/* Look up one disk ("/dev/sda", "sda" or a file path) below root. */
int sysinfo_disk(const char *root, const char *spec, struct disk_info *d,
		 char *err, size_t errlen);
/* The register body of docs/AGENT.md (new reference). */
struct json_t *sysinfo_to_json(const struct sysinfo *si, const char *rig,
			       long job);

/* ---- jobspec.c: the job document (pure) ---- */

struct job {
	long id;
	char *kernel;		/* identifier, "6.1.192" */
	char *release;		/* expected uname -r */
	char *kernel_url, *kernel_sha256;
	char *initrd_url, *initrd_sha256;	/* NULL: no initramfs */
	char *cmdline;		/* NULL: reuse this boot's command line */
	char *suite, *suite_text;
	char *scheduler;	/* NULL: leave the disks as they are */
	double scale;
	char **disks;		/* NULL-terminated, may be empty */
	long timeout;		/* seconds for the suite */
};

/*
 * Parse the "job" object of a /api/agent/next answer.  Returns 0, or -1
 * with err naming the member at fault; job is left empty on error.
 */
int job_parse(const struct json_t *obj, struct job *job, char *err,
	      size_t errlen);
void job_release(struct job *job);
/* Is s a safe file-name part (suite names, hashes): [A-Za-z0-9._-]+? */
int job_name_ok(const char *s);
/*
 * A raw output as a JSON string: at most cap bytes of data (a note says
 * when it was cut), repaired by the one UTF-8 rule (lib/utf8.h: U+FFFD
 * for each byte that is not part of a character, and for each NUL).
 */
struct json_t *job_raw_text(const char *data, size_t len, size_t cap);

/* ---- http.c: klabd over libcurl ---- */

/*
 * One request to cfg->url + path with the Bearer token; body (may be
 * NULL) is sent as JSON.  *status gets the HTTP status, *reply (if not
 * NULL) the parsed JSON answer or NULL when it had none.  Returns 0 when
 * an answer came (any status), -1 on a transport error (err filled).
 */
int http_json(const struct agent_config *cfg, const char *method,
	      const char *path, struct json_t *body, long timeout,
	      long *status, struct json_t **reply, char *err, size_t errlen);
/*
 * http_json retried with backoff on transport errors, 5xx, 408 and 429,
 * at most attempts times (0: until an answer of another kind).
 * Returns as http_json for the last attempt.
 */
int http_json_retry(const struct agent_config *cfg, const char *method,
		    const char *path, struct json_t *body, long timeout,
		    unsigned attempts, long *status, struct json_t **reply,
		    char *err, size_t errlen);
/*
 * Download cfg->url + path to dest, checking its sha256 (lowercase hex);
 * tries attempts times.  Returns 0, or -1 with err filled and dest gone.
 */
int http_download(const struct agent_config *cfg, const char *path,
		  const char *dest, const char *sha256, unsigned attempts,
		  char *err, size_t errlen);
/*
 * A boot file (what: "kernel", "initrd") by its sha256: a verified entry
 * of cfg->cache_dir is used as it is; else it is downloaded into the
 * cache (a corrupt entry is replaced), which is then trimmed to its
 * limit, never evicting the keys of keep (NULL-terminated); without a
 * cache, or when the cache cannot take it, into cfg->workdir.  The path
 * is appended to dest, the bytes received added to *bytes.  0, or -1
 * with err filled.
 */
int http_download_cached(const struct agent_config *cfg, const char *what,
			 const char *path, const char *sha256,
			 const char *const *keep, unsigned attempts,
			 struct strbuf *dest, unsigned long long *bytes,
			 char *err, size_t errlen);
/* A JSON reply's "error" member, or a short description of status. */
void http_reply_error(long status, const struct json_t *reply, char *err,
		      size_t errlen);

/* ---- proc.c: child processes ---- */

/*
 * Run argv (argv[0] looked up in PATH) through lib/proc.c with stdout
 * and stderr to the file out (truncated), stopping its process group
 * after timeout seconds (0: none; SIGTERM, SIGKILL 30 s later).  Returns
 * the exit status (128+N for signal N), or -1 when it could not start or
 * timed out, with err filled.
 */
int agent_run(char *const argv[], const char *out, long timeout, char *err,
	      size_t errlen);
/*
 * Become a supervisor that reaps every child (PID 1, or a subreaper with
 * --init) and runs the agent in a forked child, restarting it after a
 * pause when it dies.  Returns 1 in that child.  In the supervisor it
 * returns only when forever is 0 and the child exited: 0, with the
 * child's exit code in *code.
 */
int proc_supervise(int forever, int *code);

/* ---- kexec.c ---- */

/* kexec -l kernel [--initrd=initrd] --append=append.  0 or -1 + err. */
int kexec_load(const struct agent_config *cfg, const char *kernel,
	       const char *initrd, const char *append, char *err,
	       size_t errlen);
/*
 * syncfs() every mounted file system listed in mounts (a /proc/mounts
 * file) but pseudo ones: not the raw page cache of unmounted disks.
 * The number synced, or -1 when mounts cannot be read.
 */
int kexec_sync_mounts(const char *mounts);
/* kexec -e: returns only on failure, with err filled. */
int kexec_exec(const struct agent_config *cfg, char *err, size_t errlen);

/* ---- job.c: one job from start to upload ---- */

/* Run job on the running kernel and upload; 0 when klabd took the outcome. */
int job_run(const struct agent_config *cfg, const struct job *job);
/*
 * Job's kernel and initramfs from the boot-file cache or downloaded
 * (http_download_cached; logs the bytes downloaded); paths appended to
 * kernel and initrd.  0, or -1 with err filled.
 */
int job_fetch_boot(const struct agent_config *cfg, const struct job *job,
		   struct strbuf *kernel, struct strbuf *initrd, char *err,
		   size_t errlen);
/* Download, load and kexec into job's kernel; returns only on failure. */
int job_switch(const struct agent_config *cfg, const struct job *job);

/* ---- upload.c: a job's results or failure to klabd ---- */

#define JOB_RUN_LOG "klab-run.log"	/* klab-run's output, in the job dir */
#define JOB_RAW_DEPTH 3	/* out/, out/raw/, one more level */

/* POST /api/agent/jobs/ID/fail {"class":..,"error":..,"output":..}. */
int job_fail(const struct agent_config *cfg, long id, const char *cls,
	     const char *error, const char *output);
/* Where the agent's part of a job went, in seconds: the steps it adds
 * around klab-run's own in the upload (docs/AGENT.md). */
struct job_times {
	double kernel;	/* a boot into the job: kernel start to agent start */
	double agent;	/* and agent start to its check-in; 0 0: no boot */
	double prepare;	/* directories, schedulers, suite file, mkfs, mount */
	double run;	/* klab-run, started to ended */
	double finish;	/* unmount */
};

/*
 * Add to doc (results.json, kept by the caller) the raw outputs below
 * out and the log runlog, every out/rep-N.json, the suite text's hash
 * and the agent's steps (t, and the collecting of all this), then POST it
 * until klabd answers (once more without the raw outputs on 413); a
 * refusal is reported with job_fail.  0 when klabd took the outcome, -1
 * otherwise.
 */
int job_upload_results(const struct agent_config *cfg, const struct job *job,
		       struct json_t *doc, const char *out,
		       const char *runlog, const struct job_times *t);

#endif
