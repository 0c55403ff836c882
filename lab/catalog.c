// SPDX-License-Identifier: MIT
/*
 * The kernel catalog and the table of files served to agents.  See
 * catalog.h.  The heavy work is done by the scripts in kernels/; this file
 * runs them, reads their key=value records and keeps the database in
 * step.  The boot files of a kernel are prepared by catalog_prep.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab/catalog.h"
#include "lab/catalog_int.h"
#include "klabd/klabd.h"
#include "lib/alloc.h"
#include "lib/proc.h"
#include "lib/sha256.h"

/* How long each script may run before its process group is stopped. */
static long script_timeout_ms(struct klabd *d, const char *name)
{
	long limit;

	if (!strcmp(name, "build-kernel.sh")) {
		/* its own --time-limit covers make; allow for the rest */
		if (d->build_time_limit &&
		    !parse_long(d->build_time_limit, 1, 7 * 86400, &limit))
			return (limit + 1800) * 1000L;
		return 6 * 3600 * 1000L;
	}
	if (!strcmp(name, "debian-kernels.sh"))
		return 1800 * 1000L;	/* apt downloads */
	return 900 * 1000L;
}

int catalog_script(struct klabd *d, const char *name,
		   const char *const *args, struct strbuf *out, char *err,
		   size_t errlen)
{
	return catalog_script_timed(d, name, args, script_timeout_ms(d, name),
				    out, err, errlen);
}

int catalog_script_timed(struct klabd *d, const char *name,
			 const char *const *args, long timeout_ms,
			 struct strbuf *out, char *err, size_t errlen)
{
	struct strbuf path = STRBUF_INIT, errtxt = STRBUF_INIT;
	struct proc_opts o;
	const char **argv;
	char *nl;
	size_t n = 0, i;
	int rc;

	while (args && args[n])
		n++;
	argv = xcalloc(n + 2, sizeof(*argv));	/* every argument: none cut */
	sb_init(&path);
	sb_init(&errtxt);
	sb_addf(&path, "%s/kernels/%s", d->top_dir, name);
	/* run it by its own #! line: build-kernel.sh is bash */
	argv[0] = path.buf;
	for (i = 0; i < n; i++)
		argv[i + 1] = args[i];
	argv[n + 1] = NULL;
	memset(&o, 0, sizeof(o));
	o.out = out;
	o.errout = &errtxt;
	o.timeout_ms = timeout_ms;
	o.grace_ms = 5000;
	o.cancel = &d->stopping;	/* klabd shutting down */
	rc = proc_run((char *const *)argv, &o, NULL, err, errlen);
	if (rc >= 0) {
		/* the script's last line on stderr says why it failed */
		while (errtxt.len && errtxt.buf[errtxt.len - 1] == '\n')
			errtxt.buf[--errtxt.len] = '\0';
		nl = errtxt.len ? strrchr(errtxt.buf, '\n') : NULL;
		snprintf(err, errlen, "%s", nl ? nl + 1 :
			 errtxt.len ? errtxt.buf : "");
	}
	sb_release(&errtxt);
	sb_release(&path);
	free(argv);
	return rc > 127 ? -1 : rc;
}

/* The scripts' records follow lib/config.c's key=value rules. */
char *catalog_record_get(const char *rec, const char *key)
{
	return config_record_get(rec, key);
}

int catalog_add_debian(struct klabd *d, struct db *db, const char *spec,
		       char **ident, char *err, size_t errlen)
{
	struct strbuf out = STRBUF_INIT, prov = STRBUF_INIT;
	const char *args[4];
	struct db_kernel k;
	char *pkg = NULL, *up, *ver, *vml, *root, *pv;
	int rc = -1;

	sb_init(&out);
	*ident = NULL;
	if (!strncmp(spec, "newest-", 7)) {
		args[0] = "newest";
		args[1] = spec + 7;
		args[2] = NULL;
		if (catalog_script(d, "debian-kernels.sh", args, &out, err,
				   errlen))
			goto out;
		pkg = strndup(out.buf, strcspn(out.buf, "\n"));
		sb_reset(&out);
	} else {
		pkg = strdup(spec);
	}
	args[0] = "fetch";
	args[1] = pkg;
	args[2] = NULL;
	if (catalog_script(d, "debian-kernels.sh", args, &out, err, errlen))
		goto out;
	up = catalog_record_get(out.buf, "upstream");
	ver = catalog_record_get(out.buf, "version");
	vml = catalog_record_get(out.buf, "vmlinuz");
	root = catalog_record_get(out.buf, "root");
	pv = catalog_record_get(out.buf, "package_version");
	sb_init(&prov);
	sb_addf(&prov, "debian package %s %s", pkg, pv ? pv : "");
	/* ident: the upstream version kernel developers write ("6.1.192");
	 * Debian ships some upstream versions in several ABI builds, so a
	 * second build of one version is known by its uname -r instead */
	if (*up && *ver && db_kernel_get(db, up, &k) == DB_OK) {
		if (strcmp(k.version, ver)) {
			free(up);
			up = strdup(ver);
		}
		db_kernel_release(&k);
	}
	if (*up && *ver && *vml && *root)
		rc = catalog_add_image(d, db, up, ver, vml, root, "debian",
				       prov.buf, err, errlen);
	else
		snprintf(err, errlen, "debian-kernels.sh gave an incomplete "
			 "record for '%s'", pkg);
	if (!rc)
		*ident = strdup(up);
	free(up);
	free(ver);
	free(vml);
	free(root);
	free(pv);
	sb_release(&prov);
out:
	free(pkg);
	sb_release(&out);
	return rc;
}

int catalog_add_image(struct klabd *d, struct db *db, const char *ident,
		      const char *release, const char *image,
		      const char *modroot, const char *source,
		      const char *provenance, char *err, size_t errlen)
{
	struct strbuf out = STRBUF_INIT;
	const char *args[4];
	struct db_kernel k;
	char *modpart = NULL;
	int rc;

	sb_init(&out);
	if (modroot && *modroot) {
		args[0] = "modules";
		args[1] = modroot;
		args[2] = release;
		args[3] = NULL;
		if (catalog_script(d, "mkinitramfs.sh", args, &out, err,
				   errlen)) {
			sb_release(&out);
			return -1;
		}
		modpart = strndup(out.buf, strcspn(out.buf, "\n"));
	}
	memset(&k, 0, sizeof(k));
	k.ident = (char *)ident;
	k.version = (char *)release;
	k.base = k.patch_hash = k.config_hash = "";
	k.source = (char *)source;
	k.provenance = (char *)provenance;
	rc = db_kernel_put(db, &k, err, errlen);
	if (!rc)
		rc = db_kernel_set_boot(db, ident, release, image,
					modpart ? modpart : "");
	free(modpart);
	sb_release(&out);
	return rc ? -1 : 0;
}

int catalog_available(struct klabd *d, struct strbuf *out, char *err,
		      size_t errlen)
{
	const char *args[] = { "list-available", NULL };

	return catalog_script(d, "debian-kernels.sh", args, out, err,
			      errlen) ? -1 : 0;
}

/* Forget which rigs may download f. */
static void file_rigs_clear(struct cat_file *f)
{
	size_t i;

	for (i = 0; i < f->nrigs; i++)
		free(f->rigs[i]);
	free(f->rigs);
	f->rigs = NULL;
	f->nrigs = f->arigs = 0;
}

/* 1 when rig may download f. */
static int file_rig_allowed(const struct cat_file *f, const char *rig)
{
	size_t i;

	for (i = 0; i < f->nrigs; i++)
		if (!strcmp(f->rigs[i], rig))
			return 1;
	return 0;
}

void catalog_init(struct klabd *d)
{
	struct catalog *c = xcalloc(1, sizeof(*c));

	pthread_mutex_init(&c->cat_lock, NULL);
	pthread_mutex_init(&c->image_lock, NULL);
	d->catalog = c;
}

/* The entry of path in c's table, a new one (no hash, no rig) if none;
 * lock held. */
static struct cat_file *file_entry(struct catalog *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->nfiles; i++)
		if (!strcmp(c->files[i].path, path))
			return &c->files[i];
	c->files = xrealloc(c->files, (c->nfiles + 1) * sizeof(*c->files));
	memset(&c->files[i], 0, sizeof(c->files[i]));
	c->files[i].path = xstrdup(path);
	c->nfiles++;
	return &c->files[i];
}

int catalog_file_register(struct klabd *d, const char *path, char sha[65])
{
	struct catalog *c = d->catalog;
	struct cat_file *f;
	struct stat st;
	size_t i;

	if (stat(path, &st))
		return -1;
	/* hashing 50 MB takes seconds under TCG load: reuse a known hash
	 * while the file is unchanged (same size and mtime) */
	pthread_mutex_lock(&c->cat_lock);
	for (i = 0; i < c->nfiles; i++)
		if (!strcmp(c->files[i].path, path) &&
		    c->files[i].size == st.st_size &&
		    c->files[i].mtime == st.st_mtime) {
			memcpy(sha, c->files[i].sha, 65);
			pthread_mutex_unlock(&c->cat_lock);
			return 0;
		}
	pthread_mutex_unlock(&c->cat_lock);
	if (sha256_file_hex(path, sha))
		return -1;
	/* one entry a path: two paths may hold the same bytes (a base's
	 * and a patched kernel's initramfs), and each must be found above
	 * next time (one entry a hash made the second path's every hand-out
	 * hash its file again) */
	pthread_mutex_lock(&c->cat_lock);
	f = file_entry(c, path);
	if (strcmp(f->sha, sha))	/* new bytes: no rig yet */
		file_rigs_clear(f);
	memcpy(f->sha, sha, 65);
	f->size = st.st_size;
	f->mtime = st.st_mtime;
	pthread_mutex_unlock(&c->cat_lock);
	return 0;
}

int catalog_file_grant(struct klabd *d, const char *path, const char *sha,
		       const char *rig)
{
	struct catalog *c = d->catalog;
	struct cat_file *f;
	struct stat st;
	size_t i;
	int rc = -1;

	if (stat(path, &st))
		return -1;
	pthread_mutex_lock(&c->cat_lock);
	for (i = 0; i < c->nfiles; i++) {
		f = &c->files[i];
		/* changed since it was hashed: -1, never a grant of bytes
		 * nobody looked at */
		if (strcmp(f->path, path) || strcmp(f->sha, sha) ||
		    f->size != st.st_size || f->mtime != st.st_mtime)
			continue;
		if (!file_rig_allowed(f, rig)) {
			ALLOC_GROW(f->rigs, f->nrigs, f->arigs);
			f->rigs[f->nrigs++] = xstrdup(rig);
		}
		rc = 0;
	}
	pthread_mutex_unlock(&c->cat_lock);
	return rc;
}

int catalog_file_offer(struct klabd *d, const char *path, const char *rig,
		       char sha[65])
{
	if (catalog_file_register(d, path, sha))
		return -1;
	return catalog_file_grant(d, path, sha, rig);
}

const char *catalog_file_path(struct klabd *d, const char *sha,
			      const char *rig, enum outcome *o)
{
	struct catalog *c = d->catalog;
	const char *p = NULL;
	size_t i;

	*o = OUT_NOTFOUND;
	pthread_mutex_lock(&c->cat_lock);
	for (i = 0; i < c->nfiles && !p; i++) {
		if (strcmp(c->files[i].sha, sha))
			continue;
		*o = OUT_FORBIDDEN;
		if (rig && file_rig_allowed(&c->files[i], rig))
			p = c->files[i].path;
	}
	pthread_mutex_unlock(&c->cat_lock);
	if (p)
		*o = OUT_OK;
	return p;
}

void catalog_release(struct klabd *d)
{
	struct catalog *c = d->catalog;
	size_t i;

	if (!c)
		return;
	catalog_stop(d);
	for (i = 0; i < c->nfiles; i++) {
		free(c->files[i].path);
		file_rigs_clear(&c->files[i]);
	}
	free(c->files);
	free(c->base_image);
	pthread_mutex_destroy(&c->image_lock);
	pthread_mutex_destroy(&c->cat_lock);
	free(c);
	d->catalog = NULL;
}
