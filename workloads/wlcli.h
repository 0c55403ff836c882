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

#include <getopt.h>
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
 * lat_p99_99; and h itself as the histogram of phase prefix
 * (wl_result_hist).
 */
void wl_result_pcts(struct result_set *rs, const char *prefix,
		    const struct hist *h, double div, const char *unit,
		    int all);

/*
 * Add the non-empty buckets of h to rs as the latency histogram of phase
 * (docs/RESULTS.md, "hist"), merged with one already there.
 */
void wl_result_hist(struct result_set *rs, const char *phase,
		    const struct hist *h);

/* uname -r into buf ("unknown" if uname fails). */
void wl_kernel_id(char *buf, size_t len);

/*
 * The options every measuring workload (tiotest, rio, iops) takes, with
 * the same meaning and range: --timeout SECS, --seed N, --id KERNEL,
 * -o/--out FILE and -h/--help.  A program's option table ends with
 * WL_COMMON_OPTIONS and its option handler first offers each option to
 * wl_parse_common().
 */
enum { WL_OPT_TIMEOUT = 0x100, WL_OPT_SEED, WL_OPT_ID };

struct wl_common {
	const char *out, *id;
	uint64_t seed;
	double timeout;
};

#define WL_COMMON_INIT { .seed = 1 }

#define WL_COMMON_OPTIONS \
	{ "timeout", 1, NULL, WL_OPT_TIMEOUT }, \
	{ "seed", 1, NULL, WL_OPT_SEED }, { "id", 1, NULL, WL_OPT_ID }, \
	{ "out", 1, NULL, 'o' }, { "help", 0, NULL, 'h' }, \
	{ NULL, 0, NULL, 0 }

/*
 * Parse option c (from getopt_long, argument in optarg) into cm; --help
 * prints usage to stdout and exits 0.  Returns 0 when c was a common
 * option, -1 when its value is invalid (message on stderr), 1 when c is
 * not a common option.
 */
int wl_parse_common(int c, struct wl_common *cm, void (*usage)(FILE *));

/*
 * Run getopt_long over argv with shortopts and the table lo: each option
 * goes to wl_parse_common() first, then, when it is not a common one, to
 * fn(c, ctx).  Returns 0 when every option parsed, -1 at the first that
 * did not (its message is on stderr).  Operands are left at optind.
 */
int wl_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *lo, struct wl_common *cm,
	      void (*usage)(FILE *), int (*fn)(int c, void *ctx), void *ctx);

/* The random number seed of worker i of a run seeded with seed. */
uint64_t wl_worker_seed(uint64_t seed, unsigned i);

/*
 * Start a run: install the stop signals, then initialise rs for kernel id
 * (NULL: uname -r) and result format.
 */
void wl_run_begin(struct result_set *rs, const char *id, const char *format);
/*
 * Say on stderr how prog's run ended when it did not end well: its error,
 * or, with warn_signal set, that a signal cut its results short.
 */
void wl_run_end(const char *prog, int warn_signal);

/*
 * Write rs as JSON (one document, newline-terminated) to path, or stdout
 * when path is NULL or "-".  Sets rs->incomplete and rs->error from the
 * run's stop reason first.  Returns 0 or -1 (message on stderr).
 */
int wl_output_json(struct result_set *rs, const char *path);

#endif
