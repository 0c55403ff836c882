// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for klabd's JSON API handlers and pages, called the
 * way http.c calls them: a struct req over a real sqlite database in a
 * temporary directory (on /dev/shm when it can), reset to the same
 * template before every input.
 *
 * An input is up to four requests separated by "\n--\n".  In each, the
 * first byte picks the handler, the second the content type and the
 * Authorization header; then comes one line "ARG[?QUERY]" (the path
 * after the route's prefix and the URL query), and the rest is the body.
 * So one input can queue a job and then report on it as the rig.
 *
 * Nothing here may run a script, QEMU or a network call: the handlers
 * that do (POST /api/builds checks patches with build-kernel.sh, the
 * catalog fetches from Debian, /api/agent/next boots kernels) are left
 * out; the one rig is "remote" without power or console commands, and
 * the rig manager's thread is stopped before the first input.
 *
 * Besides the sanitizers' checks it asserts the API's contract: every
 * answer has a status in 100..599, and every JSON answer parses; an
 * error says what was wrong in {"error": "..."}; and no input is the
 * server's fault: a 5xx answer is a finding (KLAB_FUZZ_ALLOW_5XX=1 in
 * the environment lets it pass).  KLAB_FUZZ_VERBOSE=1 prints every
 * request and its answer.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "controller/klabd.h"
#include "controller/rig.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TOKEN "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
#define FUZZ_MAX_REQUESTS 4

struct fuzz_route {
	const char *method;
	const char *prefix;
	int (*fn)(struct req *rq, struct web_response *r);
};

static int page_home(struct req *rq, struct web_response *r)
{
	return web_home(rq->db, &rq->q, rq->arg, r);
}

static int page_kernels(struct req *rq, struct web_response *r)
{
	return web_kernels(rq->db, &rq->q, rq->arg, r);
}

static int page_runs(struct req *rq, struct web_response *r)
{
	return web_runs(rq->db, &rq->q, rq->arg, r);
}

static int page_compare(struct req *rq, struct web_response *r)
{
	return web_compare(rq->db, &rq->q, rq->arg, r);
}

static int page_history(struct req *rq, struct web_response *r)
{
	return web_history(rq->db, &rq->q, rq->arg, r);
}

/* The handlers reached from HTTP that only touch the database. */
static const struct fuzz_route fuzz_routes[] = {
	{ "POST", "/api/import", api_import },
	{ "POST", "/api/kernels", api_kernel_put },
	{ "POST", "/api/rigs", api_rig_put },
	{ "POST", "/api/suites", api_suite_put },
	{ "POST", "/api/jobs", api_job_add },
	{ "POST", "/api/agent", api_agent },
	{ "GET", "/api/health", api_health },
	{ "GET", "/api/kernels", api_kernels },
	{ "GET", "/api/rigs", api_rigs },
	{ "GET", "/api/suites", api_suites },
	{ "GET", "/api/runs", api_runs },
	{ "GET", "/api/metrics", api_metrics },
	{ "GET", "/api/compare", api_compare },
	{ "GET", "/api/history", api_history },
	{ "GET", "/api/jobs", api_jobs },
	{ "GET", "/api/builds", api_builds },
	{ "GET", "/", page_home },
	{ "GET", "/kernels", page_kernels },
	{ "GET", "/runs", page_runs },
	{ "GET", "/compare", page_compare },
	{ "GET", "/history", page_history },
};
#define FUZZ_NROUTES (sizeof(fuzz_routes) / sizeof(fuzz_routes[0]))

static const char *const fuzz_types[] = {
	"application/json", "", "application/x-www-form-urlencoded",
	"text/plain",
};
static const char *const fuzz_auths[] = {
	"Bearer " FUZZ_TOKEN, NULL, "Bearer wrong", "Basic Zm9vOmJhcg==",
};

static struct klabd fuzz_d;
static char fuzz_dir[256], fuzz_db[300], fuzz_template[300];
static int fuzz_no_5xx, fuzz_verbose;

static const char fuzz_conf[] =
	"[rig fz0]\n"
	"kind = remote\n"
	"autostart = no\n"
	"token = " FUZZ_TOKEN "\n";

/* Copy file from to to; 0 or -1. */
static int fuzz_copy(const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	int fd, rc = -1;

	sb_init(&sb);
	if (sb_read_file(&sb, from))
		goto out;
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	if (write(fd, sb.buf, sb.len) == (ssize_t)sb.len)
		rc = 0;
	if (close(fd))
		rc = -1;
out:
	sb_release(&sb);
	return rc;
}

/* Put the template back (every database handle is closed). */
static void fuzz_db_reset(void)
{
	char path[320];

	snprintf(path, sizeof(path), "%s-wal", fuzz_db);
	unlink(path);
	snprintf(path, sizeof(path), "%s-shm", fuzz_db);
	unlink(path);
	if (fuzz_copy(fuzz_template, fuzz_db)) {
		fprintf(stderr, "fuzz_api: cannot copy '%s': %s\n",
			fuzz_template, strerror(errno));
		abort();
	}
}

static int fuzz_remove(const char *path, const struct stat *st, int flag,
		       struct FTW *ftw)
{
	return remove(path);
}

/*
 * A crash ends the process without atexit: remove the directories of
 * earlier runs whose process is gone (klab-fuzz-api.PID).
 */
static void fuzz_sweep(const char *tmp)
{
	char path[300], *end;
	struct dirent *e;
	DIR *dir = opendir(tmp);
	long pid;

	while (dir && (e = readdir(dir))) {
		if (strncmp(e->d_name, "klab-fuzz-api.", 14))
			continue;
		errno = 0;
		pid = strtol(e->d_name + 14, &end, 10);
		if (errno || *end || pid <= 0 || !kill((pid_t)pid, 0) ||
		    errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmp, e->d_name);
		nftw(path, fuzz_remove, 16, FTW_DEPTH | FTW_PHYS);
	}
	if (dir)
		closedir(dir);
}

static void fuzz_cleanup(void)
{
	rigmgr_free(&fuzz_d);
	http_stop(&fuzz_d);
	if (fuzz_dir[0] &&
	    nftw(fuzz_dir, fuzz_remove, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "fuzz_api: cannot remove '%s'\n", fuzz_dir);
}

/* The daemon's state without HTTP, builder or rig manager thread. */
static void fuzz_setup(void)
{
	struct klabd *d = &fuzz_d;
	char err[512] = "", data[300];
	const char *tmp = getenv("TMPDIR");

	/* tmpfs if there is one: sqlite syncs when the last handle closes */
	if (access("/dev/shm", W_OK) == 0)
		tmp = "/dev/shm";
	tmp = tmp && *tmp ? tmp : "/tmp";
	fuzz_sweep(tmp);
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/klab-fuzz-api.%ld", tmp,
		 (long)getpid());
	if (mkdir(fuzz_dir, 0700) && (errno != EEXIST ||
	    nftw(fuzz_dir, fuzz_remove, 16, FTW_DEPTH | FTW_PHYS) ||
	    mkdir(fuzz_dir, 0700)))
		goto out_fail;
	snprintf(fuzz_db, sizeof(fuzz_db), "%s/klab.db", fuzz_dir);
	snprintf(fuzz_template, sizeof(fuzz_template), "%s/template.db",
		 fuzz_dir);
	snprintf(data, sizeof(data), "%s/data", fuzz_dir);
	memset(d, 0, sizeof(*d));
	pthread_mutex_init(&d->pool_lock, NULL);
	pthread_mutex_init(&d->cat_lock, NULL);
	config_init(&d->cfg);
	d->db_path = strdup(fuzz_db);
	d->host = strdup("127.0.0.1");
	d->data_dir = strdup(data);
	d->top_dir = strdup(fuzz_dir);	/* no scripts, no suites */
	d->max_upload = 16LL << 20;
	d->max_builds = 1;
	atexit(fuzz_cleanup);
	if (mkdir(data, 0700) ||
	    config_parse(&d->cfg, "fuzz.conf", fuzz_conf, strlen(fuzz_conf),
			 err, sizeof(err)) ||
	    rigmgr_start(d, err, sizeof(err)))
		goto out_fail;
	rigmgr_stop(d);
	http_stop(d);	/* closes the handles: the file is complete */
	if (fuzz_copy(fuzz_db, fuzz_template))
		goto out_fail;
	return;
out_fail:
	fprintf(stderr, "fuzz_api: setup in '%s': %s\n", fuzz_dir,
		err[0] ? err : strerror(errno));
	exit(1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *e = getenv("KLAB_FUZZ_ALLOW_5XX");

	fuzz_no_5xx = !e || strcmp(e, "1");
	e = getenv("KLAB_FUZZ_VERBOSE");
	fuzz_verbose = e && !strcmp(e, "1");
	fuzz_setup();
	return 0;
}

/* The answer keeps the API's promises. */
static void fuzz_check(const struct fuzz_route *rt, struct web_response *r)
{
	json_t *doc, *e;

	if (r->status < 100 || r->status > 599)
		abort();
	if (fuzz_no_5xx && r->status >= 500) {
		fprintf(stderr, "fuzz_api: %s %s answered %d: %.*s\n",
			rt->method, rt->prefix, r->status, (int)r->body.len,
			r->body.buf);
		abort();
	}
	if (!r->content_type || strcmp(r->content_type, "application/json"))
		return;
	doc = json_loadb(r->body.buf, r->body.len, 0, NULL);
	if (!doc)
		abort();
	e = json_object_get(doc, "error");
	if (r->status >= 400 && (!json_is_string(e) ||
				 !json_string_length(e)))
		abort();
	json_decref(doc);
}

/* Handlers that would run more than the database are not called. */
static int fuzz_allowed(const struct fuzz_route *rt, const char *arg)
{
	if (rt->fn == api_agent)
		return !strcmp(arg, "register") || !strncmp(arg, "jobs/", 5);
	return 1;
}

/* One request: route byte, flags byte, "ARG[?QUERY]\n", body. */
static void fuzz_request(const char *s, size_t len)
{
	const struct fuzz_route *rt;
	struct web_response r;
	struct strbuf path = STRBUF_INIT;
	struct req rq;
	const char *nl, *body;
	char *line, *qs, err[256];

	if (len < 2)
		return;
	rt = &fuzz_routes[(unsigned char)s[0] % FUZZ_NROUTES];
	nl = memchr(s + 2, '\n', len - 2);
	body = nl ? nl + 1 : s + len;
	line = strndup(s + 2, (size_t)((nl ? nl : s + len) - (s + 2)));
	if (!line)
		abort();
	qs = strchr(line, '?');
	if (qs)
		*qs++ = '\0';
	if (!fuzz_allowed(rt, line)) {
		free(line);
		return;
	}
	sb_init(&path);
	sb_addf(&path, "%s%s%s", rt->prefix, *line ? "/" : "", line);
	memset(&rq, 0, sizeof(rq));
	rq.d = &fuzz_d;
	rq.method = rt->method;
	rq.path = path.buf;
	rq.arg = line;
	rq.body = body;
	rq.body_len = (size_t)(s + len - body);
	rq.content_type = fuzz_types[(unsigned char)s[1] & 3];
	rq.auth = fuzz_auths[((unsigned char)s[1] >> 2) & 3];
	query_init(&rq.q);
	if (qs)
		query_parse(&rq.q, qs, strlen(qs));
	if (!strcmp(rq.content_type, "application/x-www-form-urlencoded"))
		query_parse(&rq.q, rq.body, rq.body_len);
	web_response_init(&r);
	rq.db = klabd_db_get(&fuzz_d, err, sizeof(err));
	if (!rq.db) {
		fprintf(stderr, "fuzz_api: %s\n", err);
		abort();
	}
	rt->fn(&rq, &r);
	klabd_db_put(&fuzz_d, rq.db);
	if (fuzz_verbose)
		fprintf(stderr, "fuzz_api: %s %s -> %d %.*s\n", rq.method,
			rq.path, r.status, (int)(r.body.len > 200 ? 200 :
						 r.body.len), r.body.buf);
	fuzz_check(rt, &r);
	web_response_release(&r);
	query_release(&rq.q);
	sb_release(&path);
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size, *sep;
	int n;

	fuzz_db_reset();
	for (n = 0; n < FUZZ_MAX_REQUESTS && s < end; n++) {
		sep = memmem(s, (size_t)(end - s), "\n--\n", 4);
		fuzz_request(s, (size_t)((sep ? sep : end) - s));
		s = sep ? sep + 4 : end;
	}
	http_stop(&fuzz_d);	/* what the input allocated is freed now */
	return 0;
}
