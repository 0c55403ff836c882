/* SPDX-License-Identifier: MIT */
/*
 * format: what the text report (report_text.c) and the compare page
 * (page_compare.c) share so the two always agree: the shape of the
 * tiobench table (phases, columns, widths, number formats, exactly as
 * tiobench.pl prints them), which metrics have a dedicated section
 * (tiobench tables, dbench lines, read-latency lines) and how numbers,
 * deltas and p-values are written; and how a job configuration is named
 * (the bisection and submission pages and their reports).
 */
#ifndef KLAB_WEB_FORMAT_H
#define KLAB_WEB_FORMAT_H

#include <stddef.h>

#include "judge/compare.h"
#include "lib/tiobench.h"

#define TIO_NPHASES TIOBENCH_NPHASES	/* lib/tiobench.h */
#define TIO_IDENT_WIDTH 30	/* identifier column of tiobench.pl */

/* Columns in lib/tiobench.h's field order: tio_cols[c] shows
 * tiobench_fields[c]. */
enum tio_col {
	TC_FILE_SIZE, TC_BLK_SIZE, TC_THREADS, TC_RATE, TC_CPU, TC_AVG_LAT,
	TC_MAX_LAT, TC_LAT_2S, TC_LAT_10S, TC_CPU_EFF, TC_NCOLS
};

struct tio_col_spec {
	const char *head1, *head2;	/* the two header lines, for HTML */
	const char *delta_name;	/* name in delta lines: "rate", NULL: none */
	int main;		/* always named in delta lines */
};

extern const struct tio_col_spec tio_cols[TC_NCOLS];
/* The text header and rule of a tiobench table right of the identifier. */
extern const char tio_head1[], tio_head2[], tio_rule[];

/* The metric of phase x column, NULL when the comparison lacks it. */
const struct cmp_metric *fmt_tio_metric(const struct comparison *c,
					int phase, int col);
/* Does any kernel have any value in this phase? */
int fmt_tio_phase_present(const struct comparison *c, int phase);
/*
 * A value of a tiobench column as tiobench.pl writes it ("41.20",
 * "12.31%", "0.00000"), without padding.  Parameters are integers.
 */
void fmt_tio_value(char *buf, size_t len, int col, double v);
/* Is the metric shown by a dedicated section rather than the generic
 * table? (tiobench main fields, dbench line, read-latency lines) */
int fmt_metric_has_section(const char *metric);

/* A number with sensible precision: "41.20", "1811", "0.0042". */
void fmt_num(char *buf, size_t len, double v);
/* "+4.4%", "-0.3%", "0.0%"; "n/a" when the cell or baseline is absent. */
void fmt_delta(char *buf, size_t len, const struct cmp_cell *cell);
/* "p=0.003", "p<0.001" (before correction); "" when no test was run. */
void fmt_p(char *buf, size_t len, const struct cmp_cell *cell);
/* The 90% CI of the change: "[-12.1%, -8.0%]"; "" when not tested. */
void fmt_ci(char *buf, size_t len, const struct cmp_cell *cell);
/* "worse", "undecided", or why there is none ("n=1, no verdict"). */
void fmt_verdict(char *buf, size_t len, const struct cmp_cell *cell);
/* Copy s replacing control and non-ASCII bytes with '?' (for text). */
void fmt_ascii(char *buf, size_t len, const char *s);
/* A job configuration as pages and reports name it: "scale 0.05,
 * scheduler mq-deadline, cmdline \"quiet\"" (scheduler "": "default",
 * no cmdline: left out). */
void fmt_job_config(char *buf, size_t len, double scale,
		    const char *scheduler, const char *cmdline);
/* 1 when a stored job configuration is the default one (scale 1, or 0
 * before it was stored; the rig's scheduler; no kernel parameter), which
 * the submission page and report leave unsaid. */
int fmt_job_config_is_default(double scale, const char *scheduler,
			      const char *cmdline);
/* Largest cell count (runs) of kernel k over all metrics. */
size_t fmt_reps(const struct comparison *c, size_t k);

struct fmt_counts {
	size_t worse, better, same, undecided, none, headline_worse;
};
/* Verdicts of the directional cells of every non-baseline kernel. */
void fmt_count(const struct comparison *c, struct fmt_counts *n);

#endif
