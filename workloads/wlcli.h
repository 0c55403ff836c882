/* SPDX-License-Identifier: MIT */
/*
 * wlcli: what every workload program's command line and output share:
 * checked number parsing (sizes with k/m/g suffixes), splitting a command
 * string into argv (double quotes group words), the kernel identifier
 * (uname -r unless --id says otherwise) and writing a result_set as a
 * klab-results/1 document to stdout or a file.
 */
#ifndef KLAB_WLCLI_H
#define KLAB_WLCLI_H

#include <stdint.h>
#include <stdio.h>

#include "lib/results.h"

/*
 * Parse s as an unsigned integer for option opt; with sizes set, accept a
 * k/m/g/t suffix (powers of 1024).  Range [min, max].  On error prints
 * "invalid value 'x' for --opt: ..." to stderr and returns -1.
 */
int wl_parse_u64(const char *opt, const char *s, int sizes, uint64_t min,
		 uint64_t max, uint64_t *out);
int wl_parse_uint(const char *opt, const char *s, unsigned min, unsigned max,
		  unsigned *out);
int wl_parse_double(const char *opt, const char *s, double min, double max,
		    double *out);

/*
 * Split s into words: blanks separate, "..." groups (\" and \\ escape
 * inside).  Returns a NULL-terminated vector (free with wl_argv_free), or
 * NULL on an unterminated quote or an empty command, with a message in
 * err.
 */
char **wl_argv_split(const char *s, char *err, size_t errlen);
void wl_argv_free(char **argv);
size_t wl_argv_count(char *const *argv);

struct hist;

/* Add "<prefix>.<field>" to rs (kernel NULL: rs->kernel). */
void wl_result(struct result_set *rs, const char *prefix, const char *field,
	       const char *unit, double value, enum metric_dir dir);
/*
 * Add latency percentiles of h (nanoseconds divided by div, in unit):
 * <prefix>.lat_p50, lat_p99, lat_p99_9, and with all set also lat_p90 and
 * lat_p99_99.
 */
void wl_result_pcts(struct result_set *rs, const char *prefix,
		    const struct hist *h, double div, const char *unit, int all);

/* uname -r into buf ("unknown" if uname fails). */
void wl_kernel_id(char *buf, size_t len);

/*
 * Write rs as JSON (one document, newline-terminated) to path, or stdout
 * when path is NULL or "-".  Sets rs->incomplete and rs->error from the
 * run's stop reason first.  Returns 0 or -1 (message on stderr).
 */
int wl_output_json(struct result_set *rs, const char *path);

#endif
