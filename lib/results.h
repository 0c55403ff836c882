/* SPDX-License-Identifier: MIT */
/*
 * results: the one results schema of klab.  Every importer (tiobench tables,
 * dbench lines, read-latency lines, fio JSON), every workload program and the
 * agent produce a result_set; the database stores it; the comparison pages
 * read it back.  On the wire it is the JSON document "klab-results/1"
 * described in docs/RESULTS.md.
 *
 * A result is one number: kernel x metric, with its unit and the direction
 * in which it is better.  Metric names are dotted paths whose first part is
 * the workload family ("tiobench.seq_read.rate", "dbench.throughput",
 * "readlat.lat_avg", "fio.randread.read.iops", "iops.total").
 */
#ifndef KLAB_RESULTS_H
#define KLAB_RESULTS_H

#include <stddef.h>

#include "lathist.h"

struct json_t;

enum metric_dir {
	DIR_NONE = 0,	/* a parameter (file size, threads): no better/worse */
	DIR_HIGHER = 1,	/* throughput, IOPS, CPU efficiency */
	DIR_LOWER = 2,	/* latency, CPU%, share of slow requests */
};

struct result {
	char *kernel;	/* kernel identifier as users write it */
	char *metric;
	char *unit;	/* "MB/s", "ms", "%", "IOPS", "" */
	double value;
	enum metric_dir dir;
};

/* A phase's latency histogram (lib/lathist.h), as numbers: read from
 * JSON once, stored by db/ as they are (db_hist.c). */
struct result_hist {
	char *phase;	/* a metric prefix: "tiobench.seq_read", "iops" */
	struct lathist h;
};

#define RESULT_MAX_HISTS 64

/* One step of the time a run took ("steps": [{"step", "rep", "secs"}],
 * docs/RESULTS.md): where a cell's time went, not a measurement. */
struct result_step {
	char *name;	/* an identifier: "warmup", "seq_read", "bg_stop" */
	int rep;	/* the repetition it was part of; 0: none */
	double secs;	/* wall time, >= 0 */
};

#define RESULT_MAX_STEPS 1000

struct result_set {
	char *kernel;	/* default kernel for results that name none */
	char *rig;	/* NULL: the importer's caller decides */
	char *suite;
	char *format;	/* which importer produced it: "tiobench", ... */
	int incomplete;	/* run stopped early: numbers are partial */
	char *error;	/* run-level error ("disk full on /dev/sdb"), or NULL */
	struct result *v;
	size_t n, alloc;
	struct result_hist *hist;	/* of the kernel rs->kernel */
	size_t nhist;
	struct result_step *steps;	/* in the order they ran */
	size_t nsteps, steps_alloc;
};

/* Where and why an import failed; line is 1-based, 0 when not known. */
struct import_error {
	int line;
	char field[64];
	char msg[256];
};

void result_set_init(struct result_set *rs);
void result_set_release(struct result_set *rs);
/* Copy the strings; kernel NULL means rs->kernel.  Returns the new result. */
struct result *result_set_add(struct result_set *rs, const char *kernel,
			      const char *metric, const char *unit,
			      double value, enum metric_dir dir);
/* Replace a string field (rs->kernel, ...) with a copy of s (may be NULL). */
void result_set_setstr(char **field, const char *s);

/* A rate: direction higher and a unit per second ("MB/s") or "IOPS".
 * Rates are averaged by their harmonic mean (as mmtests does), by
 * klab-run over repetitions and by the judge over a cell's values. */
int result_is_rate(const char *unit, enum metric_dir dir);
const char *metric_dir_name(enum metric_dir d);	/* "higher", "lower", "none" */
int metric_dir_parse(const char *s, enum metric_dir *out);	/* 0 or -1 */

/*
 * JSON round trip of the "klab-results/1" document.  to_json returns a new
 * reference (json_decref it).  from_json returns 0, or -1 with *err filled
 * in (field names the JSON member at fault); rs is left empty on error.
 */
struct json_t *result_set_to_json(const struct result_set *rs);
int result_set_from_json(struct result_set *rs, const struct json_t *doc,
			 struct import_error *err);

/* Add h to the histogram of phase (merging with one already there). */
void result_set_hist_merge(struct result_set *rs, const char *phase,
			   const struct lathist *h);
/* dst gets every histogram of src, merged. */
void result_set_hist_take(struct result_set *dst, const struct result_set *src);
void result_set_hist_release(struct result_set *rs);
/* The "hist" member: {phase: lathist}, or NULL when rs has none. */
struct json_t *result_set_hist_to_json(const struct result_set *rs);
/* Read the "hist" member v (NULL: none) into rs; 0 or -1 with err. */
int result_set_hist_from_json(struct result_set *rs, const struct json_t *v,
			      struct import_error *err);

/* Append a step (name copied; secs below 0 count as 0). */
void result_set_step_add(struct result_set *rs, const char *name, int rep,
			 double secs);
/* dst gets src's steps appended, each of repetition 0 as rep. */
void result_set_steps_take(struct result_set *dst,
			   const struct result_set *src, int rep);
/* The sum of rs's steps' seconds. */
double result_set_steps_secs(const struct result_set *rs);
void result_set_steps_release(struct result_set *rs);
/* The "steps" member, or NULL when rs has none. */
struct json_t *result_set_steps_to_json(const struct result_set *rs);
/* Read the "steps" member v (NULL: none) into rs; 0 or -1 with err. */
int result_set_steps_from_json(struct result_set *rs, const struct json_t *v,
			       struct import_error *err);

/* Fill err; returns -1 so parsers can `return import_fail(...)`. */
int import_fail(struct import_error *err, int line, const char *field,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "line 12: field 'Rate': not a number 'x1'" into buf. */
void import_error_format(const struct import_error *err, char *buf,
			 size_t len);

#endif
