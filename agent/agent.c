// SPDX-License-Identifier: MIT
/*
 * klab-agent's main loop (docs/AGENT.md): read the settings from the
 * command line and /proc/cmdline, register with klabd (the boot check-in),
 * check that this boot's kernel is the one its job asked for, then
 * long-poll for jobs; a job for another kernel is kexec'd into, a job for
 * this kernel is run here and its results uploaded.  As PID 1 (or with
 * --init) a supervisor process reaps orphans and restarts the agent, and
 * nothing ever exits: errors are logged, waited out and retried.
 */
#include "agent/agent.h"

#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib/alloc.h"

#define AGENT_FATAL_SLEEP 30

void agent_log(const char *fmt, ...)
{
	char line[4096], stamp[32];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	n = snprintf(line, sizeof(line), "%s.%03ldZ klab-agent: ", stamp,
		     ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(line);
	line[n++] = '\n';
	if (write(2, line, (size_t)n) < 0)
		return;
}

void agent_backoff(const struct agent_config *cfg, unsigned attempt)
{
	unsigned s = 1;

	while (--attempt && s < (unsigned)cfg->backoff_max)
		s *= 2;
	if (s > (unsigned)cfg->backoff_max)
		s = (unsigned)cfg->backoff_max;
	sleep(s);
}

static const char usage_text[] =
	"usage: klab-agent [--url URL] [--rig NAME] [--token TOKEN]\n"
	"                  [--once] [--no-kexec] [--init] [--workdir DIR]\n"
	"                  [--disks D1,D2] [--klab-run PATH] [--kexec PATH]\n"
	"                  [--cmdline-file FILE] [--sysroot DIR]\n"
	"                  [--poll-wait S] [--backoff-max S]\n"
	"                  [--cache-dir DIR] [--cache-max MIB]\n"
	"Settings not given come from klab.url=, klab.rig=, klab.token=\n"
	"on the kernel command line (docs/AGENT.md).\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

static int parse_secs(const char *opt, const char *v, int *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > 3600) {
		fprintf(stderr, "klab-agent: invalid value '%s' for --%s\n", v,
			opt);
		return -1;
	}
	*out = (int)n;
	return 0;
}

/* --cache-max MIB: 1 MiB to 1 TiB, in bytes. */
static int parse_mib(const char *v, unsigned long long *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > (1L << 20)) {
		fprintf(stderr, "klab-agent: invalid value '%s' for "
			"--cache-max (MiB, 1 to 1048576)\n", v);
		return -1;
	}
	*out = (unsigned long long)n << 20;
	return 0;
}

static const struct option agent_opts[] = {
	{ "url", required_argument, NULL, 'u' },
	{ "rig", required_argument, NULL, 'r' },
	{ "token", required_argument, NULL, 't' },
	{ "once", no_argument, NULL, '1' },
	{ "no-kexec", no_argument, NULL, 'n' },
	{ "init", no_argument, NULL, 'i' },
	{ "workdir", required_argument, NULL, 'w' },
	{ "disks", required_argument, NULL, 'd' },
	{ "klab-run", required_argument, NULL, 'k' },
	{ "kexec", required_argument, NULL, 'x' },
	{ "cmdline-file", required_argument, NULL, 'c' },
	{ "sysroot", required_argument, NULL, 's' },
	{ "poll-wait", required_argument, NULL, 'p' },
	{ "backoff-max", required_argument, NULL, 'b' },
	{ "cache-dir", required_argument, NULL, 'C' },
	{ "cache-max", required_argument, NULL, 'M' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The string setting option c gives a value, NULL for other options. */
static char **agent_str_option(struct agent_config *cfg, int c)
{
	switch (c) {
	case 'u': return &cfg->url;
	case 'r': return &cfg->rig;
	case 't': return &cfg->token;
	case 'w': return &cfg->workdir;
	case 'd': return &cfg->disks;
	case 'k': return &cfg->klab_run;
	case 'x': return &cfg->kexec;
	case 'c': return &cfg->cmdline_file;
	case 's': return &cfg->sysroot;
	case 'C': return &cfg->cache_dir;
	default: return NULL;
	}
}

/* 0, 1 for --help, -1 on a bad option. */
static int agent_options(int argc, char **argv, struct agent_config *cfg)
{
	char **str;
	int c;

	for (;;) {
		c = getopt_long(argc, argv, "", agent_opts, NULL);
		if (c == -1)
			break;
		str = agent_str_option(cfg, c);
		if (str) {
			alloc_str_set(str, optarg);
			continue;
		}
		switch (c) {
		case '1':
			cfg->once = 1;
			break;
		case 'n':
			cfg->no_kexec = 1;
			break;
		case 'i':
			cfg->init = 1;
			break;
		case 'p':
			if (parse_secs("poll-wait", optarg, &cfg->poll_wait))
				return -1;
			break;
		case 'b':
			if (parse_secs("backoff-max", optarg,
				       &cfg->backoff_max))
				return -1;
			break;
		case 'M':
			if (parse_mib(optarg, &cfg->cache_max))
				return -1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "klab-agent: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	return 0;
}

static void agent_defaults(struct agent_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	alloc_str_set(&cfg->workdir, "/tmp/klab-agent");
	alloc_str_set(&cfg->klab_run, "klab-run");
	alloc_str_set(&cfg->kexec, "kexec");
	alloc_str_set(&cfg->cmdline_file, "/proc/cmdline");
	alloc_str_set(&cfg->sysroot, "");
	cfg->poll_wait = 60;
	cfg->backoff_max = 60;
}

static void agent_config_release(struct agent_config *cfg)
{
	char **const fields[] = { &cfg->url, &cfg->rig, &cfg->token,
				  &cfg->workdir, &cfg->klab_run, &cfg->kexec,
				  &cfg->disks, &cfg->cmdline_file,
				  &cfg->sysroot, &cfg->boot_release,
				  &cfg->cache_dir };

	alloc_strs_free(fields, ALLOC_ARRAY_SIZE(fields));
	memset(cfg, 0, sizeof(*cfg));
}

/* Settings from the kernel command line fill what the options left. */
static int agent_read_cmdline(struct agent_config *cfg, char *err,
			      size_t errlen)
{
	struct strbuf text = STRBUF_INIT;
	struct agent_cmdline c;
	int rc = 0;

	sb_init(&text);
	if (sb_read_file(&text, cfg->cmdline_file)) {
		agent_log("cannot read '%s': %s", cfg->cmdline_file,
			  strerror(errno));
	} else if (agent_cmdline_parse(text.buf, &c, err, errlen)) {
		rc = -1;
	} else {
		if (!cfg->url)
			alloc_str_set(&cfg->url, c.url);
		if (!cfg->rig)
			alloc_str_set(&cfg->rig, c.rig);
		if (!cfg->token)
			alloc_str_set(&cfg->token, c.token);
		cfg->boot_job = c.job;
		alloc_str_set(&cfg->boot_release, c.release);
		agent_cmdline_release(&c);
	}
	sb_release(&text);
	if (rc == 0 && (!cfg->url || !cfg->rig || !cfg->token)) {
		const char *what = !cfg->url ? "url" : !cfg->rig ? "rig" :
				   "token";

		snprintf(err, errlen, "no %s: give --%s or klab.%s= on the "
			 "kernel command line", what, what, what);
		rc = -1;
	}
	if (cfg->url && cfg->url[0] && cfg->url[strlen(cfg->url) - 1] == '/')
		cfg->url[strlen(cfg->url) - 1] = '\0';
	return rc;
}

/* The running kernel's uptime in seconds (/proc/uptime), 0 unread. */
static double agent_uptime(const struct agent_config *cfg)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	double up = 0;

	sb_init(&path);
	sb_init(&text);
	sb_addf(&path, "%s/proc/uptime", cfg->sysroot ? cfg->sysroot : "");
	if (sb_read_file(&text, path.buf) == 0)
		up = strtod(text.buf, NULL);
	sb_release(&path);
	sb_release(&text);
	return up > 0 ? up : 0;
}

/* One registration; 0 when klabd took it, 1 refused, -1 unreachable. */
static int agent_register_once(const struct agent_config *cfg, char *err,
			       size_t errlen)
{
	struct sysinfo si;
	json_t *body, *reply = NULL;
	long status = 0;
	int rc;

	if (sysinfo_collect(cfg->sysroot, cfg->disks, &si, err, errlen))
		return 1;
	body = sysinfo_to_json(&si, cfg->rig, cfg->boot_job);
	rc = http_json(cfg, "POST", "/api/agent/register", body, 30, &status,
		       &reply, err, errlen);
	if (rc == 0 && status >= 200 && status <= 299)
		agent_log("registered as %s with %s: kernel %s, %ld cpus, "
			  "%ld MB, %zu disks, job %ld", cfg->rig, cfg->url,
			  si.release, si.cpus, si.memory_mb, si.ndisks,
			  cfg->boot_job);
	else if (rc == 0)
		http_reply_error(status, reply, err, errlen);
	if (rc == 0 && (status < 200 || status > 299))
		rc = status >= 500 ? -1 : 1;
	json_decref(reply);
	json_decref(body);
	sysinfo_release(&si);
	return rc;
}

/* Register until klabd takes it; as init never give up. 0, or -1. */
static int agent_register(struct agent_config *cfg)
{
	char err[1024];
	unsigned i;
	int rc;

	for (i = 1;; i++) {
		rc = agent_register_once(cfg, err, sizeof(err));
		if (rc == 0) {
			cfg->uptime_checkin = agent_uptime(cfg);
			return 0;
		}
		agent_log("cannot register rig '%s': %s", cfg->rig, err);
		if (rc > 0 && !cfg->init)
			return -1;
		agent_backoff(cfg, rc > 0 ? 32 : i);
	}
}

/* After a kexec: is this the kernel the job asked for? */
static void agent_check_boot(struct agent_config *cfg)
{
	struct utsname u;
	char err[512];

	if (!cfg->boot_job || !cfg->boot_release || uname(&u))
		return;
	if (!strcmp(u.release, cfg->boot_release)) {
		agent_log("job %ld: booted %s as asked", cfg->boot_job,
			  u.release);
		return;
	}
	snprintf(err, sizeof(err), "booted '%s', job wants '%s'", u.release,
		 cfg->boot_release);
	job_fail(cfg, cfg->boot_job, "kernel", err, NULL);
	cfg->boot_job = 0;
}

/* Tell klabd a job it sent cannot even be read. */
static void agent_bad_job(const struct agent_config *cfg, const json_t *obj,
			  const char *err)
{
	json_t *id = json_object_get(obj, "id");

	agent_log("unusable job from klabd: %s", err);
	if (json_is_integer(id) && json_integer_value(id) > 0)
		job_fail(cfg, (long)json_integer_value(id), "infra", err, NULL);
}

/* One long poll: 1 with *job filled, 0 no work, -1 error (logged). */
static int agent_poll(const struct agent_config *cfg, struct job *job)
{
	struct strbuf path = STRBUF_INIT;
	json_t *reply = NULL, *obj;
	char err[1024];
	long status = 0;
	int rc;

	sb_init(&path);
	sb_adds(&path, "/api/agent/next?rig=");
	sb_add_urlenc(&path, cfg->rig);
	sb_addf(&path, "&wait=%d", cfg->poll_wait);
	rc = http_json(cfg, "GET", path.buf, NULL, cfg->poll_wait + 300L,
		       &status, &reply, err, sizeof(err));
	if (rc == 0 && status == 204) {
		rc = 0;
	} else if (rc == 0 && status == 200) {
		obj = json_object_get(reply, "job");
		rc = job_parse(obj, job, err, sizeof(err)) ? 0 : 1;
		if (rc == 0)
			agent_bad_job(cfg, obj, err);
	} else {
		if (rc == 0)
			http_reply_error(status, reply, err, sizeof(err));
		agent_log("cannot ask for work: %s", err);
		rc = -1;
	}
	json_decref(reply);
	sb_release(&path);
	return rc;
}

/* --no-kexec for another kernel: fetch its files all the same. */
static int agent_no_kexec(const struct agent_config *cfg,
			  const struct job *job, const char *release)
{
	struct strbuf kernel = STRBUF_INIT, initrd = STRBUF_INIT;
	char err[1024];
	int rc;

	sb_init(&kernel);
	sb_init(&initrd);
	agent_log("job %ld: --no-kexec: running on %s, not %s", job->id,
		  release, job->release);
	rc = job_fetch_boot(cfg, job, &kernel, &initrd, err, sizeof(err));
	if (rc)
		job_fail(cfg, job->id, "infra", err, NULL);
	sb_release(&kernel);
	sb_release(&initrd);
	return rc;
}

/* Run job here or kexec into its kernel. */
static void agent_handle(struct agent_config *cfg, const struct job *job)
{
	struct utsname u;
	int same;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	same = !strcmp(job->release, u.release);
	agent_log("job %ld: %s suite %s for %s (%s)", job->id,
		  cfg->boot_job == job->id ? "resuming" : "got", job->suite,
		  job->kernel, job->release);
	if (!cfg->no_kexec && !(same && cfg->boot_job == job->id)) {
		job_switch(cfg, job);
		return;
	}
	if (!same && agent_no_kexec(cfg, job, u.release))
		return;
	job_run(cfg, job);
	cfg->boot_job = 0;
}

/* Register, then serve jobs; returns only with --once or a refusal. */
static int agent_serve(struct agent_config *cfg)
{
	struct job job;
	unsigned fails;
	int rc;

	for (;;) {
		if (agent_register(cfg))
			return 1;
		agent_check_boot(cfg);
		fails = 0;
		while (fails < 5) {
			rc = agent_poll(cfg, &job);
			if (rc < 0) {
				agent_backoff(cfg, ++fails);
				continue;
			}
			fails = 0;
			if (rc == 0)
				continue;
			agent_handle(cfg, &job);
			job_release(&job);
			if (cfg->once)
				return 0;
		}
		agent_log("klabd did not answer 5 polls: registering again");
	}
}

/* Settings or nothing: as init, wait and read them again. */
static int agent_settle(struct agent_config *cfg)
{
	char err[512];

	while (agent_read_cmdline(cfg, err, sizeof(err))) {
		agent_log("%s", err);
		if (!cfg->init)
			return -1;
		sleep(AGENT_FATAL_SLEEP);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct agent_config cfg;
	int rc, code = 0;

	agent_defaults(&cfg);
	rc = agent_options(argc, argv, &cfg);
	cfg.uptime_start = agent_uptime(&cfg);
	if (rc) {
		agent_config_release(&cfg);
		return rc > 0 ? 0 : 2;
	}
	if (getpid() == 1)
		cfg.init = 1;
	if (cfg.init && !proc_supervise(getpid() == 1 || !cfg.once, &code)) {
		agent_config_release(&cfg);
		return code;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = agent_settle(&cfg) ? 2 : agent_serve(&cfg);
	curl_global_cleanup();
	agent_config_release(&cfg);
	return rc;
}
