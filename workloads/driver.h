/* SPDX-License-Identifier: MIT */
/*
 * driver: run one workload command of a suite and turn its output into
 * results.  Our own programs (tiotest, rio, iops) write klab-results/1
 * JSON; fio runs with --output-format=json+ and dbench's text is parsed by
 * the importers of lib/import.h.  Raw stdout and stderr are kept as
 * RAWDIR/TAG.out and RAWDIR/TAG.err.  The command runs in its own process
 * group under a timeout; a SIGTERM/SIGINT to the runner stops it and keeps
 * what it measured.
 */
#ifndef KLAB_DRIVER_H
#define KLAB_DRIVER_H

#include <stddef.h>

#include "lib/results.h"
#include "workloads/child.h"

struct driver_env {
	const char *bindir;	/* where our programs live; NULL: PATH */
	const char *rawdir;	/* raw outputs go here */
	const char *workdir;	/* a directory disk for dbench, or NULL */
	const char *id;		/* kernel identifier */
	double timeout;		/* seconds, 0: none */
};

/*
 * Run cmd (placeholders already expanded) as step tag and append its
 * results to out (also partial ones).  Returns 0 when the step ran to the
 * end and its output parsed, else -1 with the reason in err
 * ("tiotest: disk full on '/dev/sdb' ...", "fio: timeout after 60 s").
 */
int driver_run(const char *cmd, const struct driver_env *env, const char *tag,
	       struct result_set *out, char *err, size_t errlen);

/*
 * Start cmd as a background load (stdout/stderr to RAWDIR/TAG.err).  A
 * dbench load gets a fresh directory, named in cwd (else cwd is ""):
 * remove it with iofile_rmtree() after child_stop().  Returns 0, or -1
 * with err filled in.
 */
int driver_start_background(const char *cmd, const struct driver_env *env,
			    const char *tag, struct child *c, char *cwd,
			    size_t cwdlen, char *err, size_t errlen);

/*
 * The end of a step's output for an error report: the last len - 1 bytes
 * of the regular file open as fd (from a line start when cut), trailing
 * blanks dropped; with oneline, newlines become "; " (a message line).
 * buf is "" when there is nothing.  Returns strlen(buf).
 */
size_t driver_tail_fd(int fd, char *buf, size_t len, int oneline);
/* The same for the file at path. */
size_t driver_tail(const char *path, char *buf, size_t len, int oneline);

/* How much of a load's output klab-run and rio print when it fails. */
#define DRIVER_TAIL_CAP 8192
/* How much of it goes into the one-line error message. */
#define DRIVER_TAIL_MSG 300

#endif
