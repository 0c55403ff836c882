/* SPDX-License-Identifier: MIT */
/*
 * bisect_pick: the step logic of a bisection, pure (no database, no HTTP).
 * The candidates are ordered 0 .. n: 0 the known good end, n the known
 * bad end, each between one more patch, commit or release.  Given the
 * verdicts so far (good, bad or skip per index), bisect_next() says what
 * to test next: the untested index nearest the middle of the range still
 * open (between the last good below the first bad and that first bad),
 * the lower one on a tie, so a skipped step makes it try a neighbour as
 * `git bisect skip` does; or that it is finished, with the first bad
 * index, or "cannot tell" when every index left in the range was
 * skipped.  flow/bisect.c drives it with the database.
 */
#ifndef KLAB_JUDGE_BISECT_PICK_H
#define KLAB_JUDGE_BISECT_PICK_H

#include <stddef.h>

enum bis_mark {
	BIS_UNTESTED = 0,
	BIS_GOOD,
	BIS_BAD,
	BIS_SKIP,
};

enum bis_state {
	BIS_TEST = 0,	/* test *next */
	BIS_FOUND,	/* first bad is *bad */
	BIS_CANNOT,	/* the first bad is one of good+1 .. bad: only
			 * skipped steps between them */
};

struct bis_next {
	enum bis_state state;
	size_t next;		/* BIS_TEST: the index to test */
	size_t good, bad;	/* the open range: last good, first bad */
	size_t left;		/* indices still untested in the range */
	size_t steps_left;	/* estimate: ceil(log2(left + 1)) */
};

/*
 * Next step over marks[0 .. n] (marks[0] is taken as good and marks[n]
 * as bad whatever they hold).  The first bad is the lowest index marked
 * bad; the last good the highest index below it marked good.  n >= 1.
 */
void bisect_next(const enum bis_mark *marks, size_t n, struct bis_next *out);
/* "good", "bad", "skip", "untested"; and the reverse (-1: none). */
const char *bisect_mark_name(enum bis_mark m);
int bisect_mark_parse(const char *s);
/* Steps an ideal bisection of n candidates takes: ceil(log2(n)). */
size_t bisect_ideal_steps(size_t n);

/*
 * Which end a step looks like on one metric the ends showed worse: ends
 * is the bad end's change against the good end (percent, its sign the
 * way the metric got worse), lo .. hi the step's confidence interval of
 * its own change against the good end (percent).  BIS_GOOD when the
 * whole interval lies on the good end's side of half the ends' change,
 * BIS_BAD when it lies wholly past that half, BIS_UNTESTED while it
 * straddles it (or a number is missing).  A step need not be shown
 * "same" as the good end to be told apart from the bad one: the
 * regression's size is known, and it is large next to the noise.
 */
enum bis_mark bisect_side(double ends, double lo, double hi);

#endif
