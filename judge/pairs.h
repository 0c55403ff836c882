/* SPDX-License-Identifier: MIT */
/*
 * pairs: when the cells of a candidate and its baseline are tested as
 * interleaved pairs.  A comparison run queues its cells A B B A A B ...
 * on one rig; a rig whose level drifts over the hours of a run (a disk
 * filling, a host getting busier) moves both cells of a pair alike, so
 * the pair's log ratio cancels the drift that inflates the spread of
 * each side.  Pairing costs degrees of freedom (n - 1 instead of about
 * 2n - 2), and deciding it per metric from the metric's own numbers
 * would pick the test that happens to reject, so it is decided once per
 * candidate, from the page:
 *
 *  - the layout: every metric's cells are interleaved pairs (as many a
 *    side, at least 3, each pair's two runs before the next pair's);
 *  - the drift: the median, over the page's directional metrics with
 *    positive cells, of vd_pairs_f() (the spread of the pairs' levels
 *    over that of their ratios; about 1 without drift) is above
 *    CMP_PAIRS_F.
 */
#ifndef KLAB_PAIRS_H
#define KLAB_PAIRS_H

#include <stddef.h>

struct cmp_cell;
struct comparison;

#define CMP_PAIRS_F 2.0

/* Are k's cells and the baseline's b interleaved pairs (see above)? */
int cmp_pairs_interleaved(const struct cmp_cell *b, const struct cmp_cell *k);
/* Does the page test candidate k as pairs?  The cells must be made. */
int cmp_pairs_page(const struct comparison *c, size_t k);

#endif
