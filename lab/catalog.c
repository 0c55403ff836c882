// SPDX-License-Identifier: MIT
/*
 * The kernel catalog and the rig images.  See catalog.h.  The heavy work is
 * done by the scripts in kernels/; this file runs them, reads their
 * key=value records and keeps the database in step.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab/catalog.h"
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

/* The rig base image, built once per klabd run from the rig binaries. */
static const char *base_image(struct klabd *d, char *err, size_t errlen)
{
	static const char *const progs[] = { "klab-agent", "tiotest", "rio",
					     "iops", "klab-run" };
	struct strbuf out = STRBUF_INIT, suites = STRBUF_INIT;
	char paths[5][1024];
	const char *args[9];
	size_t i;

	if (d->base_image)
		return d->base_image;
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
		d->base_image = strndup(out.buf, strcspn(out.buf, "\n"));
	sb_release(&out);
	sb_release(&suites);
	return d->base_image;
}

/* Concatenate a and b into path unless it exists.  0 or -1. */
static int concat_files(const char *a, const char *b, const char *path)
{
	struct strbuf sb = STRBUF_INIT, tmp = STRBUF_INIT;
	int fd, rc = -1;

	if (access(path, R_OK) == 0)
		return 0;
	sb_init(&sb);
	sb_init(&tmp);
	if (sb_read_file(&sb, a) || (b && *b && sb_read_file(&sb, b)))
		goto out;
	sb_addf(&tmp, "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto out;
	if (write(fd, sb.buf, sb.len) == (ssize_t)sb.len && !fsync(fd))
		rc = 0;
	close(fd);
	if (!rc)
		rc = rename(tmp.buf, path);
	if (rc)
		unlink(tmp.buf);
out:
	sb_release(&sb);
	sb_release(&tmp);
	return rc;
}

int catalog_boot(struct klabd *d, struct db *db, const char *ident,
		 char **release, char **image, char **initrd, char *err,
		 size_t errlen)
{
	struct db_kernel_boot b;
	struct strbuf path = STRBUF_INIT;
	char sa[65], sb_[65];
	const char *base;
	int rc = -1;

	*release = *image = *initrd = NULL;
	if (db_kernel_get_boot(db, ident, &b)) {
		snprintf(err, errlen, "kernel '%s' has no bootable image in "
			 "the catalog", ident);
		return -1;
	}
	/* image_lock serialises the image builds only: whoever waits on it
	 * needs the image; downloads (cat_lock) never wait for a build */
	pthread_mutex_lock(&d->image_lock);
	base = base_image(d, err, errlen);
	if (!base)
		goto out;
	sb_init(&path);
	sb_addf(&path, "%s/initrd", d->data_dir);
	mkdir(path.buf, 0755);
	/* the hashes name the image; known ones are reused (a 38 MB base
	 * hashed at every job hand-out, under image_lock, held the lab
	 * to a few jobs a second: docs/PERFORMANCE-LOG.md, "Load, the
	 * profile and the limit") */
	if (catalog_file_register(d, base, sa) ||
	    (*b.modules && catalog_file_register(d, b.modules, sb_))) {
		snprintf(err, errlen, "cannot read the rig image parts of '%s'",
			 ident);
		goto out;
	}
	sb_addf(&path, "/%.16s-%.16s.cpio.gz", sa, *b.modules ? sb_ : "none");
	if (concat_files(base, b.modules, path.buf)) {
		snprintf(err, errlen, "cannot write '%s': %s", path.buf,
			 strerror(errno));
		goto out;
	}
	*release = strdup(b.release);
	*image = strdup(b.image);
	*initrd = sb_detach(&path, NULL);
	rc = 0;
out:
	pthread_mutex_unlock(&d->image_lock);
	sb_release(&path);
	db_kernel_boot_release(&b);
	return rc;
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

int catalog_file_register(struct klabd *d, const char *path, char sha[65])
{
	struct stat st;
	size_t i;

	if (stat(path, &st))
		return -1;
	/* hashing 50 MB takes seconds under TCG load: reuse a known hash
	 * while the file is unchanged (same size and mtime) */
	pthread_mutex_lock(&d->cat_lock);
	for (i = 0; i < d->nfiles; i++)
		if (!strcmp(d->files[i].path, path) &&
		    d->files[i].size == st.st_size &&
		    d->files[i].mtime == st.st_mtime) {
			memcpy(sha, d->files[i].sha, 65);
			pthread_mutex_unlock(&d->cat_lock);
			return 0;
		}
	pthread_mutex_unlock(&d->cat_lock);
	if (sha256_file_hex(path, sha))
		return -1;
	/* one entry a path: two paths may hold the same bytes (a base's
	 * and a patched kernel's initramfs), and each must be found above
	 * next time (one entry a hash made the second path's every hand-out
	 * hash its file again) */
	pthread_mutex_lock(&d->cat_lock);
	for (i = 0; i < d->nfiles; i++)
		if (!strcmp(d->files[i].path, path))
			break;
	if (i == d->nfiles) {
		d->files = realloc(d->files, (d->nfiles + 1) *
				   sizeof(*d->files));
		if (!d->files)
			abort();
		memset(&d->files[i], 0, sizeof(d->files[i]));
		d->files[i].path = strdup(path);
		if (!d->files[i].path)
			abort();
		d->nfiles++;
	}
	if (strcmp(d->files[i].sha, sha))	/* new bytes: no rig yet */
		file_rigs_clear(&d->files[i]);
	memcpy(d->files[i].sha, sha, 65);
	d->files[i].size = st.st_size;
	d->files[i].mtime = st.st_mtime;
	pthread_mutex_unlock(&d->cat_lock);
	return 0;
}

int catalog_file_offer(struct klabd *d, const char *path, const char *rig,
		       char sha[65])
{
	struct cat_file *f;
	size_t i;
	int rc = -1;

	if (catalog_file_register(d, path, sha))
		return -1;
	pthread_mutex_lock(&d->cat_lock);
	for (i = 0; i < d->nfiles; i++) {
		f = &d->files[i];
		/* changed since it was hashed above: -1, never a grant of
		 * bytes nobody looked at */
		if (strcmp(f->path, path) || strcmp(f->sha, sha))
			continue;
		if (!file_rig_allowed(f, rig)) {
			ALLOC_GROW(f->rigs, f->nrigs, f->arigs);
			f->rigs[f->nrigs++] = xstrdup(rig);
		}
		rc = 0;
	}
	pthread_mutex_unlock(&d->cat_lock);
	return rc;
}

const char *catalog_file_path(struct klabd *d, const char *sha,
			      const char *rig, int *status)
{
	const char *p = NULL;
	size_t i;

	*status = 404;
	pthread_mutex_lock(&d->cat_lock);
	for (i = 0; i < d->nfiles && !p; i++) {
		if (strcmp(d->files[i].sha, sha))
			continue;
		*status = 403;
		if (rig && file_rig_allowed(&d->files[i], rig))
			p = d->files[i].path;
	}
	pthread_mutex_unlock(&d->cat_lock);
	if (p)
		*status = 200;
	return p;
}

void catalog_release(struct klabd *d)
{
	size_t i;

	for (i = 0; i < d->nfiles; i++) {
		free(d->files[i].path);
		file_rigs_clear(&d->files[i]);
	}
	free(d->files);
	free(d->base_image);
	d->files = NULL;
	d->base_image = NULL;
	d->nfiles = 0;
}
