// SPDX-License-Identifier: MIT
/*
 * klabd: the klab controller daemon.  Serves the JSON API and the pages on
 * 127.0.0.1:8080 by default, stores everything in one sqlite file, and
 * shuts down cleanly on SIGTERM or SIGINT.
 *
 *   klabd [--config FILE] [--listen HOST:PORT] [--db PATH]
 *         [--max-upload SIZE] [--data-dir DIR] [--port-file FILE]
 *   klabd token add NAME --role submitter|operator | token list |
 *         token revoke NAME   [--db PATH] [--config FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "flow/alerts.h"
#include "http/auth.h"
#include "http/http.h"
#include "flow/bisect.h"
#include "lab/build.h"
#include "lab/catalog.h"
#include "lab/job_check.h"
#include "flow/driver.h"
#include "judge/verdict.h"
#include "klabd/klabd.h"
#include "lib/alloc.h"
#include "lib/lockfile.h"
#include "lib/rand.h"
#include "lab/rig.h"
#include "lab/rig_conf.h"
#include "flow/track.h"
#include "flow/submissions.h"

#define HOUSEKEEP_S 60		/* s between two klabd_housekeep() */

static void usage(FILE *f)
{
	fputs("usage: klabd [options]\n"
	      "  -c, --config FILE      configuration file (key = value)\n"
	      "  -l, --listen HOST:PORT address to serve on "
	      "(default 127.0.0.1:8080; port 0 picks one)\n"
	      "  -d, --db PATH          sqlite database (default klab.db)\n"
	      "  -m, --max-upload SIZE  largest accepted upload "
	      "(default 16M)\n"
	      "  -D, --data-dir DIR     kernels, images, rig state "
	      "(default ./klab-data)\n"
	      "  -p, --port-file FILE   write the bound port here once "
	      "listening\n"
	      "  -B, --rig-bin DIR      agent and workloads for rig images "
	      "(default: klabd's dir)\n"
	      "  -h, --help             this help\n"
	      "\n"
	      "usage: klabd token add NAME --role submitter|operator\n"
	      "       klabd token list | klabd token revoke NAME\n"
	      "  (with --db PATH or --config FILE: the server's database)\n",
	      f);
}

static int set_listen(struct klabd *d, const char *s, char *err,
		      size_t errlen)
{
	const char *colon = strrchr(s, ':');
	long port;

	if (!colon || parse_long(colon + 1, 0, 65535, &port)) {
		snprintf(err, errlen, "invalid listen address '%s': expected "
			 "HOST:PORT", s);
		return -1;
	}
	free(d->host);
	d->host = strndup(s, (size_t)(colon - s));
	d->port = (int)port;
	return 0;
}

/* The string settings: a config key and the field it sets. */
#define KLABD_STR(key, field) { key, offsetof(struct klabd, field) }
static const struct {
	const char *key;
	size_t off;
} klabd_strs[] = {
	KLABD_STR("db", db_path),
	KLABD_STR("data_dir", data_dir),
	KLABD_STR("public_url", public_url),
	KLABD_STR("top_dir", top_dir),
	KLABD_STR("rig_bin_dir", rig_bin_dir),
	KLABD_STR("build_cache", build_cache),
	KLABD_STR("build_fragment", build_fragment),
	KLABD_STR("build_must_have", build_must_have),
	KLABD_STR("build_jobs", build_jobs),
	KLABD_STR("build_time_limit", build_time_limit),
};

static char **klabd_str_field(struct klabd *d, size_t i)
{
	return (char **)((char *)d + klabd_strs[i].off);
}

/* A rig's "token =" must not be empty: an empty bearer would match it. */
static int check_rig_tokens(const struct config *cfg, char *err,
			    size_t errlen)
{
	size_t i;

	for (i = 0; i < cfg->n; i++) {
		const struct config_entry *e = &cfg->v[i];

		if (strncmp(e->section, "rig ", 4) || strcmp(e->key, "token") ||
		    *e->value)
			continue;
		snprintf(err, errlen, "%s:%d: [%s] token is empty: remove the "
			 "line (klabd then draws one) or set a secret",
			 cfg->path, e->line, e->section);
		return -1;
	}
	return 0;
}

/* read_access, job_cmdline_allow and the rigs' tokens. */
static int apply_auth_config(struct klabd *d, char *err, size_t errlen)
{
	const char *v;

	v = config_get(&d->cfg, "", "job_cmdline_allow");
	if (v)
		alloc_str_set(&d->cmdline_allow, v);
	v = config_get(&d->cfg, "", "read_access");
	if (v) {
		if (strcmp(v, "open") && strcmp(v, "token")) {
			snprintf(err, errlen, "%s: read_access: expected "
				 "'open' or 'token', got '%s'", d->cfg.path, v);
			return -1;
		}
		d->read_token = !strcmp(v, "token");
	}
	return check_rig_tokens(&d->cfg, err, errlen);
}

static int cfg_long(struct klabd *d, const char *key, long min, long max,
		    int *out, char *err, size_t errlen)
{
	const char *v = config_get(&d->cfg, "", key);
	long n;

	if (!v)
		return 0;
	if (parse_long(v, min, max, &n)) {
		snprintf(err, errlen, "%s: %s: expected %ld..%ld, got '%s'",
			 d->cfg.path, key, min, max, v);
		return -1;
	}
	*out = (int)n;
	return 0;
}

/* The HTTP limits (docs/RIGS.md); 0 left in a field: http.c's default. */
static int http_config(struct klabd *d, char *err, size_t errlen)
{
	const char *v = config_get(&d->cfg, "", "upload_memory");
	long long sz;

	if (cfg_long(d, "http_threads", 1, 64, &d->lim.threads, err,
		     errlen) ||
	    cfg_long(d, "max_connections", 1, 1000000, &d->lim.max_conns,
		     err, errlen) ||
	    cfg_long(d, "max_connections_per_ip", 1, 1000000,
		     &d->lim.max_per_ip, err, errlen) ||
	    cfg_long(d, "connection_timeout", 1, 3600, &d->lim.timeout, err,
		     errlen) ||
	    cfg_long(d, "header_timeout", 1, 3600, &d->lim.header_timeout,
		     err, errlen))
		return -1;
	if (v && (config_parse_size(v, &sz) || sz <= 0)) {
		snprintf(err, errlen, "%s: invalid upload_memory '%s'",
			 d->cfg.path, v);
		return -1;
	}
	if (v)
		d->lim.upload_memory = sz;
	return 0;
}

/* Settings from the config file; the command line overrides them. */
static int apply_config(struct klabd *d, char *err, size_t errlen)
{
	const char *v;
	long long sz;
	size_t i;

	v = config_get(&d->cfg, "", "listen");
	if (v && set_listen(d, v, err, errlen))
		return -1;
	for (i = 0; i < ALLOC_ARRAY_SIZE(klabd_strs); i++) {
		v = config_get(&d->cfg, "", klabd_strs[i].key);
		if (v)
			alloc_str_set(klabd_str_field(d, i), v);
	}
	if (apply_auth_config(d, err, errlen))
		return -1;
	v = config_get(&d->cfg, "", "max_builds");
	if (v) {
		long n;

		if (parse_long(v, 1, 8, &n)) {
			snprintf(err, errlen, "%s: max_builds: expected 1..8, "
				 "got '%s'", d->cfg.path, v);
			return -1;
		}
		d->max_builds = (int)n;
	}
	v = config_get(&d->cfg, "", "fault_downloads");
	if (v) {
		long n;

		if (parse_long(v, 0, 1000000, &n)) {
			snprintf(err, errlen, "%s: invalid fault_downloads "
				 "'%s'", d->cfg.path, v);
			return -1;
		}
		d->fault_downloads = (int)n;
	}
	if (http_config(d, err, errlen) ||
	    vd_defaults_from_config(&d->cfg, err, errlen))
		return -1;
	v = config_get(&d->cfg, "", "max_upload");
	if (v) {
		if (config_parse_size(v, &sz) || sz <= 0) {
			snprintf(err, errlen, "%s: invalid max_upload '%s'",
				 d->cfg.path, v);
			return -1;
		}
		d->max_upload = sz;
	}
	return 0;
}

static int parse_args(struct klabd *d, int argc, char **argv,
		      const char **port_file, char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "listen", required_argument, NULL, 'l' },
		{ "db", required_argument, NULL, 'd' },
		{ "max-upload", required_argument, NULL, 'm' },
		{ "data-dir", required_argument, NULL, 'D' },
		{ "port-file", required_argument, NULL, 'p' },
		{ "rig-bin", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cfgpath = NULL;
	long long sz;
	int c, i;

	/* first pass: the config file, so flags can override it */
	for (i = 1; i < argc - 1; i++)
		if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config"))
			cfgpath = argv[i + 1];
	if (cfgpath && (config_load(&d->cfg, cfgpath, err, errlen) ||
			config_check(&d->cfg, klabd_config_schema, err,
				     errlen) ||
			apply_config(d, err, errlen)))
		return -1;
	for (;;) {
		c = getopt_long(argc, argv, "c:l:d:m:D:p:B:h", opts, NULL);
		if (c == -1)
			break;
		switch (c) {
		case 'c':	/* read in the first pass */
			break;
		case 'l':
			if (set_listen(d, optarg, err, errlen))
				return -1;
			break;
		case 'd':
			alloc_str_set(&d->db_path, optarg);
			break;
		case 'D':
			alloc_str_set(&d->data_dir, optarg);
			break;
		case 'p':
			*port_file = optarg;
			break;
		case 'B':
			alloc_str_set(&d->rig_bin_dir, optarg);
			break;
		case 'm':
			if (config_parse_size(optarg, &sz) || sz <= 0) {
				snprintf(err, errlen, "invalid size '%s'",
					 optarg);
				return -1;
			}
			d->max_upload = sz;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

/*
 * Absolute data dir (QEMU and scripts run elsewhere), klab's tree (the
 * scripts and suites: two levels above build/bin/klabd, or the installed
 * share/klab) and the binaries that go into rig images.
 */
static int resolve_dirs(struct klabd *d, const char *argv0, char *err,
			size_t errlen)
{
	char exe[4096], buf[4096 + 64], *p;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (mkdir(d->data_dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create data dir '%s': %s",
			 d->data_dir, strerror(errno));
		return -1;
	}
	p = realpath(d->data_dir, NULL);
	if (p) {
		free(d->data_dir);
		d->data_dir = p;
	}
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	p = strrchr(exe, '/');
	*p = '\0';
	if (!d->rig_bin_dir)
		d->rig_bin_dir = strdup(exe);
	if (d->top_dir)
		return 0;
	snprintf(buf, sizeof(buf), "%s/../../kernels/qemu-rig.sh", exe);
	if (access(buf, R_OK) == 0) {
		snprintf(buf, sizeof(buf), "%s/../..", exe);
		d->top_dir = realpath(buf, NULL);
	} else {
		snprintf(buf, sizeof(buf), "%s/../share/klab", exe);
		d->top_dir = realpath(buf, NULL);
	}
	if (!d->top_dir)
		d->top_dir = strdup(".");
	return 0;
}

static int write_port_file(const char *path, int port)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -1;
	fprintf(f, "%d\n", port);
	return fclose(f);
}

static void klabd_release(struct klabd *d)
{
	size_t i;

	for (i = 0; i < ALLOC_ARRAY_SIZE(klabd_strs); i++)
		free(*klabd_str_field(d, i));
	free(d->host);
	free(d->cmdline_allow);
	auth_destroy(d->auth);
	catalog_release(d);
	config_release(&d->cfg);
	klabd_pool_destroy(d->pool);
	if (d->lock_fd >= 0)
		close(d->lock_fd);	/* the last thing: the lock goes */
}

/*
 * Start-up in dependency order: the database (migrations), the catalog's
 * and the rig manager's and the builder's state, then HTTP (which binds
 * the port QEMU rigs are given), then the background threads.
 */
static int open_state(struct klabd *d, char *err, size_t errlen);

/* The stages' events and who hears them: the one place that joins a
 * stage to the ones after it (events.h). */
static void on_build_ended(struct klabd *d, const struct klabd_event *e)
{
	(void)e;
	driver_kick(d->subrun);	/* a submission may wait for it */
	driver_kick(d->bisrun);	/* a bisection step too */
}

/* A failed build is an alert, but a bisection candidate's (that commit
 * is skipped, git bisect skip, on the bisection's page and report) and
 * a submission's (the submission's own build_failed, to its submitter,
 * is the one alert of it: flow/submissions.c). */
static void on_build_failed(struct klabd *d, const struct klabd_event *e)
{
	int64_t id;

	(void)d;
	if (db_bisection_of_build(e->db, e->id, &id) == DB_OK ||
	    db_submission_of_build(e->db, e->id, &id) == DB_OK)
		return;
	alerts_build_failed(e->db, e->id, e->name, e->text);
}

static void on_rig_offline(struct klabd *d, const struct klabd_event *e)
{
	(void)d;
	alerts_rig_offline(e->db, e->name);
}

static void events_wire(struct klabd *d)
{
	events_subscribe(d, EV_BUILD_DONE, on_build_ended);
	events_subscribe(d, EV_BUILD_FAILED, on_build_ended);
	events_subscribe(d, EV_BUILD_FAILED, on_build_failed);
	events_subscribe(d, EV_RIG_OFFLINE, on_rig_offline);
}

static int klabd_start(struct klabd *d, const char *argv0, char *err,
		       size_t errlen)
{
	events_wire(d);
	if (open_state(d, err, errlen) ||
	    resolve_dirs(d, argv0, err, errlen) ||
	    rigmgr_init(d, err, errlen))
		return -1;
	rig_conf_init(d);
	if (rig_class_check(d, err, errlen) ||
	    build_init(d, err, errlen) ||
	    http_start(d, err, errlen) ||
	    rigmgr_start(d, err, errlen) ||
	    build_start(d, err, errlen) ||
	    driver_start(&d->cmprun, "comparison driver", cmprun_pass, d,
			 err, errlen) ||
	    track_start(d, err, errlen) ||
	    alerts_start(d, err, errlen) ||
	    driver_start(&d->subrun, "submission driver", subrun_pass, d,
			 err, errlen) ||
	    driver_start(&d->bisrun, "bisection driver", bisrun_pass, d,
			 err, errlen))
		return -1;
	return 0;
}

/*
 * Shutdown in reverse: scripts and long polls are told to stop, HTTP
 * stops (MHD joins its request threads), the builders are joined, then
 * the rig manager and its workers; database handles are closed last
 * (the pool's idle handles, again for handles returned since).
 */
static void klabd_stop(struct klabd *d)
{
	__atomic_store_n(&d->stopping, 1, __ATOMIC_RELAXED);
	rigmgr_quiesce(d);
	http_stop(d);
	build_stop(d);
	driver_stop(&d->bisrun);
	driver_stop(&d->subrun);
	driver_stop(&d->cmprun);
	track_stop(d);
	alerts_stop(d);
	rigmgr_stop(d);
	driver_release_all();	/* no thread left to kick one */
	rigmgr_free(d);
	build_release(d);
	http_stop(d);
	klabd_db_close_idle(d);
}

/* One klabd per database: the flock on DB.lock, held until exit.  A
 * second klabd would run the same rigs, builds and jobs twice. */
static int lock_db(struct klabd *d, char *err, size_t errlen)
{
	char path[4096], why[440];

	if ((size_t)snprintf(path, sizeof(path), "%s.lock", d->db_path) >=
	    sizeof(path)) {
		snprintf(err, errlen, "database path too long");
		return -1;
	}
	d->lock_fd = lockfile_take(path, why, sizeof(why));
	if (d->lock_fd >= 0)
		return 0;
	snprintf(err, errlen, "another klabd uses the database: %s", why);
	return -1;
}

/* Open the database up front (migrations run on the first handle,
 * errors show at start) and fill the handle pool, keep the file private,
 * and draw the session keys. */
static int open_state(struct klabd *d, char *err, size_t errlen)
{
	struct db *db;
	int i;

	if (lock_db(d, err, errlen))
		return -1;
	db = db_open(d->db_path, err, errlen);
	if (!db)
		return -1;
	job_suites_register(d, db);
	klabd_db_put(d, db);
	for (i = 1; i < KLABD_POOL_START; i++) {
		db = db_open(d->db_path, err, errlen);
		if (!db)
			return -1;
		klabd_db_put(d, db);
	}
	klabd_db_private(d->db_path);
	d->auth = auth_create(err, errlen);
	return d->auth ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct klabd d;
	const char *port_file = NULL;
	char err[512] = "";
	sigset_t set;
	int sig = 0, rc = 1;

	/* without a cap glibc gives each request thread its own arena and
	 * keeps the memory after a burst of clients */
	mallopt(M_ARENA_MAX, 2);
	if (argc > 1 && !strcmp(argv[1], "token"))
		return token_main(argc - 1, argv + 1);
	memset(&d, 0, sizeof(d));
	d.lock_fd = -1;
	d.pool = klabd_pool_create();
	catalog_init(&d);
	config_init(&d.cfg);
	d.db_path = strdup("klab.db");
	d.host = strdup("127.0.0.1");
	d.port = 8080;
	d.max_upload = 16LL << 20;
	d.data_dir = strdup("klab-data");
	d.max_builds = 1;
	if (parse_args(&d, argc, argv, &port_file, err, sizeof(err)))
		goto out_usage;
	/* signals go to sigwait below, never to the server threads */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (klabd_start(&d, argv[0], err, sizeof(err)))
		goto out_usage;
	fprintf(stderr, "klabd: serving http://%s:%d/ (db %s)\n", d.host,
		d.port, d.db_path);
	if (port_file && write_port_file(port_file, d.port))
		fprintf(stderr, "klabd: cannot write '%s': %s\n", port_file,
			strerror(errno));
	for (;;) {
		struct timespec tick = { HOUSEKEEP_S, 0 };

		sig = sigtimedwait(&set, NULL, &tick);
		if (sig == SIGTERM || sig == SIGINT)
			break;
		if (sig < 0 && errno == EAGAIN)
			klabd_housekeep(&d);
		else if (sig < 0 && errno != EINTR)
			break;
	}
	fprintf(stderr, "klabd: signal %d, shutting down\n", sig);
	rc = 0;
	goto out;
out_usage:
	fprintf(stderr, "klabd: %s\n", err);
out:
	klabd_stop(&d);
	klabd_release(&d);
	return rc;
}
