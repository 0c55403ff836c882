/* SPDX-License-Identifier: MIT */
/*
 * tiotext: tiobench's text report.  Formats the tiobench.<phase>.<field>
 * metrics of a result_set as the four sections tiobench.pl printed and
 * kernel developers paste into mail (Sequential Reads, Random Reads,
 * Sequential Writes, Random Writes), each a title line, two header lines, a
 * dashed rule and one row:
 *
 *   6.1.176                       512   4096    8   41.20 12.31%     0.741 ...
 *
 * The import_tiobench() parser reads it back into the same metrics, to the
 * precision printed.
 */
#ifndef KLAB_TIOTEXT_H
#define KLAB_TIOTEXT_H

#include "lib/results.h"
#include "lib/strbuf.h"
#include "lib/tiobench.h"

/* The four phases in tiobench's section order: lib/tiobench.h. */
#define TIO_NPHASES TIOBENCH_NPHASES

/*
 * Append the unit block and one section per phase that has a
 * tiobench.<phase>.rate metric in rs.  id is the Identifier column (first
 * 28 characters used in the column, longer ones pushed right).  Returns the
 * number of sections printed.
 */
int tiotext_format(struct strbuf *sb, const struct result_set *rs,
		   const char *id);

#endif
