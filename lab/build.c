// SPDX-License-Identifier: MIT
/*
 * The kernel builder queue: build requests (a base, an ordered patch
 * series) are checked at once (a patch that does not apply is refused with
 * the patch, file and hunk, never queued), stored, and built by at most
 * max_builds worker threads running kernels/build-kernel.sh, which caches
 * every artifact under the hash of its inputs: an identical request is
 * answered from the cache and builds nothing.  A built kernel enters the
 * catalog with its base, patches, config hash, compiler, build time and
 * bzImage size, and boots on the rigs like any other.
 *
 * A request names its base: debian-6.1, debian-6.12, or a [base NAME]
 * section of the configuration (dir = PATH, or git = PATH with NAME@COMMIT);
 * paths never come from a request.  build-kernel.sh runs the tree's code
 * in its sandbox under the build_mem_limit, build_disk_limit and
 * build_max_procs of the configuration (docs/BUILDS.md).
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/build.h"
#include "lab/catalog.h"
#include "db/builds.h"
#include "klabd/klabd.h"
#include "lib/alloc.h"
#include "lib/config.h"
#include "lib/ident.h"
#include "lib/proc.h"
#include "lib/sha256.h"
#include "lab/rig.h"

/* The builder queue's threads; the queue itself is in the database. */
struct builder {
	int running;		/* 0: the workers stop */
	int nworkers;
	pthread_t workers[8];
	pthread_mutex_t lock;	/* the wake-ups, nothing slow */
	pthread_cond_t cond;	/* a build queued, or stop (monotonic) */
};

/* build-kernel.sh's option for each limit of the configuration: the
 * sandbox's (two sizes, then counts) and the build cache's */
static const char *const build_limits[][2] = {
	{ "build_mem_limit", "--mem-limit" },
	{ "build_disk_limit", "--disk-limit" },
	{ "build_max_procs", "--max-procs" },
	{ "build_keep_trees", "--keep-trees" },
	{ "build_keep_warm", "--keep-warm" },
};

#define BASE_PREFIX "base "

/* [A-Za-z0-9._-], 1..64 characters, not starting with '.' or '-' */
static int base_name_ok(const char *s, size_t len)
{
	size_t i;

	if (!len || len > 64 || s[0] == '.' || s[0] == '-')
		return 0;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return 0;
	return 1;
}

/* A commit as git rev-parse reads it: a hash, a branch, HEAD~1; no '-'
 * first (never an option), no '@' (the separator). */
static int base_commit_ok(const char *s)
{
	size_t i;

	if (!*s || *s == '-' || strlen(s) > 128)
		return 0;
	for (i = 0; s[i]; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._/~^-", s[i]))
			return 0;
	return 1;
}

/* "debian-6.1, debian-6.12, NAME, NAME@COMMIT": what a request may name. */
void build_base_list(struct klabd *d, struct strbuf *sb)
{
	size_t i, pl = strlen(BASE_PREFIX);
	const char *sec, *last = "";

	sb_addf(sb, "debian-6.1, debian-6.12");
	for (i = 0; i < d->cfg.n; i++) {
		sec = d->cfg.v[i].section;
		if (strncmp(sec, BASE_PREFIX, pl) || !strcmp(sec, last))
			continue;
		last = sec;
		sb_addf(sb, ", %s%s", sec + pl,
			config_get(&d->cfg, sec, "git") ? "@COMMIT" : "");
	}
}

int build_base_resolve(struct klabd *d, const char *base,
		       struct strbuf *spec, char *err, size_t errlen)
{
	struct strbuf names = STRBUF_INIT;
	const char *at = strchr(base, '@'), *dir, *git;
	size_t nl = at ? (size_t)(at - base) : strlen(base);
	char sec[80];
	int rc = -1;

	sb_init(&names);
	build_base_list(d, &names);
	if (!strcmp(base, "debian-6.1") || !strcmp(base, "debian-6.12")) {
		sb_addf(spec, "%s", base);
		rc = 0;
		goto out;
	}
	if (!strncmp(base, "dir:", 4) || !strncmp(base, "git:", 4)) {
		snprintf(err, errlen, "field 'base': paths are not accepted, "
			 "name a base of the configuration: %.300s", names.buf);
		goto out;
	}
	if (!base_name_ok(base, nl)) {
		snprintf(err, errlen, "field 'base': invalid base name, "
			 "expected one of: %.300s", names.buf);
		goto out;
	}
	snprintf(sec, sizeof(sec), BASE_PREFIX "%.*s", (int)nl, base);
	dir = config_get(&d->cfg, sec, "dir");
	git = config_get(&d->cfg, sec, "git");
	if (!dir && !git)
		snprintf(err, errlen, "field 'base': unknown base '%.*s', "
			 "expected one of: %.300s", (int)nl, base, names.buf);
	else if (dir && at)
		snprintf(err, errlen, "field 'base': base '%.*s' is a "
			 "directory and takes no @COMMIT", (int)nl, base);
	else if (git && (!at || !base_commit_ok(at + 1)))
		snprintf(err, errlen, "field 'base': base '%.*s' is a git "
			 "tree, expected %.*s@COMMIT", (int)nl, base, (int)nl,
			 base);
	else {
		sb_addf(spec, dir ? "dir:%s" : "git:%s@%s", dir ? dir : git,
			at ? at + 1 : "");
		rc = 0;
	}
out:
	sb_release(&names);
	return rc;
}

/* The sandbox limits and every [base NAME] section, checked at start. */
static int build_config_check(struct klabd *d, char *err, size_t errlen)
{
	size_t i, pl = strlen(BASE_PREFIX);
	const char *v, *sec, *key, *dir, *git;
	long long sz;
	long n;

	for (i = 0; i < ALLOC_ARRAY_SIZE(build_limits); i++) {
		v = config_get(&d->cfg, "", build_limits[i][0]);
		if (!v || (i < 2 ? isdigit((unsigned char)*v) &&
			   !config_parse_size(v, &sz) && sz > 0 :
			   !parse_long(v, 1, 1000000, &n)))
			continue;
		snprintf(err, errlen, "%s: invalid %s '%.100s'", d->cfg.path,
			 build_limits[i][0], v);
		return -1;
	}
	for (i = 0; i < d->cfg.n; i++) {
		sec = d->cfg.v[i].section;
		key = d->cfg.v[i].key;
		if (strncmp(sec, BASE_PREFIX, pl))
			continue;
		dir = config_get(&d->cfg, sec, "dir");
		git = config_get(&d->cfg, sec, "git");
		if (!base_name_ok(sec + pl, strlen(sec + pl)) ||
		    !strcmp(sec + pl, "debian-6.1") ||
		    !strcmp(sec + pl, "debian-6.12"))
			snprintf(err, errlen, "%s:%d: invalid base name "
				 "'%.64s'", d->cfg.path, d->cfg.v[i].line,
				 sec + pl);
		else if (!dir == !git)
			snprintf(err, errlen, "%s:%d: [%.80s]: expected 'dir' "
				 "or 'git', one of them", d->cfg.path,
				 d->cfg.v[i].line, sec);
		else if ((!strcmp(key, "dir") || !strcmp(key, "git")) &&
			 d->cfg.v[i].value[0] != '/')
			snprintf(err, errlen, "%s:%d: %s: expected an absolute "
				 "path", d->cfg.path, d->cfg.v[i].line, key);
		else
			continue;
		return -1;
	}
	return 0;
}

/* build-kernel.sh's option for each build setting klabd keeps */
static const struct {
	size_t off;		/* of a char * in struct klabd */
	const char *opt;
} build_strs[] = {
	{ offsetof(struct klabd, build_cache), "--cache" },
	{ offsetof(struct klabd, build_fragment), "--config" },
	{ offsetof(struct klabd, build_must_have), "--must-have" },
	{ offsetof(struct klabd, build_jobs), "--jobs" },
	{ offsetof(struct klabd, build_time_limit), "--time-limit" },
};

/* Append "opt v" to args at n when v is set; the new count. */
static size_t build_arg_add(const char **args, size_t n, const char *opt,
			    const char *v)
{
	if (v) {
		args[n++] = opt;
		args[n++] = v;
	}
	return n;
}

size_t build_common_args(struct klabd *d, const char **args)
{
	size_t n = 0, i;

	for (i = 0; i < ALLOC_ARRAY_SIZE(build_strs); i++)
		n = build_arg_add(args, n, build_strs[i].opt,
				  *(char **)((char *)d + build_strs[i].off));
	for (i = 0; i < ALLOC_ARRAY_SIZE(build_limits); i++)
		n = build_arg_add(args, n, build_limits[i][1],
				  config_get(&d->cfg, "", build_limits[i][0]));
	return n;
}

const char **build_args(struct klabd *d, const char *base, char *patches,
			size_t *n)
{
	const char **args;
	size_t np = 0, k = 0;
	char *p, *nl;

	for (p = patches; p && *p; p++)
		np += *p == '\n';
	args = xcalloc(2 + 2 * (np + 1) + BUILD_COMMON_ARGS +
		       BUILD_ARGS_SPARE + 1, sizeof(*args));
	args[k++] = "--base";
	args[k++] = base;
	for (p = patches; p && *p; p = nl) {
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = '\0';
		if (*p) {
			args[k++] = "--patch";
			args[k++] = p;
		}
	}
	k += build_common_args(d, args + k);
	args[k] = NULL;
	*n = k;
	return args;
}

enum outcome build_ident_check(struct klabd *d, struct db *db,
			       const char *ident, int operator, char *err,
			       size_t errlen)
{
	enum outcome o = OUT_OK;
	struct db_kernel k;

	if (!ident || !*ident)
		return OUT_OK;
	if (ident_lab_owned(ident)) {
		snprintf(err, errlen, "field 'ident': '%.128s' is a name of "
			 "the lab's own (subN-, bisN-, build-): choose another",
			 ident);
		return OUT_INVALID;
	}
	if (operator || db_kernel_get(db, ident, &k) != DB_OK)
		return OUT_OK;
	if (!*k.build_key) {
		snprintf(err, errlen, "field 'ident': kernel '%.128s' exists "
			 "(%.40s); only an operator may replace it", ident,
			 k.source);
		o = OUT_CONFLICT;
	}
	db_kernel_release(&k);
	return o;
}

static void build_publish(struct klabd *d, struct db *db,
			  struct db_build *b, const char *out)
{
	char *ver = catalog_record_get(out, "version"),
	     *img = catalog_record_get(out, "vmlinuz"),
	     *bk = catalog_record_get(out, "base_kernel"),
	     *ph = catalog_record_get(out, "patch_sha256"),
	     *ch = catalog_record_get(out, "config_hash"),
	     *cc = catalog_record_get(out, "compiler"),
	     *secs = catalog_record_get(out, "build_seconds"),
	     *sz = catalog_record_get(out, "bzimage_bytes"),
	     *pn = catalog_record_get(out, "patches"),
	     *key = catalog_record_get(out, "key"),
	     *cache = catalog_record_get(out, "cache"),
	     *log = catalog_record_get(out, "log");
	char *rid = catalog_record_get(out, "ident");
	struct strbuf prov = STRBUF_INIT;
	struct db_kernel k;
	/* a build names its kernel as asked, else by its key (build-KEY12),
	 * never by what the tree says its release is */
	const char *ident = *b->ident ? b->ident : rid;
	char err[300] = "";

	sb_init(&prov);
	sb_addf(&prov, "build %lld: %s%s%s; %s; make bzImage %s s; bzImage %s "
		"bytes; key %.16s (%s)", (long long)b->id, b->base,
		*pn ? " + " : "", pn, cc, secs, sz, key, cache);
	memset(&k, 0, sizeof(k));
	k.ident = (char *)ident;
	k.version = ver;
	k.base = bk;
	k.patch_hash = ph;
	k.config_hash = ch;
	k.source = "build";
	k.provenance = prov.buf;
	k.build_key = key;
	if (!*ver || !*img || !*ident || !*key)
		db_build_finish(db, b->id, "failed", "", "build-kernel.sh gave "
				"no kernel release, image or key", out, log);
	else if (db_kernel_claim(db, &k, b->may_replace, err, sizeof(err)) ||
		 db_kernel_set_boot(db, ident, ver, img, ""))
		db_build_finish(db, b->id, "failed", "", err[0] ? err :
				"cannot record the kernel", out, log);
	else
		db_build_finish(db, b->id, "done", ident, "", out, log);
	fprintf(stderr, "klabd: build %lld: %s (%s)\n", (long long)b->id,
		ident, cache);
	sb_release(&prov);
	free(ver);
	free(img);
	free(bk);
	free(ph);
	free(ch);
	free(cc);
	free(secs);
	free(sz);
	free(pn);
	free(key);
	free(cache);
	free(log);
	free(rid);
}

/* Tell the other stages how build id ended, as its row says (every path
 * to "done" or "failed", the publication's refusals included). */
static void build_announce(struct klabd *d, struct db *db, int64_t id)
{
	struct klabd_event e = { .db = db, .id = id };
	struct db_build b;

	if (db_build_get(db, id, &b))
		return;
	e.kind = !strcmp(b.state, "done") ? EV_BUILD_DONE : EV_BUILD_FAILED;
	e.name = e.kind == EV_BUILD_DONE ? b.ident : b.base;
	e.text = b.error;
	if (!strcmp(b.state, "done") || !strcmp(b.state, "failed"))
		events_publish(d, &e);
	db_build_release(&b);
}

static void build_run(struct klabd *d, struct db *db, struct db_build *b)
{
	struct strbuf out = STRBUF_INIT, spec = STRBUF_INIT;
	const char **args;
	char err[600] = "", *patches = xstrdup(b->patches), *log;
	size_t n;
	int rc;

	sb_init(&out);
	sb_init(&spec);
	fprintf(stderr, "klabd: build %lld: %s starts\n", (long long)b->id,
		b->base);
	/* the configuration may have changed since the request */
	rc = build_base_resolve(d, b->base, &spec, err, sizeof(err));
	if (rc == 0) {
		args = build_args(d, spec.buf, patches, &n);
		rc = catalog_script(d, "build-kernel.sh", args, &out, err,
				    sizeof(err));
		free(args);
	}
	if (rc && __atomic_load_n(&d->stopping, __ATOMIC_RELAXED)) {
		/* stopped by shutdown: the next klabd requeues it */
		fprintf(stderr, "klabd: build %lld interrupted\n",
			(long long)b->id);
	} else if (rc == 0) {
		build_publish(d, db, b, out.buf);
	} else {
		log = catalog_record_get(out.buf, "log");
		db_build_finish(db, b->id, "failed", "", err[0] ? err :
				"build-kernel.sh failed", out.buf, log);
		fprintf(stderr, "klabd: build %lld failed (exit %d): %s\n",
			(long long)b->id, rc, err);
		free(log);
	}
	if (!rc || !__atomic_load_n(&d->stopping, __ATOMIC_RELAXED))
		build_announce(d, db, b->id);
	free(patches);
	sb_release(&spec);
	sb_release(&out);
}

static void *build_main(void *arg)
{
	struct klabd *d = arg;
	struct builder *bl = d->builder;
	struct db_build b;
	struct timespec ts;
	struct db *db;
	char err[256];

	pthread_mutex_lock(&bl->lock);
	while (bl->running) {
		pthread_mutex_unlock(&bl->lock);
		db = klabd_db_get(d, err, sizeof(err));
		if (db && db_build_take(db, &b) == DB_OK) {
			build_run(d, db, &b);
			db_build_release(&b);
			klabd_db_put(d, db);
			pthread_mutex_lock(&bl->lock);
			continue;
		}
		klabd_db_put(d, db);
		pthread_mutex_lock(&bl->lock);
		clock_gettime(CLOCK_MONOTONIC, &ts);	/* the cond's clock */
		ts.tv_sec += 2;
		pthread_cond_timedwait(&bl->cond, &bl->lock, &ts);
	}
	pthread_mutex_unlock(&bl->lock);
	return NULL;
}

int build_init(struct klabd *d, char *err, size_t errlen)
{
	struct builder *bl = xcalloc(1, sizeof(*bl));
	struct db *db;
	int n;

	pthread_mutex_init(&bl->lock, NULL);
	proc_cond_init(&bl->cond);
	d->builder = bl;
	if (build_config_check(d, err, errlen))
		return -1;
	db = klabd_db_get(d, err, errlen);
	if (!db)
		return -1;
	n = db_build_requeue_stale(db);
	klabd_db_put(d, db);
	if (n > 0)
		fprintf(stderr, "klabd: %d unfinished builds back in the "
			"queue\n", n);
	return 0;
}

int build_start(struct klabd *d, char *err, size_t errlen)
{
	struct builder *bl = d->builder;
	int i;

	bl->running = 1;
	for (i = 0; i < d->max_builds && i < 8; i++) {
		if (pthread_create(&bl->workers[i], NULL, build_main, d)) {
			snprintf(err, errlen, "cannot start builder %d", i);
			return -1;
		}
		bl->nworkers++;
	}
	return 0;
}

void build_stop(struct klabd *d)
{
	struct builder *bl = d->builder;
	int i;

	if (!bl)
		return;
	pthread_mutex_lock(&bl->lock);
	bl->running = 0;
	pthread_cond_broadcast(&bl->cond);
	pthread_mutex_unlock(&bl->lock);
	/* a running build-kernel.sh sees d->stopping (catalog_script): its
	 * process group is stopped, and its build stays 'building' for the
	 * next klabd to requeue; every builder is joined */
	for (i = 0; i < bl->nworkers; i++)
		pthread_join(bl->workers[i], NULL);
	bl->nworkers = 0;
}

void build_release(struct klabd *d)
{
	struct builder *bl = d->builder;

	if (!bl)
		return;
	pthread_cond_destroy(&bl->cond);
	pthread_mutex_destroy(&bl->lock);
	free(bl);
	d->builder = NULL;
}

void build_kick(struct klabd *d)
{
	struct builder *bl = d->builder;

	if (!bl)	/* no builder (the API fuzzer): the queue waits */
		return;
	pthread_mutex_lock(&bl->lock);
	pthread_cond_broadcast(&bl->cond);
	pthread_mutex_unlock(&bl->lock);
}
