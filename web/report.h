/* SPDX-License-Identifier: MIT */
/*
 * report: a comparison written out for people and programs.  The text form
 * is what kernel developers paste into mail (plain ASCII, no tabs, lines of
 * at most about 100 columns, tiobench tables exactly as tiobench.pl prints
 * them, dbench and read-latency lines as the tools print them); CSV and
 * JSON carry every number.  Shared by the compare page, the klab CLI and
 * the regression alert mails.
 */
#ifndef KLAB_WEB_REPORT_H
#define KLAB_WEB_REPORT_H

#include <jansson.h>

#include "judge/compare.h"
#include "lib/strbuf.h"

/* Lines longer than this are wrapped in the text report. */
#define REPORT_WIDTH 100

/* Append the plain-text report of c to sb. */
void report_text(struct strbuf *sb, const struct comparison *c);
/*
 * Append the CSV form: a header line, then one line per metric x kernel:
 * metric,unit,direction,kernel,baseline,n,mean,stddev,min,max,delta_pct,
 * p_value,verdict,indicative.  Absent cells have n 0 and empty numbers.
 */
void report_csv(struct strbuf *sb, const struct comparison *c);
/*
 * The JSON form (a new reference: json_decref it): kernels, baseline, rig,
 * suite, options, metrics with one cell per kernel (values included), and
 * the verdict summary.  Never NULL (allocation failure aborts).
 */
json_t *report_json(const struct comparison *c);

#endif
