// SPDX-License-Identifier: MIT
/*
 * Boot files prepared off the request threads (catalog.h, "Boot files").
 * One thread, started with the first request for a kernel's files, works
 * a table of kernels: the rig base image built (kernels/mkinitramfs.sh,
 * up to 900 s, once per klabd run), the parts, the image and the initrd
 * hashed, the initrd written (copy and fsync); one kernel at a time, as
 * image builds always were.  The table is under image_lock
 * (catalog_int.h), held only to read or change an entry: never across a
 * script, a hash or a write, and never with another lock (cat_lock, the
 * hashes' table, and mgr_lock, which the thread takes to wake the long
 * polls, are taken without it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/catalog.h"
#include "lab/catalog_int.h"
#include "lab/kexec_image.h"
#include "klabd/klabd.h"
#include "lab/rig.h"
#include "lib/alloc.h"
#include "lib/proc.h"

enum prep_state {
	PREP_WANTED,		/* for the thread to take */
	PREP_WORKING,		/* the thread's, outside the lock */
	PREP_READY,
	PREP_FAILED,
};

/* One kernel's boot files. */
struct cat_boot {
	struct cat_boot *next;
	char *ident;
	char *rec[3];		/* the record they are for: release, image,
				 * modules part ("" none) */
	enum prep_state state;
	struct catalog_boot files;	/* PREP_READY */
	char err[300];			/* PREP_FAILED */
};

struct cat_prep {
	pthread_t thread;
	pthread_cond_t work;	/* an entry wanted, or stop */
	pthread_cond_t done;	/* an entry ended, or stop */
	struct cat_boot *head;	/* oldest first */
	int stop;
	int waiting;		/* callers of catalog_boot in the wait */
};

void catalog_boot_release(struct catalog_boot *b)
{
	free(b->release);
	free(b->image);
	free(b->initrd);
	free(b->kexec);
	memset(b, 0, sizeof(*b));
}

static void boot_free(struct cat_boot *e)
{
	size_t i;

	free(e->ident);
	for (i = 0; i < 3; i++)
		free(e->rec[i]);
	catalog_boot_release(&e->files);
	free(e);
}

/* The rig base image, built once per klabd run from the rig binaries;
 * the thread's alone. */
static const char *base_image(struct klabd *d, char *err, size_t errlen)
{
	struct catalog *c = d->catalog;
	static const char *const progs[] = { "klab-agent", "tiotest", "rio",
					     "iops", "klab-run" };
	struct strbuf out = STRBUF_INIT, suites = STRBUF_INIT;
	char paths[5][1024];
	const char *args[9];
	size_t i;

	if (c->base_image)
		return c->base_image;
	args[0] = "base";
	for (i = 0; i < 5; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", d->rig_bin_dir,
			 progs[i]);
		args[i + 1] = paths[i];
	}
	sb_init(&suites);
	sb_addf(&suites, "%s/workloads/suites", d->top_dir);
	args[6] = suites.buf;
	args[7] = NULL;
	sb_init(&out);
	if (catalog_script(d, "mkinitramfs.sh", args, &out, err, errlen) == 0)
		c->base_image = strndup(out.buf, strcspn(out.buf, "\n"));
	sb_release(&out);
	sb_release(&suites);
	return c->base_image;
}

/* Concatenate a and b into path unless it exists.  0 or -1. */
static int concat_files(const char *a, const char *b, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = -1;

	if (access(path, R_OK) == 0)
		return 0;
	sb_init(&sb);
	if (!sb_read_file(&sb, a) && !(b && *b && sb_read_file(&sb, b)))
		rc = sb_write_file(&sb, path);
	sb_release(&sb);
	return rc;
}

/*
 * What a kexec into ident loads: its kexec image, or, when none can be
 * made (an image that is no bzImage, a compression without its tool),
 * the image itself, said once in klabd's log.
 */
static void boot_kexec(struct klabd *d, const char *ident,
		       struct catalog_boot *f)
{
	char err[300];

	f->kexec = kexec_image_make(d, f->image, f->image_sha, err,
				    sizeof(err));
	if (f->kexec && !catalog_file_register(d, f->kexec, f->kexec_sha))
		return;
	if (f->kexec)
		snprintf(err, sizeof(err), "cannot read '%s'", f->kexec);
	fprintf(stderr, "klabd: catalog: '%s' has no kexec image, a kexec "
		"loads its bzImage: %s\n", ident, err);
	free(f->kexec);
	f->kexec = xstrdup(f->image);
	memcpy(f->kexec_sha, f->image_sha, 65);
}

/*
 * The work, in the thread without a lock: the files of kernel ident from
 * its record (release, image, modules part) into *f.  0 or -1 with err.
 */
static int boot_prepare(struct klabd *d, const char *ident,
			char *const rec[3], struct catalog_boot *f,
			char *err, size_t errlen)
{
	struct strbuf path = STRBUF_INIT;
	char sa[65], sm[65];
	const char *base = base_image(d, err, errlen);

	memset(f, 0, sizeof(*f));
	if (!base)
		return -1;
	sb_init(&path);
	sb_addf(&path, "%s/initrd", d->data_dir);
	mkdir(path.buf, 0755);
	/* the hashes name the image; known ones are reused (a 38 MB base
	 * hashed at every job hand-out held the lab to a few jobs a
	 * second: docs/PERFORMANCE-LOG.md, "Load, the profile and the
	 * limit") */
	if (catalog_file_register(d, base, sa) ||
	    (*rec[2] && catalog_file_register(d, rec[2], sm))) {
		snprintf(err, errlen, "cannot read the rig image parts of '%s'",
			 ident);
		goto out_fail;
	}
	sb_addf(&path, "/%.16s-%.16s.cpio.gz", sa, *rec[2] ? sm : "none");
	if (concat_files(base, rec[2], path.buf)) {
		snprintf(err, errlen, "cannot write '%s': %s", path.buf,
			 strerror(errno));
		goto out_fail;
	}
	if (catalog_file_register(d, rec[1], f->image_sha) ||
	    catalog_file_register(d, path.buf, f->initrd_sha)) {
		snprintf(err, errlen, "cannot read the boot files of '%s'",
			 ident);
		goto out_fail;
	}
	f->release = xstrdup(rec[0]);
	f->image = xstrdup(rec[1]);
	f->initrd = sb_detach(&path, NULL);
	boot_kexec(d, ident, f);
	return 0;
out_fail:
	sb_release(&path);
	return -1;
}

/* The oldest entry wanted, or NULL; lock held. */
static struct cat_boot *prep_next(struct cat_prep *p)
{
	struct cat_boot *e;

	for (e = p->head; e; e = e->next)
		if (e->state == PREP_WANTED)
			return e;
	return NULL;
}

/* Prepare e (taken under the lock, PREP_WORKING): lock dropped around
 * the work, held again on return. */
static void prep_one(struct klabd *d, struct cat_prep *p, struct cat_boot *e)
{
	struct catalog *c = d->catalog;
	char *ident = xstrdup(e->ident), *rec[3], err[300] = "";
	struct catalog_boot f;
	long long t0 = proc_now_ms();
	size_t i;
	int rc;

	for (i = 0; i < 3; i++)
		rec[i] = xstrdup(e->rec[i]);
	pthread_mutex_unlock(&c->image_lock);
	fprintf(stderr, "klabd: catalog: preparing the boot files of '%s'\n",
		ident);
	rc = boot_prepare(d, ident, rec, &f, err, sizeof(err));
	if (rc)
		fprintf(stderr, "klabd: catalog: boot files of '%s': %s\n",
			ident, err);
	else
		fprintf(stderr, "klabd: catalog: boot files of '%s' ready "
			"in %.1f s\n", ident, (proc_now_ms() - t0) / 1000.0);
	pthread_mutex_lock(&c->image_lock);
	/* e is still in the table: only a failed entry is ever removed
	 * before catalog_stop, and e is neither */
	e->state = rc ? PREP_FAILED : PREP_READY;
	e->files = f;
	snprintf(e->err, sizeof(e->err), "%s", err);
	pthread_cond_broadcast(&p->done);
	pthread_mutex_unlock(&c->image_lock);
	/* the polls parked for these files (rigmgr_next_job) run again */
	rigmgr_kick(d);
	free(ident);
	for (i = 0; i < 3; i++)
		free(rec[i]);
	pthread_mutex_lock(&c->image_lock);
}

static void *prep_main(void *arg)
{
	struct klabd *d = arg;
	struct catalog *c = d->catalog;
	struct cat_prep *p;
	struct cat_boot *e;

	pthread_mutex_lock(&c->image_lock);
	p = c->prep;
	while (!p->stop) {
		e = prep_next(p);
		if (!e) {
			pthread_cond_wait(&p->work, &c->image_lock);
			continue;
		}
		e->state = PREP_WORKING;
		prep_one(d, p, e);
	}
	pthread_mutex_unlock(&c->image_lock);
	return NULL;
}

/* The table, its thread started with the first request; lock held.
 * NULL with err set when klabd stops or the thread cannot start. */
static struct cat_prep *prep_get(struct klabd *d, char *err, size_t errlen)
{
	struct catalog *c = d->catalog;
	struct cat_prep *p = c->prep;

	if (p && !p->stop)
		return p;
	if (p || __atomic_load_n(&d->stopping, __ATOMIC_RELAXED)) {
		snprintf(err, errlen, "klabd is stopping");
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	c->prep = p;
	if (proc_thread_start(&p->thread, prep_main, d, "catalog thread",
			      err, errlen)) {
		pthread_cond_destroy(&p->work);
		pthread_cond_destroy(&p->done);
		free(p);
		c->prep = NULL;
		return NULL;
	}
	return p;
}

/* 1 when e was prepared (or is being) for the record rec. */
static int boot_same(const struct cat_boot *e, const struct db_kernel_boot *b)
{
	return !strcmp(e->rec[0], b->release) && !strcmp(e->rec[1], b->image) &&
	       !strcmp(e->rec[2], b->modules);
}

/* Want e prepared (again) for record b; lock held. */
static void boot_want(struct cat_prep *p, struct cat_boot *e,
		      const struct db_kernel_boot *b)
{
	alloc_str_set(&e->rec[0], b->release);
	alloc_str_set(&e->rec[1], b->image);
	alloc_str_set(&e->rec[2], b->modules);
	catalog_boot_release(&e->files);
	e->err[0] = '\0';
	e->state = PREP_WANTED;
	pthread_cond_signal(&p->work);
}

/* The entry of ident, or NULL; lock held. */
static struct cat_boot *boot_find(struct cat_prep *p, const char *ident)
{
	struct cat_boot *e;

	for (e = p->head; e; e = e->next)
		if (!strcmp(e->ident, ident))
			return e;
	return NULL;
}

/*
 * The entry of ident for record b, asked for when it is missing or was
 * made for another record (one being prepared is left to end first: the
 * next look asks again); lock held.
 */
static struct cat_boot *boot_ask(struct cat_prep *p, const char *ident,
				 const struct db_kernel_boot *b)
{
	struct cat_boot *e, **tail = &p->head;

	for (e = p->head; e; e = e->next) {
		if (!strcmp(e->ident, ident))
			break;
		tail = &e->next;
	}
	if (!e) {
		e = xcalloc(1, sizeof(*e));
		e->ident = xstrdup(ident);
		*tail = e;
		boot_want(p, e, b);
	} else if (e->state != PREP_WORKING && !boot_same(e, b)) {
		boot_want(p, e, b);
	}
	return e;
}

/* Take e out of the table and free it (a failure reported); lock held,
 * e not PREP_WORKING. */
static void boot_drop(struct cat_prep *p, struct cat_boot *e)
{
	struct cat_boot **pp;

	for (pp = &p->head; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	boot_free(e);
}

/* The catalog's boot record of ident; 0, or -1 with err set. */
static int boot_record(struct db *db, const char *ident,
		       struct db_kernel_boot *b, char *err, size_t errlen)
{
	if (!db_kernel_get_boot(db, ident, b))
		return 0;
	snprintf(err, errlen, "kernel '%s' has no bootable image in the "
		 "catalog", ident);
	return -1;
}

/* What the table says of ident now: 0 ready, 1 not yet, -1 failed (err
 * set, e dropped when consume); lock held. */
static int boot_look(struct klabd *d, const char *ident,
		     const struct db_kernel_boot *b, int consume,
		     struct cat_boot **out, char *err, size_t errlen)
{
	struct cat_prep *p = prep_get(d, err, errlen);
	struct cat_boot *e;

	*out = NULL;
	if (!p)
		return -1;
	e = boot_ask(p, ident, b);
	if (!boot_same(e, b) || e->state == PREP_WANTED ||
	    e->state == PREP_WORKING)
		return 1;
	if (e->state == PREP_READY) {
		*out = e;
		return 0;
	}
	snprintf(err, errlen, "%s", e->err);
	if (consume)
		boot_drop(p, e);
	return -1;
}

int catalog_boot_want(struct klabd *d, struct db *db, const char *ident,
		      char *err, size_t errlen)
{
	struct catalog *c = d->catalog;
	struct db_kernel_boot b;
	struct cat_boot *e;
	int rc;

	if (boot_record(db, ident, &b, err, errlen))
		return -1;
	pthread_mutex_lock(&c->image_lock);
	rc = boot_look(d, ident, &b, 0, &e, err, errlen);
	pthread_mutex_unlock(&c->image_lock);
	db_kernel_boot_release(&b);
	return rc;
}

/* A copy of e's files; lock held. */
static void boot_copy(const struct cat_boot *e, struct catalog_boot *f)
{
	f->release = xstrdup(e->files.release);
	f->image = xstrdup(e->files.image);
	f->initrd = xstrdup(e->files.initrd);
	f->kexec = xstrdup(e->files.kexec);
	memcpy(f->image_sha, e->files.image_sha, 65);
	memcpy(f->initrd_sha, e->files.initrd_sha, 65);
	memcpy(f->kexec_sha, e->files.kexec_sha, 65);
}

int catalog_boot_offer(struct klabd *d, struct db *db, const char *ident,
		       const char *rig, struct catalog_boot *f, char *err,
		       size_t errlen)
{
	struct catalog *c = d->catalog;
	struct db_kernel_boot b;
	struct cat_boot *e;
	int rc;

	memset(f, 0, sizeof(*f));
	if (boot_record(db, ident, &b, err, errlen))
		return -1;
	pthread_mutex_lock(&c->image_lock);
	rc = boot_look(d, ident, &b, 1, &e, err, errlen);
	if (!rc)
		boot_copy(e, f);
	pthread_mutex_unlock(&c->image_lock);
	/* this rig, and no other, may now download the two a kexec loads;
	 * a file changed since it was hashed is prepared again */
	if (!rc && (catalog_file_grant(d, f->kexec, f->kexec_sha, rig) ||
		    catalog_file_grant(d, f->initrd, f->initrd_sha, rig))) {
		catalog_boot_release(f);
		pthread_mutex_lock(&c->image_lock);
		e = c->prep && !c->prep->stop ? boot_find(c->prep, ident) :
			NULL;
		if (e && e->state == PREP_READY)
			boot_want(c->prep, e, &b);
		pthread_mutex_unlock(&c->image_lock);
		rc = 1;
	}
	db_kernel_boot_release(&b);
	return rc;
}

int catalog_boot(struct klabd *d, struct db *db, const char *ident,
		 char **release, char **image, char **initrd, char *err,
		 size_t errlen)
{
	struct catalog *c = d->catalog;
	struct db_kernel_boot b;
	struct cat_prep *p;
	struct cat_boot *e;
	int rc;

	*release = *image = *initrd = NULL;
	if (boot_record(db, ident, &b, err, errlen))
		return -1;
	pthread_mutex_lock(&c->image_lock);
	for (;;) {
		rc = boot_look(d, ident, &b, 1, &e, err, errlen);
		if (rc <= 0)
			break;
		/* the lock is free while the thread works */
		p = c->prep;
		p->waiting++;
		pthread_cond_wait(&p->done, &c->image_lock);
		p->waiting--;
		if (p->stop && !p->waiting)	/* catalog_stop waits */
			pthread_cond_broadcast(&p->done);
	}
	if (!rc) {
		*release = xstrdup(e->files.release);
		*image = xstrdup(e->files.image);
		*initrd = xstrdup(e->files.initrd);
	}
	pthread_mutex_unlock(&c->image_lock);
	db_kernel_boot_release(&b);
	return rc;
}

void catalog_stop(struct klabd *d)
{
	struct catalog *c = d->catalog;
	struct cat_prep *p;
	struct cat_boot *e;

	pthread_mutex_lock(&c->image_lock);
	p = c->prep;
	if (!p || p->stop) {	/* none, or another caller stops it */
		pthread_mutex_unlock(&c->image_lock);
		return;
	}
	p->stop = 1;
	pthread_cond_signal(&p->work);
	pthread_cond_broadcast(&p->done);
	while (p->waiting)
		pthread_cond_wait(&p->done, &c->image_lock);
	pthread_mutex_unlock(&c->image_lock);
	pthread_join(p->thread, NULL);
	pthread_mutex_lock(&c->image_lock);
	c->prep = NULL;
	pthread_mutex_unlock(&c->image_lock);
	while (p->head) {
		e = p->head;
		p->head = e->next;
		boot_free(e);
	}
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	free(p);
}
