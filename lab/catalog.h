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
#include "klabd/outcome.h"
#include "lib/strbuf.h"

struct klabd;

/* The catalog's state (its tables, the boot files' thread) into
 * d->catalog, before any thread may use it. */
void catalog_init(struct klabd *d);
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
 * Boot files (catalog_prep.c).  What a rig boots for a kernel is its
 * image and its initrd (the rig base image + the kernel's modules part).
 * They are prepared once per kernel, by the catalog's own thread: the
 * base image built (once per klabd run), the parts, the image and the
 * initrd hashed, the initrd written (copy and fsync).  No request thread
 * and no lock waits for that work: the calls below look at the table of
 * prepared files under a short lock (image_lock) and ask for what is
 * missing; when a preparation ends the thread wakes the long polls
 * (rigmgr_kick).  A kernel is prepared again when its catalog record
 * (release, image, modules part) or its files change.
 */
struct catalog_boot {
	char *release, *image, *initrd;		/* heap copies */
	char image_sha[65], initrd_sha[65];
	/* what a kexec loads: the kexec image (kexec_image.h), or the
	 * image itself when none could be made */
	char *kexec;
	char kexec_sha[65];
};

void catalog_boot_release(struct catalog_boot *b);
/*
 * Never waits: 0 when the boot files of kernel ident, as db records it
 * now, are ready; 1 while they are being prepared (asked for here if need
 * be); -1 with err set when they cannot be (no boot artifacts, or their
 * preparation failed).
 */
int catalog_boot_want(struct klabd *d, struct db *db, const char *ident,
		      char *err, size_t errlen);
/*
 * A job of ident is handed to rig: never waits.  0 with *b filled and
 * rig granted the two files (catalog_file_path), 1 while they are being
 * prepared (as catalog_boot_want), -1 with err set when they cannot be;
 * a failed preparation is reported once: the next call prepares again.
 */
int catalog_boot_offer(struct klabd *d, struct db *db, const char *ident,
		       const char *rig, struct catalog_boot *b, char *err,
		       size_t errlen);
/*
 * The same for a rig's worker (a cold boot), never a request thread: it
 * waits until the files are ready.  Release, image and initrd paths are
 * heap copies; 0, or -1 with err set (also when klabd stops meanwhile).
 */
int catalog_boot(struct klabd *d, struct db *db, const char *ident,
		 char **release, char **image, char **initrd, char *err,
		 size_t errlen);
/* Stop and join the catalog's thread (rigmgr_stop, after d->stopping is
 * set: a script under way is stopped); catalog_boot's waiters return -1
 * and nothing is prepared after.  Accepts a catalog never started. */
void catalog_stop(struct klabd *d);

/* Register path for download; sha receives its hash.  0 or -1. */
int catalog_file_register(struct klabd *d, const char *path, char sha[65]);
/*
 * Let rig download path, registered with hash sha, while it still holds
 * those bytes (its size and mtime as when hashed: a stat, no hashing).
 * 0, or -1 when path changed or was never registered with sha.
 */
int catalog_file_grant(struct klabd *d, const char *path, const char *sha,
		       const char *rig);
/*
 * Register path and let rig download it: a boot file of a job handed to
 * that rig.  The grant lasts while the file is unchanged (a new hash
 * starts with no rig).  0, or -1 when path cannot be read.
 */
int catalog_file_offer(struct klabd *d, const char *path, const char *rig,
		       char sha[65]);
/*
 * Path of the registered file sha when rig may download it (its lifetime
 * is klabd's; *o OUT_OK), else NULL with *o OUT_NOTFOUND (no file has
 * that hash) or OUT_FORBIDDEN (no job handed to rig boots it).
 */
const char *catalog_file_path(struct klabd *d, const char *sha,
			      const char *rig, enum outcome *o);
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
/* Stop the catalog's thread (catalog_stop) and free its state; accepts
 * a catalog never made. */
void catalog_release(struct klabd *d);

#endif
