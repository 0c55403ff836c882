/* SPDX-License-Identifier: MIT */
/*
 * build: the kernel builder queue of klabd (build.c) and its API
 * (api_builds.c).  See docs/BUILDS.md for what kernels/build-kernel.sh does.
 */
#ifndef KLAB_BUILD_H
#define KLAB_BUILD_H

#include <stddef.h>

struct klabd;

/*
 * build_init: the queue's state (lock, condition on CLOCK_MONOTONIC) and
 * the requeueing of builds a previous klabd left 'building'; before HTTP
 * serves.  build_start: max_builds worker threads, after.  build_stop
 * (after HTTP stopped and d->stopping was set, which stops a running
 * build-kernel.sh's process group): joins every worker.  build_release
 * frees the state.  Each is safe after a partial start.
 */
int build_init(struct klabd *d, char *err, size_t errlen);
int build_start(struct klabd *d, char *err, size_t errlen);
void build_stop(struct klabd *d);
void build_release(struct klabd *d);
/* The options every build-kernel.sh call gets from klabd's config
 * (--cache, --config, --must-have, --jobs, --time-limit): up to 10
 * entries into args, returns how many. */
size_t build_common_args(struct klabd *d, const char **args);
/*
 * argv for build-kernel.sh: --base BASE, --patch P for each line of
 * patches (cut in place at its newlines), then the common options; at
 * most max entries, NULL-terminated.  Returns the count.
 */
size_t build_args(struct klabd *d, const char *base, char *patches,
		  const char **args, size_t max);
/* Wake a worker after a build was queued. */
void build_kick(struct klabd *d);

#endif
