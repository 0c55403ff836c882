/* SPDX-License-Identifier: MIT */
/*
 * catalog: where kernels come from and how a rig boots them.  Debian's
 * prebuilt kernels are fetched with kernels/debian-kernels.sh; every kernel
 * boots with the rig base image (kernels/mkinitramfs.sh base: busybox,
 * klab-agent, kexec, fio, dbench, klab's workloads) plus its own modules
 * part.  Files handed to agents are served by sha256, each only to the
 * rigs handed a job that boots it.
 */
#ifndef KLAB_CATALOG_H
#define KLAB_CATALOG_H

#include "db/jobs.h"
#include "lib/strbuf.h"

struct klabd;

struct cat_file {
	char sha[65];
	char *path;
	long long size;		/* of the file when hashed */
	long long mtime;
	char **rigs;		/* the rigs that may download it */
	size_t nrigs, arigs;
};

/*
 * Fetch a Debian kernel: spec is a package name or "newest-6.1" /
 * "newest-6.12".  Registers it (ident = upstream version, "6.1.192") with
 * its boot artifacts.  *ident is a heap copy.  0, or -1 with err set.
 */
int catalog_add_debian(struct klabd *d, struct db *db, const char *spec,
		       char **ident, char *err, size_t errlen);
/* Register a kernel image (built or local) with its modules root (may be
 * NULL: no modules part, everything built in). */
int catalog_add_image(struct klabd *d, struct db *db, const char *ident,
		      const char *release, const char *image,
		      const char *modroot, const char *source,
		      const char *provenance, char *err, size_t errlen);
/* `debian-kernels.sh list-available` output into out. */
int catalog_available(struct klabd *d, struct strbuf *out, char *err,
		      size_t errlen);
/*
 * What a rig boots for kernel ident: release, image path and the full
 * initrd (base image + the kernel's modules part), built as needed.
 */
int catalog_boot(struct klabd *d, struct db *db, const char *ident,
		 char **release, char **image, char **initrd, char *err,
		 size_t errlen);
/* Register path for download; sha receives its hash.  0 or -1. */
int catalog_file_register(struct klabd *d, const char *path, char sha[65]);
/*
 * Register path and let rig download it: a boot file of a job handed to
 * that rig.  The grant lasts while the file is unchanged (a new hash
 * starts with no rig).  0, or -1 when path cannot be read.
 */
int catalog_file_offer(struct klabd *d, const char *path, const char *rig,
		       char sha[65]);
/*
 * Path of the registered file sha when rig may download it (its lifetime
 * is klabd's), else NULL with *status 404 (no file has that hash) or 403
 * (no job handed to rig boots it).
 */
const char *catalog_file_path(struct klabd *d, const char *sha,
			      const char *rig, int *status);
/* Value of key in the key=value record the kernels/ scripts print (heap
 * copy; "" when absent). */
char *catalog_record_get(const char *rec, const char *key);
/* Run a script of klab's tree (kernels/NAME) with args; stdout into out.
 * Returns its exit status (-1 when it could not run); stderr into err. */
int catalog_script(struct klabd *d, const char *name,
		   const char *const *args, struct strbuf *out, char *err,
		   size_t errlen);
/* The same, stopped after timeout_ms (catalog_script: the script's own). */
int catalog_script_timed(struct klabd *d, const char *name,
			 const char *const *args, long timeout_ms,
			 struct strbuf *out, char *err, size_t errlen);
void catalog_release(struct klabd *d);

#endif
