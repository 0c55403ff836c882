/* SPDX-License-Identifier: MIT */
/*
 * build: the kernel builder queue of klabd (build.c), the check of a
 * request's series (build_check.c) and the API (http/api_builds.c).
 * See docs/BUILDS.md for what kernels/build-kernel.sh does.
 */
#ifndef KLAB_BUILD_H
#define KLAB_BUILD_H

#include <stddef.h>

#include "klabd/outcome.h"

struct klabd;
struct strbuf;

/* The most entries build_common_args writes. */
#define BUILD_COMMON_ARGS 20

/*
 * build_init: checks the [base NAME] sections and sandbox limits of the
 * configuration, then the queue's state (lock, condition on
 * CLOCK_MONOTONIC) and the requeueing of builds a previous klabd left
 * 'building'; before HTTP serves.  build_start: max_builds worker
 * threads, after.  build_stop (after HTTP stopped and d->stopping was
 * set, which stops a running build-kernel.sh's process group): joins
 * every worker.  build_release frees the state.  Each is safe after a
 * partial start.
 */
int build_init(struct klabd *d, char *err, size_t errlen);
int build_start(struct klabd *d, char *err, size_t errlen);
void build_stop(struct klabd *d);
void build_release(struct klabd *d);
/* The options every build-kernel.sh call gets from klabd's config
 * (--cache, --config, --must-have, --jobs, --time-limit, --mem-limit,
 * --disk-limit, --max-procs): up to BUILD_COMMON_ARGS entries into args,
 * returns how many. */
size_t build_common_args(struct klabd *d, const char **args);
/*
 * argv for build-kernel.sh: --base BASE, --patch P for each line of
 * patches (cut in place at its newlines), then the common options, every
 * one of them (none is cut), NULL-terminated, with room for
 * BUILD_ARGS_SPARE more entries before the NULL.  Heap; *n the count.
 */
#define BUILD_ARGS_SPARE 4
const char **build_args(struct klabd *d, const char *base, char *patches,
			size_t *n);
/* A patch check's time limit; how many may run at once. */
#define BUILD_CHECK_SECONDS 240
#define BUILD_CHECKS_MAX 2
/*
 * Whether a request may name its kernel ident: OUT_OK, or an outcome with
 * err.  Names of the lab's own are refused to everyone (OUT_INVALID:
 * subN-..., bisN-..., build-KEY, see lib/ident.h); an existing kernel's
 * name is refused to anyone but an operator (OUT_CONFLICT) unless a
 * build made it, when the build's publication decides (the same build
 * key may replace it).
 */
struct db;
enum outcome build_ident_check(struct klabd *d, struct db *db,
			       const char *ident, int operator, char *err,
			       size_t errlen);
/*
 * The base a request names (debian-6.1, debian-6.12, NAME of a [base NAME]
 * section with dir = PATH, NAME@COMMIT of one with git = PATH) as
 * build-kernel.sh's --base (debian-6.1, dir:PATH, git:PATH@COMMIT) added
 * to spec.  Paths in a request, unknown names: -1, err names the field.
 */
int build_base_resolve(struct klabd *d, const char *base,
		       struct strbuf *spec, char *err, size_t errlen);

/* build_check.c: a request's series, checked before anything is queued */

/* One patch of a request as sent, its strings the caller's. */
struct build_patch {
	const char *name;	/* as sent; NULL: none sent (refused) */
	const char *text;	/* NULL: none sent (refused) */
	size_t len;
};
/*
 * The n patches at p stored under DATA/patches/REQ/NN/NAME (REQ a new
 * directory of the request's own, NAME made safe), their paths
 * '\n'-joined into paths: OUT_OK, or OUT_ERROR with err and nothing left.
 */
enum outcome build_patches_store(struct klabd *d, const struct build_patch *p,
				 size_t n, struct strbuf *paths, char *err,
				 size_t errlen);
/*
 * build-kernel.sh --check of the stored paths ('\n'-joined) on the base
 * spec (build_base_resolve's), within BUILD_CHECK_SECONDS: OUT_OK when
 * every patch applies; OUT_REFUSED when one does not (err names the
 * patch, the file and the hunk), OUT_INVALID when a git base lacks the
 * commit, OUT_BUSY when BUILD_CHECKS_MAX checks run already, else
 * OUT_ERROR, each with err.  *commit: the full commit of a git base (""
 * for others; heap, the caller frees it).
 */
enum outcome build_patches_check(struct klabd *d, const char *spec,
				 const char *paths, char **commit, char *err,
				 size_t errlen);
/*
 * The whole check of a request's series: the caps and the rule of
 * lib/patchcheck.h on the n patches at p (before anything is written:
 * OUT_TOOBIG over PATCH_MAX_FILES or PATCH_MAX_BYTES, OUT_INVALID for a
 * patch without name or text, OUT_REFUSED for one the rule refuses),
 * the files stored, then build_patches_check.  OUT_OK with paths and
 * *commit (heap, the caller frees it; may be NULL on failure); else the
 * outcome with err and no file left.  OUT_REFUSED and OUT_TOOBIG are
 * the refusals of a patch, which the caller records (the audit log).
 */
enum outcome build_series_check(struct klabd *d, const char *spec,
				const struct build_patch *p, size_t n,
				struct strbuf *paths, char **commit, char *err,
				size_t errlen);
/* What the build queue stores for a request's base: a git base at the
 * commit the check found (commit ""; others as named), added to sb. */
void build_base_queued(const char *base, const char *commit,
		       struct strbuf *sb);
/* The bases a request may name, ", "-joined into sb. */
void build_base_list(struct klabd *d, struct strbuf *sb);
/* Wake a worker after a build was queued. */
void build_kick(struct klabd *d);

#endif
