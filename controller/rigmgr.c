// SPDX-License-Identifier: MIT
/*
 * The rig manager: one thread that boots rigs, watches their consoles and
 * watchdogs, and turns what agents report into job states.  See rig.h for
 * the state machine.  Everything here runs under d->mgr_lock; agents'
 * long polls are parked connections (http_poll.c) queued on d->waiters and
 * woken wherever d->mgr_cond is broadcast.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/jobs.h"
#include "klabd.h"
#include "auth.h"
#include "rig.h"

#define CONSOLE_TAIL (64 * 1024)
#define MAX_INFRA_ATTEMPTS 3

const char *rig_state_name(enum rig_state s)
{
	static const char *const names[] = {
		"offline", "cold", "booting", "idle", "assigned", "running",
		"recovering",
	};

	return s <= RIG_RECOVERING ? names[s] : "unknown";
}

char *rig_read_tail(const char *path, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	size_t off;

	sb_init(&sb);
	if (!path || !*path || sb_read_file(&sb, path) < 0)
		return sb_detach(&sb, NULL);
	if (sb.len > max) {
		off = sb.len - max;
		memmove(sb.buf, sb.buf + off, max);
		sb.len = max;
		sb.buf[max] = '\0';
	}
	return sb_detach(&sb, NULL);
}

/* A job may have come: wake every parked long poll; lock held. */
static void waiters_wake(struct klabd *d)
{
	struct rig_waiter *w;

	while (d->waiters) {
		w = d->waiters;
		d->waiters = w->next;
		w->prev = w->next = NULL;
		w->queued = 0;
		w->wake(w);
	}
}

static void set_state(struct rig *g, enum rig_state s)
{
	struct db *db;
	char err[256];

	if (g->state == s)
		return;
	fprintf(stderr, "klabd: rig %s: %s -> %s%s\n", g->name,
		rig_state_name(g->state), rig_state_name(s),
		g->job ? " (job in hand)" : "");
	g->state = s;
	db = klabd_db_get(g->d, err, sizeof(err));
	if (db)
		db_rig_set_state(db, g->name, rig_state_name(s));
	klabd_db_put(g->d, db);
	pthread_cond_broadcast(&g->d->mgr_cond);
	waiters_wake(g->d);
}

/* A kernel failure of the job in hand; the rig is cold-booted after. */
static void fail_kernel(struct rig *g, const char *why)
{
	char *console = rig_read_tail(g->console, CONSOLE_TAIL);
	struct db *db;
	char err[256];

	fprintf(stderr, "klabd: rig %s: job %lld: kernel failure: %s\n",
		g->name, (long long)g->job, why);
	db = klabd_db_get(g->d, err, sizeof(err));
	if (db && g->job)
		db_job_fail(db, g->job, "kernel", why, console, "", 1);
	klabd_db_put(g->d, db);
	free(console);
	g->job = 0;
	g->ops->halt(g);
	set_state(g, RIG_RECOVERING);
}

/* The base kernel did not come up: a failed health check. */
static void fail_health(struct rig *g, const char *why)
{
	g->health_fails++;
	fprintf(stderr, "klabd: rig %s: health check %d failed: %s\n",
		g->name, g->health_fails, why);
	g->ops->halt(g);
	set_state(g, g->health_fails >= 2 ? RIG_OFFLINE : RIG_RECOVERING);
}

/* Scan new console output: panics, oopses and extra boot banners. */
static const char *scan_console(struct rig *g)
{
	static const char *const bad[] = { "Kernel panic", "Oops", "BUG:" };
	char buf[8192];
	size_t n, i, keep;
	FILE *f = fopen(g->console, "r");

	if (!f)
		return NULL;
	if (fseek(f, g->console_off, SEEK_SET) == 0) {
		while ((n = fread(buf, 1, sizeof(buf) - 1, f)) > 0) {
			char *nl, *line = buf;

			buf[n] = '\0';
			/* only whole lines; a partial one is read again */
			nl = strrchr(buf, '\n');
			if (!nl)
				break;
			keep = (size_t)(nl - buf) + 1;
			g->console_off += (long)keep;
			nl[1] = '\0';
			for (i = 0; i < 3; i++) {
				char *hit = strstr(line, bad[i]), *eol;

				if (!hit)
					continue;
				eol = strchr(hit, '\n');
				snprintf(g->why, sizeof(g->why), "console: %.*s",
					 (int)(eol ? eol - hit : 200), hit);
				fclose(f);
				return g->why;
			}
			for (; (line = strstr(line, "Linux version ")); line++)
				g->banners_seen++;
			if (fseek(f, g->console_off, SEEK_SET))
				break;
		}
	}
	fclose(f);
	if (g->banners_seen > g->banners_allowed)
		return "a second 'Linux version' banner (silent reboot)";
	return NULL;
}

static void cold_boot(struct rig *g)
{
	char err[512] = "";
	int rc;

	snprintf(g->console, sizeof(g->console), "%s/console-%ld-%d.log",
		 g->dir, (long)time(NULL), g->cold_boots);
	g->console_off = 0;
	g->banners_seen = 0;
	g->banners_allowed = 1;
	g->booted_at = time(NULL);
	g->deadline = g->booted_at + g->boot_timeout;
	rc = g->ops->cold_boot(g, err, sizeof(err));
	if (rc > 0) {
		/* not ready to boot yet (base kernel not fetched): stay cold */
		if (!g->waiting)
			fprintf(stderr, "klabd: rig %s: %s\n", g->name, err);
		g->waiting = 1;
		return;
	}
	g->waiting = 0;
	g->cold_boots++;
	if (rc) {
		fprintf(stderr, "klabd: rig %s: cannot boot: %s\n", g->name,
			err);
		fail_health(g, err);
		return;
	}
	set_state(g, RIG_BOOTING);
}

/* One tick of one rig's state machine. */
static void rig_step(struct rig *g, time_t now)
{
	const char *why;
	char msg[256];

	switch (g->state) {
	case RIG_COLD:
	case RIG_RECOVERING:
		cold_boot(g);
		return;
	case RIG_BOOTING:
	case RIG_ASSIGNED:
	case RIG_RUNNING:
	case RIG_IDLE:
		break;
	default:
		return;
	}
	why = scan_console(g);
	if (!why && g->ops->alive(g))
		why = "the machine stopped (reboot or power-off)";
	if (!why && g->state != RIG_IDLE && now > g->deadline) {
		snprintf(msg, sizeof(msg), "%s within %d s (hang)",
			 g->state == RIG_ASSIGNED ? "no kexec announced" :
			 "no check-in", g->state == RIG_BOOTING ?
			 g->boot_timeout : g->job_timeout);
		why = msg;
	}
	if (!why)
		return;
	if (g->job)
		fail_kernel(g, why);
	else
		fail_health(g, why);
}

static void *mgr_main(void *arg)
{
	struct klabd *d = arg;
	struct timespec ts;
	size_t i;

	pthread_mutex_lock(&d->mgr_lock);
	while (d->mgr_running) {
		for (i = 0; i < d->nrigs; i++)
			rig_step(d->rigs[i], time(NULL));
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&d->mgr_cond, &d->mgr_lock, &ts);
	}
	for (i = 0; i < d->nrigs; i++)
		d->rigs[i]->ops->halt(d->rigs[i]);
	pthread_mutex_unlock(&d->mgr_lock);
	return NULL;
}

int rigmgr_checkin(struct rig *g, int64_t job, const char *release,
		   char *err, size_t errlen)
{
	struct db *db;
	char msg[300];

	pthread_mutex_lock(&g->d->mgr_lock);
	g->last_boot_secs = difftime(time(NULL), g->booted_at);
	fprintf(stderr, "klabd: rig %s: check-in on %s (job %lld) after "
		"%.0f s\n", g->name, release, (long long)job,
		g->last_boot_secs);
	if (g->job && job != g->job && g->state == RIG_BOOTING) {
		snprintf(msg, sizeof(msg), "the rig came back on '%s' without "
			 "the job's kernel (reboot)", release);
		fail_kernel(g, msg);
		pthread_mutex_unlock(&g->d->mgr_lock);
		return 0;
	}
	if (g->job && job == g->job) {
		g->deadline = time(NULL) + g->job_timeout;
		set_state(g, RIG_RUNNING);
		db = klabd_db_get(g->d, err, errlen);
		if (db)
			db_job_set_state(db, job, "running");
		klabd_db_put(g->d, db);
	} else {
		g->health_fails = 0;
		set_state(g, RIG_IDLE);
	}
	pthread_mutex_unlock(&g->d->mgr_lock);
	return 0;
}

/* Hand out the next queued job of g; lock held.  0 when none. */
static int64_t take_job(struct rig *g)
{
	struct db_job j;
	struct db *db;
	char err[256];
	int64_t id = 0;

	db = klabd_db_get(g->d, err, sizeof(err));
	if (db && db_job_next(db, g->name, &j) == DB_OK) {
		id = j.id;
		db_job_set_state(db, id, "assigned");
		db_job_release(&j);
	}
	klabd_db_put(g->d, db);
	if (id) {
		g->job = id;
		/* the agent downloads and loads the kernel before it
		 * announces the kexec: the job's time limit covers that */
		g->deadline = time(NULL) + g->job_timeout;
		set_state(g, RIG_ASSIGNED);
	}
	return id;
}

int rigmgr_next_job(struct rig *g, int64_t *job, struct rig_waiter *w)
{
	struct klabd *d = g->d;
	int queued;

	*job = 0;
	pthread_mutex_lock(&d->mgr_lock);
	if ((g->state == RIG_RUNNING || g->state == RIG_ASSIGNED) && g->job)
		*job = g->job;
	else if (g->state == RIG_IDLE)
		*job = take_job(g);
	if (!*job && w && !w->queued && d->mgr_running) {
		w->prev = NULL;
		w->next = d->waiters;
		if (d->waiters)
			d->waiters->prev = w;
		d->waiters = w;
		w->queued = 1;
	}
	queued = w && w->queued;
	pthread_mutex_unlock(&d->mgr_lock);
	return queued;
}

void rigmgr_wait_cancel(struct klabd *d, struct rig_waiter *w)
{
	pthread_mutex_lock(&d->mgr_lock);
	if (w->queued) {
		if (w->prev)
			w->prev->next = w->next;
		else
			d->waiters = w->next;
		if (w->next)
			w->next->prev = w->prev;
		w->prev = w->next = NULL;
		w->queued = 0;
	}
	pthread_mutex_unlock(&d->mgr_lock);
}

int rigmgr_kexec(struct rig *g, int64_t job, char *err, size_t errlen)
{
	int rc = 0;

	pthread_mutex_lock(&g->d->mgr_lock);
	if (job != g->job) {
		snprintf(err, errlen, "job %lld is not the job of rig '%s'",
			 (long long)job, g->name);
		rc = 403;
	} else {
		g->banners_allowed++;
		g->kexecs++;
		g->booted_at = time(NULL);
		g->deadline = g->booted_at + g->boot_timeout;
		set_state(g, RIG_BOOTING);
	}
	pthread_mutex_unlock(&g->d->mgr_lock);
	return rc;
}

int rigmgr_holds(struct rig *g, int64_t job)
{
	int held;

	pthread_mutex_lock(&g->d->mgr_lock);
	held = job && g->job == job && (g->state == RIG_ASSIGNED ||
					g->state == RIG_BOOTING ||
					g->state == RIG_RUNNING);
	pthread_mutex_unlock(&g->d->mgr_lock);
	return held;
}

void rigmgr_job_done(struct rig *g, int64_t job)
{
	pthread_mutex_lock(&g->d->mgr_lock);
	if (g->job == job) {
		g->job = 0;
		set_state(g, RIG_IDLE);
	}
	pthread_mutex_unlock(&g->d->mgr_lock);
}

int rigmgr_job_fail(struct rig *g, int64_t job, const char *klass,
		    const char *error, const char *output, char *err,
		    size_t errlen)
{
	struct db *db;
	int rc = 0;

	pthread_mutex_lock(&g->d->mgr_lock);
	if (job != g->job) {
		snprintf(err, errlen, "job %lld is not the job of rig '%s'",
			 (long long)job, g->name);
		rc = 403;
	} else if (!strcmp(klass, "kernel")) {
		fail_kernel(g, error);
	} else {
		db = klabd_db_get(g->d, err, errlen);
		if (db)
			db_job_fail(db, job, klass, error, "", output,
				    MAX_INFRA_ATTEMPTS);
		klabd_db_put(g->d, db);
		g->job = 0;
		set_state(g, RIG_IDLE);
	}
	pthread_mutex_unlock(&g->d->mgr_lock);
	return rc;
}

int rigmgr_online(struct rig *g)
{
	pthread_mutex_lock(&g->d->mgr_lock);
	g->health_fails = 0;
	if (g->state == RIG_OFFLINE)
		set_state(g, RIG_COLD);
	pthread_mutex_unlock(&g->d->mgr_lock);
	return 0;
}

void rigmgr_kick(struct klabd *d)
{
	pthread_mutex_lock(&d->mgr_lock);
	pthread_cond_broadcast(&d->mgr_cond);
	waiters_wake(d);
	pthread_mutex_unlock(&d->mgr_lock);
}

struct rig *rigmgr_find(struct klabd *d, const char *name)
{
	size_t i;

	for (i = 0; name && i < d->nrigs; i++)
		if (!strcmp(d->rigs[i]->name, name))
			return d->rigs[i];
	return NULL;
}

/* Every rig's hash is compared, in constant time (auth_hex_equal). */
struct rig *rigmgr_by_token(struct klabd *d, const char *token)
{
	struct rig *found = NULL;
	char h[65];
	size_t i;

	if (!token || !*token)
		return NULL;
	auth_hash_hex(token, h);
	for (i = 0; i < d->nrigs; i++)
		if (auth_hex_equal(d->rigs[i]->token_hash, h) && !found)
			found = d->rigs[i];
	return found;
}

static void random_token(char *buf, size_t len)
{
	unsigned char raw[16];
	FILE *f = fopen("/dev/urandom", "r");
	size_t i, n = f ? fread(raw, 1, sizeof(raw), f) : 0;

	if (f)
		fclose(f);
	for (i = n; i < sizeof(raw); i++)
		raw[i] = (unsigned char)(rand() ^ (int)time(NULL));
	for (i = 0; i < sizeof(raw) && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
}

static int cfg_int(struct klabd *d, const char *sec, const char *key,
		   long def, long min, long max, long *out, char *err,
		   size_t errlen)
{
	const char *v = config_get(&d->cfg, sec, key);

	*out = def;
	if (v && parse_long(v, min, max, out)) {
		snprintf(err, errlen, "%s: [%s] %s: expected a number in "
			 "%ld..%ld, got '%s'", d->cfg.path, sec, key, min, max,
			 v);
		return -1;
	}
	return 0;
}

static const char *cfg_str(struct klabd *d, const char *sec, const char *key,
			   const char *def)
{
	const char *v = config_get(&d->cfg, sec, key);

	return v ? v : def;
}

static struct rig *rig_from_config(struct klabd *d, const char *sec,
				   char *err, size_t errlen)
{
	struct rig *g = calloc(1, sizeof(*g));
	int manydisk;
	long v[6];
	char tok[40];

	if (!g)
		abort();
	g->d = d;
	g->name = strdup(sec + 4);
	g->kind = strdup(cfg_str(d, sec, "kind", "qemu"));
	g->profile = strdup(cfg_str(d, sec, "profile", "scsi"));
	manydisk = !strcmp(g->profile, "manydisk");
	if (cfg_int(d, sec, "cpus", manydisk ? 4 : 1, 1, 64, &v[0], err, errlen) ||
	    cfg_int(d, sec, "memory_mb", 1024, 128, 65536, &v[1], err, errlen) ||
	    cfg_int(d, sec, "disk_mb", manydisk ? 32 : 512, 8, 1 << 20, &v[2],
		    err, errlen) ||
	    cfg_int(d, sec, "boot_timeout", 120, 5, 3600, &v[3], err, errlen) ||
	    cfg_int(d, sec, "job_timeout", 1800, 10, 86400, &v[4], err,
		    errlen))
		return g;	/* err set: caller frees */
	g->cpus = (int)v[0];
	g->memory_mb = (int)v[1];
	g->disk_mb = (int)v[2];
	g->boot_timeout = (int)v[3];
	g->job_timeout = (int)v[4];
	g->disks = manydisk ? 64 : 1;
	random_token(tok, sizeof(tok));
	g->token = strdup(cfg_str(d, sec, "token", tok));
	auth_hash_hex(g->token, g->token_hash);
	g->base_kernel = strdup(cfg_str(d, sec, "base_kernel", ""));
	g->power_cmd = strdup(cfg_str(d, sec, "power_cycle", ""));
	g->console_cmd = strdup(cfg_str(d, sec, "console", ""));
	g->ops = !strcmp(g->kind, "remote") ? &rig_remote_ops : &rig_qemu_ops;
	if (strcmp(g->kind, "qemu") && strcmp(g->kind, "remote"))
		snprintf(err, errlen, "%s: [%s] kind: expected 'qemu' or "
			 "'remote', got '%s'", d->cfg.path, sec, g->kind);
	else if (strcmp(g->profile, "scsi") && strcmp(g->profile, "ide") &&
		 !manydisk)
		snprintf(err, errlen, "%s: [%s] profile: expected 'scsi', "
			 "'ide' or 'manydisk', got '%s'", d->cfg.path, sec,
			 g->profile);
	g->state = strcmp(cfg_str(d, sec, "autostart", "yes"), "no") ?
		RIG_COLD : RIG_OFFLINE;
	return g;
}

static void rig_destroy(struct rig *g)
{
	if (!g)
		return;
	free(g->name);
	free(g->kind);
	free(g->profile);
	free(g->token);
	free(g->base_kernel);
	free(g->dir);
	free(g->power_cmd);
	free(g->console_cmd);
	free(g->job_release);
	free(g);
}

/* Record the rig in the database (for pages and tokens) and its dir. */
static int rig_register(struct klabd *d, struct db *db, struct rig *g,
			char *err, size_t errlen)
{
	struct db_rig r;
	struct strbuf sb = STRBUF_INIT;

	sb_init(&sb);
	sb_addf(&sb, "%s/rigs/%s", d->data_dir, g->name);
	g->dir = sb_detach(&sb, NULL);
	if (mkdir(d->data_dir, 0755) && errno != EEXIST)
		goto out_errno;
	sb_addf(&sb, "%s/rigs", d->data_dir);
	if (mkdir(sb.buf, 0755) && errno != EEXIST)
		goto out_errno;
	if (mkdir(g->dir, 0755) && errno != EEXIST)
		goto out_errno;
	sb_release(&sb);
	memset(&r, 0, sizeof(r));
	r.name = g->name;
	r.kind = g->kind;
	r.profile = g->profile;
	r.disks = g->disks;
	r.cpus = g->cpus;
	r.memory_mb = g->memory_mb;
	r.state = (char *)rig_state_name(g->state);
	if (db_rig_put(db, &r, err, errlen) ||
	    db_rig_set_token(db, g->name, g->token_hash)) {
		if (!err[0])
			snprintf(err, errlen, "cannot record rig '%s'", g->name);
		return -1;
	}
	return 0;
out_errno:
	snprintf(err, errlen, "cannot create '%s': %s", sb.len ? sb.buf :
		 g->dir, strerror(errno));
	sb_release(&sb);
	return -1;
}

int rigmgr_start(struct klabd *d, char *err, size_t errlen)
{
	struct db *db = klabd_db_get(d, err, errlen);
	size_t i;
	int n;

	pthread_mutex_init(&d->mgr_lock, NULL);
	pthread_cond_init(&d->mgr_cond, NULL);
	if (!db)
		return -1;
	n = db_job_requeue_stale(db);
	if (n > 0)
		fprintf(stderr, "klabd: %d unfinished jobs back in the queue\n",
			n);
	for (i = 0; i < d->cfg.n; i++) {
		const char *sec = d->cfg.v[i].section;
		struct rig *g;

		if (strncmp(sec, "rig ", 4) || rigmgr_find(d, sec + 4))
			continue;
		err[0] = '\0';
		g = rig_from_config(d, sec, err, errlen);
		if (err[0] || rig_register(d, db, g, err, errlen)) {
			rig_destroy(g);
			klabd_db_put(d, db);
			return -1;
		}
		d->rigs = realloc(d->rigs, (d->nrigs + 1) * sizeof(*d->rigs));
		if (!d->rigs)
			abort();
		d->rigs[d->nrigs++] = g;
	}
	klabd_db_put(d, db);
	d->mgr_running = 1;
	if (pthread_create(&d->mgr, NULL, mgr_main, d)) {
		snprintf(err, errlen, "cannot start the rig manager");
		d->mgr_running = 0;
		return -1;
	}
	return 0;
}

void rigmgr_stop(struct klabd *d)
{
	if (!d->mgr_running)
		return;
	pthread_mutex_lock(&d->mgr_lock);
	d->mgr_running = 0;
	pthread_cond_broadcast(&d->mgr_cond);
	waiters_wake(d);
	pthread_mutex_unlock(&d->mgr_lock);
	pthread_join(d->mgr, NULL);
}

void rigmgr_free(struct klabd *d)
{
	size_t i;

	for (i = 0; i < d->nrigs; i++)
		rig_destroy(d->rigs[i]);
	free(d->rigs);
	d->rigs = NULL;
	d->nrigs = 0;
}
