// SPDX-License-Identifier: MIT
/*
 * klabd: the klab controller daemon.  Serves the JSON API and the pages on
 * 127.0.0.1:8080 by default, stores everything in one sqlite file, and
 * shuts down cleanly on SIGTERM or SIGINT.
 *
 *   klabd [--config FILE] [--listen HOST:PORT] [--db PATH]
 *         [--max-upload SIZE] [--data-dir DIR] [--port-file FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "catalog.h"
#include "klabd.h"
#include "rig.h"

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
	      "  -h, --help             this help\n", f);
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

static void set_str(char **field, const char *v)
{
	free(*field);
	*field = strdup(v);
}

/* Settings from the config file; the command line overrides them. */
static int apply_config(struct klabd *d, char *err, size_t errlen)
{
	const char *v;
	long long sz;

	if ((v = config_get(&d->cfg, "", "listen")) &&
	    set_listen(d, v, err, errlen))
		return -1;
	if ((v = config_get(&d->cfg, "", "db")))
		set_str(&d->db_path, v);
	if ((v = config_get(&d->cfg, "", "data_dir")))
		set_str(&d->data_dir, v);
	if ((v = config_get(&d->cfg, "", "public_url")))
		set_str(&d->public_url, v);
	if ((v = config_get(&d->cfg, "", "top_dir")))
		set_str(&d->top_dir, v);
	if ((v = config_get(&d->cfg, "", "rig_bin_dir")))
		set_str(&d->rig_bin_dir, v);
	if ((v = config_get(&d->cfg, "", "build_cache")))
		set_str(&d->build_cache, v);
	if ((v = config_get(&d->cfg, "", "build_fragment")))
		set_str(&d->build_fragment, v);
	if ((v = config_get(&d->cfg, "", "build_must_have")))
		set_str(&d->build_must_have, v);
	if ((v = config_get(&d->cfg, "", "build_jobs")))
		set_str(&d->build_jobs, v);
	if ((v = config_get(&d->cfg, "", "build_time_limit")))
		set_str(&d->build_time_limit, v);
	if ((v = config_get(&d->cfg, "", "max_builds"))) {
		long n;

		if (parse_long(v, 1, 8, &n)) {
			snprintf(err, errlen, "%s: max_builds: expected 1..8, "
				 "got '%s'", d->cfg.path, v);
			return -1;
		}
		d->max_builds = (int)n;
	}
	if ((v = config_get(&d->cfg, "", "fault_downloads"))) {
		long n;

		if (parse_long(v, 0, 1000000, &n)) {
			snprintf(err, errlen, "%s: invalid fault_downloads '%s'",
				 d->cfg.path, v);
			return -1;
		}
		d->fault_downloads = (int)n;
	}
	if ((v = config_get(&d->cfg, "", "max_upload"))) {
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
	while ((c = getopt_long(argc, argv, "c:l:d:m:D:p:B:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': break;
		case 'l':
			if (set_listen(d, optarg, err, errlen))
				return -1;
			break;
		case 'd': set_str(&d->db_path, optarg); break;
		case 'D': set_str(&d->data_dir, optarg); break;
		case 'p': *port_file = optarg; break;
		case 'B': set_str(&d->rig_bin_dir, optarg); break;
		case 'm':
			if (config_parse_size(optarg, &sz) || sz <= 0) {
				snprintf(err, errlen, "invalid size '%s'",
					 optarg);
				return -1;
			}
			d->max_upload = sz;
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
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
	free(d->db_path);
	free(d->host);
	free(d->data_dir);
	free(d->top_dir);
	free(d->public_url);
	free(d->rig_bin_dir);
	free(d->build_cache);
	free(d->build_fragment);
	free(d->build_must_have);
	free(d->build_jobs);
	free(d->build_time_limit);
	catalog_release(d);
	config_release(&d->cfg);
	pthread_mutex_destroy(&d->pool_lock);
	pthread_mutex_destroy(&d->cat_lock);
	pthread_mutex_destroy(&d->image_lock);
}

/*
 * Start-up in dependency order: the database (migrations), the catalog's
 * and the rig manager's and the builder's state, then HTTP (which binds
 * the port QEMU rigs are given), then the background threads.
 */
static int klabd_start(struct klabd *d, const char *argv0, char *err,
		       size_t errlen)
{
	struct db *db = db_open(d->db_path, err, errlen);

	if (!db)
		return -1;
	klabd_db_put(d, db);
	if (resolve_dirs(d, argv0, err, errlen) ||
	    rigmgr_init(d, err, errlen) ||
	    build_init(d, err, errlen) ||
	    http_start(d, err, errlen) ||
	    rigmgr_start(d, err, errlen) ||
	    build_start(d, err, errlen))
		return -1;
	return 0;
}

/*
 * Shutdown in reverse: scripts and long polls are told to stop, HTTP
 * stops (MHD joins its request threads), the builders are joined, then
 * the rig manager and its workers; database handles are closed last
 * (http_stop closes the pool, again for handles returned since).
 */
static void klabd_stop(struct klabd *d)
{
	__atomic_store_n(&d->stopping, 1, __ATOMIC_RELAXED);
	rigmgr_quiesce(d);
	http_stop(d);
	build_stop(d);
	rigmgr_stop(d);
	rigmgr_free(d);
	build_release(d);
	http_stop(d);
}

int main(int argc, char **argv)
{
	struct klabd d;
	const char *port_file = NULL;
	char err[512] = "";
	sigset_t set;
	int sig = 0, rc = 1;

	/* a thread per connection: without a cap glibc gives each its own
	 * arena and keeps the memory after a burst of clients */
	mallopt(M_ARENA_MAX, 2);
	memset(&d, 0, sizeof(d));
	pthread_mutex_init(&d.pool_lock, NULL);
	pthread_mutex_init(&d.cat_lock, NULL);
	pthread_mutex_init(&d.image_lock, NULL);
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
	while (sigwait(&set, &sig) == 0 && sig != SIGTERM && sig != SIGINT)
		;
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
